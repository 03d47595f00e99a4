package paimon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// TestColumnStatsFromManifests writes two files into an append table and
// checks the statistics the catalog reports from the manifests alone,
// derived by hand from the rows:
//
//	file 1: (1, 1994-01-01,  5.25, "b"), (2, NULL, 7.00, "b")
//	file 2: (9, 1994-01-03, -1.50, "b"), (4, 1994-01-02, NULL, NULL), (5, 1994-01-02, 2.00, "b")
func TestColumnStatsFromManifests(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	path := filepath.Join(wh, "db.db", "t")
	must := func(s string) lake.DataType {
		dt, err := lake.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	s := &lake.TableSchema{Fields: []lake.DataField{{ID: 0, Name: "k", Type: must("INT NOT NULL")}, {ID: 1, Name: "d", Type: must("DATE")},
		{ID: 2, Name: "amt", Type: must("DECIMAL(10, 2)")}, {ID: 3, Name: "s", Type: must("STRING")}},
		Options: map[string]string{"bucket": "-1", "file.format": "parquet"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	c := open(t, map[string]string{"warehouse": wh})
	empty, err := table(t, c, "db", "t").(catalog.ColumnStatser).ColumnStats(ctx)
	if err != nil || empty == nil || empty.Rows != 0 {
		t.Fatalf("no snapshot yet: %+v, %v (want empty statistics, not none: the table is not unanalysed)", empty, err)
	}
	mem := memory.NewGoAllocator()
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) int { return int(time.Date(1994, 1, d, 0, 0, 0, 0, time.UTC).Unix() / 86400) }
	cm := w.NewCommit()
	for _, rows := range [][][]any{
		{{1, day(1), 525, "b"}, {2, nil, 700, "b"}},
		{{9, day(3), -150, "b"}, {4, day(2), nil, nil}, {5, day(2), 200, "b"}},
	} {
		fw, err := cm.NewFile(ctx, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		rec := paimontest.Rows(t, mem, w.Schema(), rows...)
		if err := fw.Write(rec, nil); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := fw.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cm.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ts, err := table(t, c, "db", "t").(catalog.ColumnStatser).ColumnStats(ctx)
	if err != nil || ts == nil {
		t.Fatalf("ColumnStats: %v, %v", ts, err)
	}
	if ts.Rows != 5 {
		t.Errorf("rows %d, want 5", ts.Rows)
	}
	day1 := float64(day(1))
	for _, want := range []struct {
		name string
		cs   catalog.ColumnStats
	}{
		// 1..9 holds 9 values, more than the 5 rows: NDV 5.
		{"k", catalog.ColumnStats{Count: 5, NDV: 5, Min: "1", Max: "9", Numeric: true, Lo: 1, Hi: 9}},
		// Three days between the bounds, four non-null rows: NDV 3.
		{"d", catalog.ColumnStats{Count: 5, NDV: 3, Nulls: 1, Min: "1994-01-01", Max: "1994-01-03", Numeric: true, Lo: day1, Hi: day1 + 2}},
		// 851 cents between -1.50 and 7.00, four non-null rows: NDV 4.
		{"amt", catalog.ColumnStats{Count: 5, NDV: 4, Nulls: 1, Min: "-1.50", Max: "7.00", Numeric: true, Lo: -1.5, Hi: 7}},
		// Equal bounds: one value.
		{"s", catalog.ColumnStats{Count: 5, NDV: 1, Nulls: 1, Min: "b", Max: "b"}},
	} {
		if got := ts.Columns[want.name]; got != want.cs {
			t.Errorf("%s: %+v, want %+v", want.name, got, want.cs)
		}
	}
}

// TestColumnStatsFromStatisticsFile: a snapshot naming a statistics file
// (Paimon's own ANALYZE, as Spark writes it: statistics/<name> with
// mergedRecordCount and per column distinctCount, nullCount, avgLen) has
// its distinct counts replace the bounds' estimates; the bounds stay the
// manifests'; a column the file does not cover keeps the estimate; and a
// snapshot naming a file that is not there still plans on the manifests.
func TestColumnStatsFromStatisticsFile(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, file string
		want       map[string]catalog.ColumnStats
	}{
		{name: "stats-1", file: `{"snapshotId":1,"schemaId":0,"mergedRecordCount":6,"mergedRecordSize":600,
  "colStats":{"k":{"colId":0,"distinctCount":2,"min":"1","max":"9","nullCount":0,"avgLen":4,"maxLen":4},
              "s":{"colId":1,"distinctCount":3,"nullCount":2,"avgLen":5,"maxLen":7}}}`,
			want: map[string]catalog.ColumnStats{
				// The file's figures (6 rows as of its snapshot), the manifests' bounds.
				"k": {Count: 6, NDV: 2, DataSize: 24, Min: "1", Max: "9", Numeric: true, Lo: 1, Hi: 9},
				"s": {Count: 6, NDV: 3, Nulls: 2, DataSize: 20, Min: "a", Max: "c"},
				// Not in the file: the bounds' estimate, 4 values between 10 and 13.
				"v": {Count: 5, NDV: 4, Min: "10", Max: "13", Numeric: true, Lo: 10, Hi: 13},
			}},
		{name: "missing", file: "", want: map[string]catalog.ColumnStats{
			"k": {Count: 5, NDV: 5, Min: "1", Max: "9", Numeric: true, Lo: 1, Hi: 9},
		}},
	} {
		wh := t.TempDir()
		path := filepath.Join(wh, "db.db", "t")
		var fields []lake.DataField
		for i, f := range []string{"k INT NOT NULL", "s STRING", "v BIGINT NOT NULL"} {
			n, typ, _ := strings.Cut(f, " ")
			dt, err := lake.ParseType(typ)
			if err != nil {
				t.Fatal(err)
			}
			fields = append(fields, lake.DataField{ID: i, Name: n, Type: dt})
		}
		s := &lake.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1", "file.format": "parquet"}}
		if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		mem := memory.NewGoAllocator()
		w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cm := w.NewCommit()
		fw, err := cm.NewFile(ctx, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		rec := paimontest.Rows(t, mem, w.Schema(), []any{1, "a", 10}, []any{9, nil, 11}, []any{5, "c", 12}, []any{1, "a", 13}, []any{9, "c", 10})
		if err := fw.Write(rec, nil); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := fw.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := cm.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// Name the statistics file in the snapshot, as Paimon's ANALYZE
		// commit (an ANALYZE snapshot) does.
		snapPath := filepath.Join(path, "snapshot", "snapshot-1")
		b, err := os.ReadFile(snapPath)
		if err != nil {
			t.Fatal(err)
		}
		var snap map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // int64 identifiers survive the round trip
		if err := dec.Decode(&snap); err != nil {
			t.Fatal(err)
		}
		snap["statistics"] = c.name
		if b, err = json.Marshal(snap); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(snapPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.file != "" {
			if err := os.MkdirAll(filepath.Join(path, "statistics"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(path, "statistics", c.name), []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cat := open(t, map[string]string{"warehouse": wh})
		ts, err := table(t, cat, "db", "t").(catalog.ColumnStatser).ColumnStats(ctx)
		if err != nil || ts == nil {
			t.Fatalf("%s: ColumnStats: %v, %v", c.name, ts, err)
		}
		for col, want := range c.want {
			if got := ts.Columns[col]; got != want {
				t.Errorf("%s: %s: %+v, want %+v", c.name, col, got, want)
			}
		}
	}
}
