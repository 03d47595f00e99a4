package paimon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestPagePathMatchesPqarrow reads every fixture read (Java-written files:
// every type, NULLs, dictionary fallbacks, several row groups, INT96 before
// 1970, deletion vectors, predicates, schema evolution) through the page
// decoder and through pqarrow and requires the same rows in the same order.
func TestPagePathMatchesPqarrow(t *testing.T) {
	all, err := paimontest.LoadAll(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer paimon.SetParquetFastPath(paimon.SetParquetFastPath(true))
	// Reused batch and scratch buffers come back full of 0xAB: the page
	// path must write every byte it returns.
	defer paimon.SetPoisonReused(paimon.SetPoisonReused(true))
	reused := paimon.ReusedBuffers()
	before := paimon.PageFiles()
	reads := 0
	for _, e := range all {
		for i := range e.Reads {
			r := &e.Reads[i]
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			paimon.SetParquetFastPath(true)
			_, fast, err1 := readAll(t, e, r, mem)
			paimon.SetParquetFastPath(false)
			_, slow, err2 := readAll(t, e, r, mem)
			mem.AssertSize(t, 0)
			if (err1 == nil) != (err2 == nil) {
				t.Errorf("%s/%s: page path error %v, pqarrow error %v", e.Fixture, r.Name, err1, err2)
				continue
			}
			if a, b := fmt.Sprint(fast), fmt.Sprint(slow); a != b {
				t.Errorf("%s/%s: page path\n%s\npqarrow\n%s", e.Fixture, r.Name, a, b)
			}
			reads++
		}
	}
	if paimon.ReusedBuffers() == reused {
		t.Errorf("no buffer reused across batches: the poisoned reads test nothing")
	}
	if n := paimon.PageFiles() - before; n < 50 {
		t.Errorf("the page decoder opened only %d files over %d reads", n, reads)
	} else {
		t.Logf("%d reads, %d files through the page decoder", reads, n)
	}
}

// BenchmarkScanPaths reads a generated 1,000,000-row append table (two
// Parquet files, ZSTD, dictionary-encoded where the writer keeps it)
// through the page decoder and through pqarrow, side by side.
func BenchmarkScanPaths(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	mem := memory.DefaultAllocator
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, benchFields(b, false), nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		b.Fatal(err)
	}
	const perFile, files = 500_000, 2
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
	defer paimon.SetParquetFastPath(paimon.SetParquetFastPath(true))
	for _, q := range []struct {
		name string
		cols []string
		pred *paimon.Predicate
		rows int64
	}{
		{"all-columns", nil, nil, perFile * files},
		{"id-price", []string{"id", "price"}, nil, perFile * files},
		{"price-where-k<100", []string{"price"}, paimon.Lt("k", int32(100)), perFile * files / 10},
	} {
		for _, fast := range []bool{true, false} {
			name := q.name + "/pqarrow"
			if fast {
				name = q.name + "/page"
			}
			b.Run(name, func(b *testing.B) {
				paimon.SetParquetFastPath(fast)
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if rows := scanWhere(b, tbl, q.cols, q.pred); rows != q.rows {
						b.Fatalf("rows %d, want %d", rows, q.rows)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perFile*files), "ns/row")
			})
		}
	}
}

func scanWhere(b *testing.B, tbl *paimon.Table, cols []string, pred *paimon.Predicate) (rows int64) {
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: pred})
	if err != nil {
		b.Fatal(err)
	}
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], memory.DefaultAllocator, paimon.ReadOptions{Columns: cols})
		if err != nil {
			b.Fatal(err)
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
	}
	return rows
}

