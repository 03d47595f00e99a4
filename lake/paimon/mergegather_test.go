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

func mergeWideFields(t *testing.T) []paimon.DataField {
	var out []paimon.DataField
	for i, nt := range []string{"a INT NOT NULL", "b STRING NOT NULL", "c BIGINT", "d DOUBLE", "e DECIMAL(10, 2)",
		"f TIMESTAMP(6)", "g BOOLEAN", "h DATE", "i BYTES", "j ARRAY", "k TINYINT", "l SMALLINT", "m FLOAT"} {
		name, typ, _ := strings.Cut(nt, " ")
		if typ == "ARRAY" {
			elem := mustType(t, "INT")
			out = append(out, paimon.DataField{ID: i, Name: name, Type: paimon.DataType{Root: paimon.Array, Nullable: true, Element: &elem}})
			continue
		}
		out = append(out, paimon.DataField{ID: i, Name: name, Type: mustType(t, typ)})
	}
	return out
}

// readSorted reads every split with the given batch size and renders the
// rows sorted.
func readSorted(t *testing.T, tbl *paimon.Table, o paimon.ScanOptions, batch int, mem memory.Allocator) []string {
	t.Helper()
	return readRowsBatch(t, tbl, o, nil, batch, mem)
}

func render(t *testing.T, mem memory.Allocator, s *paimon.TableSchema, rows ...[]any) []string {
	rec := paimontest.Rows(t, mem, s, rows...)
	defer rec.Release()
	var out []string
	for j := 0; j < int(rec.NumRows()); j++ {
		out = append(out, fmt.Sprint(paimon.JSONRow(rec, j)))
	}
	sort.Strings(out)
	return out
}

