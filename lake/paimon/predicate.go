package paimon

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/internal/keybits"
)

// Op is a predicate operator.
type Op string

// Predicate operators.
const (
	OpEq        Op = "eq"
	OpNe        Op = "ne"
	OpLt        Op = "lt"
	OpLe        Op = "le"
	OpGt        Op = "gt"
	OpGe        Op = "ge"
	OpIsNull    Op = "is_null"
	OpIsNotNull Op = "is_not_null"
	OpIn        Op = "in"
	// OpInBits is membership in an exact set of integer keys (Bits from
	// BitsLo, internal/keybits): a join's runtime filter, which a BE adds
	// to the predicate it reads with, so rows whose key cannot join are
	// dropped before the other columns decode.
	OpInBits Op = "in_bits"
	OpAnd    Op = "and"
	OpOr     Op = "or"
)

// Predicate is a filter over table columns, used both to prune partitions,
// files and row groups by statistics and to filter rows exactly. A
// comparison with NULL is false (no row matches "x = NULL").
type Predicate struct {
	Op       Op           `json:"op"`
	Field    string       `json:"field,omitempty"`
	Value    any          `json:"value,omitempty"`
	Values   []any        `json:"values,omitempty"`
	Children []*Predicate `json:"children,omitempty"`
	// Bits and BitsLo are OpInBits's set: key k is in when bit k-BitsLo
	// is set.
	Bits   []uint64 `json:"bits,omitempty"`
	BitsLo int64    `json:"bits_lo,omitempty"`
}

// Leaf constructors.
func Eq(f string, v any) *Predicate     { return &Predicate{Op: OpEq, Field: f, Value: v} }
func Ne(f string, v any) *Predicate     { return &Predicate{Op: OpNe, Field: f, Value: v} }
func Lt(f string, v any) *Predicate     { return &Predicate{Op: OpLt, Field: f, Value: v} }
func Le(f string, v any) *Predicate     { return &Predicate{Op: OpLe, Field: f, Value: v} }
func Gt(f string, v any) *Predicate     { return &Predicate{Op: OpGt, Field: f, Value: v} }
func Ge(f string, v any) *Predicate     { return &Predicate{Op: OpGe, Field: f, Value: v} }
func IsNull(f string) *Predicate        { return &Predicate{Op: OpIsNull, Field: f} }
func IsNotNull(f string) *Predicate     { return &Predicate{Op: OpIsNotNull, Field: f} }
func In(f string, vs ...any) *Predicate { return &Predicate{Op: OpIn, Field: f, Values: vs} }
func And(ps ...*Predicate) *Predicate   { return &Predicate{Op: OpAnd, Children: ps} }

// InBits is f IN the key bitmap words from lo (OpInBits); f must be an
// integer column (TINYINT to BIGINT). words is kept, not copied.
func InBits(f string, lo int64, words []uint64) *Predicate {
	return &Predicate{Op: OpInBits, Field: f, BitsLo: lo, Bits: words}
}
func Or(ps ...*Predicate) *Predicate { return &Predicate{Op: OpOr, Children: ps} }

// String renders the predicate in SQL-like form.
func (p *Predicate) String() string {
	if p == nil {
		return "TRUE"
	}
	sym := map[Op]string{OpEq: "=", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">="}
	switch p.Op {
	case OpAnd, OpOr:
		parts := make([]string, len(p.Children))
		for i, c := range p.Children {
			parts[i] = c.String()
		}
		return "(" + strings.Join(parts, " "+strings.ToUpper(string(p.Op))+" ") + ")"
	case OpIsNull:
		return p.Field + " IS NULL"
	case OpIsNotNull:
		return p.Field + " IS NOT NULL"
	case OpIn:
		return fmt.Sprintf("%s IN %v", p.Field, p.Values)
	case OpInBits:
		if lo, hi, ok := keybits.Span(p.Bits, p.BitsLo); ok {
			return fmt.Sprintf("%s IN BITMAP[%d..%d]", p.Field, lo, hi)
		}
		return p.Field + " IN BITMAP[]"
	}
	return fmt.Sprintf("%s %s %v", p.Field, sym[p.Op], p.Value)
}

