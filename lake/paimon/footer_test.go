package paimon_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestFooterCache: a file opened again reuses its parsed footer; a file
// rewritten at the same path (same size or not) is read as it now is.
func TestFooterCache(t *testing.T) {
	ctx := context.Background()
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"0"})}}, nil)
	path := filepath.Join(t.TempDir(), "f.parquet")
	write := func(base int64, n int) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false)), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewInt64Builder(memory.NewGoAllocator())
		for i := 0; i < n; i++ {
			b.Append(base + int64(i))
		}
		a := b.NewArray()
		rec := array.NewRecordBatch(sch, []arrow.Array{a}, int64(n))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		a.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fields := []paimon.DataField{{ID: 0, Name: "id", Type: mustType(t, "BIGINT")}}
	read := func(pred ...*paimon.Predicate) (first int64, n int64) {
		var p *paimon.Predicate
		if len(pred) > 0 {
			p = pred[0]
		}
		r, err := paimon.OpenDataFile(ctx, memory.DefaultAllocator, paimon.DataFileRead{FS: fileio.Local{}, Path: path, FileFields: fields, Want: fields, Predicate: p})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		first = -1
		for {
			rec, _, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if rec == nil {
				return first, n
			}
			if first < 0 {
				first = rec.Column(0).(*array.Int64).Value(0)
			}
			n += rec.NumRows()
			rec.Release()
		}
	}
	write(100, 50)
	if f, n := read(); f != 100 || n != 50 {
		t.Fatalf("first read: %d, %d rows", f, n)
	}
	hits := paimon.FooterHits()
	if f, n := read(); f != 100 || n != 50 || paimon.FooterHits() != hits+1 {
		t.Fatalf("second read: %d, %d rows, %d footer hits", f, n, paimon.FooterHits()-hits)
	}
	// Same size, other statistics in the footer: the row group is pruned
	// by the new statistics, not the old.
	write(900, 50)
	if f, n := read(paimon.Ge("id", int64(900))); f != 900 || n != 50 {
		t.Fatalf("rewritten, same size: %d, %d rows", f, n)
	}
	write(7, 60)
	if f, n := read(); f != 7 || n != 60 {
		t.Fatalf("rewritten, other size: %d, %d rows", f, n)
	}
}

// TestFooterCacheConcurrent: goroutines opening one file at once share its
// parsed footer (run with -race).
func TestFooterCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"0"})}}, nil)
	path := filepath.Join(t.TempDir(), "c.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(100)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(memory.NewGoAllocator())
	for i := 0; i < 1000; i++ {
		b.Append(int64(i))
	}
	a := b.NewArray()
	rec := array.NewRecordBatch(sch, []arrow.Array{a}, 1000)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	a.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fields := []paimon.DataField{{ID: 0, Name: "id", Type: mustType(t, "BIGINT")}}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			var sum int64
			for k := 0; k < 20; k++ {
				r, err := paimon.OpenDataFile(ctx, memory.DefaultAllocator, paimon.DataFileRead{FS: fileio.Local{}, Path: path, FileFields: fields, Want: fields,
					Predicate: paimon.Ge("id", int64(500))})
				if err != nil {
					errs <- err
					return
				}
				for {
					rec, _, err := r.Next()
					if err != nil {
						r.Close()
						errs <- err
						return
					}
					if rec == nil {
						break
					}
					for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
						sum += v
					}
					rec.Release()
				}
				r.Close()
			}
			// Row groups 5..9 survive the statistics: ids 500..999, 20 times.
			if want := int64(20 * (500 + 999) * 500 / 2); sum != want {
				errs <- fmt.Errorf("sum %d, want %d", sum, want)
				return
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
