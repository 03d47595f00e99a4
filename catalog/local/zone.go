package local

import (
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/catalog"
)

// Zone maps. Every record batch a segment writer writes gets, per column,
// its NULL count and, for the types below, the least and greatest non-NULL
// value; they are kept in the segment's fileInfo (manifest and commit
// log), one batchZone per batch in file order. A scan whose request
// carries predicates (catalog.Predicate: WHERE conjuncts, column op
// constant) skips a batch none of whose rows can satisfy one of them,
// before decoding it, and a whole segment when that holds for every
// batch. Skipping is only ever of rows the WHERE clause above would drop:
// a predicate the scan cannot read exactly (a constant it cannot convert
// to the column's values without rounding in the wrong direction, a type
// without bounds) skips nothing.
//
// Bounds are kept as int64 for the integer types, DATE (days since the
// epoch, negative before it) and DECIMAL (unscaled values, when every
// value of the batch fits an int64).

// batchZone is one record batch's zone map.
type batchZone struct {
	Rows int64     `json:"r"`
	Cols []colZone `json:"c"` // per column of the table's schema
}

// colZone is one column's part of a batchZone.
type colZone struct {
	Nulls int64 `json:"n,omitempty"`
	// Ok: Min and Max bound every non-NULL value of the column in the
	// batch (false: unknown, or no non-NULL value).
	Ok  bool  `json:"ok,omitempty"`
	Min int64 `json:"lo,omitempty"`
	Max int64 `json:"hi,omitempty"`
}

// zoneTyped says whether bounds are kept for columns of type dt.
func zoneTyped(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.DATE32, arrow.DECIMAL128:
		return true
	}
	return false
}

// zonesWanted says whether batches of schema s get zone maps: not when a
// column is dictionary-encoded (its dictionary batches would sit among the
// record batches a scan skips by position).
func zonesWanted(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			return false
		}
	}
	return true
}

// zoneOf computes rec's zone map.
func zoneOf(rec arrow.RecordBatch) batchZone {
	z := batchZone{Rows: rec.NumRows(), Cols: make([]colZone, rec.NumCols())}
	for i, c := range rec.Columns() {
		z.Cols[i] = colZoneOf(c)
	}
	return z
}

func colZoneOf(a arrow.Array) colZone {
	z := colZone{Nulls: int64(a.NullN())}
	if z.Nulls == int64(a.Len()) {
		return z
	}
	switch x := a.(type) {
	case *array.Int8:
		return bounds(z, a, x.Values(), func(v int8) (int64, bool) { return int64(v), true })
	case *array.Int16:
		return bounds(z, a, x.Values(), func(v int16) (int64, bool) { return int64(v), true })
	case *array.Int32:
		return bounds(z, a, x.Values(), func(v int32) (int64, bool) { return int64(v), true })
	case *array.Int64:
		return bounds(z, a, x.Values(), func(v int64) (int64, bool) { return v, true })
	case *array.Uint8:
		return bounds(z, a, x.Values(), func(v uint8) (int64, bool) { return int64(v), true })
	case *array.Uint16:
		return bounds(z, a, x.Values(), func(v uint16) (int64, bool) { return int64(v), true })
	case *array.Uint32:
		return bounds(z, a, x.Values(), func(v uint32) (int64, bool) { return int64(v), true })
	case *array.Date32:
		return bounds(z, a, x.Values(), func(v arrow.Date32) (int64, bool) { return int64(v), true })
	case *array.Decimal128:
		return bounds(z, a, x.Values(), func(v decimal128.Num) (int64, bool) {
			lo := int64(v.LowBits())
			return lo, v.HighBits() == lo>>63
		})
	}
	return z
}

