package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// MaskedValue replaces secret property values wherever properties are shown,
// as Doris prints them.
const MaskedValue = "*XXX"

// IsSecret reports whether a property holds a secret: its name contains
// password, secret, key or token (case-insensitive). Over-masking a harmless
// "key" property is the price of never printing a credential.
func IsSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "secret", "key", "token"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// MaskProperties returns a copy of props with secret values replaced by
// MaskedValue.
func MaskProperties(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		if IsSecret(k) {
			v = MaskedValue
		}
		out[k] = v
	}
	return out
}

// SortedKeys returns the keys of props in order, for stable output.
func SortedKeys(props map[string]string) []string {
	return slices.Sorted(maps.Keys(props))
}

// Props reads typed values from a property map, naming the property in every
// error. The zero value is not usable; use NewProps.
type Props struct {
	m map[string]string
}

// NewProps wraps a property map.
func NewProps(m map[string]string) Props { return Props{m: m} }

// Required returns the value of a required property.
func (p Props) Required(name string) (string, error) {
	v, ok := p.m[name]
	if !ok || strings.TrimSpace(v) == "" {
		return "", Errorf(ErrInvalidProperty, "missing required property '%s'", name)
	}
	return v, nil
}

// String returns the property or def when absent.
func (p Props) String(name, def string) string {
	if v, ok := p.m[name]; ok {
		return v
	}
	return def
}

// Bool parses a true/false property.
func (p Props) Bool(name string, def bool) (bool, error) {
	v, ok := p.m[name]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, Errorf(ErrInvalidProperty, "property '%s' must be true or false, got %s", name, quoteUnlessSecret(name, v))
}

// Int parses an integer property and checks it lies in [min, max].
func (p Props) Int(name string, def, min, max int64) (int64, error) {
	v, ok := p.m[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, Errorf(ErrInvalidProperty, "property '%s' must be an integer, got %s", name, quoteUnlessSecret(name, v))
	}
	if n < min || n > max {
		return 0, Errorf(ErrInvalidProperty, "property '%s' must be between %d and %d, got %d", name, min, max, n)
	}
	return n, nil
}

// Enum returns the property, which must be one of allowed (case-insensitive;
// the allowed spelling is returned).
func (p Props) Enum(name, def string, allowed ...string) (string, error) {
	v, ok := p.m[name]
	if !ok {
		return def, nil
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(v), a) {
			return a, nil
		}
	}
	return "", Errorf(ErrInvalidProperty, "property '%s' must be one of %s, got %s", name, strings.Join(allowed, ", "), quoteUnlessSecret(name, v))
}

// Unknown returns the property names not accepted by known; a catalog type
// that passes unknown properties through (fluss.*) does not call it.
func (p Props) Unknown(known func(name string) bool) []string {
	var out []string
	for _, k := range SortedKeys(p.m) {
		if !known(k) {
			out = append(out, k)
		}
	}
	return out
}

func quoteUnlessSecret(name, v string) string {
	if IsSecret(name) {
		return MaskedValue
	}
	return "'" + v + "'"
}
