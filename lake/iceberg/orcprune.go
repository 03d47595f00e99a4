package iceberg

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// stripeBound decides from an ORC stripe's column statistics whether the
// predicate may hold for one of its rows. It only ever answers "no" when
// the statistics prove it: integer, date, decimal, float/double and
// string columns against literals that convert exactly, NULL tests by
// counts. Anything else (timestamps, booleans, a column the file lacks,
// statistics the writer left out) keeps the stripe.
type stripeBound struct {
	of     *orc.File
	fields []paimon.DataField // the table's, by which predicates name columns
	column func(id int) int   // root field index of a field id, or -1
}

func (b *stripeBound) mayMatch(p *paimon.Predicate, st orc.StripeInfo) bool {
	if p == nil || st.Stats == nil {
		return true
	}
	switch p.Op {
	case paimon.OpAnd:
		for _, c := range p.Children {
			if !b.mayMatch(c, st) {
				return false
			}
		}
		return true
	case paimon.OpOr:
		for _, c := range p.Children {
			if b.mayMatch(c, st) {
				return true
			}
		}
		return len(p.Children) == 0
	}
	w, cs, ok := b.stats(p.Field, st)
	if !ok || !cs.HasNumValues {
		return true
	}
	rows := int64(st.NumRows)
	nonNull := int64(cs.NumValues)
	switch p.Op {
	case paimon.OpIsNull:
		return nonNull < rows
	case paimon.OpIsNotNull:
		return nonNull > 0
	case paimon.OpEq, paimon.OpLt, paimon.OpLe, paimon.OpGt, paimon.OpGe:
		if nonNull == 0 {
			return false // every value is NULL: no comparison holds
		}
		return rangeMay(p.Op, p.Value, w, cs)
	case paimon.OpIn:
		if nonNull == 0 {
			return false
		}
		for _, v := range p.Values {
			if v == nil || rangeMay(paimon.OpEq, v, w, cs) {
				return true
			}
		}
		return false
	}
	return true
}

// stats finds the statistics of the wanted column name in the stripe.
func (b *stripeBound) stats(name string, st orc.StripeInfo) (paimon.DataField, orc.ColumnStats, bool) {
	for _, w := range b.fields {
		c := -1
		if strings.EqualFold(w.Name, name) {
			c = b.column(w.ID)
		}
		if c < 0 {
			continue
		}
		fl := b.of.Schema().Field(c)
		v, ok := fl.Metadata.GetValue(orc.MetaColumnID)
		if !ok {
			return w, orc.ColumnStats{}, false
		}
		id, err := strconv.Atoi(v)
		if err != nil || id < 0 || id >= len(st.Stats) {
			return w, orc.ColumnStats{}, false
		}
		return w, st.Stats[id], true
	}
	return paimon.DataField{}, orc.ColumnStats{}, false
}

// rangeMay: may some value in [min, max] satisfy "value op lit"? Literals
// come as the planner built them or as JSON decoded them (float64,
// json.Number); dates as days or 'YYYY-MM-DD', decimals as text.
func rangeMay(op paimon.Op, lit any, w paimon.DataField, cs orc.ColumnStats) bool {
	switch w.Type.Root {
	case paimon.TinyInt, paimon.SmallInt, paimon.Int, paimon.BigInt:
		v, ok := asInt(lit)
		if !ok || cs.Int == nil || !cs.Int.HasMin || !cs.Int.HasMax {
			return true
		}
		return cmpMay(op, order(cs.Int.Min, v), order(cs.Int.Max, v))
	case paimon.Date:
		v, ok := asInt(lit)
		if s, isStr := lit.(string); isStr {
			d, err := time.Parse("2006-01-02", s)
			v, ok = d.Unix()/86400, err == nil
		}
		if !ok || cs.Date == nil || !cs.Date.HasMin || !cs.Date.HasMax {
			return true
		}
		return cmpMay(op, order(int64(cs.Date.Min), v), order(int64(cs.Date.Max), v))
	case paimon.Float, paimon.Double:
		v, ok := asFloat(lit)
		if !ok || cs.Double == nil || !cs.Double.HasMin || !cs.Double.HasMax || math.IsNaN(v) ||
			math.IsNaN(cs.Double.Min) || math.IsNaN(cs.Double.Max) {
			return true
		}
		if w.Type.Root == paimon.Float && float64(float32(v)) != v {
			return true // the column's values are float32s: compare exactly or not at all
		}
		return cmpMay(op, order(cs.Double.Min, v), order(cs.Double.Max, v))
	case paimon.Decimal:
		s, ok := lit.(string)
		if !ok || cs.Decimal == nil || cs.Decimal.Min == "" || cs.Decimal.Max == "" {
			return true
		}
		v, ok1 := new(big.Rat).SetString(s)
		lo, ok2 := new(big.Rat).SetString(cs.Decimal.Min)
		hi, ok3 := new(big.Rat).SetString(cs.Decimal.Max)
		if !ok1 || !ok2 || !ok3 {
			return true
		}
		return cmpMay(op, lo.Cmp(v), hi.Cmp(v))
	case paimon.VarChar, paimon.Char:
		v, ok := lit.(string)
		if !ok || cs.String == nil || !cs.String.HasMin || !cs.String.HasMax {
			return true
		}
		return cmpMay(op, strings.Compare(cs.String.Min, v), strings.Compare(cs.String.Max, v))
	}
	return true
}

// asInt is an integer literal exactly, or false.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x >= -(1<<63) && x < 1<<63 && x == math.Trunc(x) {
			return int64(x), true
		}
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	}
	return 0, false
}

// asFloat is a numeric literal exactly as a float64, or false.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		f := float64(x)
		return f, int64(f) == x
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func order[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpMay: given min compared to lit (lo) and max compared to lit (hi).
func cmpMay(op paimon.Op, lo, hi int) bool {
	switch op {
	case paimon.OpEq:
		return lo <= 0 && hi >= 0
	case paimon.OpLt:
		return lo < 0
	case paimon.OpLe:
		return lo <= 0
	case paimon.OpGt:
		return hi > 0
	case paimon.OpGe:
		return hi >= 0
	}
	return true
}
