package planner

import (
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/lake/paimon"
)

func TestLakePredicate(t *testing.T) {
	fields := []paimon.DataField{
		{Name: "i", Type: paimon.DataType{Root: paimon.Int}},
		{Name: "s", Type: paimon.DataType{Root: paimon.VarChar}},
		{Name: "c", Type: paimon.DataType{Root: paimon.Char, Precision: 5}},
		{Name: "f", Type: paimon.DataType{Root: paimon.Double}},
		{Name: "d", Type: paimon.DataType{Root: paimon.Decimal, Precision: 10, Scale: 2}},
		{Name: "dt", Type: paimon.DataType{Root: paimon.Date}},
		{Name: "ts", Type: paimon.DataType{Root: paimon.Timestamp, Precision: 6}},
		{Name: "ts9", Type: paimon.DataType{Root: paimon.Timestamp, Precision: 9}},
		{Name: "ltz", Type: paimon.DataType{Root: paimon.TimestampLTZ, Precision: 3}},
	}
	for _, tc := range []struct {
		p    catalog.Predicate
		want string // "" = not pushed
	}{
		{catalog.Predicate{Column: "i", Op: "=", Values: []any{int64(3)}}, "i = 3"},
		{catalog.Predicate{Column: "I", Op: ">=", Values: []any{int64(3)}}, "i >= 3"},
		{catalog.Predicate{Column: "i", Op: "=", Values: []any{"3"}}, ""}, // string constant for an int column
		{catalog.Predicate{Column: "i", Op: "=", Values: []any{2.5}}, ""}, // float constant
		{catalog.Predicate{Column: "i", Op: "=", Values: []any{nil}}, ""}, // = NULL is never TRUE; leave it to the engine
		{catalog.Predicate{Column: "i", Op: "NOT IN", Values: []any{int64(1)}}, ""},
		{catalog.Predicate{Column: "i", Op: "IN", Values: []any{int64(1), nil}}, "i IN [1]"},
		{catalog.Predicate{Column: "i", Op: "IS NULL"}, "i IS NULL"},
		{catalog.Predicate{Column: "s", Op: "<", Values: []any{"b"}}, "s < b"},
		{catalog.Predicate{Column: "c", Op: "=", Values: []any{"ab"}}, ""},
		{catalog.Predicate{Column: "f", Op: "=", Values: []any{1.5}}, ""},
		{catalog.Predicate{Column: "d", Op: "=", Values: []any{"1.10"}}, "d = 1.10"},
		{catalog.Predicate{Column: "d", Op: "=", Values: []any{"1e3"}}, ""},
		{catalog.Predicate{Column: "dt", Op: "=", Values: []any{"2026-01-01"}}, "dt = 2026-01-01"},
		{catalog.Predicate{Column: "dt", Op: "=", Values: []any{"2026-01-01 10:00:00"}}, ""},
		{catalog.Predicate{Column: "ts", Op: ">", Values: []any{"2026-01-01 10:00:00.123456"}}, "ts > 2026-01-01 10:00:00.123456"},
		{catalog.Predicate{Column: "ts9", Op: ">", Values: []any{"2026-01-01 10:00:00"}}, ""},
		{catalog.Predicate{Column: "ltz", Op: ">", Values: []any{"2026-01-01 10:00:00"}}, ""},
		{catalog.Predicate{Column: "nope", Op: "=", Values: []any{int64(1)}}, ""},
	} {
		got := lakePredicate([]catalog.Predicate{tc.p}, fields)
		s := ""
		if got != nil {
			s = got.String()
		}
		if s != tc.want {
			t.Errorf("%v: pushed %q, want %q", tc.p, s, tc.want)
		}
	}
}

func TestPartitionMayMatch(t *testing.T) {
	keys := []string{"s", "i", "b", "d", "c", "x"}
	kinds := []partKind{partString, partInt, partBool, partDate, partChar, partUnknown}
	vals := []string{"cn", "100", "true", "2026-01-02", "c1", "0a0b"}
	for _, tc := range []struct {
		p    catalog.Predicate
		want bool
	}{
		{catalog.Predicate{Column: "s", Op: "=", Values: []any{"cn"}}, true},
		{catalog.Predicate{Column: "s", Op: "=", Values: []any{"us"}}, false},
		{catalog.Predicate{Column: "s", Op: "=", Values: []any{int64(1)}}, true}, // mismatched type: keep
		{catalog.Predicate{Column: "s", Op: "IN", Values: []any{"us", nil}}, false},
		{catalog.Predicate{Column: "s", Op: "IN", Values: []any{"us", "cn"}}, true},
		{catalog.Predicate{Column: "s", Op: "!=", Values: []any{nil}}, false},
		{catalog.Predicate{Column: "s", Op: "IS NULL"}, false},
		{catalog.Predicate{Column: "s", Op: "NOT IN", Values: []any{"cn"}}, true}, // never pruned on
		{catalog.Predicate{Column: "i", Op: "<", Values: []any{int64(100)}}, false},
		{catalog.Predicate{Column: "i", Op: "<=", Values: []any{int64(100)}}, true},
		{catalog.Predicate{Column: "i", Op: "=", Values: []any{"100"}}, true},
		{catalog.Predicate{Column: "b", Op: "=", Values: []any{false}}, false},
		{catalog.Predicate{Column: "d", Op: ">", Values: []any{"2026-01-02"}}, false},
		{catalog.Predicate{Column: "d", Op: ">", Values: []any{"2026-01-01 23:00:00"}}, true},
		{catalog.Predicate{Column: "c", Op: "=", Values: []any{"zz"}}, false},
		{catalog.Predicate{Column: "c", Op: "=", Values: []any{"c1  "}}, true}, // CHAR pads with spaces
		{catalog.Predicate{Column: "c", Op: "IN", Values: []any{"c2", "c1"}}, true},
		{catalog.Predicate{Column: "c", Op: "!=", Values: []any{"c1 "}}, false},
		{catalog.Predicate{Column: "c", Op: ">", Values: []any{"zz"}}, true}, // ordering of padded text: never pruned
		{catalog.Predicate{Column: "x", Op: "=", Values: []any{"zz"}}, true}, // unknown kinds never pruned
		{catalog.Predicate{Column: "other", Op: "=", Values: []any{"zz"}}, true},
	} {
		if got := partitionMayMatch([]catalog.Predicate{tc.p}, keys, kinds, vals); got != tc.want {
			t.Errorf("%v: may match %v, want %v", tc.p, got, tc.want)
		}
	}
}
