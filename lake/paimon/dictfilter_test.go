package paimon_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestDictFilterMatchesPqarrow: a filter conjunct over one string column
// answered on the Parquet dictionary gives the rows the per-row
// evaluation gives (the pqarrow path), for every predicate kind, NULLs,
// after an integer conjunct's selection, through a deletion vector, and
// on a column whose dictionary falls back to PLAIN mid-chunk.
func TestDictFilterMatchesPqarrow(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer paimon.SetParquetFastPath(paimon.SetParquetFastPath(true))

	modes := []string{"AIR", "AIR REG", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"}
	dir := t.TempDir()
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "BIGINT")},
		{ID: 1, Name: "mode", Type: mustType(t, "STRING")},
		{ID: 2, Name: "note", Type: mustType(t, "STRING")},
		{ID: 3, Name: "k", Type: mustType(t, "INT")},
	}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	bl.RowGroupRows = 9000
	// Pages of 300 rows and a 64 KiB dictionary: note's chunks fall back
	// to PLAIN once its distinct values come.
	bl.ParquetOptions = []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(64 << 10),
		parquet.WithBatchSize(300), parquet.WithDataPageSize(4 << 10)}
	const rows = 24000
	var data [][]any
	for i := 0; i < rows; i++ {
		var mode any = modes[(i*31)%len(modes)]
		if i%13 == 4 {
			mode = nil
		}
		// note: a few values, then distinct 200-byte ones past the
		// writer's 1 MiB dictionary limit, so the second row group's
		// chunk falls back to PLAIN mid-chunk.
		var note any = fmt.Sprintf("n%d", i%5)
		if i >= 12000 {
			note = fmt.Sprintf("%0200d", i)
		}
		if i%17 == 2 {
			note = nil
		}
		data = append(data, []any{i, mode, note, i % 100})
	}
	rec := paimontest.Rows(t, mem, bl.Schema(), data...)
	if err := bl.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()

	dvDir := t.TempDir()
	b := pkBuilder(t, dvDir, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}, mem)
	var pk [][]any
	var deleted []uint32
	for i := 0; i < 3000; i++ {
		var v any = fmt.Sprintf("v%04d", i%37)
		if i%11 == 0 {
			v = nil
		}
		pk = append(pk, []any{i, v, i % 100})
		if i%7 == 3 {
			deleted = append(deleted, uint32(i))
		}
	}
	f1 := paimontest.Rows(t, mem, b.Schema(), pk...)
	if err := b.Commit(ctx, []paimontest.File{{Rows: f1, Level: 5, Deleted: deleted}}, mem); err != nil {
		t.Fatal(err)
	}
	f1.Release()

	late := strings.Repeat("0", 195) + "20000"
	cases := []struct {
		name    string
		dir     string
		pred    *paimon.Predicate
		cols    []string
		inexact bool // the note column's PLAIN pages reach the row path
	}{
		{"eq", dir, paimon.Eq("mode", "MAIL"), []string{"id"}, false},
		{"eq-read", dir, paimon.Eq("mode", "MAIL"), []string{"id", "mode"}, false},
		{"ne", dir, paimon.Ne("mode", "MAIL"), []string{"id", "mode"}, false},
		{"lt", dir, paimon.Lt("mode", "FOB"), nil, false},
		{"ge", dir, paimon.Ge("mode", "REG AIR"), []string{"id"}, false},
		{"in", dir, paimon.In("mode", "AIR", "AIR REG", nil), []string{"id", "note"}, false},
		{"not-in", dir, paimon.And(paimon.Ne("mode", "SHIP"), paimon.Ne("mode", "MAIL")), []string{"id", "mode"}, false},
		{"is-null", dir, paimon.IsNull("mode"), []string{"id"}, false},
		{"is-not-null", dir, paimon.IsNotNull("mode"), []string{"id"}, false},
		{"or-null", dir, paimon.Or(paimon.IsNull("mode"), paimon.Eq("mode", "RAIL")), []string{"id", "mode"}, false},
		{"after-int", dir, paimon.And(paimon.Lt("k", int32(10)), paimon.In("mode", "MAIL", "SHIP")), []string{"id", "mode"}, false},
		// note only filtered (not returned): its PLAIN pages are answered
		// inside the page reader (parquetpage.DictFilter.NoValues), not on
		// the row path; returned, they reach the row path.
		{"nested-and", dir, paimon.And(paimon.And(paimon.In("mode", "AIR", "REG AIR"), paimon.Eq("note", "n3")), paimon.Ge("k", int32(50))), []string{"id"}, false},
		{"nested-and-read", dir, paimon.And(paimon.And(paimon.In("mode", "AIR", "REG AIR"), paimon.Eq("note", "n3")), paimon.Ge("k", int32(50))), []string{"id", "note"}, true},
		// Two stages over one filter-only column: the second reads the
		// values the first built, so those are built.
		{"two-on-mode", dir, paimon.And(paimon.Lt("mode", "S"), paimon.Gt("k", int32(10)), paimon.Ge("mode", "B")), []string{"id"}, false},
		{"fallback", dir, paimon.Or(paimon.Eq("note", "n1"), paimon.Ge("note", late)), []string{"id", "note"}, true},
		{"fallback-null", dir, paimon.And(paimon.IsNull("note"), paimon.Eq("mode", "TRUCK")), []string{"id"}, false},
		{"fallback-null-read", dir, paimon.And(paimon.IsNull("note"), paimon.Eq("mode", "TRUCK")), []string{"id", "note"}, true},
		{"fallback-after-int", dir, paimon.And(paimon.Gt("k", int32(90)), paimon.Ne("note", "n4")), []string{"id", "mode"}, false},
		{"fallback-after-int-read", dir, paimon.And(paimon.Gt("k", int32(90)), paimon.Ne("note", "n4")), []string{"id", "note"}, true},
		{"dv-eq", dvDir, paimon.Eq("v", "v0003"), []string{"k", "w"}, false},
		{"dv-in-after-int", dvDir, paimon.And(paimon.Lt("w", int64(40)), paimon.In("v", "v0003", "v0010", nil)), []string{"k", "v"}, false},
		{"dv-is-null", dvDir, paimon.IsNull("v"), []string{"k"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, c.dir)
			if err != nil {
				t.Fatal(err)
			}
			o := paimon.ScanOptions{Predicate: c.pred}
			for _, batch := range []int{1000, 333} {
				paimon.SetParquetFastPath(true)
				before, inexact := paimon.DictBatches()
				fast := readRowsBatch(t, tbl, o, c.cols, batch, mem)
				after, inexact2 := paimon.DictBatches()
				paimon.SetParquetFastPath(false)
				slow := readRowsBatch(t, tbl, o, c.cols, batch, mem)
				if fmt.Sprint(fast) != fmt.Sprint(slow) {
					t.Errorf("batch %d: dictionary path %d rows %v…, pqarrow %d rows %v…", batch, len(fast), head(fast), len(slow), head(slow))
				}
				if len(slow) == 0 {
					t.Errorf("no rows: the case tests nothing")
				}
				if after == before {
					t.Errorf("batch %d: no filter stage answered on a dictionary", batch)
				}
				if (inexact2 > inexact) != c.inexact {
					t.Errorf("batch %d: %d batches with PLAIN pages, want some: %v", batch, inexact2-inexact, c.inexact)
				}
			}
		})
	}
}
