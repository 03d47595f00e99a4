package minifluss

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/typemap"
)

// parseTypeJSON reads a column's Fluss data type JSON (spec §7).
func parseTypeJSON(raw json.RawMessage) (typemap.DataType, error) {
	return typemap.ParseDataType(raw)
}

// parseSQLType turns the scenario's SQL spelling of a Fluss type
// ("BIGINT NOT NULL", "DECIMAL(20,2)", "ARRAY<INT>", "ROW<a INT, b STRING>")
// into a typeInfo.
func parseSQLType(s string) (typemap.DataType, error) {
	p := &typeParser{src: s}
	t, err := p.parse()
	if err != nil {
		return typemap.DataType{}, fmt.Errorf("type %q: %v", s, err)
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return typemap.DataType{}, fmt.Errorf("type %q: unexpected %q", s, p.src[p.pos:])
	}
	return t, nil
}

type typeParser struct {
	src string
	pos int
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *typeParser) word() string {
	p.skipSpace()
	st := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			p.pos++
			continue
		}
		break
	}
	return p.src[st:p.pos]
}

func (p *typeParser) peek(c byte) bool {
	p.skipSpace()
	return p.pos < len(p.src) && p.src[p.pos] == c
}

func (p *typeParser) expect(c byte) error {
	if !p.peek(c) {
		return fmt.Errorf("expected %q at byte %d", c, p.pos)
	}
	p.pos++
	return nil
}

func (p *typeParser) ints() ([]int, error) {
	if !p.peek('(') {
		return nil, nil
	}
	p.pos++
	var out []int
	for {
		w := p.word()
		n, err := strconv.Atoi(w)
		if err != nil {
			return nil, fmt.Errorf("expected a number at byte %d", p.pos)
		}
		out = append(out, n)
		if p.peek(',') {
			p.pos++
			continue
		}
		return out, p.expect(')')
	}
}

func (p *typeParser) parse() (typemap.DataType, error) {
	var zero typemap.DataType
	w := strings.ToUpper(p.word())
	var t typemap.DataType
	num := func(def ...int32) ([]int32, error) {
		n, err := p.ints()
		if err != nil {
			return nil, err
		}
		out := append([]int32(nil), def...)
		for i, v := range n {
			if i < len(out) {
				out[i] = int32(v)
			}
		}
		return out, nil
	}
	switch w {
	case "BOOLEAN":
		t = typemap.Boolean()
	case "TINYINT":
		t = typemap.TinyInt()
	case "SMALLINT":
		t = typemap.SmallInt()
	case "INT", "INTEGER":
		t = typemap.Int()
	case "BIGINT":
		t = typemap.BigInt()
	case "FLOAT":
		t = typemap.Float()
	case "DOUBLE":
		t = typemap.Double()
	case "STRING", "VARCHAR":
		if _, err := p.ints(); err != nil {
			return zero, err
		}
		t = typemap.String()
	case "BYTES", "VARBINARY":
		if _, err := p.ints(); err != nil {
			return zero, err
		}
		t = typemap.Bytes()
	case "DATE":
		t = typemap.Date()
	case "CHAR", "BINARY":
		n, err := num(1)
		if err != nil {
			return zero, err
		}
		if w == "CHAR" {
			t = typemap.Char(n[0])
		} else {
			t = typemap.Binary(n[0])
		}
	case "DECIMAL":
		n, err := num(10, 0)
		if err != nil {
			return zero, err
		}
		t = typemap.Decimal(n[0], n[1])
	case "TIME":
		n, err := num(0)
		if err != nil {
			return zero, err
		}
		t = typemap.Time(n[0])
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		n, err := num(typemap.DefaultTimestampPrec)
		if err != nil {
			return zero, err
		}
		if w == "TIMESTAMP" {
			t = typemap.Timestamp(n[0])
		} else {
			t = typemap.TimestampLTZ(n[0])
		}
	case "ARRAY":
		if err := p.expect('<'); err != nil {
			return zero, err
		}
		e, err := p.parse()
		if err != nil {
			return zero, err
		}
		if err := p.expect('>'); err != nil {
			return zero, err
		}
		t = typemap.Array(e)
	case "MAP":
		if err := p.expect('<'); err != nil {
			return zero, err
		}
		k, err := p.parse()
		if err != nil {
			return zero, err
		}
		if err := p.expect(','); err != nil {
			return zero, err
		}
		v, err := p.parse()
		if err != nil {
			return zero, err
		}
		if err := p.expect('>'); err != nil {
			return zero, err
		}
		t = typemap.Map(k, v)
	case "ROW":
		if err := p.expect('<'); err != nil {
			return zero, err
		}
		var fs []typemap.Field
		for {
			name := p.word()
			if name == "" {
				return zero, fmt.Errorf("expected a field name at byte %d", p.pos)
			}
			ft, err := p.parse()
			if err != nil {
				return zero, err
			}
			f := typemap.NewField(name, ft)
			f.ID = int32(len(fs))
			fs = append(fs, f)
			if p.peek(',') {
				p.pos++
				continue
			}
			break
		}
		if err := p.expect('>'); err != nil {
			return zero, err
		}
		t = typemap.Row(fs...)
	case "":
		return zero, fmt.Errorf("missing type name at byte %d", p.pos)
	default:
		return zero, fmt.Errorf("unknown type %q", w)
	}
	save := p.pos
	switch strings.ToUpper(p.word()) {
	case "NOT":
		if strings.ToUpper(p.word()) != "NULL" {
			return zero, fmt.Errorf("expected NULL after NOT at byte %d", p.pos)
		}
		t = t.NotNull()
	case "NULL":
	default:
		p.pos = save
	}
	if _, err := typemap.ArrowType(t); err != nil {
		return zero, err
	}
	return t, nil
}
