package streamload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader turns a JSON body into rows: a sequence of top-level values
// separated by white space (one per line with read_json_by_line), each an
// object (one row) or, with strip_outer_array, an array of objects. Keys
// map to source columns by name (case-insensitively), or jsonpaths pick
// the values. A scalar becomes its text (strings unquoted and unescaped),
// an object or array its JSON text, null and a missing key NULL.
type jsonReader struct {
	b       *buffer
	strip   bool
	byLine  bool
	keys    map[string]int
	paths   [][]string
	ncols   int
	inArray bool
	comma   bool // inside an array: an element was read, ',' or ']' is next

	vals    [][]byte
	nulls   []bool
	scratch []byte
	raw     []byte
	src     []string
	order   []int // column of the n-th key of the last object (-1 unknown)
}

const maxJSONDepth = 512

func newJSONReader(r io.Reader, p *Params, src []string, maxRow int) *jsonReader {
	j := &jsonReader{b: newBuffer(r, maxRow), strip: p.StripOuterArray, byLine: p.ReadJSONByLine,
		paths: p.JSONPaths, ncols: len(src), src: src}
	if j.paths == nil {
		j.keys = make(map[string]int, 2*len(src))
		for i, s := range src {
			j.keys[s] = i
			j.keys[strings.ToLower(s)] = i
		}
	}
	j.vals = make([][]byte, j.ncols)
	j.nulls = make([]bool, j.ncols)
	return j
}

// rowError is one bad row: it is filtered, and the body goes on.
type rowError struct{ msg string }

func (e *rowError) Error() string { return e.msg }

// next returns the next row's values (valid until the next call). A
// *rowError is a bad row; io.EOF ends the body; any other error fails the
// load.
func (j *jsonReader) next() ([][]byte, []bool, error) {
	b := j.b
	for {
		c, err := j.peek()
		if err != nil {
			return nil, nil, err
		}
		if c < 0 {
			if j.inArray {
				return nil, nil, fmt.Errorf("%w: JSON array not closed at end of body (byte %d)", ErrFormat, b.offset+int64(b.start))
			}
			return nil, nil, io.EOF
		}
		if j.inArray {
			switch {
			case c == ']':
				b.start++
				j.inArray = false
				continue
			case j.comma && c == ',':
				b.start++
				j.comma = false
				continue
			case j.comma:
				return nil, nil, fmt.Errorf("%w: byte %d: want ',' or ']' between array elements, got %q", ErrFormat, b.offset+int64(b.start), rune(c))
			}
		} else if c == '[' {
			if !j.strip {
				return nil, nil, fmt.Errorf("%w: the JSON body is an array: set the header strip_outer_array: true", ErrFormat)
			}
			b.start++
			j.inArray, j.comma = true, false
			continue
		}
		if c != '{' {
			if j.byLine && !j.inArray {
				return nil, nil, j.skipLine(fmt.Sprintf("line is not a JSON object (starts with %q)", rune(c)))
			}
			return nil, nil, fmt.Errorf("%w: byte %d: want a JSON object, got %q", ErrFormat, b.offset+int64(b.start), rune(c))
		}
		return j.object()
	}
}

// object decodes the object at the buffer's start, reading more of the
// body while the object is not complete in the buffer.
func (j *jsonReader) object() ([][]byte, []bool, error) {
	b := j.b
	for {
		win := b.buf[b.start:b.end]
		n, perr := j.parse(win)
		if perr == nil {
			j.raw = win[:n]
			b.start += n
			if j.inArray {
				j.comma = true
			}
			return j.vals, j.nulls, nil
		}
		end := valueEnd(win)
		if end > 0 {
			// The object is complete and wrong: one bad row.
			j.raw = win[:end]
			b.start += end
			if j.inArray {
				j.comma = true
			}
			return nil, nil, &rowError{msg: perr.Error()}
		}
		more, err := b.refill()
		if err != nil {
			return nil, nil, err
		}
		if !more {
			return nil, nil, fmt.Errorf("%w: JSON object at byte %d not closed at end of body", ErrFormat, b.offset+int64(b.start))
		}
	}
}

