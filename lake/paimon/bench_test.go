package paimon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// genBatch makes n rows of (id BIGINT, k INT, name STRING, price DOUBLE,
// day DATE) with ids from start.
func genBatch(s *paimon.TableSchema, mem memory.Allocator, start, n int64, step int64) arrow.RecordBatch {
	sch, _ := paimon.ArrowSchema(s.Fields)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	ks := b.Field(1).(*array.Int32Builder)
	names := b.Field(2).(*array.StringBuilder)
	prices := b.Field(3).(*array.Float64Builder)
	days := b.Field(4).(*array.Date32Builder)
	for i := int64(0); i < n; i++ {
		id := start + i*step
		ids.Append(id)
		ks.Append(int32(id % 1000))
		names.Append(fmt.Sprintf("customer-%010d", id))
		if id%17 == 0 {
			prices.AppendNull()
		} else {
			prices.Append(float64(id%10000) / 100)
		}
		days.Append(arrow.Date32(19000 + id%365))
	}
	return b.NewRecordBatch()
}

// benchFields is genBatch's schema (the id column NOT NULL when pkNotNull).
func benchFields(b testing.TB, pkNotNull bool) []paimon.DataField {
	idType := "BIGINT"
	if pkNotNull {
		idType = "BIGINT NOT NULL"
	}
	return []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(b, idType)},
		{ID: 1, Name: "k", Type: mustType(b, "INT")},
		{ID: 2, Name: "name", Type: mustType(b, "STRING")},
		{ID: 3, Name: "price", Type: mustType(b, "DOUBLE")},
		{ID: 4, Name: "day", Type: mustType(b, "DATE")},
	}
}

func scanAll(b *testing.B, tbl *paimon.Table, cols []string) (rows int64) {
	return scanWhere(b, tbl, cols, nil)
}

// BenchmarkParquetScan reads a generated 5,000,000-row append table (five
// Parquet files, ZSTD) with all columns and with two columns.
func BenchmarkParquetScan(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	mem := memory.DefaultAllocator
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, benchFields(b, false), nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		b.Fatal(err)
	}
	const perFile, files = 1_000_000, 5
	for f := 0; f < files; f++ {
		rec := genBatch(bl.Schema(), mem, int64(f*perFile), perFile, 1)
		if err := bl.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, s := range plan.Splits {
		for _, f := range s.Files {
			size += f.Meta.FileSize
		}
	}
	for _, bc := range []struct {
		name string
		cols []string
	}{{"all-columns", nil}, {"2-columns", []string{"id", "price"}}} {
		b.Run(bc.name, func(b *testing.B) {
			var rows int64
			b.SetBytes(size) // compressed file bytes, whatever the projection
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if rows = scanAll(b, tbl, bc.cols); rows != perFile*files {
					b.Fatalf("rows %d", rows)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkMergeOnRead merges 4 level-0 files per bucket (2 buckets, keys
// interleaved so every file overlaps the others) with the deduplicate engine.
func BenchmarkMergeOnRead(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	mem := memory.DefaultAllocator
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, benchFields(b, true), nil, []string{"id"}, map[string]string{"bucket": "2"})
	if err != nil {
		b.Fatal(err)
	}
	const perFile, filesPerBucket, buckets = 250_000, 4, 2
	for f := 0; f < filesPerBucket; f++ {
		var fs []paimontest.File
		for bk := 0; bk < buckets; bk++ {
			// File f of bucket bk holds keys ≡ f (mod 2) shifted per file, so
			// consecutive files overlap by half.
			start := int64(bk)*10*perFile + int64(f)*perFile/2
			fs = append(fs, paimontest.File{Bucket: int32(bk), Rows: genBatch(bl.Schema(), mem, start, perFile, 1)})
		}
		if err := bl.Commit(ctx, fs, mem); err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			f.Rows.Release()
		}
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		b.Fatal(err)
	}
	var in int64 = perFile * filesPerBucket * buckets
	var rows int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		rows = scanAll(b, tbl, nil)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(in)*float64(b.N)/b.Elapsed().Seconds(), "input-rows/s")
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "output-rows/s")
}
