package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
)

// startFEWith starts an FE with the options o adds to the usual test ones.
func startFEWith(t *testing.T, o Options) *testFE {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	o.QueryAddr, o.MetaDir, o.Mem = "127.0.0.1:0", t.TempDir(), mem
	o.Types = []catalog.Type{localDirType()}
	fe, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: o.MetaDir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	return tf
}

// Issue 13 (--mem-limit): queries each within exec_mem_limit draw from
// the process account. While one full sort holds its memory (its client
// reads slowly), a second one that would take the process past its cap
// fails with the error naming mem_limit; the first completes with every
// row in order, and the process account ends at 0.
func TestProcessMemLimit(t *testing.T) {
	f := startFEWith(t, Options{})
	a := f.db("")
	bigTable(t, a)
	const q = "SELECT id, pad FROM big ORDER BY pad DESC"
	proc := f.fe.Mem
	proc.ResetPeak()
	if got := rows(t, a, q); len(got) != memLimitRows {
		t.Fatalf("unlimited sort: %d rows", len(got))
	}
	one := proc.Peak()
	if proc.Used() != 0 {
		t.Fatalf("process holds %d after the sort", proc.Used())
	}
	r, err := a.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatalf("first row: %v", r.Err())
	}
	// The sort is done and streaming: it holds the sorted table.
	held := int64(-1)
	for deadline := time.Now().Add(10 * time.Second); held != proc.Used() || held <= 0; time.Sleep(100 * time.Millisecond) {
		held = proc.Used()
		if time.Now().After(deadline) {
			t.Fatalf("the streaming sort holds %d bytes", held)
		}
	}
	// Room for one sort, not for a second one next to the first.
	proc.SetLimit(one + held/2)
	t.Logf("one sort peaks at %d bytes and holds %d while streaming; process cap %d", one, held, proc.Limit())
	b := f.db("mem")
	proc.ResetPeak()
	_, err = tryRows(b, q)
	t.Logf("peak with both: %d", proc.Peak())
	var me *mysql.MySQLError
	if !errors.As(err, &me) || !strings.Contains(me.Message, "Memory limit exceeded") || !strings.Contains(me.Message, "mem_limit of") {
		t.Fatalf("second sort: want the process memory limit error, got %v", err)
	}
	// b's connection goes on with what fits.
	wantRows(t, b, "SELECT count(*) FROM big WHERE id < 10", "10")
	// a finishes with every row, in order.
	n := 1
	var id int64
	var pad string
	for r.Next() {
		if err := r.Scan(&id, &pad); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := r.Err(); err != nil || n != memLimitRows || id != 0 {
		t.Fatalf("first sort: %d rows, last id %d, %v", n, id, err)
	}
	r.Close()
	if proc.Used() != 0 || f.mem.CurrentAlloc() != 0 {
		t.Fatalf("at the end the process account holds %d, the allocator %d", proc.Used(), f.mem.CurrentAlloc())
	}
}

// Issue 13: Options.MaxConnections and HandshakeTimeout (the cmd/fe
// flags) reach the wire server.
func TestConnectionLimitOptions(t *testing.T) {
	f := startFEWith(t, Options{MaxConnections: 2, HandshakeTimeout: 300 * time.Millisecond})
	addr := f.fe.Addr().String()
	// A client that never logs in is dropped after the handshake timeout.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for err == nil {
		_, err = c.Read(buf)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("unauthenticated connection lived %s (%v)", d, err)
	}
	c.Close()
	// Two sessions fit, the third is refused with 1040.
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		db := f.db("")
		conn, err := db.Conn(context.Background())
		if err == nil {
			err = conn.PingContext(context.Background())
		}
		if i < 2 {
			if err != nil {
				t.Fatalf("connection %d: %v", i+1, err)
			}
			conns = append(conns, conn)
			continue
		}
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1040 {
			t.Fatalf("connection 3: want error 1040, got %v", err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

// Issue 13: the Go memory of hash tables (join build, GROUP BY, DISTINCT)
// counts against exec_mem_limit. Over 10^5 distinct integer keys the
// arrow buffers of these queries take under 2 MB, the tables about 4 MB
// more: under a 3 MiB limit each fails alone with the memory error (they
// answered before the tables were counted), the session goes on, and both
// the process account and the FE's allocator come back to 0.
func TestHashTablesCounted(t *testing.T) {
	f := startFEWith(t, Options{})
	a := f.db("")
	bigTable(t, a)
	mustExec(t, a, "CREATE TABLE ids (id BIGINT) DISTRIBUTED BY HASH(id) BUCKETS 1", "INSERT INTO ids SELECT id FROM big")
	want := fmt.Sprint(memLimitRows)
	const limit = 3 << 20
	for _, q := range []string{
		"SELECT count(*) FROM ids x JOIN ids y ON x.id = y.id",
		"SELECT count(*) FROM (SELECT id, count(*) AS c FROM ids GROUP BY id) g",
		// Spread keys: dense ids would go to the direct-indexed table,
		// which is small enough to fit under the limit.
		"SELECT count(*) FROM (SELECT DISTINCT id * 1000003 AS k FROM ids) g",
		"SELECT count(*) FROM (SELECT DISTINCT concat('key-', id) AS k FROM ids) g",
	} {
		// Under the default limit, the answer is right.
		wantRows(t, a, q, want)
		mustExec(t, a, fmt.Sprintf("SET exec_mem_limit = %d", limit))
		wantMemLimit(t, a, q, limit)
		if n := f.mem.CurrentAlloc(); n != 0 || f.fe.Mem.Used() != 0 {
			t.Errorf("after %q: allocator %d, process account %d", q, n, f.fe.Mem.Used())
		}
		wantRows(t, a, "SELECT count(*) FROM ids WHERE id < 10", "10")
		mustExec(t, a, "SET exec_mem_limit = 2147483648")
	}
}
