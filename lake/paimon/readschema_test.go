package paimon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestReadSchemaNewerThanSnapshot: a snapshot written before a column was
// added, read with the newer schema (a Fluss union read after ALTER TABLE
// ADD COLUMN): the column reads NULL, predicates on it see all-NULL
// statistics (IS NULL keeps every file, = prunes them), projection maps by
// field id.
func TestReadSchemaNewerThanSnapshot(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "id", Type: mustType(t, "INT")},
		{ID: 1, Name: "name", Type: mustType(t, "STRING")},
	}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	r := paimontest.Rows(t, mem, b.Schema(), []any{1, "a"}, []any{2, nil})
	if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
		t.Fatal(err)
	}
	r.Release()
	s1 := *b.Schema()
	s1.Fields = append(append([]paimon.DataField(nil), s1.Fields...), paimon.DataField{ID: 2, Name: "score", Type: mustType(t, "DOUBLE")})
	s1.HighestFieldID = 2
	if err := b.AlterSchema(ctx, &s1); err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	one, zero := int64(1), int64(0)
	for _, tc := range []struct {
		name   string
		o      paimon.ScanOptions
		cols   []string
		want   string
		pruned int
	}{
		{"snapshot schema", paimon.ScanOptions{SnapshotID: 1}, nil, "[1 a] [2 <nil>]", 0},
		{"newer schema", paimon.ScanOptions{SnapshotID: 1, ReadSchemaID: &one}, nil, "[1 a <nil>] [2 <nil> <nil>]", 0},
		{"projection by id", paimon.ScanOptions{SnapshotID: 1, ReadSchemaID: &one}, []string{"score", "id"}, "[<nil> 1] [<nil> 2]", 0},
		{"is null on absent column", paimon.ScanOptions{SnapshotID: 1, ReadSchemaID: &one, Predicate: paimon.IsNull("score")}, []string{"id"}, "[1] [2]", 0},
		{"eq on absent column prunes", paimon.ScanOptions{SnapshotID: 1, ReadSchemaID: &one, Predicate: paimon.Eq("score", 1.5)}, []string{"id"}, "", 1},
		{"same as snapshot", paimon.ScanOptions{SnapshotID: 1, ReadSchemaID: &zero}, nil, "[1 a] [2 <nil>]", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(readRows(t, tbl, tc.o, tc.cols, mem), " ")
			if got != tc.want {
				t.Fatalf("got %s\nwant %s", got, tc.want)
			}
			p, err := tbl.Plan(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if p.Stats.FilesPruned != tc.pruned {
				t.Errorf("pruned %d files, want %d", p.Stats.FilesPruned, tc.pruned)
			}
		})
	}
	// A snapshot of schema 1 cannot be read with schema 0.
	r = paimontest.Rows(t, mem, b.Schema(), []any{3, "c", 3.5})
	if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if _, err := tbl.Plan(ctx, paimon.ScanOptions{SnapshotID: 2, ReadSchemaID: &zero}); err == nil || !strings.Contains(err.Error(), "older than") {
		t.Fatalf("reading snapshot 2 with schema-0: %v", err)
	}
}

func TestSnapshotOfTagAndAt(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{{ID: 0, Name: "id", Type: mustType(t, "INT")}}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		r := paimontest.Rows(t, mem, b.Schema(), []any{i})
		if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := tbl.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := tbl.Snapshot(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "snapshot", "snapshot-1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := fileio.WriteFile(ctx, fileio.Local{}, fileio.Join(dir, "tag", "tag-v1"), js); err != nil {
		t.Fatal(err)
	}
	if s, err := tbl.SnapshotOfTag(ctx, "v1"); err != nil || s.ID != 1 {
		t.Errorf("tag v1: %v %v", s, err)
	}
	for _, name := range []string{"nope", "../snapshot/snapshot-1", ""} {
		if _, err := tbl.SnapshotOfTag(ctx, name); !errors.Is(err, paimon.ErrNotFound) {
			t.Errorf("tag %q: %v, want ErrNotFound", name, err)
		}
	}
	cases := []struct {
		at   int64
		want int64 // 0: none
	}{{s2.TimeMillis, 2}, {s2.TimeMillis + 1000, 2}, {s1.TimeMillis - 1, 0}}
	if s1.TimeMillis < s2.TimeMillis { // committed in different milliseconds
		cases = append(cases, struct{ at, want int64 }{s1.TimeMillis, 1})
	}
	for _, tc := range cases {
		s, err := tbl.SnapshotAt(ctx, tc.at)
		if tc.want == 0 {
			if !errors.Is(err, paimon.ErrNotFound) {
				t.Errorf("at %d: %v %v, want ErrNotFound", tc.at, s, err)
			}
			continue
		}
		if err != nil || s.ID != tc.want {
			t.Errorf("at %d: %v %v, want snapshot %d", tc.at, s, err, tc.want)
		}
	}
}
