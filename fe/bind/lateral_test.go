package bind

import (
	"errors"
	"strings"
	"testing"
)

// findJoins lists the joins of a plan, depth first.
func findJoins(p Plan, into []*Join) []*Join {
	if j, ok := p.(*Join); ok {
		into = append(into, j)
	}
	for _, c := range p.Children() {
		into = findJoins(c, into)
	}
	return into
}

// A correlation without an equality joins the subquery's FROM to the
// distinct correlation values (an Aggregate over the enclosing input), not
// to every enclosing row; the enclosing rows then find their answer by a
// hash join on those values.
func TestThetaCorrelationJoinsDistinctValues(t *testing.T) {
	for _, q := range []string{
		"SELECT a, (SELECT count(*) FROM u WHERE u.a < t.a) FROM t",
		"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a > t.a)",
		"SELECT a, (SELECT u.a FROM u WHERE u.a < t.a ORDER BY u.a LIMIT 1) FROM t",
	} {
		p, err := bindQuery(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var theta, hashBack bool
		for _, j := range findJoins(p, nil) {
			if len(j.LeftKeys) == 0 && j.Residual != nil {
				agg, ok := j.Left.(*Aggregate)
				theta = ok && len(agg.Groups) == 1 && len(agg.Aggs) == 0
			}
			if len(j.LeftKeys) > 0 {
				hashBack = true
			}
		}
		if !theta || !hashBack {
			t.Errorf("%s: want a nested-loop join over the distinct values of t.a and a hash join back (theta %v, hash %v)", q, theta, hashBack)
		}
	}
}

// Shapes that cannot be answered once per correlation value are refused
// with a clear error, never planned per row.
func TestLateralRefusals(t *testing.T) {
	cases := []struct{ q, msg string }{
		{"SELECT a FROM t WHERE a IN (SELECT count(*) FROM u WHERE u.a = t.a HAVING count(*) > 0)", "IN over a correlated aggregate subquery"},
	}
	for _, c := range cases {
		_, err := bindQuery(c.q)
		if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want ErrUnsupported containing %q", c.q, err, c.msg)
		}
	}
}