// Fields returns the columns the predicate references.
func (p *Predicate) Fields() []string {
	if p == nil {
		return nil
	}
	var out []string
	var walk func(*Predicate)
	walk = func(q *Predicate) {
		if q.Field != "" {
			out = append(out, q.Field)
		}
		for _, c := range q.Children {
			walk(c)
		}
	}
	walk(p)
	return out
}

// bound is a predicate with literals converted to the column types.
type bound struct {
	op       Op
	field    string
	typ      DataType
	value    any
	values   []any
	children []*bound
	bits     []uint64 // OpInBits
	bitsLo   int64
	// least and greatest key of bits (empty: least > greatest), found
	// once here: mayMatch runs per row group and page.
	bitsLeast, bitsGreatest int64
}

// Bind checks the predicate against the table columns and converts its
// literals to the columns' types.
func (p *Predicate) bind(fields []DataField) (*bound, error) {
	if p == nil {
		return nil, nil
	}
	b := &bound{op: p.Op, field: p.Field}
	switch p.Op {
	case OpAnd, OpOr:
		if len(p.Children) == 0 {
			return nil, fmt.Errorf("paimon: predicate %s without children", p.Op)
		}
		for _, c := range p.Children {
			cb, err := c.bind(fields)
			if err != nil {
				return nil, err
			}
			b.children = append(b.children, cb)
		}
		return b, nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpIsNull, OpIsNotNull, OpIn, OpInBits:
	default:
		return nil, fmt.Errorf("paimon: unknown predicate operator %q", p.Op)
	}
	var f *DataField
	for i := range fields {
		if fields[i].Name == p.Field {
			f = &fields[i]
		}
	}
	if f == nil {
		return nil, fmt.Errorf("paimon: predicate on unknown column %q", p.Field)
	}
	b.typ = f.Type
	conv := func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		x, err := literal(v, f.Type)
		if err != nil {
			return nil, fmt.Errorf("paimon: predicate on column %s: %w", f.Name, err)
		}
		return x, nil
	}
	var err error
	switch p.Op {
	case OpInBits:
		switch f.Type.Root {
		case TinyInt, SmallInt, Int, BigInt:
		default:
			return nil, fmt.Errorf("paimon: key bitmap predicate on column %s of type %s: integer columns only", f.Name, f.Type)
		}
		b.bits, b.bitsLo = p.Bits, p.BitsLo
		var ok bool
		if b.bitsLeast, b.bitsGreatest, ok = keybits.Span(p.Bits, p.BitsLo); !ok {
			b.bitsLeast, b.bitsGreatest = 1, 0
		}
	case OpIsNull, OpIsNotNull:
	case OpIn:
		for _, v := range p.Values {
			x, err := conv(v)
			if err != nil {
				return nil, err
			}
			b.values = append(b.values, x)
		}
	default:
		if b.value, err = conv(p.Value); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// literal converts a user or JSON literal to the normalized comparison form
// of a column type (see norm).
func literal(v any, t DataType) (any, error) {
	switch t.Root {
	case TinyInt, SmallInt, Int, BigInt, Date, Time:
		switch x := v.(type) {
		case float64:
			if x != float64(int64(x)) {
				return x, nil // compared as float
			}
			return int64(x), nil
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i, nil
			}
			f, err := x.Float64()
			return f, err
		case string:
			if t.Root == Date {
				d, err := time.Parse("2006-01-02", x)
				if err == nil {
					return d.Unix() / 86400, nil
				}
			}
			i, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("literal %q is not an integer", x)
			}
			return i, nil
		}
	case Float:
		if f, ok := toFloat(v); ok {
			return float64(float32(f)), nil
		}
		if s, ok := v.(string); ok {
			f, err := strconv.ParseFloat(s, 32)
			return float64(float32(f)), err
		}
	case Double:
		if f, ok := toFloat(v); ok {
			return f, nil
		}
		if s, ok := v.(string); ok {
			return strconv.ParseFloat(s, 64)
		}
	case Decimal:
		switch x := v.(type) {
		case string:
			r, ok := new(big.Rat).SetString(x)
			if !ok {
				return nil, fmt.Errorf("literal %q is not a decimal", x)
			}
			return r, nil
		case DecimalValue:
			return norm(x), nil
		}
		if f, ok := toFloat(v); ok {
			return new(big.Rat).SetFloat64(f), nil
		}
	case Char, VarChar, Binary, VarBinary:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			return strconv.ParseBool(x)
		}
	case Timestamp, TimestampLTZ:
		switch x := v.(type) {
		case TimestampValue:
			return norm(x), nil
		case string:
			ts, err := parseTimestamp(x)
			if err != nil {
				return nil, err
			}
			return norm(ts), nil
		}
	}
	if n := norm(v); n != nil {
		if _, isInt := n.(int64); isInt {
			return n, nil
		}
	}
	return nil, fmt.Errorf("literal %v (%T) does not fit type %s", v, v, t)
}

