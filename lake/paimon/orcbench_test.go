package paimon_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// lakebenchRows is the row count of BenchmarkORCScanLakebench's table;
// INLET_LAKEBENCH_ROWS overrides the 5 M for quick runs.
func lakebenchRows(b *testing.B) int64 {
	if v := os.Getenv("INLET_LAKEBENCH_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("INLET_LAKEBENCH_ROWS=%q", v)
		}
		return n
	}
	return 5_000_000
}

// writeLakebench writes cmd/lakebench's table (id BIGINT, k INT, v DOUBLE
// NULL every 97th row, s STRING(16) with 50,021 distinct values, ts
// TIMESTAMP(6); ZSTD; 5 files) in the given file format.
func writeLakebench(tb testing.TB, dir, format string, rows int64) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	must := func(s string) paimon.DataType {
		t, err := paimon.ParseType(s)
		if err != nil {
			tb.Fatal(err)
		}
		return t
	}
	fields := []paimon.DataField{
		{ID: 0, Name: "id", Type: must("BIGINT")},
		{ID: 1, Name: "k", Type: must("INT")},
		{ID: 2, Name: "v", Type: must("DOUBLE")},
		{ID: 3, Name: "s", Type: must("STRING")},
		{ID: 4, Name: "ts", Type: must("TIMESTAMP(6)")},
	}
	s := &paimon.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1", "file.format": format}}
	if err := writer.CreateTable(ctx, fileio.Local{}, dir, s, time.Now()); err != nil {
		tb.Fatal(err)
	}
	tw, err := writer.Open(ctx, fileio.Local{}, dir, mem, writer.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	sch, err := paimon.ArrowSchema(tw.Schema().Fields)
	if err != nil {
		tb.Fatal(err)
	}
	c := tw.NewCommit()
	const files, batch = 5, 65536
	per := (rows + files - 1) / files
	for lo := int64(0); lo < rows; lo += per {
		hi := min(lo+per, rows)
		fw, err := c.NewFile(ctx, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for b0 := lo; b0 < hi; b0 += batch {
			rb := array.NewRecordBuilder(mem, sch)
			for i := b0; i < min(b0+batch, hi); i++ {
				rb.Field(0).(*array.Int64Builder).Append(i)
				rb.Field(1).(*array.Int32Builder).Append(int32(i % 1000))
				if i%97 == 0 {
					rb.Field(2).AppendNull()
				} else {
					rb.Field(2).(*array.Float64Builder).Append(float64(i%4001) * 0.25)
				}
				rb.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("s-%014d", i%50021))
				rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + i*1_000_000))
			}
			rec := rb.NewRecordBatch()
			rb.Release()
			err := fw.Write(rec, nil)
			rec.Release()
			if err != nil {
				tb.Fatal(err)
			}
		}
		if err := fw.Close(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		tb.Fatal(err)
	}
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// lakeSums is what a lakebench query computes over the batches.
type lakeSums struct {
	count, sumID, sumK, sumLen, maxTS int64
	sumV                              float64
}

func sumLakebench(tb testing.TB, tbl *paimon.Table, cols []string) lakeSums {
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	var s lakeSums
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], memory.DefaultAllocator, paimon.ReadOptions{Columns: cols})
		if err != nil {
			tb.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			s.count += rec.NumRows()
			for c, name := range cols {
				col := rec.Column(c)
				switch name {
				case "id":
					for _, v := range col.(*array.Int64).Int64Values() {
						s.sumID += v
					}
				case "k":
					for _, v := range col.(*array.Int32).Int32Values() {
						s.sumK += int64(v)
					}
				case "v":
					a := col.(*array.Float64)
					for j, v := range a.Float64Values() {
						if a.IsValid(j) {
							s.sumV += v
						}
					}
				case "s":
					a := col.(*array.String)
					offs := a.ValueOffsets()
					s.sumLen += int64(offs[len(offs)-1] - offs[0])
				case "ts":
					for _, v := range col.(*array.Timestamp).TimestampValues() {
						s.maxTS = max(s.maxTS, int64(v))
					}
				}
			}
		}
		if err := rr.Err(); err != nil {
			tb.Fatal(err)
		}
		rr.Release()
	}
	return s
}

// BenchmarkORCScanLakebench reads cmd/lakebench's table written once as
// ORC and once as Parquet (same rows, ZSTD, 5 files) with the lakebench
// queries' projections, so the two formats' read paths compare directly:
//
//	go test ./lake/paimon -run '^$' -bench ORCScanLakebench -benchmem
//
// Every iteration checks the answer against the other format's. sum-k,
// len-s and max-ts read one column each (INT, STRING, TIMESTAMP), for
// per-type costs.
func BenchmarkORCScanLakebench(b *testing.B) {
	rows := lakebenchRows(b)
	tables := map[string]*paimon.Table{}
	for _, format := range []string{"orc", "parquet"} {
		dir := b.TempDir()
		writeLakebench(b, dir, format, rows)
		tbl, err := paimon.OpenTable(context.Background(), fileio.Local{}, dir)
		if err != nil {
			b.Fatal(err)
		}
		tables[format] = tbl
	}
	for _, q := range []struct {
		name string
		cols []string
	}{
		{"sum-v", []string{"v"}}, {"sum-id", []string{"id"}}, {"all", []string{"id", "k", "v", "s", "ts"}},
		// one column each, so every ORC column reader is costed alone
		{"sum-k", []string{"k"}}, {"len-s", []string{"s"}}, {"max-ts", []string{"ts"}},
	} {
		want := sumLakebench(b, tables["parquet"], q.cols)
		for _, format := range []string{"orc", "parquet"} {
			b.Run(q.name+"/"+format, func(b *testing.B) {
				b.ReportAllocs()
				runtime.GC()
				cpu0 := cpuTime()
				for b.Loop() {
					if got := sumLakebench(b, tables[format], q.cols); got != want {
						b.Fatalf("%s answer %+v, want %+v", format, got, want)
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				// CPU time (process user+system, GC included) is steadier
				// than wall time on a shared machine.
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
