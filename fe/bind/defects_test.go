package bind

import (
	"strings"
	"testing"
)

// Binder halves of issue 15's wrong answers.
func TestBindIssue15(t *testing.T) {
	cases := []struct {
		q    string
		want string // Explain lines joined by "; "
	}{
		// Same-named columns of different tables stay two group keys.
		{"SELECT t.a, u.a FROM t CROSS JOIN u GROUP BY t.a, u.a",
			"Project a, a;   Aggregate groups=[t.a, u.a] aggs=[];     CROSS JOIN;       Scan ctl.db.t [a];       Scan ctl.db.u [a]"},
		{"SELECT sum(t.a), sum(u.a) FROM t CROSS JOIN u",
			"Project sum(CAST(t.a AS bigint)), sum(u.a);   Aggregate groups=[] aggs=[sum(CAST(t.a AS bigint)), sum(u.a)];     CROSS JOIN;       Scan ctl.db.t [a];       Scan ctl.db.u [a]"},
		{"SELECT b, group_concat(a), group_concat(DISTINCT b SEPARATOR '; ') FROM t GROUP BY b",
			"Project b, group_concat(CAST(a AS text)), group_concat(DISTINCT b SEPARATOR \"; \");   Aggregate groups=[b] aggs=[group_concat(CAST(a AS text)), group_concat(DISTINCT b SEPARATOR \"; \")];     Scan ctl.db.t [a, b]"},
		{"SELECT date_add(d, INTERVAL 1 MONTH), date_sub(d, INTERVAL 2 DAY), timestampdiff(day, d, d) FROM u",
			"Project date_add(d, INTERVAL 1 MONTH), date_sub(d, INTERVAL 2 DAY), timestampdiff(DAY, d, d);   Scan ctl.db.u [d]"},
		{"SELECT round(c, -2) FROM t",
			"Project round(c);   Scan ctl.db.t [c]"},
	}
	for _, c := range cases {
		p, err := bindQuery(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := strings.Join(Explain(p), "; "); got != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.q, got, c.want)
		}
	}
}
