package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A data file whose schema message is not the one this build writes (here:
// schema metadata an older writer might add) is not decoded from the
// mapping: it is read with pread over the descriptor already open, with
// the same rows, and no mapping is left behind.
func TestSchemaDiffersReadsWithPread(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tb := newChecksumTable(t, dir, mem, []int64{7, 8}, []string{"x", "y"})
	checkpointNow(t, tb.(*Table).c)
	// The rewritten file has other bytes: drop the checksums, as a
	// manifest written before them has none.
	p := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseManifest(p, b, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Databases {
		for _, tm := range d.Tables {
			for i := range tm.Files {
				tm.Files[i].CRC32C = nil
			}
		}
	}
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	fs := dataFiles(t, dir)
	if len(fs) != 1 {
		t.Fatalf("data files = %v, want one", fs)
	}
	rewriteWithSchemaMetadata(t, fs[0], mem)

	base := liveMappings.Load()
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
	ids, names := collect(t, tb2, nil, mem)
	if len(ids) != 2 || ids[0] != 7 || ids[1] != 8 || names[0] != "x" || names[1] != "y" {
		t.Fatalf("scan = %v %v, want [7 8] [x y]", ids, names)
	}
	if n := liveMappings.Load(); n != base {
		t.Errorf("%d mappings live after the scan, want %d", n, base)
	}
}

// rewriteWithSchemaMetadata rewrites the Arrow IPC file p with the same
// fields and batches and a schema carrying metadata.
func rewriteWithSchemaMetadata(t *testing.T, p string, mem memory.Allocator) {
	t.Helper()
	src, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fr, err := ipc.NewFileReader(src, ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	md := arrow.NewMetadata([]string{"writer"}, []string{"older"})
	tmp := p + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := ipc.NewFileWriter(out, ipc.WithSchema(arrow.NewSchema(fr.Schema().Fields(), &md)), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatchAt(i)
		if err != nil {
			t.Fatal(err)
		}
		err = fw.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}