func parseTimestamp(s string) (TimestampValue, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if tm, err := time.Parse(layout, s); err == nil {
			// not UnixNano: it overflows outside 1678..2262
			return TimestampValue{Millis: tm.UnixMilli(), NanoOfMilli: int32(tm.Nanosecond() % 1e6)}, nil
		}
	}
	return TimestampValue{}, fmt.Errorf("literal %q is not a timestamp", s)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	if i, ok := toInt64(v); ok {
		return float64(i), true
	}
	return 0, false
}

// tsKey orders timestamps exactly.
type tsKey struct {
	ms   int64
	nano int32
}

// norm maps decoded values to comparison forms: integers → int64, floats →
// float64, strings and bytes → string, decimals → *big.Rat, timestamps → tsKey.
func norm(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	case int8, int16, int32, int64, int:
		i, _ := toInt64(x)
		return i
	case float32:
		return float64(x)
	case float64:
		return x
	case string:
		return x
	case []byte:
		return string(x)
	case DecimalValue:
		if x.Unscaled == nil {
			return nil
		}
		return new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
	case *big.Rat:
		return x
	case TimestampValue:
		return tsKey{x.Millis, x.NanoOfMilli}
	case tsKey:
		return x
	}
	return nil
}

// compareNorm compares two normalized values; ok is false when the kinds
// are not comparable.
func compareNorm(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp3(x < y, x > y), true
		case float64:
			return cmpFloat(float64(x), y), true
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return cmpFloat(x, y), true
		case int64:
			return cmpFloat(x, float64(y)), true
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmp3(!x && y, x && !y), true
		}
	case *big.Rat:
		if y, ok := b.(*big.Rat); ok {
			return x.Cmp(y), true
		}
	case tsKey:
		if y, ok := b.(tsKey); ok {
			if x.ms != y.ms {
				return cmp3(x.ms < y.ms, x.ms > y.ms), true
			}
			return cmp3(x.nano < y.nano, x.nano > y.nano), true
		}
	}
	return 0, false
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// cmpFloat orders NaN above everything, as Java's Double.compare does.
func cmpFloat(x, y float64) int {
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp3(x < y, x > y)
}

