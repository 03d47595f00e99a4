package bind

import (
	"testing"

	"github.com/inlet-db/inlet/fe/sql"
)

func TestFactorOrs(t *testing.T) {
	for _, c := range []struct{ where, want string }{
		// Q19's shape: the join equality common to every branch comes out.
		{"(a = b AND x = 1) OR (a = b AND x = 2 AND y < 3) OR (x = 9 AND a = b)",
			"a = b AND (x = 1 OR x = 2 AND y < 3 OR x = 9)"},
		// Several common conjuncts, in the first branch's order.
		{"(a = b AND c = d AND x = 1) OR (c = d AND a = b AND x = 2)", "a = b AND c = d AND (x = 1 OR x = 2)"},
		// A branch that is only the common part makes the OR true given it.
		{"(a = b) OR (a = b AND x = 2)", "a = b"},
		// Nothing common: unchanged; other conjuncts are kept around it.
		{"k > 0 AND ((a = b AND x = 1) OR (c = d AND x = 2))", "k > 0 AND (a = b AND x = 1 OR c = d AND x = 2)"},
		{"k > 0 AND ((a = b AND x = 1) OR (x = 2 AND a = b))", "k > 0 AND a = b AND (x = 1 OR x = 2)"},
		{"x = 1", "x = 1"},
	} {
		st, err := sql.Parse("SELECT 1 FROM t WHERE " + c.where)
		if err != nil {
			t.Fatal(err)
		}
		got := factorOrs(st.(*sql.Select).Where)
		want, err := sql.Parse("SELECT 1 FROM t WHERE " + c.want)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.(*sql.Select).Where.String() {
			t.Errorf("%s:\n got %s\nwant %s", c.where, got, want.(*sql.Select).Where)
		}
	}
}
