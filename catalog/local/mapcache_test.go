package local

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

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

// TestVerifiedOnce: the CRC-32C of a data file is computed by its first
// scan only: a second scan of the kept mappings, and a scan through new
// mappings of the same unchanged files (another catalog over the
// directory), hash nothing. Damage written into a file afterwards
// changes its identity, so the next scan hashes it again and fails with
// an error naming the file.
func TestVerifiedOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are known unchanged by their change time on Linux only (verified_other.go)")
	}
	defer func(w time.Duration) { verifyRacyWindow = w }(verifyRacyWindow)
	verifyRacyWindow = 0
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	opts := Options{InlineBytes: -1, SegmentBytes: 8 << 10, CompactAt: -1, KeepMapped: 1 << 30}
	c, d := openDB(t, dir, mem, opts)
	tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: testSchema()})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	appendIDs(t, tb, mem, 0, n)
	files := dataFiles(t, dir)
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	time.Sleep(30 * time.Millisecond) // past the file system's time stamp granularity
	scan := func(tb catalog.Table) int64 {
		t.Helper()
		h0 := hashedBytes.Load()
		if ids, _ := collect(t, tb, nil, mem); len(ids) != n {
			t.Fatalf("%d rows, want %d", len(ids), n)
		}
		return hashedBytes.Load() - h0
	}
	if h := scan(tb); h != size {
		t.Fatalf("first scan hashed %d bytes, want the files' %d", h, size)
	}
	if h := scan(tb); h != 0 {
		t.Fatalf("second scan hashed %d bytes, want none", h)
	}
	c.Close()
	c, d = openDB(t, dir, mem, opts)
	defer c.Close()
	if tb, err = d.Table(context.Background(), "t"); err != nil {
		t.Fatal(err)
	}
	if h := scan(tb); h != 0 {
		t.Fatalf("scan through new mappings hashed %d bytes, want none", h)
	}

	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "n1")
	if i < 0 {
		t.Fatal("no value n1… in the first file")
	}
	f, err := os.OpenFile(files[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("N"), int64(i)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h0 := hashedBytes.Load()
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	err = r.Err()
	r.Release()
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), files[0]) || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("scan of a file damaged after it was verified: %v", err)
	}
	if hashedBytes.Load() == h0 {
		t.Fatal("the damaged file was not hashed again")
	}
}