// peek skips white space and returns the next byte, or -1 at the end.
func (j *jsonReader) peek() (int, error) {
	b := j.b
	for {
		for b.start < b.end {
			switch b.buf[b.start] {
			case ' ', '\t', '\n', '\r':
				b.start++
				continue
			}
			return int(b.buf[b.start]), nil
		}
		more, err := b.refill()
		if err != nil {
			return 0, err
		}
		if !more {
			return -1, nil
		}
	}
}

// skipLine drops the rest of a bad line (read_json_by_line).
func (j *jsonReader) skipLine(msg string) error {
	b := j.b
	for {
		if i := bytes.IndexByte(b.buf[b.start:b.end], '\n'); i >= 0 {
			j.raw = b.buf[b.start : b.start+i]
			b.start += i + 1
			return &rowError{msg: msg}
		}
		b.start = b.end // the line's head is dropped; keep reading its tail
		more, err := b.refill()
		if err != nil {
			return err
		}
		if !more {
			j.raw = nil
			return &rowError{msg: msg}
		}
	}
}

// valueEnd returns the length of the object or array win starts with, or 0
// if win ends first. It only matches brackets outside strings; object
// checks the syntax.
func valueEnd(win []byte) int {
	depth, inStr := 0, false
	for i := 0; i < len(win); i++ {
		c := win[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1
			}
		}
	}
	return 0
}

// parse decodes the object win starts with into j.vals and returns its
// length.
func (j *jsonReader) parse(win []byte) (int, error) {
	for i := range j.vals {
		j.vals[i], j.nulls[i] = nil, true
	}
	j.scratch = j.scratch[:0]
	p := &jsonParser{data: win, scratch: &j.scratch}
	m := 0
	err := p.members(func(key []byte, v []byte, null bool) error {
		defer func() { m++ }()
		if j.paths != nil {
			for i, path := range j.paths {
				if path[0] != string(key) {
					continue
				}
				val, isNull, found := v, null, true
				if len(path) > 1 {
					val, isNull, found = lookupPath(v, path[1:])
				}
				if found {
					j.vals[i], j.nulls[i] = val, isNull
				}
			}
			return nil
		}
		// Objects of one body mostly list their keys in one order: try
		// the column the m-th key named last time before the map.
		if m < len(j.order) {
			if i := j.order[m]; i >= 0 && j.src[i] == string(key) {
				j.vals[i], j.nulls[i] = v, null
				return nil
			}
		}
		i, ok := j.keys[string(key)]
		if !ok {
			i, ok = j.keys[strings.ToLower(string(key))]
		}
		if !ok {
			return fmt.Errorf("unknown JSON key %q: no such column", key)
		}
		for len(j.order) <= m {
			j.order = append(j.order, -1)
		}
		j.order[m] = i
		j.vals[i], j.nulls[i] = v, null
		return nil
	})
	return p.i, err
}

// lookupPath follows keys into the raw JSON object v.
func lookupPath(v []byte, path []string) ([]byte, bool, bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, true, false
	}
	var scratch []byte
	p := &jsonParser{data: v, scratch: &scratch}
	var out []byte
	null, found := true, false
	stop := errors.New("found")
	err := p.members(func(key []byte, val []byte, isNull bool) error {
		if string(key) != path[0] {
			return nil
		}
		if len(path) == 1 {
			out, null, found = val, isNull, true
		} else {
			out, null, found = lookupPath(val, path[1:])
		}
		return stop
	})
	if err != nil && err != stop {
		return nil, true, false
	}
	return out, null, found
}

type jsonParser struct {
	data    []byte
	i       int
	scratch *[]byte
	depth   int
}

func (p *jsonParser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
			continue
		}
		return
	}
}

func (p *jsonParser) fail(want string) error {
	if p.i >= len(p.data) {
		return fmt.Errorf("invalid JSON: %s expected at end of object", want)
	}
	return fmt.Errorf("invalid JSON: %s expected at offset %d of the object, got %q", want, p.i, rune(p.data[p.i]))
}

// members walks an object's members, handing each key and value (scalars
// as text, objects and arrays as JSON) to f.
func (p *jsonParser) members(f func(key, val []byte, null bool) error) error {
	p.ws()
	if p.i >= len(p.data) || p.data[p.i] != '{' {
		return p.fail("'{'")
	}
	p.i++
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.ws()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return p.fail("a key")
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return p.fail("':'")
		}
		p.i++
		p.ws()
		val, null, err := p.value()
		if err != nil {
			return err
		}
		if err := f(key, val, null); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.data) {
			return p.fail("',' or '}'")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.fail("',' or '}'")
		}
	}
}

