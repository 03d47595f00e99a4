package planner

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/typemap"
)

// This file turns WHERE conjuncts into the three things planning does with
// them: BE filters (applied exactly), a Paimon predicate (prunes lake files
// and filters lake rows), and partition pruning. The last two must never
// drop a row the engine's own evaluation would keep, so anything whose
// meaning is not certain (a constant of another type, floats, time zones,
// CHAR padding, NOT IN) is left out: a predicate that is not pushed costs
// speed, a wrong one costs rows.

// filtersFor converts the predicates on known columns to BE filters.
func filtersFor(preds []catalog.Predicate, cols []catalog.Column) []*inletpb.Filter {
	return lakeFiltersFor(preds, cols, nil)
}

// lakeFiltersFor is filtersFor for a fragment with lake splits: a filter
// whose predicate is a leaf of the Paimon predicate the readers apply
// (lakeApplied[i], from planLakeTable) is marked, so the BE does not
// evaluate it a second time on rows the lake reader already filtered.
func lakeFiltersFor(preds []catalog.Predicate, cols []catalog.Column, lakeApplied []bool) []*inletpb.Filter {
	var out []*inletpb.Filter
	for i, p := range preds {
		idx := catalog.Schema{Columns: cols}.Index(p.Column)
		if idx < 0 {
			continue
		}
		f := &inletpb.Filter{Column: int32(idx), Op: p.Op, LakeApplied: i < len(lakeApplied) && lakeApplied[i]}
		ok := true
		for _, v := range p.Values {
			pv := protoValue(v)
			if pv == nil {
				ok = false
				break
			}
			f.Values = append(f.Values, pv)
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

// orFiltersFor converts the cross-column disjunctions; one whose branch
// cannot be carried is left out whole (leaving out a branch would make the
// disjunction stricter than the WHERE).
func orFiltersFor(ors [][]catalog.Predicate, cols []catalog.Column) []*inletpb.FilterOr {
	var out []*inletpb.FilterOr
	for _, or := range ors {
		fs := filtersFor(or, cols)
		if len(fs) == len(or) && len(fs) > 1 {
			out = append(out, &inletpb.FilterOr{Any: fs})
		}
	}
	return out
}

func protoValue(v any) *inletpb.Value {
	switch x := v.(type) {
	case nil:
		return &inletpb.Value{V: &inletpb.Value_IsNull{IsNull: true}}
	case int64:
		return &inletpb.Value{V: &inletpb.Value_Int{Int: x}}
	case float64:
		return &inletpb.Value{V: &inletpb.Value_Float{Float: x}}
	case bool:
		return &inletpb.Value{V: &inletpb.Value_Bool{Bool: x}}
	case string:
		return &inletpb.Value{V: &inletpb.Value_Text{Text: x}}
	}
	return nil
}

// lakePredicate converts the predicates that are safe to push into Paimon
// planning; nil when none is.
func lakePredicate(preds []catalog.Predicate, fields []paimon.DataField) *paimon.Predicate {
	pred, _ := lakePredicateOf(preds, fields)
	return pred
}

// lakePredicateOf is lakePredicate that also says which predicates became
// one of its leaves (applied[i] for preds[i]).
func lakePredicateOf(preds []catalog.Predicate, fields []paimon.DataField) (*paimon.Predicate, []bool) {
	var leaves []*paimon.Predicate
	applied := make([]bool, len(preds))
	for pi, p := range preds {
		var f *paimon.DataField
		for i := range fields {
			if strings.EqualFold(fields[i].Name, p.Column) {
				f = &fields[i]
				break
			}
		}
		if f == nil {
			continue
		}
		if lp := lakeLeaf(p, f.Name, f.Type); lp != nil {
			leaves = append(leaves, lp)
			applied[pi] = true
		}
	}
	switch len(leaves) {
	case 0:
		return nil, nil
	case 1:
		return leaves[0], applied
	}
	return paimon.And(leaves...), applied
}

func lakeLeaf(p catalog.Predicate, name string, t paimon.DataType) *paimon.Predicate {
	switch p.Op {
	case "IS NULL":
		return paimon.IsNull(name)
	case "IS NOT NULL":
		return paimon.IsNotNull(name)
	case "IN":
		var vs []any
		for _, v := range p.Values {
			if v == nil {
				// x IN (.., NULL) is TRUE only through its other values.
				continue
			}
			lv, ok := lakeLiteral(v, t)
			if !ok {
				return nil
			}
			vs = append(vs, lv)
		}
		if len(vs) == 0 {
			return nil
		}
		return paimon.In(name, vs...)
	case "=", "!=", "<", "<=", ">", ">=":
		if len(p.Values) != 1 || p.Values[0] == nil {
			return nil
		}
		lv, ok := lakeLiteral(p.Values[0], t)
		if !ok {
			return nil
		}
		switch p.Op {
		case "=":
			return paimon.Eq(name, lv)
		case "!=":
			return paimon.Ne(name, lv)
		case "<":
			return paimon.Lt(name, lv)
		case "<=":
			return paimon.Le(name, lv)
		case ">":
			return paimon.Gt(name, lv)
		default:
			return paimon.Ge(name, lv)
		}
	}
	return nil
}

// lakeLiteral returns the constant in the form Paimon converts exactly for
// the column type, or false when the comparison's meaning could differ
// between the engine and Paimon.
func lakeLiteral(v any, t paimon.DataType) (any, bool) {
	switch t.Root {
	case paimon.TinyInt, paimon.SmallInt, paimon.Int, paimon.BigInt:
		if x, ok := v.(int64); ok {
			return x, true
		}
	case paimon.Decimal:
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10), true
		case string:
			if _, ok := new(big.Rat).SetString(x); ok && isPlainDecimal(x) {
				return x, true
			}
		}
	case paimon.VarChar:
		if x, ok := v.(string); ok {
			return x, true
		}
	case paimon.Boolean:
		if x, ok := v.(bool); ok {
			return x, true
		}
	case paimon.Date:
		if x, ok := v.(string); ok {
			if _, err := time.Parse("2006-01-02", x); err == nil {
				return x, true
			}
		}
	case paimon.Timestamp:
		// Engine datetimes stop at microseconds; a finer lake column could
		// compare differently.
		if x, ok := v.(string); ok && t.Precision <= 6 {
			if _, err := time.Parse("2006-01-02 15:04:05.999999", x); err == nil {
				return x, true
			}
		}
	}
	return nil, false
}

// isPlainDecimal accepts [-]digits[.digits], the text of a decimal constant.
func isPlainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	dot := false
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// partKind is how a partition value's text compares.
type partKind int

const (
	partUnknown partKind = iota
	partString
	partInt
	partBool
	partDate
	// partChar is CHAR(n): compared with PAD SPACE semantics, so only
	// equality (=, !=, IN) on right-trimmed text decides.
	partChar
)

func partKindOf(t typemap.DataType) partKind {
	switch t.Root {
	case typemap.RootString:
		return partString
	case typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt, typemap.RootBigInt:
		return partInt
	case typemap.RootBoolean:
		return partBool
	case typemap.RootDate:
		return partDate
	case typemap.RootChar:
		return partChar
	}
	// BINARY compares as hex text: never pruned.
	return partUnknown
}

// partitionMayMatch reports whether a partition with the given values
// (text, in key order) can hold a row every predicate on a partition column
// accepts. Unknown means yes.
func partitionMayMatch(preds []catalog.Predicate, keys []string, kinds []partKind, values []string) bool {
	for _, p := range preds {
		for i, k := range keys {
			if !strings.EqualFold(k, p.Column) {
				continue
			}
			if r := evalPartition(p, kinds[i], values[i]); r == triFalse {
				return false
			}
		}
	}
	return true
}

type tri int

const (
	triUnknown tri = iota
	triTrue
	triFalse
)

func evalPartition(p catalog.Predicate, kind partKind, text string) tri {
	switch p.Op {
	case "IS NULL":
		// Fluss partition values are never NULL.
		if kind != partUnknown {
			return triFalse
		}
		return triUnknown
	case "IS NOT NULL":
		return triUnknown
	case "IN":
		sawUnknown := false
		for _, v := range p.Values {
			if v == nil {
				continue
			}
			c, ok := comparePart(kind, text, v)
			if !ok {
				sawUnknown = true
				continue
			}
			if c == 0 {
				return triTrue
			}
		}
		if sawUnknown {
			return triUnknown
		}
		return triFalse
	case "=", "!=", "<", "<=", ">", ">=":
		if len(p.Values) != 1 || (kind == partChar && p.Op != "=" && p.Op != "!=") {
			return triUnknown
		}
		if p.Values[0] == nil {
			return triFalse // a comparison with NULL is never TRUE
		}
		c, ok := comparePart(kind, text, p.Values[0])
		if !ok {
			return triUnknown
		}
		var r bool
		switch p.Op {
		case "=":
			r = c == 0
		case "!=":
			r = c != 0
		case "<":
			r = c < 0
		case "<=":
			r = c <= 0
		case ">":
			r = c > 0
		default:
			r = c >= 0
		}
		if r {
			return triTrue
		}
		return triFalse
	}
	return triUnknown
}

// comparePart compares a partition value's text with a constant; false
// when the types do not line up exactly.
func comparePart(kind partKind, text string, v any) (int, bool) {
	switch kind {
	case partString:
		if s, ok := v.(string); ok {
			return strings.Compare(text, s), true
		}
	case partChar:
		// Callers use the result only for equality (see evalPartition).
		if s, ok := v.(string); ok {
			if strings.TrimRight(text, " ") == strings.TrimRight(s, " ") {
				return 0, true
			}
			return 1, true
		}
	case partInt:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return 0, false
		}
		if x, ok := v.(int64); ok {
			return cmpInt(n, x), true
		}
	case partBool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return 0, false
		}
		if x, ok := v.(bool); ok {
			return cmpInt(b2i(b), b2i(x)), true
		}
		if x, ok := v.(int64); ok {
			return cmpInt(b2i(b), x), true
		}
	case partDate:
		d, err := time.Parse("2006-01-02", text)
		if err != nil {
			return 0, false
		}
		if s, ok := v.(string); ok {
			c, err := time.Parse("2006-01-02", s)
			if err != nil {
				return 0, false
			}
			return d.Compare(c), true
		}
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
