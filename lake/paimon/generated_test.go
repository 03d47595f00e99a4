package paimon_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

func mustType(t testing.TB, s string) paimon.DataType {
	t.Helper()
	dt, err := paimon.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

func readRows(t *testing.T, tbl *paimon.Table, o paimon.ScanOptions, cols []string, mem memory.Allocator) []string {
	t.Helper()
	return readRowsBatch(t, tbl, o, cols, 2, mem)
}

// readRowsBatch reads columns cols of every split in batches of batch rows
// and renders the rows sorted.
func readRowsBatch(t *testing.T, tbl *paimon.Table, o paimon.ScanOptions, cols []string, batch int, mem memory.Allocator) []string {
	t.Helper()
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: cols, BatchSize: batch})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for j := 0; j < int(rec.NumRows()); j++ {
				out = append(out, fmt.Sprint(paimon.JSONRow(rec, j)))
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	sort.Strings(out)
	return out
}

func TestSchemaEvolution(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "INT")},
		{ID: 1, Name: "name", Type: mustType(t, "STRING")},
		{ID: 2, Name: "score", Type: mustType(t, "DOUBLE")},
	}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	r := paimontest.Rows(t, mem, b.Schema(), []any{1, "a", 1.5}, []any{2, "b", nil}, []any{3, "c", 3.5})
	if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
		t.Fatal(err)
	}
	r.Release()
	// schema-1: id widened to BIGINT, name renamed to title, extra added,
	// score dropped.
	s1 := *b.Schema()
	s1.Fields = []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "BIGINT")},
		{ID: 3, Name: "extra", Type: mustType(t, "STRING")},
		{ID: 1, Name: "title", Type: mustType(t, "STRING")},
	}
	s1.HighestFieldID = 3
	if err := b.AlterSchema(ctx, &s1); err != nil {
		t.Fatal(err)
	}
	r = paimontest.Rows(t, mem, b.Schema(), []any{4, "x", "d"})
	if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
		t.Fatal(err)
	}
	r.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    paimon.ScanOptions
		cols []string
		want string
	}{
		{"latest", paimon.ScanOptions{}, nil, "[1 <nil> a] [2 <nil> b] [3 <nil> c] [4 x d]"},
		{"projection", paimon.ScanOptions{}, []string{"title", "id"}, "[a 1] [b 2] [c 3] [d 4]"},
		{"old snapshot keeps old schema", paimon.ScanOptions{SnapshotID: 1}, nil, "[1 a 1.5] [2 b <nil>] [3 c 3.5]"},
		{"filter on added column", paimon.ScanOptions{Predicate: paimon.IsNull("extra")}, []string{"id"}, "[1] [2] [3]"},
		{"filter on renamed column", paimon.ScanOptions{Predicate: paimon.Or(paimon.Eq("title", "b"), paimon.Ge("id", 4))}, []string{"id"}, "[2] [4]"},
		{"in", paimon.ScanOptions{Predicate: paimon.In("id", 1, 3, 9)}, []string{"title"}, "[a] [c]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(readRows(t, tbl, tc.o, tc.cols, mem), " ")
			if got != tc.want {
				t.Fatalf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func pkBuilder(t *testing.T, dir string, opts map[string]string, mem memory.Allocator) *paimontest.Builder {
	t.Helper()
	b, err := paimontest.NewBuilder(context.Background(), fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "k", Type: mustType(t, "INT NOT NULL")},
		{ID: 1, Name: "v", Type: mustType(t, "STRING")},
		{ID: 2, Name: "w", Type: mustType(t, "BIGINT")},
	}, nil, []string{"k"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeOnRead(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1"}, mem)
	s := b.Schema()
	f1 := paimontest.Rows(t, mem, s, []any{1, "a", 10}, []any{2, "a", 20}, []any{3, "a", 30}, []any{4, "a", 40}, []any{5, "a", 50})
	f2 := paimontest.Rows(t, mem, s, []any{2, nil, nil}, []any{3, "b", nil}, []any{6, "c", 60})
	f3 := paimontest.Rows(t, mem, s, []any{4, nil, 41}, []any{7, "d", 70})
	commits := []paimontest.File{
		{Rows: f1},
		{Rows: f2, Kinds: []int8{paimon.KindDelete, paimon.KindUpdateAfter, paimon.KindInsert}},
		{Rows: f3},
	}
	for _, c := range commits {
		if err := b.Commit(ctx, []paimontest.File{c}, mem); err != nil {
			t.Fatal(err)
		}
		c.Rows.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || plan.Splits[0].RawConvertible || len(plan.Splits[0].Files) != 3 {
		t.Fatalf("plan: %d splits, want one merge split of 3 level-0 files", len(plan.Splits))
	}
	for _, tc := range []struct {
		name string
		o    paimon.ScanOptions
		want string
	}{
		{"deduplicate", paimon.ScanOptions{}, "[1 a 10] [3 b <nil>] [4 <nil> 41] [5 a 50] [6 c 60] [7 d 70]"},
		{"deduplicate filter after merge", paimon.ScanOptions{Predicate: paimon.Eq("v", "a")}, "[1 a 10] [5 a 50]"},
		{"snapshot 2", paimon.ScanOptions{SnapshotID: 2}, "[1 a 10] [3 b <nil>] [4 a 40] [5 a 50] [6 c 60]"},
		{"deduplicate ignore-delete", paimon.ScanOptions{Options: map[string]string{"ignore-delete": "true"}}, "[1 a 10] [2 a 20] [3 b <nil>] [4 <nil> 41] [5 a 50] [6 c 60] [7 d 70]"},
		{"partial-update", paimon.ScanOptions{Options: map[string]string{"merge-engine": "partial-update", "ignore-delete": "true"}}, "[1 a 10] [2 a 20] [3 b 30] [4 a 41] [5 a 50] [6 c 60] [7 d 70]"},
		{"first-row skips level 0", paimon.ScanOptions{Options: map[string]string{"merge-engine": "first-row"}}, ""},
		{"key pruning", paimon.ScanOptions{Predicate: paimon.Gt("k", 6)}, "[7 d 70]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(readRows(t, tbl, tc.o, nil, mem), " ")
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// Partial update without ignore-delete must fail, not guess.
	p, err := tbl.Plan(ctx, paimon.ScanOptions{Options: map[string]string{"merge-engine": "partial-update"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := p.Open(ctx, &p.Splits[0], mem, paimon.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
	}
	if rr.Err() == nil {
		t.Fatal("partial-update with a delete record and no ignore-delete: no error")
	}
	rr.Release()
}

func TestDeletionVectors(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}, mem)
	s := b.Schema()
	f1 := paimontest.Rows(t, mem, s, []any{1, "a", 1}, []any{2, "b", 2}, []any{3, "c", 3}, []any{4, "d", 4})
	f2 := paimontest.Rows(t, mem, s, []any{9, "z", 9})
	if err := b.Commit(ctx, []paimontest.File{{Rows: f1, Level: 5, Deleted: []uint32{1, 3}}, {Rows: f2, Level: 0}}, mem); err != nil {
		t.Fatal(err)
	}
	f1.Release()
	f2.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || !plan.Splits[0].RawConvertible || plan.Splits[0].RowCount != 2 {
		t.Fatalf("plan: %+v", plan.Splits)
	}
	if got := strings.Join(readRows(t, tbl, paimon.ScanOptions{}, nil, mem), " "); got != "[1 a 1] [3 c 3]" {
		t.Fatalf("got %s", got)
	}
	if _, m := readMetrics(t, tbl, paimon.ScanOptions{}, mem); m.RowsDeleted != 2 || m.FilesOpened != 1 {
		t.Fatalf("metrics %+v (level-0 file must not be opened)", m)
	}
}

func TestLiveFilesMatchTotalRecordCount(t *testing.T) {
	ctx := context.Background()
	all, err := paimontest.LoadAll(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		tbl, err := paimon.OpenTable(ctx, fileio.Local{}, e.TablePath())
		if err != nil {
			t.Fatal(err)
		}
		latest, err := tbl.LatestSnapshotID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		earliest, err := tbl.EarliestSnapshotID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for id := earliest; id <= latest; id++ {
			snap, err := tbl.Snapshot(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			live, err := tbl.LiveFiles(ctx, snap)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, f := range live {
				sum += f.File.RowCount
			}
			if snap.TotalRecordCount == nil || *snap.TotalRecordCount != sum {
				t.Errorf("%s snapshot %d: live rows %d, totalRecordCount %v", e.Fixture, id, sum, snap.TotalRecordCount)
			}
		}
	}
}