func (p *jsonParser) value() ([]byte, bool, error) {
	if p.i >= len(p.data) {
		return nil, false, p.fail("a value")
	}
	switch c := p.data[p.i]; {
	case c == '"':
		s, err := p.str()
		return s, false, err
	case c == '{' || c == '[':
		start := p.i
		if err := p.skipNested(); err != nil {
			return nil, false, err
		}
		return p.data[start:p.i], false, nil
	case c == 'n':
		if bytes.HasPrefix(p.data[p.i:], []byte("null")) {
			p.i += 4
			return nil, true, nil
		}
	case c == 't':
		if bytes.HasPrefix(p.data[p.i:], []byte("true")) {
			p.i += 4
			return p.data[p.i-4 : p.i], false, nil
		}
	case c == 'f':
		if bytes.HasPrefix(p.data[p.i:], []byte("false")) {
			p.i += 5
			return p.data[p.i-5 : p.i], false, nil
		}
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		for p.i < len(p.data) {
			c := p.data[p.i]
			if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
				p.i++
				continue
			}
			break
		}
		num := p.data[start:p.i]
		if _, err := strconv.ParseFloat(string(num), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, false, fmt.Errorf("invalid JSON number %q", num)
		}
		return num, false, nil
	}
	return nil, false, p.fail("a value")
}

// skipNested checks and skips an object or array.
func (p *jsonParser) skipNested() error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxJSONDepth {
		return fmt.Errorf("invalid JSON: nested deeper than %d", maxJSONDepth)
	}
	open := p.data[p.i]
	closeB := byte('}')
	if open == '[' {
		closeB = ']'
	}
	p.i++
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == closeB {
		p.i++
		return nil
	}
	for {
		p.ws()
		if open == '{' {
			if p.i >= len(p.data) || p.data[p.i] != '"' {
				return p.fail("a key")
			}
			if _, err := p.str(); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.data) || p.data[p.i] != ':' {
				return p.fail("':'")
			}
			p.i++
			p.ws()
		}
		if p.i < len(p.data) && (p.data[p.i] == '{' || p.data[p.i] == '[') {
			if err := p.skipNested(); err != nil {
				return err
			}
		} else if _, _, err := p.value(); err != nil {
			return err
		}
		p.ws()
		if p.i >= len(p.data) {
			return p.fail(fmt.Sprintf("',' or %q", closeB))
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case closeB:
			p.i++
			return nil
		default:
			return p.fail(fmt.Sprintf("',' or %q", closeB))
		}
	}
}

// str decodes the string at p.i; without escapes it is a slice of the
// input, with them it is decoded into scratch (which has room for it).
func (p *jsonParser) str() ([]byte, error) {
	p.i++
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			p.i++
			return p.data[start : p.i-1], nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, fmt.Errorf("invalid JSON: control character in string at offset %d", p.i)
		}
		p.i++
	}
	s := *p.scratch
	from := len(s)
	s = append(s, p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			*p.scratch = s
			return s[from:], nil
		case c < 0x20:
			return nil, fmt.Errorf("invalid JSON: control character in string at offset %d", p.i)
		case c != '\\':
			s = append(s, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.data) {
			break
		}
		e := p.data[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			s = append(s, e)
		case 'b':
			s = append(s, '\b')
		case 'f':
			s = append(s, '\f')
		case 'n':
			s = append(s, '\n')
		case 'r':
			s = append(s, '\r')
		case 't':
			s = append(s, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, fmt.Errorf("invalid JSON: bad \\u escape at offset %d", p.i)
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(utf8.RuneError)
				if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
					p.i += 2
					if lo, ok := p.hex4(); ok {
						r2 = lo
					}
				}
				r = utf16.DecodeRune(r, r2)
			}
			s = utf8.AppendRune(s, r)
		default:
			return nil, fmt.Errorf("invalid JSON: bad escape \\%c at offset %d", e, p.i-1)
		}
	}
	return nil, p.fail("'\"'")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}
