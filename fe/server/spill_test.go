package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// spillLimit is the exec_mem_limit of the spill tests: 8 MiB against the
// 21 MB of mem.big, so every operator that holds the table passes it.
const spillLimit = 8388608

// spillFiles lists what is left under the FE's spill root.
func spillFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Issue 23: with enable_spill a hash join, a hash aggregation and a sort
// that each need more than exec_mem_limit finish with the right answer by
// writing to disk; without it they fail with the memory error. Nothing is
// left in the spill directory after any of them.
func TestSpillToDisk(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	bigTable(t, db)
	root := filepath.Join(dir, "data", "spill")
	mustExec(t, db, fmt.Sprintf("SET exec_mem_limit = %d", spillLimit))

	pad := func(id int) string { return strings.Repeat("p", 194) + fmt.Sprintf("%06d", id) }
	sum := memLimitRows * (memLimitRows - 1) / 2
	cases := []struct {
		name, q string
		check   func(t *testing.T, got []string)
	}{
		{"sort", "SELECT id, pad FROM big ORDER BY pad DESC", func(t *testing.T, got []string) {
			if len(got) != memLimitRows {
				t.Fatalf("%d rows", len(got))
			}
			for i, r := range got {
				id := memLimitRows - 1 - i
				if r != fmt.Sprintf("%d|%s", id, pad(id)) {
					t.Fatalf("row %d = %.20s…, want id %d", i, r, id)
				}
			}
		}},
		{"aggregation", "SELECT count(*), sum(c), sum(s), sum(pad = concat(repeat('p', 194), lpad(cast(s AS VARCHAR), 6, '0'))) " +
			"FROM (SELECT pad, count(*) AS c, sum(id) AS s, avg(id) AS a FROM big GROUP BY pad) g", func(t *testing.T, got []string) {
			want := fmt.Sprintf("%d|%d|%d|%d", memLimitRows, memLimitRows, sum, memLimitRows)
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %v, want %s", got, want)
			}
		}},
		{"inner hash join", "SELECT count(*), sum(a.id), sum(b.id), sum(a.id = b.id) FROM big a JOIN big b ON a.pad = b.pad", func(t *testing.T, got []string) {
			want := fmt.Sprintf("%d|%d|%d|%d", memLimitRows, sum, sum, memLimitRows)
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %v, want %s", got, want)
			}
		}},
		{"left hash join", "SELECT count(*), count(b.id), sum(b.id) FROM big a LEFT JOIN (SELECT id, pad FROM big WHERE id % 2 = 0) b ON a.pad = b.pad", func(t *testing.T, got []string) {
			// Even ids 0..99998: 50000 of them, summing to 2*(0+..+49999).
			want := fmt.Sprintf("%d|%d|%d", memLimitRows, memLimitRows/2, 49999*50000)
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %v, want %s", got, want)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustExec(t, db, "SET enable_spill = false")
			wantMemLimit(t, db, c.q, spillLimit)
			mustExec(t, db, "SET enable_spill = true")
			before := f.fe.Server.spill.bytes.Load()
			got, err := tryRows(db, c.q)
			if err != nil {
				t.Fatalf("with enable_spill: %v", err)
			}
			c.check(t, got)
			if f.fe.Server.spill.bytes.Load() == before {
				t.Errorf("nothing was spilled")
			}
			// The query's profile says what it wrote.
			list := rows(t, db, `SHOW QUERY PROFILE "/"`)
			if len(list) == 0 || !strings.Contains(list[0], c.q[:30]) {
				t.Fatalf("profiles: %.200q", list)
			}
			id := strings.SplitN(list[0], "|", 2)[0]
			text := strings.Join(rows(t, db, `SHOW QUERY PROFILE "/`+id+`"`), "\n")
			if !strings.Contains(text, "SpillWriteBytes: ") || !strings.Contains(text, "SpillWriteFileTotalCount: ") {
				t.Errorf("profile lacks the spill counters:\n%s", text)
			}
			if left := spillFiles(t, root); len(left) != 0 {
				t.Errorf("left in the spill directory: %v", left)
			}
			if n := f.mem.CurrentAlloc(); n != 0 {
				t.Errorf("the FE allocator holds %d bytes after the query", n)
			}
		})
	}
	// A statement hint turns it on for one statement, and INSERT … SELECT
	// spills as a query does.
	mustExec(t, db, "SET enable_spill = false")
	wantRows(t, db, "SELECT /*+ SET_VAR(enable_spill=true) */ count(*), min(p), max(p) FROM (SELECT pad AS p FROM big ORDER BY pad DESC) s",
		fmt.Sprintf("%d|%s|%s", memLimitRows, pad(0), pad(memLimitRows-1)))
	mustExec(t, db, "CREATE TABLE pairs (a BIGINT, b BIGINT) DISTRIBUTED BY HASH(a) BUCKETS 1",
		"SET enable_spill = true",
		"INSERT INTO pairs SELECT a.id, b.id FROM big a JOIN big b ON a.pad = b.pad")
	wantRows(t, db, "SELECT count(*), sum(a), sum(a = b) FROM pairs", fmt.Sprintf("%d|%d|%d", memLimitRows, sum, memLimitRows))
	if left := spillFiles(t, root); len(left) != 0 {
		t.Errorf("left in the spill directory: %v", left)
	}
}

