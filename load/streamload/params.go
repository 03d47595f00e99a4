package streamload

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrBadHeader is a header with a value Stream Load cannot use.
var ErrBadHeader = errors.New("invalid header value")

// Format is the body's format.
type Format int

const (
	CSV Format = iota
	JSON
)

// Params are a load's options, read from its HTTP headers (names as Doris
// spells them; HTTP makes them case-insensitive).
type Params struct {
	Label           string
	Format          Format
	StripOuterArray bool
	ReadJSONByLine  bool
	// JSONPaths, when set, pick the source columns out of each JSON object
	// ($.a.b), in order; the columns header then names them.
	JSONPaths       [][]string
	Columns         string // raw header; parsed against the table by plan
	Where           string
	MaxFilterRatio  float64
	ColumnSeparator []byte
	LineDelimiter   []byte
	Enclose         byte // 0 = none
	Escape          byte // 0 = none
	TrimDoubleQuote bool
	Timeout         time.Duration
	StrictMode      bool
	PartialColumns  bool
}

// DefaultTimeout is Doris's stream_load_default_timeout_second.
const DefaultTimeout = 600 * time.Second

// maxLabelLen is Doris's label length limit.
const maxLabelLen = 128

// newLabel returns a random UUID (version 4) in its usual text form, the
// label Doris generates for a load sent without one.
func newLabel() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// ParseParams reads and checks every Stream Load header of h.
func ParseParams(h http.Header) (Params, error) {
	p := Params{ColumnSeparator: []byte{'\t'}, LineDelimiter: []byte{'\n'}, Timeout: DefaultTimeout}
	bad := func(name, v, want string) error {
		return fmt.Errorf("%w: header %s: %q: %s", ErrBadHeader, name, v, want)
	}
	get := func(name string) (string, bool) {
		vs := h.Values(name)
		if len(vs) == 0 {
			return "", false
		}
		return strings.TrimSpace(vs[len(vs)-1]), true
	}
	boolean := func(name string, into *bool) error {
		v, ok := get(name)
		if !ok || v == "" {
			return nil
		}
		switch strings.ToLower(v) {
		case "true":
			*into = true
		case "false":
			*into = false
		default:
			return bad(name, v, "want true or false")
		}
		return nil
	}
	if v, ok := get("label"); ok {
		if len(v) > maxLabelLen {
			return p, bad("label", v[:16]+"…", fmt.Sprintf("longer than %d characters", maxLabelLen))
		}
		for _, r := range v {
			if !(r == '-' || r == '_' || r == ':' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return p, bad("label", v, "only letters, digits, '-', '_', ':' and '.' are allowed")
			}
		}
		p.Label = v
	}
	if v, ok := get("format"); ok && v != "" {
		switch strings.ToLower(v) {
		case "csv":
			p.Format = CSV
		case "json":
			p.Format = JSON
		default:
			return p, bad("format", v, "supported formats are csv and json")
		}
	}
	for _, b := range []struct {
		name string
		into *bool
	}{{"strip_outer_array", &p.StripOuterArray}, {"read_json_by_line", &p.ReadJSONByLine},
		{"trim_double_quotes", &p.TrimDoubleQuote}, {"strict_mode", &p.StrictMode}, {"partial_columns", &p.PartialColumns}} {
		if err := boolean(b.name, b.into); err != nil {
			return p, err
		}
	}
	if v, ok := get("jsonpaths"); ok && v != "" {
		paths, err := parseJSONPaths(v)
		if err != nil {
			return p, bad("jsonpaths", v, err.Error())
		}
		p.JSONPaths = paths
	}
	p.Columns, _ = get("columns")
	p.Where, _ = get("where")
	if v, ok := get("max_filter_ratio"); ok && v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return p, bad("max_filter_ratio", v, "want a number between 0 and 1")
		}
		p.MaxFilterRatio = f
	}
	for _, d := range []struct {
		name string
		into *[]byte
	}{{"column_separator", &p.ColumnSeparator}, {"line_delimiter", &p.LineDelimiter}} {
		v, ok := h.Values(d.name), false
		if len(v) > 0 {
			ok = true
		}
		if !ok {
			continue
		}
		raw := v[len(v)-1] // a separator may be blank: no trimming
		b, err := parseSeparator(raw)
		if err != nil {
			return p, bad(d.name, raw, err.Error())
		}
		*d.into = b
	}
	if bytesContain(p.ColumnSeparator, p.LineDelimiter) || bytesContain(p.LineDelimiter, p.ColumnSeparator) {
		return p, fmt.Errorf("%w: column_separator %q and line_delimiter %q overlap", ErrBadHeader, p.ColumnSeparator, p.LineDelimiter)
	}
	for _, c := range []struct {
		name string
		into *byte
	}{{"enclose", &p.Enclose}, {"escape", &p.Escape}} {
		v, ok := get(c.name)
		if !ok || v == "" {
			continue
		}
		b, err := parseSeparator(v)
		if err != nil || len(b) != 1 {
			return p, bad(c.name, v, "want a single byte")
		}
		*c.into = b[0]
	}
	if p.Enclose != 0 && p.Enclose == p.Escape {
		return p, fmt.Errorf("%w: enclose and escape are both %q", ErrBadHeader, p.Enclose)
	}
	if v, ok := get("timeout"); ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > 259200 {
			return p, bad("timeout", v, "want seconds between 1 and 259200")
		}
		p.Timeout = time.Duration(n) * time.Second
	}
	return p, nil
}

func bytesContain(a, b []byte) bool {
	return len(b) > 0 && strings.Contains(string(a), string(b))
}

// parseSeparator reads a separator header: `\xNN…` is hex (one byte per
// two digits, Doris's form for invisible bytes), `\t` `\n` `\r` `\\` are
// the usual escapes, anything else is taken as written. At most 16 bytes.
func parseSeparator(v string) ([]byte, error) {
	if v == "" {
		return nil, errors.New("empty")
	}
	var out []byte
	if len(v) > 2 && (v[:2] == `\x` || v[:2] == `\X`) {
		b, err := hex.DecodeString(v[2:])
		if err != nil || len(b) == 0 {
			return nil, errors.New(`\x must be followed by pairs of hex digits`)
		}
		out = b
	} else {
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c == '\\' && i+1 < len(v) {
				switch v[i+1] {
				case 't':
					c = '\t'
				case 'n':
					c = '\n'
				case 'r':
					c = '\r'
				case '\\':
					c = '\\'
				default:
					out = append(out, c)
					continue
				}
				i++
			}
			out = append(out, c)
		}
	}
	if len(out) > 16 {
		return nil, errors.New("longer than 16 bytes")
	}
	return out, nil
}

// parseJSONPaths reads `["$.a", "$.b.c"]` into key paths.
func parseJSONPaths(v string) ([][]string, error) {
	var list []string
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, errors.New(`want a JSON array of paths like ["$.id", "$.user.name"]`)
	}
	if len(list) == 0 {
		return nil, errors.New("empty list")
	}
	out := make([][]string, len(list))
	for i, s := range list {
		rest, ok := strings.CutPrefix(s, "$")
		if !ok {
			return nil, fmt.Errorf("path %q does not start with $", s)
		}
		if rest == "" {
			return nil, fmt.Errorf("path %q names no key", s)
		}
		parts := strings.Split(strings.TrimPrefix(rest, "."), ".")
		for _, p := range parts {
			if p == "" {
				return nil, fmt.Errorf("path %q has an empty key", s)
			}
		}
		out[i] = parts
	}
	return out, nil
}
