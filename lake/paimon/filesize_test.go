package paimon_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// copyTree copies the fixture table at src into a fresh directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// scanAll reads every split of tbl and renders the rows sorted; the first
// error ends it.
func scanRowsOrErr(tbl *paimon.Table, mem memory.Allocator) ([]string, error) {
	ctx := context.Background()
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{})
		if err != nil {
			return nil, err
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for j := 0; j < int(rec.NumRows()); j++ {
				out = append(out, fmt.Sprint(paimon.JSONRow(rec, j)))
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// dataFiles are the data files the table's latest snapshot reads.
func dataFiles(t *testing.T, tbl *paimon.Table) []string {
	t.Helper()
	plan, err := tbl.Plan(context.Background(), paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			out = append(out, f.Path)
		}
	}
	if len(out) == 0 {
		t.Fatal("the plan reads no data file")
	}
	return out
}

// TestDataFileSizeChecked: every data file's length is checked against the
// one its manifest records before it is read, so a file emptied to 0 bytes,
// cut short or grown is an error naming it, never fewer rows read silently.
func TestDataFileSizeChecked(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	for _, format := range []string{"orc", "parquet"} {
		t.Run(format, func(t *testing.T) {
			dir := copyTree(t, filepath.Join("..", "..", "testdata", "paimon", format, "append_09.db", "append_09"))
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := scanRowsOrErr(tbl, mem)
			if err != nil || len(want) == 0 {
				t.Fatalf("intact read: %d rows, %v", len(want), err)
			}
			for _, p := range dataFiles(t, tbl) {
				raw, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, damaged := range [][]byte{nil, raw[:len(raw)-1], append(append([]byte(nil), raw...), 0)} {
					os.WriteFile(p, damaged, 0o644)
					_, err := scanRowsOrErr(tbl, mem)
					if !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(p)) ||
						!strings.Contains(err.Error(), fmt.Sprintf("has %d bytes but the manifest records %d", len(damaged), len(raw))) {
						t.Errorf("%s cut to %d bytes: %v", filepath.Base(p), len(damaged), err)
					}
				}
				os.WriteFile(p, raw, 0o644)
			}
			if got, err := scanRowsOrErr(tbl, mem); err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("restored read: %v", err)
			}
		})
	}
}
