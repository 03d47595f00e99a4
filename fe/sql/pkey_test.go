package sql

import (
	"reflect"
	"strings"
	"testing"
)

// PRIMARY KEY as a column or table constraint becomes the table's keys;
// UNIQUE constraints, which Doris does not have, are refused by name.
func TestPrimaryKeyConstraints(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		keys    []string
		columns int
		err     string // substring of the error; "" for success
	}{
		{sql: "CREATE TABLE t (pk INTEGER PRIMARY KEY, v TEXT)", keys: []string{"pk"}, columns: 2},
		{sql: "CREATE TABLE t (a INT, b VARCHAR(4), c INT, PRIMARY KEY (a, b))", keys: []string{"a", "b"}, columns: 3},
		{sql: "CREATE TABLE t (a INT, b INT, CONSTRAINT pk_t PRIMARY KEY (b))", keys: []string{"b"}, columns: 2},
		{sql: "CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) DISTRIBUTED BY HASH(a) BUCKETS 3", keys: []string{"a"}, columns: 2},
		{sql: "CREATE TABLE t (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))", err: "multiple primary keys"},
		{sql: "CREATE TABLE t (a INT, PRIMARY KEY (a)) UNIQUE KEY(a)", err: "duplicate KEY clause"},
		{sql: "CREATE TABLE t (a INTEGER UNIQUE)", err: "column a: UNIQUE constraints are not supported"},
		{sql: "CREATE TABLE t (a TEXT, UNIQUE (a(10)))", err: "UNIQUE constraints in CREATE TABLE are not supported"},
		{sql: "CREATE TABLE t (a INT, CONSTRAINT c UNIQUE (a))", err: "constraint definitions"},
		{sql: "CREATE TABLE t (a INT, INDEX i (a))", err: "index and constraint definitions"},
	} {
		st, err := Parse(tc.sql)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.sql, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		ct := st.(*CreateTable)
		if ct.Keys == nil || ct.Keys.Kind != PrimaryKey || !reflect.DeepEqual(ct.Keys.Columns, tc.keys) || len(ct.Columns) != tc.columns {
			t.Errorf("%s: keys %+v, %d columns", tc.sql, ct.Keys, len(ct.Columns))
		}
		again, err := Parse(st.String())
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Errorf("round trip of %s via %s: %v", tc.sql, st, err)
		}
	}
}
