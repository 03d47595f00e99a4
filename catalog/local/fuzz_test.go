package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// FuzzParseManifest feeds arbitrary bytes to the manifest decoder, seeded
// with a real manifest: it must return a manifest or an error, never panic,
// and leak nothing.
func FuzzParseManifest(f *testing.F) {
	dir := f.TempDir()
	mem := memory.NewGoAllocator()
	c, err := Open(dir, mem, Options{})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	c.CreateDatabase(ctx, "db", map[string]string{"k": "v"})
	d, _ := c.Database(ctx, "db")
	tb, _ := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	r := batch(mem, []int64{1, 2}, []string{"a", ""})
	tb.(catalog.Writable).Append(ctx, r)
	r.Release()
	seed, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"version":1,"next_id":1,"databases":[]}`))
	f.Add([]byte(`{"version":1,"next_id":5,"databases":[{"id":1,"name":"d","tables":[{"id":2,"name":"t","columns":[],"arrow_schema":"","files":[{"name":"../x"}]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		parseManifest("fuzz", b, mem)
	})
}

// FuzzReplayLog feeds arbitrary bytes to the commit log replay, seeded with
// a real log: it must apply records or fail with an error, never panic, and
// never read past a record's declared length.
func FuzzReplayLog(f *testing.F) {
	dir := f.TempDir()
	mem := memory.NewGoAllocator()
	c, err := Open(dir, mem, Options{CompactAt: -1})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	c.CreateDatabase(ctx, "db", nil)
	d, _ := c.Database(ctx, "db")
	tb, _ := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	for i := range 3 {
		r := batch(mem, []int64{int64(i)}, []string{"a"})
		tb.(catalog.Loader).Load(ctx, r, catalog.LoadOptions{Label: fmt.Sprint("l", i)})
		r.Release()
	}
	seed, err := os.ReadFile(filepath.Join(c.walDir(), logName(c.log.gen)))
	if err != nil {
		f.Fatal(err)
	}
	c.Close()
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, logName(1)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		lw, err := replayLog(dir, 1, func(*logRecord) error { return nil })
		if err == nil {
			if lw.size > int64(len(b)) {
				t.Fatalf("log end %d past %d bytes", lw.size, len(b))
			}
			lw.close()
		}
	})
}
