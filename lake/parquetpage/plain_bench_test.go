package parquetpage

import (
	"bytes"
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BenchmarkPlainZstdColumn reads a PLAIN, ZSTD, v2-page int64 column of
// consecutive ids, as the lake benchmark's Iceberg table holds it
// (1 MB pages, batches of 8192 rows), declared required and declared
// nullable without a NULL: the batches alias the pages and no levels are
// expanded. It reports cpu-ms/op (process CPU, steadier than wall on a
// shared machine).
func BenchmarkPlainZstdColumn(b *testing.B) {
	const rows, batch = 1_000_000, 8192
	ctx := context.Background()
	for _, nullable := range []bool{false, true} {
		sch := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: nullable}}, nil)
		bl := array.NewInt64Builder(memory.NewGoAllocator())
		for i := 0; i < rows; i++ {
			bl.Append(int64(i))
		}
		col := bl.NewArray()
		bl.Release()
		rec := array.NewRecordBatch(sch, []arrow.Array{col}, rows)
		col.Release()
		path := filepath.Join(b.TempDir(), "c.parquet")
		writeFile(b, path, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false),
			parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithDataPageSize(1<<20), parquet.WithMaxRowGroupLength(rows)), pqarrow.DefaultWriterProps())
		rec.Release()
		raw, err := readAllFile(path)
		if err != nil {
			b.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		md := pf.MetaData()
		cc, err := md.RowGroup(0).ColumnChunk(0)
		if err != nil {
			b.Fatal(err)
		}
		ch, err := ChunkOf(cc, 0)
		if err != nil {
			b.Fatal(err)
		}
		pf.Close()
		c := Column{File: path, Name: "c", Descr: md.Schema.Column(0), Out: arrow.PrimitiveTypes.Int64}
		b.Run(map[bool]string{true: "nullable", false: "required"}[nullable], func(b *testing.B) {
			rd, err := NewReader(c, memory.NewGoAllocator())
			if err != nil {
				b.Fatal(err)
			}
			defer rd.Release()
			c0 := cpuTime()
			for b.Loop() {
				if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
					b.Fatal(err)
				}
				var sum int64
				for left := rows; left > 0; {
					a, err := rd.Read(ctx, min(batch, left))
					if err != nil {
						b.Fatal(err)
					}
					for _, v := range a.(*array.Int64).Int64Values() {
						sum += v
					}
					left -= a.Len()
					a.Release()
				}
				if sum != rows*(rows-1)/2 {
					b.Fatalf("sum %d", sum)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
