package iceberg

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// FuzzORCDataFile reads arbitrary bytes as the ORC data file of a table
// whose schema has every type (orcTypesSchema), through the whole read
// path: id matching, nested conversion, promotion, stripe pruning. Bad
// bytes must give an error wrapping ErrCorrupt or ErrUnsupported, never
// a panic. Seeds: the file TestORCTypesAndEvolution writes, Impala's
// Hive-written ORC files, truncations of both.
func FuzzORCDataFile(f *testing.F) {
	ctx := context.Background()
	wh := f.TempDir()
	loc, err := icebergtest.Create(ctx, wh, "db", "t", orcTypesSchema())
	if err != nil {
		f.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(loc, "data", "f.orc")
	writeTypesORC(f, path)
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.OrcFile, 3, 0); err != nil {
		f.Fatal(err)
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		f.Fatal(err)
	}
	plan, err := tbl.ReadPlan(0, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	for _, p := range []string{"iceberg_v2_no_deletes_orc", "complextypestbl_iceberg_orc"} {
		m, _ := filepath.Glob(filepath.Join("testdata/impala", p, "data", "*.orc"))
		for _, x := range m {
			if b, err := os.ReadFile(x); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		sp := Split{Path: path, Format: "ORC", Records: 3}
		rd, err := plan.Open(ctx, &sp, mem, ReadOptions{BatchSize: 2})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("open: error wraps neither ErrCorrupt nor ErrUnsupported: %v", err)
			}
			return
		}
		defer rd.Release()
		for rd.Next() {
		}
		if err := rd.Err(); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("read: error wraps neither ErrCorrupt nor ErrUnsupported: %v", err)
		}
	})
}
