package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Issue 25 point 6: a SET_VAR hint's query_timeout (and exec_mem_limit)
// acts for its statement, not only for @@ reads; the session's own value
// is untouched.
func TestSetVarHintActs(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE h", "USE h",
		"CREATE TABLE d (x BIGINT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	const huge = " FROM d a, d b, d c, d e, d g, d h, d i, d j, d k, d l" // 10^10 rows
	for _, q := range []string{
		"SELECT /*+ SET_VAR(query_timeout=1) */ count(*)" + huge,
		"INSERT /*+ SET_VAR(query_timeout=1) */ INTO d SELECT a.x" + huge,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		_, err := db.ExecContext(ctx, q)
		cancel()
		took := time.Since(start)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || !strings.Contains(me.Message, "query_timeout (1 s)") {
			t.Errorf("%s: after %s: %v", q, took, err)
		}
		if took > 10*time.Second {
			t.Errorf("%s: stopped after %s", q, took)
		}
	}
	wantRows(t, db, "SELECT @@query_timeout, count(*) FROM d", "900|10")
	// exec_mem_limit by hint, too.
	_, err := tryRows(db, "SELECT /*+ SET_VAR(exec_mem_limit=1) */ count(*) FROM d")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || !strings.Contains(me.Message, "Memory limit exceeded") {
		t.Errorf("exec_mem_limit hint: %v", err)
	}
	wantRows(t, db, "SELECT count(*) FROM d", "10")
}
