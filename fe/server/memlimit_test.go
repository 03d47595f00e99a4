package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// memLimitRows is the row count of the big table: 10^5 distinct ids, each
// with a 200-byte pad, so the table holds about 21 MB, twice the 10 MiB
// limit the tests set.
const memLimitRows = 100000

// bigTable creates mem.big(id, pad) from a digits table through the FE.
func bigTable(t *testing.T, db *sql.DB) {
	t.Helper()
	mustExec(t, db,
		"CREATE DATABASE mem",
		"USE mem",
		"CREATE TABLE d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		"CREATE TABLE big (id BIGINT, pad VARCHAR(300)) DISTRIBUTED BY HASH(id) BUCKETS 1",
	)
	// Ten inserts of 10^4 rows: ten files of about 2 MB each, so a scan
	// streams well within the limit and only operators that hold the whole
	// table exceed it.
	for k := 0; k < 10; k++ {
		id := fmt.Sprintf("%d + b.x*1000 + c.x*100 + e.x*10 + g.x", k*10000)
		mustExec(t, db, fmt.Sprintf(
			"INSERT INTO big SELECT %s, concat(repeat('p', 194), lpad(cast(%s AS VARCHAR), 6, '0')) FROM d b, d c, d e, d g", id, id))
	}
	wantRows(t, db, "SELECT count(*), count(DISTINCT pad), min(id), max(id) FROM big",
		fmt.Sprintf("%d|%d|0|%d", memLimitRows, memLimitRows, memLimitRows-1))
}

// wantMemLimit runs q, which must fail with the memory limit error naming
// exec_mem_limit and its value.
func wantMemLimit(t *testing.T, db *sql.DB, q string, limit int64) {
	t.Helper()
	_, err := tryRows(db, q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("%s: want the memory limit error, got %v", q, err)
	}
	if me.Number != 1105 || !strings.Contains(me.Message, "Memory limit exceeded") ||
		!strings.Contains(me.Message, fmt.Sprintf("exec_mem_limit = %d", limit)) {
		t.Fatalf("%s: got %d %q", q, me.Number, me.Message)
	}
}

