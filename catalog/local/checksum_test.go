package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// Issue 13 defect 9: a damaged data file must fail the read naming the
// file; before data files carried a checksum, a flipped byte in a value
// returned the changed value silently.
func TestDataFileChecksum(t *testing.T) {
	const marker = int64(0x1122334455667788)
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(marker))
	cases := []struct {
		name   string
		damage func(t *testing.T, b []byte) []byte
		want   string
	}{
		{"flipped byte in an int64 value", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, le[:])
			if i < 0 {
				t.Fatal("marker value not found in the data file")
			}
			b[i] ^= 0x01
			return b
		}, "checksum mismatch"},
		{"flipped byte in a string value", func(t *testing.T, b []byte) []byte {
			i := bytes.Index(b, []byte("zebra"))
			if i < 0 {
				t.Fatal("marker string not found in the data file")
			}
			b[i] = 'Z'
			return b
		}, "checksum mismatch"},
		{"truncated", func(t *testing.T, b []byte) []byte { return b[:len(b)-1] }, "manifest says"},
		{"extended", func(t *testing.T, b []byte) []byte { return append(b, 0) }, "manifest says"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := t.TempDir()
			tb := newChecksumTable(t, dir, mem, []int64{1, marker, 3}, []string{"a", "zebra", ""})
			ids, names := collect(t, tb, nil, mem)
			if len(ids) != 3 || ids[1] != marker || names[1] != "zebra" {
				t.Fatalf("undamaged scan = %v %v", ids, names)
			}

			files, _ := filepath.Glob(filepath.Join(dir, "data", "*", "*.arrow"))
			if len(files) != 1 {
				t.Fatalf("data files = %v", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(files[0], tc.damage(t, b), 0o644); err != nil {
				t.Fatal(err)
			}

			// A fresh Open, so the checksum comes from the manifest on disk.
			c, err := Open(dir, mem, Options{InlineBytes: -1})
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.Database(ctx, "db1")
			if err != nil {
				t.Fatal(err)
			}
			tb2, err := d.Table(ctx, "t")
			if err != nil {
				t.Fatal(err)
			}
			r, err := tb2.Scan(ctx, catalog.ScanRequest{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			for r.Next() {
				t.Errorf("damaged file yielded a batch of %d rows", r.RecordBatch().NumRows())
			}
			err = r.Err()
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), files[0]) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("scan error = %v; want ErrCorrupt naming %s and containing %q", err, files[0], tc.want)
			}
		})
	}
}

// Files listed by a manifest written before checksums (no crc32c) are read
// unchecked.
func TestDataFileWithoutChecksumReads(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tb := newChecksumTable(t, dir, mem, []int64{7, 8}, []string{"x", "y"})
	checkpointNow(t, tb.(*Table).c)
	p := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseManifest(p, b, mem)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range m.Databases {
		for _, tm := range d.Tables {
			for i := range tm.Files {
				if tm.Files[i].CRC32C == nil {
					t.Fatalf("file %s was written without a checksum", tm.Files[i].Name)
				}
				tm.Files[i].CRC32C = nil
				n++
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d files in the manifest, want 1", n)
	}
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir, mem, Options{InlineBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Database(ctx, "db1")
	tb2, err := d.Table(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	ids, names := collect(t, tb2, nil, mem)
	if len(ids) != 2 || ids[0] != 7 || ids[1] != 8 || names[0] != "x" || names[1] != "y" {
		t.Fatalf("scan = %v %v", ids, names)
	}
}

func newChecksumTable(t *testing.T, dir string, mem memory.Allocator, ids []int64, names []string) catalog.Table {
	t.Helper()
	ctx := context.Background()
	c, err := Open(dir, mem, Options{InlineBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db1", nil); err != nil {
		t.Fatal(err)
	}
	d, _ := c.Database(ctx, "db1")
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	if err != nil {
		t.Fatal(err)
	}
	r := batch(mem, ids, names)
	defer r.Release()
	if n, err := tb.(catalog.Writable).Append(ctx, r); err != nil || n != int64(len(ids)) {
		t.Fatalf("append = %d, %v", n, err)
	}
	return tb
}

// checkpointNow folds the commit log into the manifest, as a DDL would.
func checkpointNow(t *testing.T, c *Catalog) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkpoint(c.clone()); err != nil {
		t.Fatal(err)
	}
}