// TestLateFilterMatchesPqarrow: with a row filter the page path decodes
// the filter's columns first and the others only for passing rows; rows,
// their order and the scan counters must equal pqarrow's, on an append
// table (NULLs, strings, several files and row groups) and on a
// primary-key table read through deletion vectors.
func TestLateFilterMatchesPqarrow(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer paimon.SetParquetFastPath(paimon.SetParquetFastPath(true))

	appendDir := t.TempDir()
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, appendDir, benchFields(t, false), nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 3; f++ {
		rec := genBatch(bl.Schema(), mem, int64(f*3001), 3001, 1)
		if err := bl.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	dvDir := t.TempDir()
	b := pkBuilder(t, dvDir, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}, mem)
	var rows [][]any
	var deleted []uint32
	for i := 0; i < 3000; i++ {
		var v any = fmt.Sprintf("v%04d", i%37)
		if i%11 == 0 {
			v = nil
		}
		rows = append(rows, []any{i, v, i % 100})
		if i%7 == 3 {
			deleted = append(deleted, uint32(i))
		}
	}
	f1 := paimontest.Rows(t, mem, b.Schema(), rows...)
	if err := b.Commit(ctx, []paimontest.File{{Rows: f1, Level: 5, Deleted: deleted}}, mem); err != nil {
		t.Fatal(err)
	}
	f1.Release()

	cases := []struct {
		dir  string
		pred *paimon.Predicate
		cols []string
	}{
		{appendDir, paimon.Lt("k", int32(100)), []string{"price"}},
		{appendDir, paimon.Lt("k", int32(100)), nil},
		{appendDir, paimon.Or(paimon.IsNull("price"), paimon.Gt("k", int32(990))), []string{"name", "day"}},
		{appendDir, paimon.And(paimon.Ge("id", int64(3000)), paimon.Eq("name", "customer-0000003002")), []string{"id", "price"}},
		{appendDir, paimon.In("day", "2022-01-05", "2022-03-01"), []string{"name"}},
		{dvDir, paimon.Eq("v", "v0003"), []string{"k", "w"}},
		// Staged: the string column is decoded only for the rows the
		// integer leaves keep (some, all, and through a deletion vector).
		{appendDir, paimon.And(paimon.Lt("k", int32(300)), paimon.Ge("name", "customer-0000004000")), []string{"id", "price"}},
		{appendDir, paimon.And(paimon.Ge("k", int32(0)), paimon.Ne("name", "customer-0000000005"), paimon.IsNotNull("price")), nil},
		{dvDir, paimon.And(paimon.Lt("w", int64(40)), paimon.In("v", "v0003", "v0010", nil), paimon.Ge("k", int32(100))), []string{"k"}},
		{dvDir, paimon.And(paimon.IsNull("v"), paimon.Gt("w", int64(50))), []string{"w", "k"}},
		// Whole batches dropped by the first conjunct (the string column
		// then read for no row), and a conjunct over two columns.
		{appendDir, paimon.And(paimon.Ge("name", "customer-0000008500"), paimon.Gt("id", int64(8000))), []string{"k"}},
		{appendDir, paimon.And(paimon.Or(paimon.IsNull("price"), paimon.Ge("name", "customer-0000006000")), paimon.Lt("day", "2022-03-01"), paimon.Ne("k", int32(7))), []string{"id"}},
		{dvDir, paimon.Or(paimon.IsNull("v"), paimon.Lt("w", int64(3))), nil},
		// A join's key bitmap (runtime filter) first, then a string.
		{appendDir, paimon.And(paimon.InBits("k", 3, keyBits(3, 3, 64, 65, 500, 999)), paimon.Ne("name", "customer-0000000003")), []string{"id", "name"}},
		{dvDir, paimon.And(paimon.InBits("k", 100, keyBits(100, 100, 101, 163, 164, 2900)), paimon.IsNotNull("v")), []string{"v", "w"}},
	}
	defer paimon.SetPoisonReused(paimon.SetPoisonReused(true))
	late, drop, pooled, reused := paimon.LateFiles(), paimon.DropFiles(), paimon.PooledReaders(), paimon.ReusedBuffers()
	staged, unread, novalue := paimon.StagedFiles(), paimon.UnreadCols(), paimon.NoValueCols()
	for _, c := range cases {
		tbl, err := paimon.OpenTable(ctx, fileio.Local{}, c.dir)
		if err != nil {
			t.Fatal(err)
		}
		o := paimon.ScanOptions{Predicate: c.pred}
		paimon.SetParquetFastPath(true)
		fast := readRows(t, tbl, o, c.cols, mem)
		_, fm := readMetrics(t, tbl, o, mem)
		paimon.SetParquetFastPath(false)
		slow := readRows(t, tbl, o, c.cols, mem)
		_, sm := readMetrics(t, tbl, o, mem)
		if fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Errorf("%s: page path %d rows %v…, pqarrow %d rows %v…", c.pred, len(fast), head(fast), len(slow), head(slow))
		}
		if len(slow) == 0 {
			t.Errorf("%s: no rows: the case tests nothing", c.pred)
		}
		if fm != sm {
			t.Errorf("%s: counters %+v, pqarrow %+v", c.pred, fm, sm)
		}
	}
	if n := paimon.LateFiles() - late; n < int64(len(cases)) {
		t.Errorf("late materialisation used for %d files over %d filtered reads", n, len(cases))
	}
	if n := paimon.StagedFiles() - staged; n < 7 {
		t.Errorf("staged reads for %d files over 7 filtered reads that allow one", n)
	}
	// A filter column the case does not return is decoded for the test
	// but not gathered for the rows kept (the answers above are the
	// pqarrow read's all the same).
	if paimon.UnreadCols() == unread {
		t.Errorf("no filter-only column left ungathered over cases filtering on columns they do not return")
	}
	if paimon.NoValueCols() == novalue {
		t.Errorf("no filter-only string column answered on its dictionary without its values")
	}
	// Every case is a raw read: the reader drops the rows itself.
	if n := paimon.DropFiles() - drop; n < int64(len(cases)) {
		t.Errorf("rows dropped in the reader for %d files over %d filtered raw reads", n, len(cases))
	}
	// The append table's three files share one split: the second and third
	// reuse the first's page readers.
	if paimon.ReusedBuffers() == reused {
		t.Errorf("no buffer reused across batches: the poisoned reads test nothing")
	}
	if paimon.PooledReaders() == pooled {
		t.Errorf("no page reader reused across the files of a scan")
	}
}

func head(rows []string) []string { return rows[:min(len(rows), 5)] }

// keyBits is the key bitmap of keys from lo (internal/keybits' layout).
func keyBits(lo int64, keys ...int64) []uint64 {
	var w []uint64
	for _, k := range keys {
		p := k - lo
		for int(p/64) >= len(w) {
			w = append(w, 0)
		}
		w[p/64] |= 1 << (p % 64)
	}
	return w
}