// evalRow evaluates against one row; get returns the normalized value of a
// column (nil for NULL).
func (b *bound) evalRow(get func(string) any) bool {
	switch b.op {
	case OpAnd:
		for _, c := range b.children {
			if !c.evalRow(get) {
				return false
			}
		}
		return true
	case OpOr:
		for _, c := range b.children {
			if c.evalRow(get) {
				return true
			}
		}
		return false
	}
	v := get(b.field)
	switch b.op {
	case OpIsNull:
		return v == nil
	case OpIsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	if b.op == OpInBits {
		x, ok := v.(int64)
		return ok && keybits.Has(b.bits, b.bitsLo, x)
	}
	if b.op == OpIn {
		for _, l := range b.values {
			if c, ok := compareNorm(v, l); ok && c == 0 {
				return true
			}
		}
		return false
	}
	if b.value == nil {
		return false
	}
	c, ok := compareNorm(v, b.value)
	if !ok {
		return false
	}
	switch b.op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}

// colStats are the statistics of one column over a set of rows. Min and Max
// are normalized values, nil when unknown; NullCount is -1 when unknown.
type colStats struct {
	min, max  any
	nullCount int64
	known     bool // false: no statistics for this column at all
}

// mayMatch reports whether some row described by the statistics could
// satisfy the predicate. Unknown statistics never prune.
func (b *bound) mayMatch(stats func(string) colStats, rowCount int64) bool {
	switch b.op {
	case OpAnd:
		for _, c := range b.children {
			if !c.mayMatch(stats, rowCount) {
				return false
			}
		}
		return true
	case OpOr:
		for _, c := range b.children {
			if c.mayMatch(stats, rowCount) {
				return true
			}
		}
		return false
	}
	s := stats(b.field)
	if !s.known {
		return true
	}
	allNull := s.nullCount >= 0 && s.nullCount == rowCount
	switch b.op {
	case OpIsNull:
		return s.nullCount != 0
	case OpIsNotNull:
		return !allNull
	}
	if allNull {
		return false
	}
	if b.op == OpInBits {
		return bitsMayMatch(b.bits, b.bitsLo, b.bitsLeast, b.bitsGreatest, s.min, s.max)
	}
	if s.min == nil || s.max == nil {
		return true
	}
	lits := b.values
	if b.op != OpIn {
		if b.value == nil {
			return false
		}
		lits = []any{b.value}
	}
	for _, l := range lits {
		cmin, ok1 := compareNorm(s.min, l)
		cmax, ok2 := compareNorm(s.max, l)
		if !ok1 || !ok2 {
			return true
		}
		var m bool
		switch b.op {
		case OpEq, OpIn:
			m = cmin <= 0 && cmax >= 0
		case OpNe:
			m = !(cmin == 0 && cmax == 0)
		case OpLt:
			m = cmin < 0
		case OpLe:
			m = cmin <= 0
		case OpGt:
			m = cmax > 0
		case OpGe:
			m = cmax >= 0
		}
		if m {
			return true
		}
	}
	return false
}

// bitsMayMatch says whether a key of the set lies in [lo, hi] (the
// statistics' bounds, nil when unknown): a word at a time, so at most the
// set's length.
func bitsMayMatch(words []uint64, from, least, greatest int64, lo, hi any) bool {
	if least > greatest {
		return false // no key
	}
	l, lok := lo.(int64)
	h, hok := hi.(int64)
	if !lok || !hok {
		return true // bounds unknown or not integers
	}
	l, h = max(l, least), min(h, greatest)
	if l > h {
		return false
	}
	// Bits l-from .. h-from: any set?
	a, z := uint64(l-from), uint64(h-from)
	for w := a >> 6; w <= z>>6; w++ {
		m := words[w]
		if w == a>>6 {
			m &= ^uint64(0) << (a & 63)
		}
		if w == z>>6 {
			m &= ^uint64(0) >> (63 - z&63)
		}
		if m != 0 {
			return true
		}
	}
	return false
}

// Matches evaluates the predicate on one row given as column name → value
// (Go or JSON-decoded values, converted like literals to the column types).
func (p *Predicate) Matches(fields []DataField, row map[string]any) (bool, error) {
	b, err := p.bind(fields)
	if err != nil || b == nil {
		return b == nil && err == nil, err
	}
	var convErr error
	get := func(name string) any {
		v := row[name]
		if v == nil {
			return nil
		}
		for _, f := range fields {
			if f.Name == name {
				x, err := literal(v, f.Type)
				if err != nil {
					convErr = err
				}
				return x
			}
		}
		return nil
	}
	ok := b.evalRow(get)
	return ok, convErr
}
