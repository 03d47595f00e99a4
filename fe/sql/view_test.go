package sql

import (
	"reflect"
	"testing"
)

func TestCreateViewParses(t *testing.T) {
	for _, c := range []struct {
		in, out string
	}{
		{"CREATE VIEW v AS SELECT a FROM t", "CREATE VIEW v AS SELECT a FROM t"},
		{"create or replace view db.v (x, y) comment 'it''s' as select a, b from t where a > 1",
			"CREATE OR REPLACE VIEW db.v (x, y) COMMENT 'it\\'s' AS SELECT a, b FROM t WHERE a > 1"},
		{"CREATE VIEW IF NOT EXISTS v AS SELECT 1 UNION SELECT 2", "CREATE VIEW IF NOT EXISTS v AS SELECT 1 UNION SELECT 2"},
		{"SHOW CREATE VIEW db.v", "SHOW CREATE VIEW db.v"},
		{"DROP VIEW IF EXISTS v", "DROP VIEW IF EXISTS v"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := st.String(); got != c.out {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.out)
		}
		again, err := Parse(st.String())
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Errorf("%s: round trip %v", c.in, err)
		}
	}
	for _, bad := range []string{"CREATE VIEW v SELECT 1", "CREATE VIEW AS SELECT 1", "CREATE OR VIEW v AS SELECT 1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// MySQL's column-level PRIMARY KEY is the table's PRIMARY KEY (col).
func TestColumnPrimaryKey(t *testing.T) {
	st, err := Parse("CREATE TABLE t (pk INTEGER PRIMARY KEY, v TEXT)")
	if err != nil {
		t.Fatal(err)
	}
	ct := st.(*CreateTable)
	if ct.Keys == nil || ct.Keys.Kind != PrimaryKey || !reflect.DeepEqual(ct.Keys.Columns, []string{"pk"}) || len(ct.Columns) != 2 {
		t.Errorf("keys %+v columns %d", ct.Keys, len(ct.Columns))
	}
	again, err := Parse(st.String())
	if err != nil || !reflect.DeepEqual(again, st) {
		t.Errorf("round trip of %s: %v", st, err)
	}
	for _, bad := range []string{"CREATE TABLE t (a INT PRIMARY KEY, b INT PRIMARY KEY)", "CREATE TABLE t (a INT PRIMARY KEY) UNIQUE KEY(a)"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