// bounds fills z's Min and Max from the non-NULL values of a (values are
// a's), or leaves them unknown when one of them has no int64 form.
func bounds[T any](z colZone, a arrow.Array, values []T, conv func(T) (int64, bool)) colZone {
	nulls := a.NullN() > 0
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i, v := range values {
		if nulls && a.IsNull(i) {
			continue
		}
		x, ok := conv(v)
		if !ok {
			return z
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	z.Ok, z.Min, z.Max = true, lo, hi
	return z
}

// zoneFilter is a scan's predicates as tests of a batch's zone map.
type zoneFilter struct {
	preds []zonePred
	ncols int
}

// zonePred is one predicate over column col; floor and cei are its
// constants as the column's int64 values, a value not above and one not
// below each (zoneValue).
type zonePred struct {
	col        int
	op         string
	floor, cei []int64
}

// newZoneFilter reads the predicates a zone map can test; nil when none.
func newZoneFilter(s catalog.Schema, preds []catalog.Predicate) *zoneFilter {
	f := &zoneFilter{ncols: len(s.Columns)}
	for _, p := range preds {
		i := s.Index(p.Column)
		if i < 0 {
			continue
		}
		dt := s.Columns[i].Type
		zp := zonePred{col: i, op: p.Op}
		switch p.Op {
		case "IS NULL", "IS NOT NULL":
			f.preds = append(f.preds, zp)
			continue
		case "=", "<", "<=", ">", ">=", "IN":
		default:
			continue
		}
		if !zoneTyped(dt) || len(p.Values) == 0 || (p.Op != "IN" && len(p.Values) != 1) {
			continue
		}
		ok := true
		for _, v := range p.Values {
			fl, ce, conv := zoneValue(dt, v)
			if !conv {
				ok = false
				break
			}
			zp.floor, zp.cei = append(zp.floor, fl), append(zp.cei, ce)
		}
		if ok {
			f.preds = append(f.preds, zp)
		}
	}
	if len(f.preds) == 0 {
		return nil
	}
	return f
}

// zoneValue converts a predicate constant to the int64 values of a column
// of type dt: a value not above it and one not below it. An integer
// constant against an integer column, a date against a DATE column, are
// exact; any other pair is widened by one unit either way, because the
// engine may compare it as DOUBLEs, whose rounding can move the constant
// past a value by less than one unit. ok is false when the constant is not
// a plain number (or date) or is too large for that widening to hold.
func zoneValue(dt arrow.DataType, v any) (floor, ceil int64, ok bool) {
	if dt.ID() == arrow.DATE32 {
		s, isStr := v.(string)
		if !isStr {
			return 0, 0, false
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return 0, 0, false
		}
		d := t.Unix() / 86400 // midnight UTC: exact, before the epoch too
		return d, d, true
	}
	dec, isDec := dt.(*arrow.Decimal128Type)
	if x, isInt := v.(int64); isInt && !isDec {
		return x, x, true
	}
	var r big.Rat
	switch x := v.(type) {
	case int64:
		r.SetInt64(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, false
		}
		r.SetFloat64(x)
	case string:
		if !plainNumber(x) {
			return 0, 0, false
		}
		if _, isRat := r.SetString(x); !isRat {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	if isDec {
		r.Mul(&r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec.Scale)), nil)))
	}
	fl := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean, Denom > 0: the floor
	const limit = 1 << 52
	if fl.Cmp(big.NewInt(-limit)) < 0 || fl.Cmp(big.NewInt(limit)) > 0 {
		return 0, 0, false
	}
	f := fl.Int64()
	return f - 1, f + 2, true
}

// plainNumber accepts [+-]digits[.digits][e[+-]digits], at most 64 bytes:
// the text big.Rat reads as the engine does (not its fractions a/b or
// base prefixes).
func plainNumber(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// skips says whether no row of a batch with zone map z can satisfy every
// predicate.
func (f *zoneFilter) skips(z *batchZone) bool {
	if len(z.Cols) != f.ncols {
		return false // written under another schema: unknown
	}
	for _, p := range f.preds {
		if !p.mayMatch(&z.Cols[p.col], z.Rows) {
			return true
		}
	}
	return false
}

// mayMatch says whether a row of a batch of rows rows whose column has
// zone z may satisfy p. For an integer m and a constant c, m < c iff m <
// ceil(c), m <= c iff m <= floor(c), and the same mirrored.
func (p *zonePred) mayMatch(z *colZone, rows int64) bool {
	switch p.op {
	case "IS NULL":
		return z.Nulls > 0
	case "IS NOT NULL":
		return z.Nulls < rows
	}
	if z.Nulls >= rows {
		return false // only NULLs: no comparison is TRUE
	}
	if !z.Ok {
		return true
	}
	switch p.op {
	case "<":
		return z.Min < p.cei[0]
	case "<=":
		return z.Min <= p.floor[0]
	case ">":
		return z.Max > p.floor[0]
	case ">=":
		return z.Max >= p.cei[0]
	case "=", "IN":
		for k, fl := range p.floor {
			if z.Min <= p.cei[k] && fl <= z.Max {
				return true
			}
		}
		return false
	}
	return true
}

// skipList is, per batch of a segment, whether f skips it; nil when it
// skips none (or the segment has no zone maps).
func (f *zoneFilter) skipList(fi fileInfo) []bool {
	if f == nil || len(fi.Zones) == 0 {
		return nil
	}
	var out []bool
	for i := range fi.Zones {
		if f.skips(&fi.Zones[i]) {
			if out == nil {
				out = make([]bool, len(fi.Zones))
			}
			out[i] = true
		}
	}
	return out
}

// skipsAll says whether f skips every batch of the segment.
func (f *zoneFilter) skipsAll(fi fileInfo) bool {
	if f == nil || len(fi.Zones) == 0 {
		return false
	}
	var rows int64
	for i := range fi.Zones {
		if !f.skips(&fi.Zones[i]) {
			return false
		}
		rows += fi.Zones[i].Rows
	}
	return rows == fi.Rows
}