// A query killed while it spills leaves no file behind: a sort, a
// DISTINCT aggregate and a window.
func TestSpillCancelRemovesFiles(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	admin := f.db("")
	bigTable(t, admin)
	root := filepath.Join(dir, "data", "spill")

	conn, err := f.db("mem").Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprintf("SET exec_mem_limit = %d", spillLimit), "SET enable_spill = true"} {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	// Ten times the table: far more than a KILL needs.
	ten := "(" + strings.Repeat("SELECT id, pad FROM big UNION ALL ", 9) + "SELECT id, pad FROM big) u"
	for _, q := range []string{
		"SELECT id, pad FROM " + ten + " ORDER BY pad",
		"SELECT id % 10, count(DISTINCT pad) FROM " + ten + " GROUP BY id % 10",
		"SELECT count(DISTINCT pad) FROM " + ten,
		"SELECT count(*), sum(r) FROM (SELECT row_number() OVER (PARTITION BY id % 100 ORDER BY pad) AS r FROM " + ten + ") w",
	} {
		t.Run(q[:40], func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				r, err := conn.QueryContext(context.Background(), q)
				if err == nil {
					for r.Next() {
					}
					err = r.Err()
					r.Close()
				}
				done <- err
			}()
			deadline := time.Now().Add(60 * time.Second)
			for len(spillFiles(t, root)) < 3 {
				if time.Now().After(deadline) {
					t.Fatal("the query never spilled")
				}
				select {
				case err := <-done:
					t.Fatalf("the query ended before it spilled: %v", err)
				case <-time.After(5 * time.Millisecond):
				}
			}
			mustExec(t, admin, fmt.Sprintf("KILL QUERY %d", id))
			err = <-done
			var me *mysql.MySQLError
			if !errors.As(err, &me) || !strings.Contains(strings.ToLower(me.Message), "cancel") {
				t.Fatalf("killed query: got %v", err)
			}
			if left := spillFiles(t, root); len(left) != 0 {
				t.Errorf("left in the spill directory: %v", left)
			}
			if n := f.mem.CurrentAlloc(); n != 0 {
				t.Errorf("the FE allocator holds %d bytes after the kill", n)
			}
		})
	}
}

// Issue 25 (11): ORDER BY an expression with LIMIT keeps only the limit's
// rows, not its whole input, so a Top-N over a large cross join runs in a
// small exec_mem_limit; the answer is derived by hand: the digits a, b, c,
// e, g, h make n = a + 10b + … + 10^5 h, every n in [0, 10^6) once.
func TestTopNOverCrossJoinHoldsNRows(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE tn", "USE tn",
		"CREATE TABLE d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
		fmt.Sprintf("SET exec_mem_limit = %d", spillLimit))
	// 10^6 rows of about 200 bytes: 200 MB through the sort, 25 times the limit.
	const from = "FROM d a, d b, d c, d e, d g, d h"
	const n = "a.x + b.x*10 + c.x*100 + e.x*1000 + g.x*10000 + h.x*100000"
	wantRows(t, db, "SELECT concat(repeat('p', 200), "+n+") AS s "+from+" ORDER BY "+n+" DESC LIMIT 3 OFFSET 1",
		strings.Repeat("p", 200)+"999998", strings.Repeat("p", 200)+"999997", strings.Repeat("p", 200)+"999996")
	wantRows(t, db, "SELECT a.x, h.x "+from+" ORDER BY "+n+" + length(repeat('p', 200)) LIMIT 2", "0|0", "1|0")
	if n := f.mem.CurrentAlloc(); n != 0 {
		t.Errorf("the FE allocator holds %d bytes", n)
	}
}
