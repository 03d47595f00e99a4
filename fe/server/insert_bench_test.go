package server

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkInsertOneRowSQL: one-row INSERTs over the MySQL protocol, one
// session, each acknowledged (durable) before the next; reports inserts/s
// and the size of the internal catalog's manifest afterwards (run with
// -benchtime 3600x for the issue 13 figure).
func BenchmarkInsertOneRowSQL(b *testing.B) {
	dir := b.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fe.Close()
		mem.AssertSize(b, 0)
	})
	if err := fe.Server.Exec(context.Background(), "CREATE DATABASE bench", "CREATE TABLE bench.t (id BIGINT, s VARCHAR(8)) DISTRIBUTED BY HASH(id) BUCKETS 1"); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/bench")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'x')", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != b.N {
		b.Fatalf("count = %d, %v; want %d", n, err, b.N)
	}
	internal := filepath.Join(dir, "data", "internal")
	if st, err := os.Stat(filepath.Join(internal, "manifest.json")); err == nil {
		b.ReportMetric(float64(st.Size()), "manifest-bytes")
	}
	var logBytes int64
	logs, _ := filepath.Glob(filepath.Join(internal, "data", "wal", "*.log"))
	for _, l := range logs {
		if st, err := os.Stat(l); err == nil {
			logBytes += st.Size()
		}
	}
	b.ReportMetric(float64(logBytes), "log-bytes")
}
