package planner_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	cpaimon "github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/planner"
)

// TestSlicedFileSize: EXPLAIN's totalFileSize is the bytes of the lake
// files read, whether file_split_size cuts a file into slices or not: a
// file's slices add up to its size once (the tiered log table's data
// files on disk, summed here), for a Fluss union read and for a Paimon
// catalog's read of the same lake table alike. Counting the whole file
// per slice made a 167 MB TPC-H lineitem file read as 500 MB.
func TestSlicedFileSize(t *testing.T) {
	e := testEnv(t)
	ctx := context.Background()
	const table = "big_log" // tiered once: every data file is in the snapshot
	var onDisk int64
	err := filepath.WalkDir(filepath.Join(e.warehouse, "fluss_test.db", table), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "data-") {
			return err
		}
		info, err := d.Info()
		if err == nil {
			onDisk += info.Size()
		}
		return err
	})
	if err != nil || onDisk == 0 {
		t.Fatalf("data files of %s: %d bytes, %v", table, onDisk, err)
	}
	st := e.target(t, table, fluss.ReadDefault, fluss.Options{}, "")
	lt, err := paimon.OpenTableInWarehouse(ctx, fileio.Local{}, e.warehouse, "fluss_test", table)
	if err != nil {
		t.Fatal(err)
	}
	pt := &paimonTable{&cpaimon.ScanTarget{Catalog: "p", Database: "fluss_test", Table: table, Lake: lt, FS: fileio.Local{},
		TablePath: lt.Path(), Columns: st.Columns}}
	sizeRe := regexp.MustCompile(`totalFileSize=(\d+)`)
	for _, c := range []struct {
		name   string
		tbl    catalog.Table
		split  string // file_split_size; "" for the default
		sliced bool   // more lake splits than files
	}{
		{"fluss", &testTable{st: st}, "", false},
		{"fluss sliced", &testTable{st: st}, "64", true},
		{"paimon", pt, "", false},
		{"paimon sliced", pt, "64", true},
	} {
		vars := map[string]string{}
		if c.split != "" {
			vars["file_split_size"] = c.split
		}
		res, ok, err := planner.Plan(ctx, c.tbl, planner.Request{Limit: -1, Vars: vars})
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.name, ok, err)
		}
		m := sizeRe.FindStringSubmatch(strings.Join(res.Lines, "\n"))
		if m == nil {
			t.Fatalf("%s: no totalFileSize in %q", c.name, res.Lines)
		}
		got, _ := strconv.ParseInt(m[1], 10, 64)
		if got != onDisk {
			t.Errorf("%s: totalFileSize=%d, want the %d bytes of the data files", c.name, got, onDisk)
		}
		if c.sliced && res.Counts.LakeSplits < 2 {
			t.Errorf("%s: %d lake splits, want the file cut in slices", c.name, res.Counts.LakeSplits)
		}
	}
}
