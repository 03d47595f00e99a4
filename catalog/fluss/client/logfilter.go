package client

import (
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
	"google.golang.org/protobuf/proto"
)

// Condition is one conjunct of a scan's filter: Column (a position in the
// table's columns) Op Values, with Op one of = != < <= > >= IN "NOT IN"
// "IS NULL" "IS NOT NULL" and Values int64, float64, bool or string
// (decimal, date and datetime constants as their text; datetimes of
// TIMESTAMP_LTZ columns in UTC), nil for NULL. Or, when set, makes the
// condition the disjunction of its members instead.
type Condition struct {
	Column int
	Op     string
	Values []any
	Or     []Condition
}

// LogFilter turns the conditions that Fluss 1.0 can test against batch
// statistics into a FetchLog filter_predicate (the AND of them), or nil when
// none can be pushed. A condition is pushed only when its column is one of
// statsCols (positions with statistics, see record.StatisticsColumns) and
// every constant converts exactly to the column's type, so the server's
// answer (may a batch match?) is never stricter than the engine's own
// comparison: FLOAT and CHAR columns, text compared with numbers, numbers
// compared with text and decimals that do not fit the column's scale stay
// with the engine. ids are the columns' field ids (nil: the positions).
func LogFilter(cols []typemap.Column, ids []int32, statsCols []int, conds []Condition) *flusspb.PbPredicate {
	has := map[int]bool{}
	for _, c := range statsCols {
		has[c] = true
	}
	var leaves []*flusspb.PbPredicate
	for _, c := range conds {
		if p := conditionPredicate(cols, ids, has, c); p != nil {
			leaves = append(leaves, p)
		}
	}
	switch len(leaves) {
	case 0:
		return nil
	case 1:
		return leaves[0]
	}
	return compound(record.FnAnd, leaves)
}

func compound(fn record.CompoundFunction, children []*flusspb.PbPredicate) *flusspb.PbPredicate {
	return &flusspb.PbPredicate{Type: proto.Int32(1), Compound: &flusspb.PbCompoundPredicate{Function: proto.Int32(int32(fn)), Children: children}}
}

func conditionPredicate(cols []typemap.Column, ids []int32, has map[int]bool, c Condition) *flusspb.PbPredicate {
	if len(c.Or) > 0 {
		// A disjunction prunes only if every branch can be tested.
		var kids []*flusspb.PbPredicate
		for _, o := range c.Or {
			k := conditionPredicate(cols, ids, has, o)
			if k == nil {
				return nil
			}
			kids = append(kids, k)
		}
		return compound(record.FnOr, kids)
	}
	if c.Column < 0 || c.Column >= len(cols) || !has[c.Column] {
		return nil
	}
	t := cols[c.Column].Type
	fid := int32(c.Column)
	if ids != nil {
		if c.Column >= len(ids) {
			return nil
		}
		fid = ids[c.Column]
	}
	leaf := &flusspb.PbLeafPredicate{FieldId: proto.Int32(fid)}
	var fn record.LeafFunction
	switch c.Op {
	case "IS NULL":
		fn = record.FnIsNull
	case "IS NOT NULL":
		fn = record.FnIsNotNull
	case "IN", "NOT IN", "=", "!=", "<", "<=", ">", ">=":
		fn = map[string]record.LeafFunction{"IN": record.FnIn, "NOT IN": record.FnNotIn, "=": record.FnEqual, "!=": record.FnNotEqual,
			"<": record.FnLessThan, "<=": record.FnLessOrEqual, ">": record.FnGreaterThan, ">=": record.FnGreaterOrEqual}[c.Op]
		if len(c.Values) == 0 || (c.Op != "IN" && c.Op != "NOT IN" && len(c.Values) != 1) {
			return nil
		}
		for _, v := range c.Values {
			if v == nil {
				// A NULL constant: SQL and Fluss both treat it as matching
				// nothing, but leave such oddities to the engine.
				return nil
			}
			l := literal(v, t)
			if l == nil {
				return nil
			}
			leaf.Literals = append(leaf.Literals, l)
		}
	default:
		return nil
	}
	leaf.Function = proto.Int32(int32(fn))
	return &flusspb.PbPredicate{Type: proto.Int32(0), Leaf: leaf}
}

// literalTypes are PbLiteralValue.literal_type codes by type root
// (PredicateMessageUtils.DataTypeRootCode in Fluss 1.0).
var literalTypes = map[typemap.Root]int32{
	typemap.RootBoolean: 0, typemap.RootTinyInt: 1, typemap.RootSmallInt: 2, typemap.RootInt: 3,
	typemap.RootBigInt: 4, typemap.RootFloat: 5, typemap.RootDouble: 6, typemap.RootChar: 7,
	typemap.RootString: 8, typemap.RootDecimal: 9, typemap.RootDate: 10, typemap.RootTime: 11,
	typemap.RootTimestamp: 12, typemap.RootTimestampLTZ: 13, typemap.RootBinary: 14, typemap.RootBytes: 15,
}

