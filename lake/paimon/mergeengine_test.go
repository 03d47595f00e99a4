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

// commitFiles writes each file as its own commit (ascending sequence
// numbers per commit, all level 0, so every split merges).
func commitFiles(t *testing.T, b *paimontest.Builder, files []paimontest.File, mem memory.Allocator) *paimon.Table {
	t.Helper()
	ctx := context.Background()
	for _, f := range files {
		if err := b.Commit(ctx, []paimontest.File{f}, mem); err != nil {
			t.Fatal(err)
		}
		f.Rows.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, b.Path())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// readErr reads every split and returns the first error.
func readErr(t *testing.T, tbl *paimon.Table, o paimon.ScanOptions, mem memory.Allocator) error {
	t.Helper()
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, o)
	if err != nil {
		return err
	}
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{})
		if err != nil {
			return err
		}
		for rr.Next() {
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func TestAggregationMergeEngine(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	fields := []paimon.DataField{
		{ID: 0, Name: "k", Type: mustType(t, "INT NOT NULL")},
		{ID: 1, Name: "s", Type: mustType(t, "BIGINT")},
		{ID: 2, Name: "ti", Type: mustType(t, "TINYINT")},
		{ID: 3, Name: "mn", Type: mustType(t, "INT")},
		{ID: 4, Name: "mx", Type: mustType(t, "STRING")},
		{ID: 5, Name: "lv", Type: mustType(t, "STRING")},
		{ID: 6, Name: "dn", Type: mustType(t, "STRING")},
		{ID: 7, Name: "fv", Type: mustType(t, "INT")},
		{ID: 8, Name: "fn", Type: mustType(t, "STRING")},
		{ID: 9, Name: "ba", Type: mustType(t, "BOOLEAN")},
		{ID: 10, Name: "bo", Type: mustType(t, "BOOLEAN")},
		{ID: 11, Name: "la", Type: mustType(t, "STRING")},
		{ID: 12, Name: "c", Type: mustType(t, "BIGINT")},
		{ID: 13, Name: "p", Type: mustType(t, "DOUBLE")},
	}
	opts := map[string]string{"bucket": "1", "merge-engine": "aggregation",
		"fields.s.aggregate-function": "sum", "fields.ti.aggregate-function": "sum",
		"fields.mn.aggregate-function": "min", "fields.mx.aggregate-function": "max",
		"fields.lv.aggregate-function": "last_value", "fields.fv.aggregate-function": "first_value",
		"fields.fn.aggregate-function": "first_non_null_value", "fields.ba.aggregate-function": "bool_and",
		"fields.bo.aggregate-function": "bool_or", "fields.la.aggregate-function": "listagg",
		"fields.c.aggregate-function": "count", "fields.p.aggregate-function": "product",
	}
	// Functions without retraction must be told to ignore it.
	for _, f := range []string{"mn", "mx", "fv", "fn", "ba", "bo", "la"} {
		opts["fields."+f+".ignore-retract"] = "true"
	}
	b, err := paimontest.NewBuilder(context.Background(), fileio.Local{}, dir, fields, nil, []string{"k"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := b.Schema()
	f1 := paimontest.Rows(t, mem, s,
		[]any{1, 10, 100, 5, "b", "x", nil, nil, nil, true, false, "a", 7, 2.0},
		[]any{2, 10, 1, 1, "m", "x", "d", 1, "f", true, true, "q", 1, 8.0})
	f2 := paimontest.Rows(t, mem, s,
		[]any{1, 5, 100, 3, "c", nil, "d1", 9, "F", true, nil, nil, nil, 3.0},
		[]any{2, 4, 3, 0, "z", "y", "e", 5, "g", false, false, "r", 9, 2.0},
		[]any{3, 5, nil, 1, "h", "i", "w", 2, "j", true, true, "k", 3, 7.0},
		[]any{4, 1, 2, 3, "s", "t", "u", 4, "v", true, false, "w", 5, 6.0})
	f3 := paimontest.Rows(t, mem, s,
		[]any{1, nil, 1, 4, "a", "z", "d2", 8, "G", false, true, "b", 1, nil},
		[]any{3, 2, 4, 6, "n", "o", nil, 3, "p", false, true, "l", nil, 2.0})
	tbl := commitFiles(t, b, []paimontest.File{
		{Rows: f1},
		{Rows: f2, Kinds: []int8{paimon.KindInsert, paimon.KindUpdateBefore, paimon.KindDelete, paimon.KindInsert}},
		{Rows: f3},
	}, mem)

	// Derived by hand from Java Paimon's FieldAggregator rules:
	// key 1: s 10+5(+NULL ignored)=15; ti int8 100+100=-56, -56+1=-55;
	// min 3; max "c"; last_value "z"; dn default last_non_null "d2";
	// first_value NULL (the first record's); first_non_null "F";
	// bool_and false; bool_or false,NULL,true=true; listagg "a,b";
	// count: NULL acc→1, NULL input keeps 1, then +1 = 2; product 2*3=6.
	// key 2: +I then -U: s 10-4=6; ti 1-3=-2; ignore-retract fields keep the
	// +I values; last_value retract → NULL; last_non_null retract of a
	// non-NULL → NULL; count 1-1=0; product 8/2=4.
	// key 3: -D then +I: sum of a NULL acc retracted → -5, then +2 = -3;
	// ti NULL then 4; ignore-retract fields take the +I values; last_value
	// "o"; dn retract → NULL, then NULL input keeps NULL; count: retract
	// of NULL acc → 1, NULL input keeps 1; product: retract of NULL acc
	// keeps 7, then *2 = 14.
	// key 4: a single record skips the merge function (Java's
	// ReducerMergeFunctionWrapper): emitted as stored, count stays 5.
	k1 := "[1 15 -55 3 c z d2 <nil> F false true a,b 2 6]"
	k2 := "[2 6 -2 1 m <nil> <nil> 1 f true true q 0 4]"
	k3 := "[3 -3 4 6 n o <nil> 3 p false true l 1 14]"
	k4 := "[4 1 2 3 s t u 4 v true false w 5 6]"
	for _, tc := range []struct {
		name string
		o    paimon.ScanOptions
		cols []string
		want string
	}{
		{"all functions", paimon.ScanOptions{}, nil, strings.Join([]string{k1, k2, k3, k4}, " ")},
		{"projection", paimon.ScanOptions{}, []string{"c", "s"}, "[0 6] [1 -3] [2 15] [5 1]"},
		{"filter after merge", paimon.ScanOptions{Predicate: paimon.Eq("s", 15)}, []string{"k"}, "[1]"},
		{"ignore-delete drops retractions", paimon.ScanOptions{Options: map[string]string{"ignore-delete": "true"}}, []string{"k", "s", "lv", "c", "p"},
			"[1 15 z 2 6] [2 10 x 1 8] [3 2 o <nil> 2] [4 1 t 5 6]"},
		{"default function", paimon.ScanOptions{Options: map[string]string{"fields.default-aggregate-function": "first_non_null_value", "fields.dn.ignore-retract": "true"}}, []string{"k", "dn"},
			"[1 d1] [2 d] [3 <nil>] [4 u]"},
		{"listagg distinct and delimiter", paimon.ScanOptions{Options: map[string]string{"fields.la.distinct": "true", "fields.la.list-agg-delimiter": "|"}}, []string{"k", "la"},
			"[1 a|b] [2 q] [3 l] [4 w]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(readRows(t, tbl, tc.o, tc.cols, mem), " ")
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, key, val, want string
	}{
		{"retract without ignore-retract", "fields.mn.ignore-retract", "false", "aggregate function min of field mn does not support retraction"},
		{"unknown function", "fields.s.aggregate-function", "median", `aggregate function "median"`},
		{"function on wrong type", "fields.mx.aggregate-function", "sum", "aggregate function sum on field mx of type utf8"},
		{"remove-record-on-delete", "aggregation.remove-record-on-delete", "true", "aggregation.remove-record-on-delete=true"},
		{"sequence-group", "fields.s.sequence-group", "c", "fields.s.sequence-group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readErr(t, tbl, paimon.ScanOptions{Options: map[string]string{tc.key: tc.val}}, mem)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSequenceField(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(context.Background(), fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "k", Type: mustType(t, "INT NOT NULL")},
		{ID: 1, Name: "v", Type: mustType(t, "STRING")},
		{ID: 2, Name: "ts", Type: mustType(t, "BIGINT")},
		{ID: 3, Name: "ts2", Type: mustType(t, "INT")},
	}, nil, []string{"k"}, map[string]string{"bucket": "1"})
	if err != nil {
		t.Fatal(err)
	}
	s := b.Schema()
	tbl := commitFiles(t, b, []paimontest.File{
		{Rows: paimontest.Rows(t, mem, s, []any{1, "a", 5, nil}, []any{2, "a", 1, nil}, []any{3, "a", 3, 1}, []any{4, "a", 2, nil}, []any{5, "x", 10, nil})},
		{Rows: paimontest.Rows(t, mem, s, []any{1, "b", 3, nil}, []any{2, "b", 1, nil}, []any{3, "b", 3, 0}, []any{5, "y", 9, 7})},
		{Rows: paimontest.Rows(t, mem, s, []any{1, "c", 4, nil}, []any{4, "c", nil, nil})},
	}, mem)
	seq := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// Hand derivation: records of a key are ordered by the sequence
	// field(s), NULL first, then by commit order (sequence number); the
	// last one wins (deduplicate) or supplies the latest non-NULL fields
	// (partial-update).
	for _, tc := range []struct {
		name string
		o    paimon.ScanOptions
		want string
	}{
		{"no sequence field: commit order", paimon.ScanOptions{},
			"[1 c 4 <nil>] [2 b 1 <nil>] [3 b 3 0] [4 c <nil> <nil>] [5 y 9 7]"},
		{"deduplicate ts", paimon.ScanOptions{Options: seq("sequence.field", "ts")},
			"[1 a 5 <nil>] [2 b 1 <nil>] [3 b 3 0] [4 a 2 <nil>] [5 x 10 <nil>]"},
		{"deduplicate ts,ts2", paimon.ScanOptions{Options: seq("sequence.field", "ts,ts2")},
			"[1 a 5 <nil>] [2 b 1 <nil>] [3 a 3 1] [4 a 2 <nil>] [5 x 10 <nil>]"},
		{"deduplicate ts descending", paimon.ScanOptions{Options: seq("sequence.field", "ts", "sequence.field.sort-order", "descending"), Predicate: paimon.Ne("k", 4)},
			"[1 b 3 <nil>] [2 b 1 <nil>] [3 b 3 0] [5 y 9 7]"},
		{"partial-update ts", paimon.ScanOptions{Options: seq("sequence.field", "ts", "merge-engine", "partial-update")},
			"[1 a 5 <nil>] [2 b 1 <nil>] [3 b 3 0] [4 a 2 <nil>] [5 x 10 7]"},
		{"partial-update no sequence field", paimon.ScanOptions{Options: seq("merge-engine", "partial-update")},
			"[1 c 4 <nil>] [2 b 1 <nil>] [3 b 3 0] [4 c 2 <nil>] [5 y 9 7]"},
		{"projection without the sequence field", paimon.ScanOptions{Options: seq("sequence.field", "ts")}, "[a] [a] [b] [b] [x]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cols []string
			if strings.HasPrefix(tc.name, "projection") {
				cols = []string{"v"}
			}
			got := strings.Join(readRows(t, tbl, tc.o, cols, mem), " ")
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if err := readErr(t, tbl, paimon.ScanOptions{Options: seq("sequence.field", "nope")}, mem); err == nil || !strings.Contains(err.Error(), `sequence.field "nope"`) {
		t.Fatalf("unknown sequence field: %v", err)
	}
}

// TestChangelogFilesIgnored: with changelog-producer=input every commit
// also writes changelog files holding the input records; a batch read
// must read only the data files. Summing makes a double read visible.
func TestChangelogFilesIgnored(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b, err := paimontest.NewBuilder(context.Background(), fileio.Local{}, dir, []paimon.DataField{
		{ID: 0, Name: "p", Type: mustType(t, "STRING NOT NULL")},
		{ID: 1, Name: "k", Type: mustType(t, "INT NOT NULL")},
		{ID: 2, Name: "s", Type: mustType(t, "BIGINT")},
	}, []string{"p"}, []string{"p", "k"}, map[string]string{"bucket": "2", "merge-engine": "aggregation",
		"fields.s.aggregate-function": "sum", "changelog-producer": "input"})
	if err != nil {
		t.Fatal(err)
	}
	s := b.Schema()
	ctx := context.Background()
	commits := [][]paimontest.File{
		{{Partition: []any{"x"}, Bucket: 0, Rows: paimontest.Rows(t, mem, s, []any{"x", 1, 1}, []any{"x", 2, 10})},
			{Partition: []any{"y"}, Bucket: 1, Rows: paimontest.Rows(t, mem, s, []any{"y", 1, 100})}},
		{{Partition: []any{"x"}, Bucket: 0, Rows: paimontest.Rows(t, mem, s, []any{"x", 1, 2})},
			{Partition: []any{"y"}, Bucket: 1, Rows: paimontest.Rows(t, mem, s, []any{"y", 1, 200})}},
	}
	for _, files := range commits {
		var all []paimontest.File
		for _, f := range files {
			cl := f
			cl.Changelog = true
			all = append(all, f, cl)
		}
		if err := b.Commit(ctx, all, mem); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			f.Rows.Release()
		}
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ChangelogManifestList == nil || *snap.TotalRecordCount != 5 {
		t.Fatalf("fixture: snapshot 2 has no changelog or wrong totals: %+v", snap)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nfiles := 0
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			nfiles++
			if strings.HasPrefix(f.Meta.FileName, "changelog-") {
				t.Fatalf("plan reads changelog file %s", f.Meta.FileName)
			}
		}
	}
	if nfiles != 4 {
		t.Fatalf("plan reads %d files, want the 4 data files", nfiles)
	}
	// x/1: 1+2; x/2: 10; y/1: 100+200 (a changelog read would double them).
	if got := strings.Join(readRows(t, tbl, paimon.ScanOptions{}, nil, mem), " "); got != "[x 1 3] [x 2 10] [y 1 300]" {
		t.Fatalf("got %s", got)
	}
}

// TestDeletionVectorsBitmap64 reads a DV table whose vectors are
// Bitmap64DeletionVector (range length = whole vector).
func TestDeletionVectorsBitmap64(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true"}, mem)
	s := b.Schema()
	f1 := paimontest.Rows(t, mem, s, []any{1, "a", 1}, []any{2, "b", 2}, []any{3, "c", 3}, []any{4, "d", 4}, []any{5, "e", nil})
	if err := b.Commit(ctx, []paimontest.File{{Rows: f1, Level: 5, Deleted: []uint32{0, 3}}}, mem); err != nil {
		t.Fatal(err)
	}
	f1.Release()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || len(plan.Splits[0].Files) != 1 || plan.Splits[0].Files[0].DV == nil {
		t.Fatalf("plan: %+v", plan.Splits)
	}
	// Rows 0 and 3 (k=1, k=4) are deleted.
	if got := strings.Join(readRows(t, tbl, paimon.ScanOptions{}, nil, mem), " "); got != "[2 b 2] [3 c 3] [5 e <nil>]" {
		t.Fatalf("got %s", got)
	}
}

// TestAvroDataFiles reads file.format=avro tables: a primary-key table
// merged across files (with retractions) and an append table, both with
// several Avro blocks per file.
func TestAvroDataFiles(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []paimon.DataField{
		{ID: 0, Name: "k", Type: mustType(t, "INT NOT NULL")},
		{ID: 1, Name: "v", Type: mustType(t, "STRING")},
		{ID: 2, Name: "w", Type: mustType(t, "BIGINT")},
		{ID: 3, Name: "t", Type: mustType(t, "TINYINT")},
		{ID: 4, Name: "d", Type: mustType(t, "DOUBLE")},
		{ID: 5, Name: "b", Type: mustType(t, "BOOLEAN")},
	}
	rows1 := [][]any{{1, "a", 10, 1, 1.5, true}, {2, "b", 20, 2, 2.5, false}, {3, "c", nil, nil, nil, nil}}
	rows2 := [][]any{{2, "B", 21, -2, nil, true}, {3, "c", nil, nil, nil, nil}}
	for _, tc := range []struct {
		name string
		pk   []string
		want string
	}{
		// f2 updates k=2 (+U) and deletes k=3 (-D).
		{"primary key", []string{"k"}, "[1 a 10 1 1.5 true] [2 B 21 -2 <nil> true]"},
		// Append: every row of both files.
		{"append", nil, "[1 a 10 1 1.5 true] [2 B 21 -2 <nil> true] [2 b 20 2 2.5 false] [3 c <nil> <nil> <nil> <nil>] [3 c <nil> <nil> <nil> <nil>]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			b, err := paimontest.NewBuilder(ctx, fileio.Local{}, dir, fields, nil, tc.pk, map[string]string{"bucket": "1", "file.format": "avro"})
			if err != nil {
				t.Fatal(err)
			}
			b.RowGroupRows = 2
			s := b.Schema()
			var kinds []int8
			if tc.pk != nil {
				kinds = []int8{paimon.KindUpdateAfter, paimon.KindDelete}
			}
			tbl := commitFiles(t, b, []paimontest.File{
				{Rows: paimontest.Rows(t, mem, s, rows1...)},
				{Rows: paimontest.Rows(t, mem, s, rows2...), Kinds: kinds},
			}, mem)
			plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range plan.Splits {
				for _, f := range sp.Files {
					if !strings.HasSuffix(f.Meta.FileName, ".avro") {
						t.Fatalf("fixture: data file %s is not Avro", f.Meta.FileName)
					}
				}
			}
			if got := strings.Join(readRows(t, tbl, paimon.ScanOptions{}, nil, mem), " "); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if got := strings.Join(readRows(t, tbl, paimon.ScanOptions{Predicate: paimon.Eq("k", 1)}, []string{"d", "v"}, mem), " "); got != "[1.5 a]" {
				t.Fatalf("projection+filter: got %s", got)
			}
			// A truncated data file is a corrupt-file error naming it.
			for cut := range []int{0, 1, 2} {
				path := plan.Splits[0].Files[0].Path
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				short := raw[:len(raw)*(cut+1)/4]
				if err := os.WriteFile(path, short, 0o644); err != nil {
					t.Fatal(err)
				}
				err = readErr(t, tbl, paimon.ScanOptions{}, mem)
				if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(path)) {
					t.Fatalf("truncated to %d bytes: %v", len(short), err)
				}
				if err := os.WriteFile(path, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
