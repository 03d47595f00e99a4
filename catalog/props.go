package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/internal/redact"
)

// MaskedValue replaces secret property values wherever properties are shown,
// as Doris prints them.
const MaskedValue = "*XXX"

// secretWords: a property whose name contains one of these (any case) holds
// a secret. Fluss carries the SASL password inside
// client.security.sasl.jaas.config, hence "jaas"; "credential" covers
// *.credentials and *.credentials.provider files and strings.
var secretWords = []string{"password", "passwd", "pwd", "secret", "key", "token", "credential", "jaas", "private"}

// IsSecret reports whether a property holds a secret by its name: the name
// contains password, passwd, pwd, secret, key, token, credential, jaas or
// private (case-insensitive). Over-masking a harmless "key" property is the
// price of never printing a credential. Values can hold secrets under other
// names too; MaskValue looks at both.
func IsSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// MaskValue returns the value of property name as it may be shown: MaskedValue
// when the name says it is secret or the value embeds a password assignment
// (a JAAS line such as `password="…"` under any name); otherwise v with the
// password of any URI in it (scheme://user:password@host) replaced by
// MaskedValue, and unchanged when there is none.
func MaskValue(name, v string) string {
	if IsSecret(name) || embedsPassword(v) {
		return MaskedValue
	}
	return maskURIPasswords(v)
}

// embedsPassword reports a "password=" / "passwd=" / "secret=" style
// assignment inside a value (spaces and quotes around = allowed).
func embedsPassword(v string) bool {
	l := strings.ToLower(v)
	for _, w := range []string{"password", "passwd", "secret"} {
		for i := 0; ; {
			k := strings.Index(l[i:], w)
			if k < 0 {
				break
			}
			rest := strings.TrimLeft(l[i+k+len(w):], " \t\"'")
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":") {
				return true
			}
			i += k + len(w)
		}
	}
	return false
}

// maskURIPasswords replaces the password of every scheme://user:password@
// authority in v.
func maskURIPasswords(v string) string {
	return redact.URIPasswords(v)
}

// MaskProperties returns a copy of props with every value replaced by
// MaskValue(name, value): secrets masked, the rest unchanged.
func MaskProperties(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = MaskValue(k, v)
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
	m := MaskValue(name, v)
	if m == MaskedValue {
		return m
	}
	return "'" + m + "'"
}
