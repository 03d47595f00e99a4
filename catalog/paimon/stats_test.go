package paimon_test

import (
	"context"
	"path/filepath"
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