// Issue 13: a query over exec_mem_limit fails alone with an error naming
// the limit, the connection keeps working, another session running the same
// query at the same time is unaffected, and every byte comes back.
func TestExecMemLimit(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	a := f.db("")
	bigTable(t, a)
	b := f.db("mem")

	const limit = 10485760
	mustExec(t, a, fmt.Sprintf("SET exec_mem_limit = %d", limit))
	wantRows(t, a, "SELECT @@exec_mem_limit", fmt.Sprint(limit))
	wantRows(t, b, "SELECT @@exec_mem_limit", "2147483648")

	pad := func(id int) string { return strings.Repeat("p", 194) + fmt.Sprintf("%06d", id) }
	// What fits: streaming aggregates, a GROUP BY whose groups are small.
	wantRows(t, a, "SELECT count(*), sum(id), min(pad), max(pad) FROM big",
		fmt.Sprintf("%d|%d|%s|%s", memLimitRows, memLimitRows*(memLimitRows-1)/2, pad(0), pad(memLimitRows-1)))
	wantRows(t, a, "SELECT count(*), min(c), max(c) FROM (SELECT id % 7 AS k, count(*) AS c FROM big GROUP BY id % 7) g",
		"7|14285|14286")

	// What does not: a full sort and a GROUP BY over 10^5 distinct
	// 200-byte keys, each holding the whole 21 MB table.
	overs := []string{
		"SELECT id, pad FROM big ORDER BY pad DESC",
		"SELECT pad, count(*) FROM big GROUP BY pad",
	}
	for _, q := range overs {
		wantMemLimit(t, a, q, limit)
		// The failed query released all it held...
		if n := f.mem.CurrentAlloc(); n != 0 {
			t.Errorf("after %q the FE allocator holds %d bytes", q, n)
		}
		// ...and the connection goes on.
		wantRows(t, a, "SELECT count(*) FROM big WHERE id < 10", "10")
	}
	// A statement hint raises the limit for that statement alone.
	got := rows(t, a, "SELECT /*+ SET_VAR(exec_mem_limit=1073741824) */ id FROM big ORDER BY pad DESC")
	if len(got) != memLimitRows || got[0] != "99999" || got[len(got)-1] != "0" {
		t.Errorf("hinted full sort: %d rows, first %v", len(got), got[:min(3, len(got))])
	}
	wantMemLimit(t, a, overs[0], limit)

	// Prepared statements (COM_STMT_EXECUTE) live within the same limit.
	pdb, err := sql.Open("mysql", "root@tcp("+f.fe.Addr().String()+")/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	conn, err := pdb.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), fmt.Sprintf("SET exec_mem_limit = %d", limit)); err != nil {
		t.Fatal(err)
	}
	var me *mysql.MySQLError
	got = nil
	pr, err := conn.QueryContext(context.Background(), "SELECT id FROM big WHERE id >= ? ORDER BY pad DESC", 0)
	if err == nil {
		for pr.Next() {
			got = append(got, "")
		}
		err = pr.Err()
		pr.Close()
	}
	if !errors.As(err, &me) || !strings.Contains(me.Message, "exec_mem_limit") {
		t.Errorf("prepared full sort: want the memory limit error, got %v after %d rows", err, len(got))
	}
	var n int
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM big WHERE id >= ?", 99990).Scan(&n); err != nil || n != 10 {
		t.Errorf("prepared count after the failure = %d, %v", n, err)
	}

	// Concurrently: session a keeps failing, session b (default limit)
	// sorts the whole table each time.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 3; i++ {
			_, err := tryRows(a, overs[i%2])
			var me *mysql.MySQLError
			if !errors.As(err, &me) || !strings.Contains(me.Message, "exec_mem_limit") {
				errs <- fmt.Errorf("session a, run %d: want the memory limit error, got %v", i, err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 3; i++ {
			got, err := tryRows(b, "SELECT id, pad FROM big ORDER BY pad DESC")
			if err != nil {
				errs <- fmt.Errorf("session b, run %d: %v", i, err)
				continue
			}
			if len(got) != memLimitRows || got[0] != "99999|"+pad(99999) || got[len(got)-1] != "0|"+pad(0) {
				errs <- fmt.Errorf("session b, run %d: %d rows", i, len(got))
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := f.mem.CurrentAlloc(); n != 0 {
		t.Errorf("after the concurrent runs the FE allocator holds %d bytes", n)
	}
}

// Issue 22: exec_mem_limit takes Doris's data-volume units, quoted or bare
// (Doris's own memory error tells users to `set exec_mem_limit=8G`); the
// byte counts are the binary multiples Doris's ParseUtil uses.
func TestExecMemLimitUnits(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	for _, c := range []struct{ set, want string }{
		{"'16G'", "17179869184"},
		{"16G", "17179869184"},
		{"8g", "8589934592"},
		{"'512MB'", "536870912"},
		{"1024K", "1048576"},
		{"'2TB'", "2199023255552"},
		{"'100000B'", "100000"},
		{"1P", "1125899906842624"},
		{"40960", "40960"},
		{"'40960'", "40960"},
	} {
		mustExec(t, db, "SET exec_mem_limit = "+c.set)
		wantRows(t, db, "SELECT @@exec_mem_limit", c.want)
	}
	mustExec(t, db, "SET exec_mem_limit = '2G'")
	wantRows(t, db, "SELECT @@session.exec_mem_limit", "2147483648")
	wantRows(t, db, "SELECT /*+ SET_VAR(exec_mem_limit='3G') */ @@exec_mem_limit", "3221225472")
	for _, bad := range []string{"'16X'", "'0G'", "'-1G'", "'G'", "'16 G'", "'9999999P'"} {
		wantErr(t, db, "SET exec_mem_limit = "+bad, 1231, "is not a data volume")
	}
}
