package sql

import "testing"

func TestParseDeleteUpdate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"DELETE FROM t WHERE k = 1 AND v IS NULL", "DELETE FROM t WHERE k = 1 AND v IS NULL"},
		{"delete from db.t x where x.k in (1, 2)", "DELETE FROM db.t x WHERE x.k IN (1, 2)"},
		{"DELETE FROM t", "DELETE FROM t"},
		{"UPDATE t SET v = v + 1, s = DEFAULT WHERE k = 2", "UPDATE t SET v = v + 1, s = DEFAULT WHERE k = 2"},
		{"update c.d.t as a set a.v = 'x'", "UPDATE c.d.t a SET v = 'x'"},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := st.String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"DELETE t WHERE k = 1", "UPDATE t WHERE k = 1", "UPDATE t SET WHERE k = 1", "DELETE FROM t PARTITION p1 WHERE k = 1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}
