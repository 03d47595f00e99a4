package bind

import (
	"strings"
	"testing"
)

// WHERE conjuncts of a FROM clause of joins land at the lowest safe place.
func TestPushWhereIntoJoins(t *testing.T) {
	cases := []struct {
		q    string
		want []string // Explain lines, indentation kept
	}{
		{`SELECT 1 FROM t x, u y, t z WHERE x.a = y.a AND y.a = z.a AND x.c > 1 AND z.b = 'q' AND x.c < y.a + z.c`, []string{
			"Project 1",
			"  INNER JOIN keys=[y.a] = [CAST(a AS bigint)] residual=(x.c < (CAST(y.a AS double) + z.c))",
			"    INNER JOIN keys=[CAST(a AS bigint)] = [a]",
			"      Filter (c > 1)",
			"        Scan ctl.db.t [a, b, c] predicates=[`c` > 1]",
			"      Scan ctl.db.u [a]",
			"    Filter (b = 'q')",
			"      Scan ctl.db.t [a, b, c] predicates=[`b` = 'q']",
		}},
		// Nothing onto the null-supplying side, nothing two-sided into an outer join.
		{`SELECT 1 FROM t x LEFT JOIN u y ON x.a = y.a WHERE y.d IS NULL AND x.b = 'q' AND x.c < y.a`, []string{
			"Project 1",
			"  Filter (d IS NULL AND (c < CAST(y.a AS double)))",
			"    LEFT OUTER JOIN keys=[CAST(a AS bigint)] = [a]",
			"      Filter (b = 'q')",
			"        Scan ctl.db.t [a, b, c]",
			"      Scan ctl.db.u [a, d]",
		}},
	}
	for _, c := range cases {
		p, err := bindQuery(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := Explain(p); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got: %s\nwant: %s", c.q, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
