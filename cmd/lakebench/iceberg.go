package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
)

// --lake iceberg: the same rows (gen.go) as an Iceberg table written by
// iceberg-go (format v2, ZSTD Parquet, files data files in one commit),
// read by lake/iceberg; the Paimon table of the same rows is read beside
// it in every run, so the two lake paths compare on the same data.

// icebergWarehouse is the Hadoop-catalog warehouse of the Iceberg table
// bench.t of rows rows in files files.
func icebergWarehouse(dir string, rows int64, files int) string {
	return filepath.Join(dir, fmt.Sprintf("ice_%d_%d", rows, files))
}

func icebergTableDir(wh string) string { return filepath.Join(wh, "bench", "t") }

func icebergSchema() *iceberggo.Schema {
	return iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64},
		iceberggo.NestedField{ID: 2, Name: "k", Type: iceberggo.PrimitiveTypes.Int32},
		iceberggo.NestedField{ID: 3, Name: "v", Type: iceberggo.PrimitiveTypes.Float64},
		iceberggo.NestedField{ID: 4, Name: "s", Type: iceberggo.PrimitiveTypes.String},
		iceberggo.NestedField{ID: 5, Name: "ts", Type: iceberggo.PrimitiveTypes.Timestamp})
}

// generateIceberg writes the table with iceberg-go; memory is bounded by
// one batch (the records are generated as the writer pulls them).
func generateIceberg(ctx context.Context, wh string, rows int64, files int, mem memory.Allocator) error {
	cat, err := hadoop.NewCatalog("bench", wh, iceberggo.Properties{})
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.CreateNamespace(ctx, icetable.Identifier{"bench"}, nil); err != nil {
		return err
	}
	tbl, err := cat.CreateTable(ctx, icetable.Identifier{"bench", "t"}, icebergSchema(), icecatalog.WithProperties(iceberggo.Properties{
		"format-version": "2", "write.parquet.compression-codec": "zstd", "write.target-file-size-bytes": "100000000000"}))
	if err != nil {
		return err
	}
	sch, err := icetable.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return err
	}
	var added []iceberggo.DataFile
	per := (rows + int64(files) - 1) / int64(files)
	for lo := int64(0); lo < rows; lo += per {
		hi := min(lo+per, rows)
		recs := func(yield func(arrow.RecordBatch, error) bool) {
			for b := lo; b < hi; b += genBatchRows {
				if err := ctx.Err(); err != nil {
					yield(nil, err)
					return
				}
				if !yield(genBatch(sch, mem, b, min(b+genBatchRows, hi)), nil) {
					return
				}
			}
		}
		for df, err := range icetable.WriteRecords(ctx, tbl, sch, recs, icetable.WithMaxWriteWorkers(1)) {
			if err != nil {
				return err
			}
			added = append(added, df)
		}
	}
	txn := tbl.NewTransaction()
	if err := txn.NewRowDelta(nil).AddRows(added...).Commit(ctx); err != nil {
		return err
	}
	_, err = txn.Commit(ctx)
	return err
}

// runIceberg plans the current snapshot with lake/iceberg and reads every
// split (a data file, or a slice of one with threads > 1) with threads
// goroutines, as runInlet does.
func runIceberg(ctx context.Context, wh string, q *query, threads int, mem memory.Allocator) ([]string, error) {
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, icebergTableDir(wh))
	if err != nil {
		return nil, err
	}
	opts := iceberg.ScanOptions{Predicate: q.pred}
	if threads > 1 {
		// As runInlet cuts the Paimon table (4 MB there): slices, each
		// its own split, so every goroutine gets an even share. The
		// Iceberg files hold one row group each, shared by rows among
		// their slices; 2 MB slices cut the default table's 4.3 MB files
		// in three (4 MB would leave them whole: five splits over two
		// goroutines, three against two).
		opts.FileSplitSize = splitBytes()
	}
	plan, err := tbl.Plan(ctx, opts)
	if err != nil {
		return nil, err
	}
	work := make(chan int)
	accs := make([]acc, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bufs := &paimon.ScanBuffers{}
			defer bufs.Release()
			for i := range work {
				if errs[t] != nil {
					continue
				}
				errs[t] = readIcebergSplit(ctx, plan, &plan.Splits[i], q.cols, q.pred != nil, mem, bufs, &accs[t])
			}
		}()
	}
	for i := range plan.Splits {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var total acc
	for t := range accs {
		if errs[t] != nil {
			return nil, errs[t]
		}
		total.merge(&accs[t])
	}
	return q.answer(&total), nil
}

// readIcebergSplit sums one split. lake/iceberg's predicate only prunes
// (row groups by their statistics), so the filtered query (k < 100, the
// only one) reads k too and keeps its rows here, as an engine's filter
// above the scan does.
func readIcebergSplit(ctx context.Context, plan *iceberg.Plan, s *iceberg.Split, cols []string, filtered bool, mem memory.Allocator, bufs *paimon.ScanBuffers, a *acc) error {
	if filtered {
		cols = append(slices.Clone(cols), "k")
	}
	rr, err := plan.Open(ctx, s, mem, iceberg.ReadOptions{Columns: cols, Buffers: bufs})
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if filtered {
			v, okV := rec.Column(0).(*array.Float64)
			k, okK := rec.Column(1).(*array.Int32)
			if !okV || !okK {
				return fmt.Errorf("filtered read: columns %s, %s", rec.Column(0).DataType(), rec.Column(1).DataType())
			}
			for i, kv := range k.Int32Values() {
				if kv < 100 && v.IsValid(i) {
					a.count++
					a.sumV += v.Value(i)
				}
			}
			continue
		}
		a.count += rec.NumRows()
		// By index: Schema().Fields() copies the fields, once a batch.
		for c := range int(rec.NumCols()) {
			if err := sumColumn(rec.ColumnName(c), rec.Column(c), a); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

// icebergParquetList is the DuckDB list literal of the table's data files.
func icebergParquetList(ctx context.Context, wh string) (string, int64, error) {
	tbl, err := iceberg.OpenDir(ctx, fileio.Local{}, icebergTableDir(wh))
	if err != nil {
		return "", 0, err
	}
	plan, err := tbl.Plan(ctx, iceberg.ScanOptions{})
	if err != nil {
		return "", 0, err
	}
	var parts []string
	var size int64
	for _, s := range plan.Splits {
		parts = append(parts, "'"+strings.ReplaceAll(strings.TrimPrefix(s.Path, "file://"), "'", "''")+"'")
		size += s.Size
	}
	return "[" + strings.Join(parts, ", ") + "]", size, nil
}

// splitBytes is the Iceberg side's slice size with T > 1 (tuning, read
// from INLET_LAKEBENCH_SPLIT when set).
func splitBytes() int64 {
	if v, err := strconv.ParseInt(os.Getenv("INLET_LAKEBENCH_SPLIT"), 10, 64); err == nil && v > 0 {
		return v
	}
	return 2 << 20
}