// TestMergeCompositeKeyEveryType merges three or four overlapping files
// per bucket (two buckets) of a table keyed by (INT, STRING) with a column
// of every flat type plus an array, with updates, -U/-D retractions and
// NULLs, at batch sizes that split the output anywhere; expected rows are
// derived by hand from the engine rules.
func TestMergeCompositeKeyEveryType(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, mergeWideFields(t), nil, []string{"a", "b"}, map[string]string{"bucket": "2", "bucket-key": "a"})
	if err != nil {
		t.Fatal(err)
	}
	s := b.Schema()
	row := func(a int, bs string, v int) []any {
		// every non-key column derived from v; v < 0 makes them NULL
		if v < 0 {
			return []any{a, bs, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
		}
		return []any{a, bs, v * 1000, float64(v) + 0.5, v*100 + 7, 1_700_000_000_000_000 + v, v%2 == 0, 19000 + v,
			[]byte{byte(v), 0, 0xff}, []int{v, -v}, v % 100, v * 3, float64(v) / 4}
	}
	ins, ub, ua, del := paimon.KindInsert, paimon.KindUpdateBefore, paimon.KindUpdateAfter, paimon.KindDelete
	// Keys are sorted by (a, b bytes) inside each file; "B" < "a" < "ab".
	type file struct {
		bucket int32
		rows   [][]any
		kinds  []int8
	}
	files := []file{
		{0, [][]any{row(2, "B", 1), row(2, "a", 2), row(2, "ab", 3), row(4, "x", 4)}, nil},
		{1, [][]any{row(1, "k", 5), row(3, "k", 6), row(3, "l", 7)}, nil},
		{0, [][]any{row(2, "a", 8), row(2, "ab", 9), row(2, "b", 10), row(4, "", -1)}, []int8{ua, del, ins, ins}},
		{1, [][]any{row(1, "k", 11), row(3, "l", 12)}, []int8{ub, ua}},
		{0, [][]any{row(2, "B", 13), row(2, "b", -1), row(4, "x", 14)}, []int8{ua, ua, ub}},
		{1, [][]any{row(1, "k", 15), row(3, "k", 16)}, []int8{ins, del}},
	}
	for _, f := range files {
		rec := paimontest.Rows(t, mem, s, f.rows...)
		if err := b.Commit(ctx, []paimontest.File{{Bucket: f.bucket, Rows: rec, Kinds: f.kinds}}, mem); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range plan.Splits {
		if sp.RawConvertible || len(sp.Files) != 3 {
			t.Fatalf("split of bucket %d: raw=%v, %d files; want a merge of 3", sp.Bucket, sp.RawConvertible, len(sp.Files))
		}
	}
	// deduplicate: per key the highest sequence (latest commit) wins; a
	// winning -U/-D removes the key.
	//   (2,B): 1, then +U 13 → 13        (2,a): 2, +U 8 → 8
	//   (2,ab): 3, -D → gone             (2,b): +I 10, +U NULLs → NULLs
	//   (4,""): +I NULLs                 (4,x): 4, -U 14 → gone
	//   (1,k): 5, -U 11, +I 15 → 15      (3,k): 6, -D 16 → gone
	//   (3,l): 7, +U 12 → 12
	dedup := render(t, mem, s, row(2, "B", 13), row(2, "a", 8), row(2, "b", -1), row(4, "", -1), row(1, "k", 15), row(3, "l", 12))
	// ignore-delete: retractions are dropped before the merge.
	//   (2,ab): 3; (4,x): 4; (1,k): 15; (3,k): 6; the rest as above.
	ignore := render(t, mem, s, row(2, "B", 13), row(2, "a", 8), row(2, "ab", 3), row(2, "b", -1), row(4, "", -1), row(4, "x", 4),
		row(1, "k", 15), row(3, "k", 6), row(3, "l", 12))
	for _, batch := range []int{1, 2, 3, 1000} {
		for _, tc := range []struct {
			name string
			o    paimon.ScanOptions
			want []string
		}{
			{"deduplicate", paimon.ScanOptions{}, dedup},
			{"ignore-delete", paimon.ScanOptions{Options: map[string]string{"ignore-delete": "true"}}, ignore},
		} {
			t.Run(fmt.Sprintf("%s/batch=%d", tc.name, batch), func(t *testing.T) {
				got := readSorted(t, tbl, tc.o, batch, mem)
				if g, w := strings.Join(got, "\n"), strings.Join(tc.want, "\n"); g != w {
					t.Fatalf("got\n%s\nwant\n%s", g, w)
				}
			})
		}
	}
}

// TestMergeManyBatches merges three level-0 files of 5,000 keys each,
// overlapping by thirds, so output batch boundaries fall anywhere and one
// output batch draws on many source batches. deduplicate takes the latest
// file's row; partial-update (builder path) the latest non-NULL field.
// Expected rows are computed from the key ranges.
func TestMergeManyBatches(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, engine := range []string{"deduplicate", "partial-update"} {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, []paimon.DataField{
				{ID: 0, Name: "k", Type: mustType(t, "BIGINT NOT NULL")},
				{ID: 1, Name: "s", Type: mustType(t, "STRING")},
				{ID: 2, Name: "v", Type: mustType(t, "INT")},
			}, nil, []string{"k"}, map[string]string{"bucket": "1", "merge-engine": engine})
			if err != nil {
				t.Fatal(err)
			}
			s := b.Schema()
			const per = 5000
			// File f (commit f, level 0) holds keys [f*per/3, f*per/3+per)
			// with v = f; every third key of file 1 is NULL in s.
			for f := 0; f < 3; f++ {
				var rows [][]any
				for i := 0; i < per; i++ {
					k := f*per/3 + i
					var sv any = fmt.Sprintf("f%d-%d", f, k)
					if f == 1 && k%3 == 0 {
						sv = nil
					}
					rows = append(rows, []any{k, sv, f})
				}
				rec := paimontest.Rows(t, mem, s, rows...)
				if err := b.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			last := 2*per/3 + per
			for k := 0; k < last; k++ {
				// files holding k, in commit order
				var fs []int
				for f := 0; f < 3; f++ {
					if k >= f*per/3 && k < f*per/3+per {
						fs = append(fs, f)
					}
				}
				f := fs[len(fs)-1]
				var sv any = fmt.Sprintf("f%d-%d", f, k)
				if f == 1 && k%3 == 0 {
					sv = nil
					if engine == "partial-update" && fs[0] == 0 {
						sv = fmt.Sprintf("f0-%d", k) // the latest non-NULL s
					}
				}
				want = append(want, fmt.Sprint([]any{int64(k), sv, int32(f)}))
			}
			sort.Strings(want)
			for _, batch := range []int{7, 4096} {
				got := readSorted(t, tbl, paimon.ScanOptions{}, batch, mem)
				if len(got) != len(want) {
					t.Fatalf("batch %d: %d rows, want %d", batch, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("batch %d: row %d = %s, want %s", batch, i, got[i], want[i])
					}
				}
			}
		})
	}
}
