package server

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// benchRows is the table size of the query benchmarks; INLET_BENCH_ROWS
// overrides the default of 10 M.
func benchRows(b *testing.B) int64 {
	if v := os.Getenv("INLET_BENCH_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 10_000_000
}

// loadBench creates bench.t(id BIGINT, k INT, v BIGINT, s VARCHAR) with n
// rows: k = id % 1000, v = id % 97, s = "s<id % 100>", appended through the
// catalog API in 64 Ki-row batches.
func loadBench(b *testing.B, f *testFE, n int64) {
	ctx := context.Background()
	if err := f.fe.Server.Exec(ctx, "CREATE DATABASE bench", "CREATE TABLE bench.t (id BIGINT, k INT, v BIGINT, s VARCHAR(8)) DISTRIBUTED BY HASH(id) BUCKETS 1"); err != nil {
		b.Fatal(err)
	}
	c, _ := f.fe.Catalogs.Get(ctx, "internal")
	d, _ := c.Database(ctx, "bench")
	t, err := d.Table(ctx, "t")
	if err != nil {
		b.Fatal(err)
	}
	schema := t.Schema().Arrow()
	mem := memory.NewGoAllocator()
	const batch = 1 << 16
	strs := make([]string, 100)
	for i := range strs {
		strs[i] = "s" + strconv.Itoa(i)
	}
	next := int64(0)
	gen := func(yield func(arrow.RecordBatch, error) bool) {
		for next < n {
			m := min(batch, n-next)
			bld := array.NewRecordBuilder(mem, schema)
			ids, ks, vs, ss := bld.Field(0).(*array.Int64Builder), bld.Field(1).(*array.Int32Builder), bld.Field(2).(*array.Int64Builder), bld.Field(3).(*array.StringBuilder)
			for i := int64(0); i < m; i++ {
				id := next + i
				ids.Append(id)
				ks.Append(int32(id % 1000))
				vs.Append(id % 97)
				ss.Append(strs[id%100])
			}
			rec := bld.NewRecordBatch()
			bld.Release()
			next += m
			ok := yield(rec, nil)
			rec.Release()
			if !ok {
				return
			}
		}
	}
	rr := array.ReaderFromIter(schema, gen)
	defer rr.Release()
	if _, err := t.(catalog.Writable).Append(ctx, rr); err != nil {
		b.Fatal(err)
	}
}

func benchFE(b *testing.B) (*testFE, *sql.DB, int64) {
	dir := b.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem})
	if err != nil {
		b.Fatal(err)
	}
	f := &testFE{dir: dir, fe: fe, mem: mem}
	b.Cleanup(func() {
		fe.Close()
		mem.AssertSize(b, 0)
	})
	n := benchRows(b)
	start := time.Now()
	loadBench(b, f, n)
	b.Logf("loaded %d rows in %v", n, time.Since(start))
	return f, openBench(b, fe), n
}

func openBench(b *testing.B, fe *FE) *sql.DB {
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/bench?interpolateParams=true")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	return db
}

// cpuTime is the process's user+system CPU time: the machine is shared
// with other builds, so rows per CPU-second is the comparable figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func scalarQuery(b *testing.B, db *sql.DB, q string, rowsScanned int64) {
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := db.Query(q)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Close()
		if n == 0 {
			b.Fatal("no rows")
		}
	}
	b.ReportMetric(float64(rowsScanned)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rowsScanned)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}

// BenchmarkSumOverInternalTable: SELECT sum(v), count(*) over the table.
func BenchmarkSumOverInternalTable(b *testing.B) {
	_, db, n := benchFE(b)
	scalarQuery(b, db, "SELECT sum(v), count(*) FROM t", n)
}

// BenchmarkGroupByOverInternalTable: 1000 groups.
func BenchmarkGroupByOverInternalTable(b *testing.B) {
	_, db, n := benchFE(b)
	scalarQuery(b, db, "SELECT k, sum(v), count(*) FROM t GROUP BY k", n)
}

// BenchmarkStreamRowsToClient: every row of (id, k, v, s) to a Go client.
func BenchmarkStreamRowsToClient(b *testing.B) {
	_, db, n := benchFE(b)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := db.Query("SELECT id, k, v, s FROM t")
		if err != nil {
			b.Fatal(err)
		}
		var id, k, v int64
		var s sql.RawBytes
		got := int64(0)
		for r.Next() {
			if err := r.Scan(&id, &k, &v, &s); err != nil {
				b.Fatal(err)
			}
			got++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Close()
		if got != n {
			b.Fatalf("got %d rows, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}
