package vars

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inlet-db/inlet/internal/tzone"
)

// Error kinds; the wire maps them to MySQL 1193 and 1231/1238.
var (
	ErrUnknown    = errors.New("unknown system variable")
	ErrWrongValue = errors.New("wrong value for variable")
	ErrReadOnly   = errors.New("read-only variable")
)

func unknownErr(name string) error {
	return errorf(ErrUnknown, "Unknown system variable '%s'", name)
}

// Registry holds the variable definitions and the GLOBAL values.
type Registry struct {
	defs  map[string]*Def
	names []string

	mu     sync.RWMutex
	global map[string]string
}

// NewRegistry builds a registry from defs (usually Defs(...)).
func NewRegistry(defs []Def) (*Registry, error) {
	r := &Registry{defs: make(map[string]*Def, len(defs)), global: make(map[string]string, len(defs))}
	for i := range defs {
		d := &defs[i]
		n := strings.ToLower(d.Name)
		if _, dup := r.defs[n]; dup {
			return nil, fmt.Errorf("vars: variable %q defined twice", n)
		}
		v, err := normalize(d, d.Default)
		if err != nil {
			return nil, fmt.Errorf("vars: default of %s: %w", n, err)
		}
		d.Name = n
		r.defs[n] = d
		r.names = append(r.names, n)
		r.global[n] = v
	}
	slices.Sort(r.names)
	return r, nil
}

// Def returns the definition of a variable.
func (r *Registry) Def(name string) (*Def, error) {
	d, ok := r.defs[strings.ToLower(name)]
	if !ok {
		return nil, unknownErr(name)
	}
	return d, nil
}

// Default returns the normalised default value of a variable.
func (r *Registry) Default(name string) (string, error) {
	d, err := r.Def(name)
	if err != nil {
		return "", err
	}
	return normalize(d, d.Default)
}