// literal converts a constant to the column type's literal, nil when the
// conversion is not exact.
func literal(v any, t typemap.DataType) *flusspb.PbLiteralValue {
	l := &flusspb.PbLiteralValue{LiteralType: proto.Int32(literalTypes[t.Root]), IsNull: proto.Bool(false)}
	switch t.Root {
	case typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt:
		x, ok := v.(int64)
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		switch t.Root {
		case typemap.RootTinyInt:
			lo, hi = math.MinInt8, math.MaxInt8
		case typemap.RootSmallInt:
			lo, hi = math.MinInt16, math.MaxInt16
		}
		if !ok || x < lo || x > hi {
			return nil
		}
		l.IntValue = proto.Int32(int32(x))
	case typemap.RootBigInt:
		x, ok := v.(int64)
		if !ok {
			return nil
		}
		l.BigintValue = proto.Int64(x)
	case typemap.RootDouble:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) {
				return nil
			}
			l.DoubleValue = proto.Float64(x)
		case int64:
			if x > 1<<53 || x < -(1<<53) {
				return nil
			}
			l.DoubleValue = proto.Float64(float64(x))
		default:
			return nil
		}
	case typemap.RootBoolean:
		x, ok := v.(bool)
		if !ok {
			return nil
		}
		l.BooleanValue = proto.Bool(x)
	case typemap.RootString:
		x, ok := v.(string)
		if !ok {
			return nil
		}
		l.StringValue = proto.String(x)
	case typemap.RootDate:
		x, ok := v.(string)
		if !ok {
			return nil
		}
		d, err := time.Parse("2006-01-02", x)
		if err != nil {
			return nil
		}
		l.BigintValue = proto.Int64(d.Unix() / 86400)
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		// The engine's datetimes stop at microseconds; a finer column could
		// compare differently.
		x, ok := v.(string)
		if !ok || t.Precision > 6 {
			return nil
		}
		ts, err := time.Parse("2006-01-02 15:04:05.999999", x)
		if err != nil {
			if ts, err = time.Parse("2006-01-02", x); err != nil {
				return nil
			}
		}
		ns := ts.UnixNano()
		if ts.Year() < 1678 || ts.Year() > 2261 {
			return nil
		}
		ms := ns / 1e6
		rem := ns - ms*1e6
		if rem < 0 {
			ms--
			rem += 1e6
		}
		l.TimestampMillisValue = proto.Int64(ms)
		l.TimestampNanoOfMillisValue = proto.Int32(int32(rem))
	case typemap.RootDecimal:
		u, ok := unscaled(v, t.Scale)
		if !ok || len(u.String()) > int(t.Precision)+1 {
			return nil
		}
		if t.Precision <= 18 {
			if !u.IsInt64() {
				return nil
			}
			l.DecimalValue = proto.Int64(u.Int64())
		} else {
			l.DecimalBytes = javaBigIntBytes(u)
		}
	default:
		return nil // FLOAT, CHAR, TIME, BINARY and nested types stay with the engine
	}
	return l
}

// unscaled is v (an integer or decimal text) times 10^scale when that is an
// integer.
func unscaled(v any, scale int32) (*big.Int, bool) {
	var r *big.Rat
	switch x := v.(type) {
	case int64:
		r = new(big.Rat).SetInt64(x)
	case string:
		s := strings.TrimPrefix(x, "-")
		if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || strings.Trim(s, ".") == "" {
			return nil, false
		}
		var ok bool
		if r, ok = new(big.Rat).SetString(x); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, false
	}
	return new(big.Int).Set(r.Num()), true
}

// javaBigIntBytes is BigInteger.toByteArray: minimal big-endian two's
// complement.
func javaBigIntBytes(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// LogFilter is the FetchLog filter for reads of this table's log under the
// current schema, nil when nothing can be pushed: the table's batches carry
// statistics only when it is an ARROW log table with
// table.statistics.columns set (Fluss 1.0 refuses the option on
// primary-key tables, so their changelogs are never filtered by the server).
func (t *TableInfo) LogFilter(conds []Condition) *FetchFilter {
	d := t.Descriptor
	if d == nil || d.HasPrimaryKey() || len(conds) == 0 {
		return nil
	}
	if f, err := d.LogFormat(); err != nil || f != record.LogFormatArrow {
		return nil
	}
	cols := d.Schema.TypeColumns()
	stats, err := record.StatisticsColumns(cols, d.Properties[record.PropStatsColumns])
	if err != nil || len(stats) == 0 {
		return nil
	}
	if p := LogFilter(cols, d.Schema.ColumnIDs(), stats, conds); p != nil {
		return &FetchFilter{Predicate: p}
	}
	return nil
}

// FetchFilter is the filter a LogRange sends with its fetches.
type FetchFilter struct {
	Predicate *flusspb.PbPredicate
}

func (f *FetchFilter) predicate() *flusspb.PbPredicate {
	if f == nil {
		return nil
	}
	return f.Predicate
}
