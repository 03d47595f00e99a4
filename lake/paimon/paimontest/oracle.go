package paimontest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Filter keeps the rows (in r.Columns order) that satisfy r.Predicate,
// evaluated here rather than by paimon.Predicate.Matches: the pruning-only
// expectations must not come from the code they check. It knows the
// operators and value kinds the fixtures use (numbers and strings) and
// returns an error for anything else, so a new fixture cannot be
// mis-evaluated silently. A comparison with NULL is false.
func Filter(r *Read, rows [][]any) ([][]any, error) {
	if err := predicateColumns(r.Predicate, r.Columns); err != nil {
		return nil, err
	}
	var out [][]any
	for _, row := range rows {
		if len(row) != len(r.Columns) {
			return nil, fmt.Errorf("row %v has %d values for %d columns", row, len(row), len(r.Columns))
		}
		m := make(map[string]any, len(row))
		for i, c := range r.Columns {
			m[c] = row[i]
		}
		ok, err := holds(r.Predicate, m)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

func predicateColumns(p *paimon.Predicate, cols []string) error {
	if p == nil {
		return nil
	}
	if p.Field != "" {
		found := false
		for _, c := range cols {
			found = found || c == p.Field
		}
		if !found {
			return fmt.Errorf("pruning-only predicate column %s is not among the read columns", p.Field)
		}
	}
	for _, c := range p.Children {
		if err := predicateColumns(c, cols); err != nil {
			return err
		}
	}
	return nil
}

func holds(p *paimon.Predicate, row map[string]any) (bool, error) {
	if p == nil {
		return true, nil
	}
	switch p.Op {
	case "and", "or":
		if len(p.Children) == 0 {
			return false, fmt.Errorf("oracle: %s without children", p.Op)
		}
		for _, c := range p.Children {
			ok, err := holds(c, row)
			if err != nil {
				return false, err
			}
			if p.Op == "and" && !ok {
				return false, nil
			}
			if p.Op == "or" && ok {
				return true, nil
			}
		}
		return p.Op == "and", nil
	case "is_null":
		return row[p.Field] == nil, nil
	case "is_not_null":
		return row[p.Field] != nil, nil
	case "in":
		for _, v := range p.Values {
			c, ok, err := compare(row[p.Field], v)
			if err != nil {
				return false, err
			}
			if ok && c == 0 {
				return true, nil
			}
		}
		return false, nil
	}
	c, ok, err := compare(row[p.Field], p.Value)
	if err != nil || !ok {
		return false, err
	}
	switch p.Op {
	case "eq":
		return c == 0, nil
	case "ne":
		return c != 0, nil
	case "lt":
		return c < 0, nil
	case "le":
		return c <= 0, nil
	case "gt":
		return c > 0, nil
	case "ge":
		return c >= 0, nil
	}
	return false, fmt.Errorf("oracle: unknown predicate operator %q", p.Op)
}

// compare orders a row value against a literal; ok is false when either is
// NULL. Integers compare exactly, other numbers as float64 (Paimon compares
// DOUBLE columns as doubles), strings by UTF-8 bytes (as BinaryString does).
func compare(v, lit any) (c int, ok bool, err error) {
	if v == nil || lit == nil {
		return 0, false, nil
	}
	if a, isNum := number(v); isNum {
		b, litNum := number(lit)
		if !litNum {
			return 0, false, fmt.Errorf("oracle: cannot compare number %v with %T %v", v, lit, lit)
		}
		if a.isInt && b.isInt {
			return cmp.Compare(a.i, b.i), true, nil
		}
		if math.IsNaN(a.f) || math.IsNaN(b.f) {
			return 0, false, fmt.Errorf("oracle: NaN comparison %v with %v", v, lit)
		}
		return cmp.Compare(a.f, b.f), true, nil
	}
	a, isStr := v.(string)
	b, litStr := lit.(string)
	if !isStr || !litStr {
		return 0, false, fmt.Errorf("oracle: cannot compare %T %v with %T %v", v, v, lit, lit)
	}
	return strings.Compare(a, b), true, nil
}

type numeric struct {
	isInt bool
	i     int64
	f     float64
}

func number(v any) (numeric, bool) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return numeric{isInt: true, i: i, f: float64(i)}, true
		}
		f, err := strconv.ParseFloat(x.String(), 64)
		return numeric{f: f}, err == nil
	case int8:
		return numeric{isInt: true, i: int64(x), f: float64(x)}, true
	case int16:
		return numeric{isInt: true, i: int64(x), f: float64(x)}, true
	case int32:
		return numeric{isInt: true, i: int64(x), f: float64(x)}, true
	case int64:
		return numeric{isInt: true, i: x, f: float64(x)}, true
	case int:
		return numeric{isInt: true, i: int64(x), f: float64(x)}, true
	case float32:
		return numeric{f: float64(x)}, true
	case float64:
		return numeric{f: x}, true
	}
	return numeric{}, false
}
