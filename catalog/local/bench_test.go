package local

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

func benchTable(b *testing.B, mem memory.Allocator) (*Catalog, catalog.Table, string) {
	dir := b.TempDir()
	c, err := Open(dir, mem, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.CreateDatabase(ctx, "db", nil); err != nil {
		b.Fatal(err)
	}
	d, _ := c.Database(ctx, "db")
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	if err != nil {
		b.Fatal(err)
	}
	return c, tb, dir
}

// BenchmarkInsertOneRow is a loop of one-row INSERTs from one session:
// every one durable before the next starts.
func BenchmarkInsertOneRow(b *testing.B) {
	mem := memory.NewGoAllocator()
	c, tb, dir := benchTable(b, mem)
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := batch(mem, []int64{int64(i)}, []string{"x"})
		if _, err := tb.(catalog.Writable).Append(ctx, r); err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
	if st, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
		b.ReportMetric(float64(st.Size()), "manifest-bytes")
	}
	if c.log != nil { // the commit log (this change): its size too
		var n int64
		logs, _ := filepath.Glob(filepath.Join(c.walDir(), "*.log"))
		for _, l := range logs {
			if st, err := os.Stat(l); err == nil {
				n += st.Size()
			}
		}
		b.ReportMetric(float64(n), "log-bytes")
		b.ReportMetric(float64(len(logs)), "logs")
	}
}

// BenchmarkInsertOneRowConcurrent: 16 sessions inserting one row each at a
// time, as a busy FE sees them.
func BenchmarkInsertOneRowConcurrent(b *testing.B) {
	mem := memory.NewGoAllocator()
	c, tb, _ := benchTable(b, mem)
	defer c.Close()
	ctx := context.Background()
	b.ResetTimer()
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := batch(mem, []int64{int64(i)}, []string{"x"})
				if _, err := tb.(catalog.Writable).Append(ctx, r); err != nil {
					b.Error(err)
				}
				r.Release()
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
}

// BenchmarkUniqueLoadAndScan: 200 k rows loaded twice (every key
// replaced) into a UNIQUE KEY table with 4 buckets, then one merged scan.
func BenchmarkUniqueLoadAndScan(b *testing.B) {
	const n = 200_000
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{strconv.Itoa(i), "k" + strconv.Itoa(i%7), strconv.Itoa(i), "s"}
	}
	for i := 0; i < b.N; i++ {
		mem := memory.NewGoAllocator()
		c, d := openDB(b, b.TempDir(), mem, Options{CompactAt: -1})
		tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), ukSpec("u", 4))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for range 2 {
			if _, err := load(b, tb, rowsReader(b, mem, nil, rows, 1<<14), catalog.LoadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		loaded := time.Since(start)
		start = time.Now()
		r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem})
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for r.Next() {
			got += int(r.RecordBatch().NumRows())
		}
		r.Release()
		if got != n {
			b.Fatalf("%d rows, want %d", got, n)
		}
		b.ReportMetric(2*n/loaded.Seconds(), "load-rows/s")
		b.ReportMetric(n/time.Since(start).Seconds(), "merged-scan-rows/s")
		c.Close()
	}
}