// Names returns all variable names in order.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Global returns the GLOBAL value of a variable.
func (r *Registry) Global(name string) (string, error) {
	d, err := r.Def(name)
	if err != nil {
		return "", err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.global[d.Name], nil
}

// SetGlobal validates and sets the GLOBAL value; sessions opened later start
// from it.
func (r *Registry) SetGlobal(name, value string) error {
	d, err := r.Def(name)
	if err != nil {
		return err
	}
	if d.ReadOnly {
		return errorf(ErrReadOnly, "Variable '%s' is a read only variable", d.Name)
	}
	v, err := normalize(d, value)
	if err != nil {
		return err
	}
	if d.Kind == Int && d.GlobalMin > 0 {
		if n, _ := strconv.ParseInt(v, 10, 64); n < d.GlobalMin {
			return errorf(ErrWrongValue, "Variable '%s' can't be set to the value of '%s' (SET GLOBAL needs at least %d: less would fail every statement; SET SESSION takes it)", d.Name, value, d.GlobalMin)
		}
	}
	r.mu.Lock()
	r.global[d.Name] = v
	r.mu.Unlock()
	return nil
}

// NewSession starts a session whose values are the current GLOBAL values.
func (r *Registry) NewSession() *Session {
	r.mu.RLock()
	defer r.mu.RUnlock()
	vals := make(map[string]string, len(r.global))
	for k, v := range r.global {
		vals[k] = v
	}
	return &Session{reg: r, vals: vals}
}

// Session holds one connection's values.
type Session struct {
	reg  *Registry
	vals map[string]string
}

// Registry returns the registry the session belongs to.
func (s *Session) Registry() *Registry { return s.reg }

// Get returns the session value of a variable.
func (s *Session) Get(name string) (string, error) {
	d, err := s.reg.Def(name)
	if err != nil {
		return "", err
	}
	return s.vals[d.Name], nil
}

// Bool returns a boolean variable; unknown names read as false, so callers
// only use names from Defs.
func (s *Session) Bool(name string) bool {
	v, _ := s.Get(name)
	return v == "true"
}

// Int returns an integer variable (0 when unknown).
func (s *Session) Int(name string) int64 {
	v, _ := s.Get(name)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// Set validates and sets a session value.
func (s *Session) Set(name, value string) error {
	d, err := s.reg.Def(name)
	if err != nil {
		return err
	}
	if d.ReadOnly {
		return errorf(ErrReadOnly, "Variable '%s' is a read only variable", d.Name)
	}
	if d.GlobalOnly {
		return errorf(ErrReadOnly, "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL", d.Name)
	}
	v, err := normalize(d, value)
	if err != nil {
		return err
	}
	s.vals[d.Name] = v
	return nil
}

// WithHints returns a copy of the session with SET_VAR values applied, for
// one statement. Every hint is validated; the first bad one is the error.
func (s *Session) WithHints(hints map[string]string) (*Session, error) {
	if len(hints) == 0 {
		return s, nil
	}
	c := &Session{reg: s.reg, vals: make(map[string]string, len(s.vals))}
	for k, v := range s.vals {
		c.vals[k] = v
	}
	keys := make([]string, 0, len(hints))
	for k := range hints {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := c.Set(k, hints[k]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Snapshot returns all session values by name.
func (s *Session) Snapshot() map[string]string {
	out := make(map[string]string, len(s.vals))
	for k, v := range s.vals {
		out[k] = v
	}
	return out
}

// Like returns the names matching a SQL LIKE pattern (case-insensitive), in
// order; an empty pattern matches all.
func (r *Registry) Like(pattern string) []string {
	if pattern == "" {
		return r.Names()
	}
	var out []string
	for _, n := range r.names {
		if MatchLike(pattern, n) {
			out = append(out, n)
		}
	}
	return out
}

// MatchLike reports whether s matches the SQL LIKE pattern p (% and _, with
// backslash escapes), case-insensitively.
func MatchLike(p, s string) bool {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '%':
			b.WriteByte('*')
		case '_':
			b.WriteByte('?')
		case '*', '?', '[', ']':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteByte('\\')
				b.WriteByte(p[i])
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteByte(c)
		}
	}
	// path.Match treats '/' specially; replace it by a byte that cannot occur
	// in either operand after lowering.
	pat := strings.ReplaceAll(strings.ToLower(b.String()), "/", "\x00")
	ok, err := path.Match(pat, strings.ReplaceAll(strings.ToLower(s), "/", "\x00"))
	return err == nil && ok
}

func normalize(d *Def, value string) (string, error) {
	bad := func() error {
		return errorf(ErrWrongValue, "Variable '%s' can't be set to the value of '%s'", d.Name, value)
	}
	v := strings.TrimSpace(value)
	switch d.Kind {
	case Bool:
		switch strings.ToLower(v) {
		case "true", "1", "on":
			return "true", nil
		case "false", "0", "off":
			return "false", nil
		}
		return "", bad()
	case Int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil && d.Bytes {
			n, err = parseDataVolume(v)
		}
		if err != nil && d.Bytes {
			return "", errorf(ErrWrongValue, "Incorrect argument type to variable '%s': '%s' is not a data volume (bytes, or a number with a unit K, M, G, T, P, optionally followed by B: 8G, 512MB)", d.Name, value)
		}
		if err != nil {
			return "", errorf(ErrWrongValue, "Incorrect argument type to variable '%s': '%s' is not an integer", d.Name, value)
		}
		if n < d.Min || n > d.Max {
			return "", errorf(ErrWrongValue, "Variable '%s' can't be set to the value of '%s' (allowed range %d..%d)", d.Name, value, d.Min, d.Max)
		}
		return strconv.FormatInt(n, 10), nil
	case Enum:
		for _, a := range d.Values {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		quoted := make([]string, len(d.Values))
		for i, a := range d.Values {
			quoted[i] = "'" + a + "'"
		}
		// MySQL's wording first (clients match on it), then Doris's, which
		// names the session variable and what it accepts.
		return "", errorf(ErrWrongValue, "Variable '%s' can't be set to the value of '%s': invalid value for session variable '%s' (allowed: %s)", d.Name, value, d.Name, strings.Join(quoted, ", "))
	default:
		// A String variable with known spellings folds them (as an Enum
		// would) and keeps anything else as typed: its reader checks it.
		for _, a := range d.Values {
			if strings.EqualFold(v, a) {
				return a, nil
			}
		}
		if d.Check != nil {
			if err := d.Check(v); err != nil {
				return "", errorf(ErrWrongValue, "Variable '%s' can't be set to the value of '%s': %v", d.Name, value, err)
			}
		}
		return v, nil
	}
}

// volumeUnits are the multipliers Doris's data-volume parser accepts
// (ParseUtil.analyzeDataVolume): binary powers, unit letters in any case,
// written right after the digits.
var volumeUnits = map[string]int64{
	"B": 1, "K": 1 << 10, "KB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
	"G": 1 << 30, "GB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "P": 1 << 50, "PB": 1 << 50,
}

// parseDataVolume reads "16G", "512mb", "100B": a positive integer and an
// optional unit, as Doris does for exec_mem_limit.
func parseDataVolume(v string) (int64, error) {
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, errors.New("not a data volume")
	}
	n, err := strconv.ParseInt(v[:i], 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("not a positive data volume")
	}
	mul, ok := volumeUnits[strings.ToUpper(v[i:])]
	if !ok {
		return 0, errors.New("unknown unit")
	}
	if n > maxInt/mul {
		return 0, errors.New("data volume out of range")
	}
	return n * mul, nil
}

func checkTimeZone(v string) error {
	if strings.EqualFold(v, "SYSTEM") || strings.EqualFold(v, "UTC") {
		return nil
	}
	if _, err := ParseOffset(v); err == nil {
		return nil
	}
	if _, err := time.LoadLocation(v); err != nil {
		return errors.New("unknown time zone")
	}
	return nil
}

// ParseOffset parses a "+08:00" style time zone offset into seconds.
func ParseOffset(v string) (int, error) { return tzone.ParseOffset(v) }

// Location resolves a time_zone value.
func Location(v string) (*time.Location, error) { return tzone.Location(v) }

func checkCharset(v string) error {
	for _, c := range []string{"utf8mb4", "utf8", "utf8mb3", "latin1", "binary", "ascii"} {
		if strings.EqualFold(v, c) {
			return nil
		}
	}
	return errors.New("unsupported character set")
}

func checkCharsetOrNull(v string) error {
	if v == "" || strings.EqualFold(v, "NULL") {
		return nil
	}
	return checkCharset(v)
}

// kindError carries an error kind without repeating it in the text users
// see; errors.Is still finds the kind.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// checkRFMode accepts Doris's runtime filter modes.
func checkRFMode(v string) error {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "OFF", "LOCAL", "GLOBAL":
		return nil
	}
	return errors.New("must be OFF, LOCAL or GLOBAL")
}

// checkRFTypes accepts a comma-separated list of Doris's runtime filter
// types.
func checkRFTypes(v string) error {
	for _, t := range strings.Split(v, ",") {
		switch strings.ToUpper(strings.TrimSpace(t)) {
		case "", "IN", "BLOOM_FILTER", "MIN_MAX", "IN_OR_BLOOM_FILTER":
		default:
			return errors.New("unknown runtime filter type " + strings.TrimSpace(t))
		}
	}
	return nil
}
