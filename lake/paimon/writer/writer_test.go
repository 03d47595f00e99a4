package writer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hamba/avro/v2/ocf"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

func str(nullable bool) paimon.DataType {
	return paimon.DataType{Root: paimon.VarChar, Nullable: nullable, Precision: 2147483647}
}
func i64(nullable bool) paimon.DataType {
	return paimon.DataType{Root: paimon.BigInt, Nullable: nullable}
}
func i32(nullable bool) paimon.DataType { return paimon.DataType{Root: paimon.Int, Nullable: nullable} }

// readAll reads the latest snapshot through lake/paimon and renders rows
// as sorted strings; it also reports whether every split was raw.
func readAll(t *testing.T, ctx context.Context, path string, mem memory.Allocator) ([]string, bool) {
	t.Helper()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	raw := true
	for i := range p.Splits {
		s := &p.Splits[i]
		raw = raw && s.RawConvertible
		rr, err := p.Open(ctx, s, mem, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				out = append(out, fmt.Sprint(paimon.JSONRow(rec, r)))
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	sort.Strings(out)
	return out, raw
}

func clock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t0 = t0.Add(time.Second); return t0 }
}

func TestAppendTableRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := filepath.Join(t.TempDir(), "db.db", "log")
	s := &paimon.TableSchema{Fields: []paimon.DataField{{ID: 0, Name: "id", Type: i64(true)}, {ID: 1, Name: "name", Type: str(true)}, {ID: 2, Name: "dt", Type: str(false)}},
		PartitionKeys: []string{"dt"}, Options: map[string]string{"bucket": "-1", "partition.legacy-name": "false", "file.format": "parquet",
			"deletion-vectors.enabled": "true"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); !errors.Is(err, writer.ErrTableExists) {
		t.Fatalf("second create: %v", err)
	}
	if got, _ := readAll(t, ctx, path, mem); len(got) != 0 {
		t.Fatalf("new table has rows %v", got)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), RowGroupRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for round := 0; round < 2; round++ {
		c := w.NewCommit()
		for _, dt := range []string{"2026-01-01", "2026-01/02"} {
			fw, err := c.NewFile(ctx, []any{dt}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3; b++ { // several batches per file: streaming
				var rows [][]any
				for i := 0; i < 3; i++ {
					id := round*100 + b*10 + i
					var name any = fmt.Sprintf("n%d", id)
					if i == 1 {
						name = nil
					}
					rows = append(rows, []any{id, name, dt})
					want = append(want, fmt.Sprint([]any{int64(id), name, dt}))
				}
				rec := paimontest.Rows(t, mem, w.Schema(), rows...)
				if err := fw.Write(rec, nil); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			if err := fw.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		id, err := c.Commit(ctx, map[string]string{"fluss-offsets": fmt.Sprint(round)})
		if err != nil {
			t.Fatal(err)
		}
		if id != int64(round+1) {
			t.Fatalf("snapshot id %d", id)
		}
	}
	sort.Strings(want)
	got, _ := readAll(t, ctx, path, mem)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Escaped partition directory, as the reader computes it.
	if _, err := os.Stat(filepath.Join(path, "dt=2026-01%2F02", "bucket-0")); err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, ctx, path, 2, 36, "APPEND")

	// Deletion vector on one file, then a second one merged into it.
	var target paimon.ManifestEntry
	for _, e := range w.LiveFiles() {
		if e.File.MinSequenceNumber == 0 && bytes.Contains(e.Partition, []byte("2026-01-01")) {
			target = e
		}
	}
	if target.File == nil {
		t.Fatal("no first file of partition 2026-01-01")
	}
	for _, pos := range [][]uint32{{0}, {4}} {
		c := w.NewCommit()
		if err := c.DeleteRows(ctx, []any{"2026-01-01"}, 0, target.File.FileName, pos); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = readAll(t, ctx, path, mem)
	if len(got) != 34 {
		t.Fatalf("after 2 DV deletes: %d rows, want 34", len(got))
	}
	for _, g := range got {
		if g == "[0 n0 2026-01-01]" || g == "[11 <nil> 2026-01-01]" {
			t.Fatalf("deleted row %s still read", g)
		}
	}
	c := w.NewCommit()
	if err := c.CompactAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got2, raw := readAll(t, ctx, path, mem)
	if strings.Join(got2, "\n") != strings.Join(got, "\n") || !raw {
		t.Fatalf("after compaction (raw=%v): %d rows", raw, len(got2))
	}
	if n := len(w.LiveFiles()); n != 2 {
		t.Fatalf("after compaction %d live files, want 2", n)
	}
	checkSnapshot(t, ctx, path, 5, 34, "COMPACT")
	checkManifestsGeneric(t, path)
}

func TestPKTableMergeThenCompact(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := filepath.Join(t.TempDir(), "db.db", "pk")
	s := &paimon.TableSchema{Fields: []paimon.DataField{{ID: 0, Name: "k", Type: i32(false)}, {ID: 1, Name: "v", Type: str(true)}, {ID: 2, Name: "p", Type: str(false)}},
		PartitionKeys: []string{"p"}, PrimaryKeys: []string{"k", "p"},
		Options: map[string]string{"bucket": "2", "bucket-key": "k", "changelog-producer": "input", "partition.legacy-name": "false"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), CommitUser: "__fluss_lake_tiering"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(bucket int32, rows [][]any, kinds []int8) {
		t.Helper()
		c := w.NewCommit()
		fw, err := c.NewFile(ctx, []any{"a"}, bucket)
		if err != nil {
			t.Fatal(err)
		}
		rec := paimontest.Rows(t, mem, w.Schema(), rows...)
		defer rec.Release()
		if err := fw.Write(rec, kinds); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	write(0, [][]any{{1, "a1", "a"}, {2, "a2", "a"}, {3, "a3", "a"}, {5, "a5", "a"}}, nil)
	write(1, [][]any{{4, "b4", "a"}}, nil)
	write(0, [][]any{{2, "a2'", "a"}, {3, "a3", "a"}, {6, "a6", "a"}}, []int8{paimon.KindUpdateAfter, paimon.KindDelete, paimon.KindInsert})
	want := []string{"[1 a1 a]", "[2 a2' a]", "[4 b4 a]", "[5 a5 a]", "[6 a6 a]"}
	got, raw := readAll(t, ctx, path, mem)
	if strings.Join(got, ",") != strings.Join(want, ",") || raw {
		t.Fatalf("merge-on-read (raw=%v): %v, want %v", raw, got, want)
	}
	// Unsorted input is refused, naming the table.
	c := w.NewCommit()
	fw, err := c.NewFile(ctx, []any{"a"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec := paimontest.Rows(t, mem, w.Schema(), []any{9, "x", "a"}, []any{8, "y", "a"})
	if err := fw.Write(rec, nil); !errors.Is(err, writer.ErrInvalid) || !strings.Contains(err.Error(), path) {
		t.Fatalf("unsorted keys: %v", err)
	}
	rec.Release()
	fw.Abort()

	c = w.NewCommit()
	if err := c.CompactAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got, raw = readAll(t, ctx, path, mem)
	if strings.Join(got, ",") != strings.Join(want, ",") || !raw {
		t.Fatalf("after compaction (raw=%v): %v, want %v", raw, got, want)
	}
	for _, e := range w.LiveFiles() {
		if e.File.Level != 5 || *e.File.DeleteRowCount != 0 {
			t.Fatalf("compacted file %s level %d deletes %d", e.File.FileName, e.File.Level, *e.File.DeleteRowCount)
		}
	}
	// New level-0 data after compaction continues the sequence numbers and wins.
	write(0, [][]any{{1, "a1''", "a"}}, []int8{paimon.KindUpdateAfter})
	got, _ = readAll(t, ctx, path, mem)
	if got[0] != "[1 a1'' a]" {
		t.Fatalf("after post-compaction write: %v", got)
	}
	checkSnapshot(t, ctx, path, 5, 6, "APPEND")
	checkManifestsGeneric(t, path)
}

func checkSnapshot(t *testing.T, ctx context.Context, path string, id, total int64, kind string) {
	t.Helper()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := tbl.LatestSnapshotID(ctx)
	if err != nil || latest != id {
		t.Fatalf("latest snapshot %d (%v), want %d", latest, err, id)
	}
	s, err := tbl.Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	live, err := tbl.LiveFiles(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, e := range live {
		sum += e.File.RowCount
	}
	if *s.TotalRecordCount != total || sum != total || s.CommitKind != kind {
		t.Fatalf("snapshot %d: total %d, live rows %d, kind %s; want %d %s", id, *s.TotalRecordCount, sum, s.CommitKind, total, kind)
	}
}

// checkManifestsGeneric decodes every Avro file under manifest/ with a
// generic decoder (no structs of ours) and checks the names and types Java
// expects.
func checkManifestsGeneric(t *testing.T, path string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(path, "manifest"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(path, "manifest", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := ocf.NewDecoder(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if c := string(dec.Metadata()["avro.codec"]); c != "zstandard" {
			t.Fatalf("%s: codec %q", e.Name(), c)
		}
		for dec.HasNext() {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			switch {
			case strings.HasPrefix(e.Name(), "manifest-list-"):
				kinds["list"]++
				expectKeys(t, e.Name(), m, map[string]string{"_VERSION": "int", "_FILE_NAME": "string", "_FILE_SIZE": "int64",
					"_NUM_ADDED_FILES": "int64", "_NUM_DELETED_FILES": "int64", "_SCHEMA_ID": "int64", "_PARTITION_STATS": "map[string]interface {}"})
				if m["_VERSION"] != 2 {
					t.Fatalf("%s: version %v", e.Name(), m["_VERSION"])
				}
			case strings.HasPrefix(e.Name(), "index-manifest-"):
				kinds["index"]++
				expectKeys(t, e.Name(), m, map[string]string{"_VERSION": "int", "_KIND": "int", "_PARTITION": "[]uint8", "_BUCKET": "int",
					"_INDEX_TYPE": "string", "_FILE_NAME": "string", "_FILE_SIZE": "int64", "_ROW_COUNT": "int64"})
			default:
				kinds["manifest"]++
				expectKeys(t, e.Name(), m, map[string]string{"_VERSION": "int", "_KIND": "int", "_PARTITION": "[]uint8", "_BUCKET": "int",
					"_TOTAL_BUCKETS": "int", "_FILE": "map[string]interface {}"})
				f := m["_FILE"].(map[string]any)
				expectKeys(t, e.Name(), f, map[string]string{"_FILE_NAME": "string", "_FILE_SIZE": "int64", "_ROW_COUNT": "int64",
					"_MIN_KEY": "[]uint8", "_MAX_KEY": "[]uint8", "_MIN_SEQUENCE_NUMBER": "int64", "_MAX_SEQUENCE_NUMBER": "int64",
					"_SCHEMA_ID": "int64", "_LEVEL": "int", "_EXTRA_FILES": "[]interface {}", "_KEY_STATS": "map[string]interface {}",
					"_VALUE_STATS": "map[string]interface {}"})
				for _, k := range []string{"_CREATION_TIME", "_DELETE_ROW_COUNT", "_FILE_SOURCE", "_VALUE_STATS_COLS", "_EXTERNAL_PATH", "_EMBEDDED_FILE_INDEX"} {
					if _, ok := f[k]; !ok {
						t.Fatalf("%s: _FILE lacks %s", e.Name(), k)
					}
				}
			}
		}
		if err := dec.Error(); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
	}
	if kinds["list"] == 0 || kinds["manifest"] == 0 {
		t.Fatalf("manifest kinds seen: %v", kinds)
	}
}

func expectKeys(t *testing.T, file string, m map[string]any, want map[string]string) {
	t.Helper()
	for k, typ := range want {
		v, ok := m[k]
		if !ok {
			t.Fatalf("%s: record lacks %s (has %v)", file, k, m)
		}
		if got := fmt.Sprintf("%T", v); got != typ {
			t.Fatalf("%s: %s is %s, want %s", file, k, got, typ)
		}
	}
}

func TestOpenRefusesFormatsItCannotWrite(t *testing.T) {
	ctx := context.Background()
	for _, opt := range []map[string]string{{"file.format": "csv"}, {"file.format": "orc", "file.compression": "brotli"}, {"manifest.format": "orc"}, {"deletion-vectors.bitmap64": "true"}} {
		path := filepath.Join(t.TempDir(), "t")
		s := &paimon.TableSchema{Fields: []paimon.DataField{{ID: 0, Name: "id", Type: i64(true)}}, Options: opt}
		if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		_, err := writer.Open(ctx, fileio.Local{}, path, nil, writer.Options{})
		if !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), path) {
			t.Fatalf("options %v: %v", opt, err)
		}
	}
}
