package sql

import "testing"

func TestParseAnalyzeAndStats(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ANALYZE TABLE t", "ANALYZE TABLE t"},
		{"analyze table db.t (a, b) with sync", "ANALYZE TABLE db.t (a, b)"},
		{"ANALYZE TABLE t WITH SAMPLE ROWS 1000", "ANALYZE TABLE t"},
		{"SHOW COLUMN STATS t", "SHOW COLUMN STATS t"},
		{"show column cached stats db.t (a)", "SHOW COLUMN STATS db.t (a)"},
		{"SHOW TABLE STATS t", "SHOW TABLE STATS t"},
		{"SHOW TABLE STATUS", "SHOW TABLE STATUS"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := st.String(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.in, got, c.want)
		}
	}
}
