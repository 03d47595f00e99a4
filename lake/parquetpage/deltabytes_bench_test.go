package parquetpage

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// BenchmarkDeltaStrings reads one nullable string column of 1,000,000
// rows (URL-like values sharing long prefixes, 10 % NULL; ZSTD, v2 pages,
// 8 row groups) written DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY,
// through this package and through pqarrow's record reader, in batches of
// 64 Ki rows:
//
//	go test ./lake/parquetpage -run '^$' -bench DeltaStrings -benchmem -count 3
func BenchmarkDeltaStrings(b *testing.B) {
	const rows, batch = 1_000_000, 64 << 10
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	bl := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	sb := bl.Field(0).(*array.StringBuilder)
	for i := 0; i < rows; i++ {
		if i%10 == 3 {
			sb.AppendNull()
			continue
		}
		sb.Append(fmt.Sprintf("https://example.com/tenant/%04d/item/%08d", i/5000, i*7919%1000003))
	}
	rec := bl.NewRecordBatch()
	bl.Release()
	defer rec.Release()
	ctx := context.Background()
	for _, enc := range []parquet.Encoding{parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray} {
		path := filepath.Join(b.TempDir(), "s.parquet")
		writeFile(b, path, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithCompression(compress.Codecs.Zstd), parquet.WithEncodingFor("s", enc), parquet.WithMaxRowGroupLength(rows/8)), pqarrow.DefaultWriterProps())
		raw, err := readAllFile(path)
		if err != nil {
			b.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		md := pf.MetaData()
		var chunks []Chunk
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(0)
			if err != nil {
				b.Fatal(err)
			}
			ch, err := ChunkOf(cc, rg)
			if err != nil {
				b.Fatal(err)
			}
			chunks = append(chunks, ch)
		}
		col := Column{File: path, Name: "s", Descr: md.Schema.Column(0), Out: arrow.BinaryTypes.String}
		b.Run(enc.String()+"/page", func(b *testing.B) {
			mem := memory.NewGoAllocator()
			rd, err := NewReader(col, mem)
			if err != nil {
				b.Fatal(err)
			}
			defer rd.Release()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n := 0
				for rg, ch := range chunks {
					if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
						b.Fatal(err)
					}
					for left := int(md.RowGroup(rg).NumRows()); left > 0; {
						a, err := rd.Read(ctx, min(batch, left))
						if err != nil {
							b.Fatal(err)
						}
						left -= a.Len()
						n += a.Len()
						a.Release()
					}
				}
				if n != rows {
					b.Fatalf("%d rows", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
		b.Run(enc.String()+"/pqarrow", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				pf, err := file.NewParquetReader(bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batch}, memory.NewGoAllocator())
				if err != nil {
					b.Fatal(err)
				}
				rr, err := fr.GetRecordReader(ctx, []int{0}, nil)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rr.Next() {
					n += int(rr.RecordBatch().NumRows())
				}
				if err := rr.Err(); err != nil {
					b.Fatal(err)
				}
				rr.Release()
				pf.Close()
				if n != rows {
					b.Fatalf("%d rows", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
		pf.Close()
	}
}
