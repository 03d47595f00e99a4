package local

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestKeepMapped: with KeepMapped, a second scan reuses the first's
// mappings (no new one, the same rows); an overwrite's swept files leave
// the cache, a byte bound below the files keeps fewer, DROP TABLE and
// Close unmap the rest; without it nothing stays mapped after a scan.
func TestKeepMapped(t *testing.T) {
	for _, tc := range []struct {
		name string
		keep int64
	}{{"off", 0}, {"all", 1 << 30}, {"bounded", 20 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			base := liveMappings.Load()
			dir := t.TempDir()
			c, d := openDB(t, dir, mem, Options{InlineBytes: -1, SegmentBytes: 8 << 10, CompactAt: -1, KeepMapped: tc.keep})
			tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: testSchema()})
			if err != nil {
				t.Fatal(err)
			}
			const n = 6000
			appendIDs(t, tb, mem, 0, n)
			files := len(dataFiles(t, dir))
			if files < 4 {
				t.Fatalf("want several data files, got %d", files)
			}
			if ids, _ := collect(t, tb, nil, mem); len(ids) != n {
				t.Fatalf("%d rows, want %d", len(ids), n)
			}
			kept := liveMappings.Load() - base
			switch {
			case tc.keep == 0 && kept != 0:
				t.Fatalf("%d mappings left after the scan, want none", kept)
			case tc.name == "all" && kept != int64(files):
				t.Fatalf("%d mappings kept, want one per file (%d)", kept, files)
			case tc.name == "bounded" && (kept == 0 || kept >= int64(files)):
				t.Fatalf("%d mappings kept under a 20 KiB bound of %d files", kept, files)
			}
			if ids, _ := collect(t, tb, nil, mem); len(ids) != n {
				t.Fatalf("second scan: %d rows, want %d", len(ids), n)
			}
			if tc.name == "all" && liveMappings.Load()-base != kept {
				t.Fatalf("second scan: %d mappings, want the first's %d", liveMappings.Load()-base, kept)
			}
			ow := idRows(mem, 1_000_000, 10, 10)
			if _, err := tb.(catalog.Overwriter).Overwrite(context.Background(), ow, catalog.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
			ow.Release()
			if ids, _ := collect(t, tb, nil, mem); len(ids) != 10 {
				t.Fatalf("after the overwrite: %d rows, want 10", len(ids))
			}
			// The swept files' mappings are gone; the new file's may be kept.
			if left := liveMappings.Load() - base; left > 1 {
				t.Fatalf("%d mappings left after the overwrite swept the files", left)
			}
			if err := d.(catalog.TableCreator).DropTable(context.Background(), "t"); err != nil {
				t.Fatal(err)
			}
			if left := liveMappings.Load() - base; left != 0 {
				t.Fatalf("%d mappings left after DROP TABLE", left)
			}
			c.Close()
		})
	}
}
