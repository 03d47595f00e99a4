package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

var _ array.RecordReader = (*fileScan)(nil)

func testSchema() catalog.Schema {
	return catalog.Schema{Columns: []catalog.Column{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Key: true},
		{Name: "name", Type: arrow.BinaryTypes.String, TypeName: "varchar(20)", Nullable: true},
	}}
}

func batch(mem memory.Allocator, ids []int64, names []string) array.RecordReader {
	s := testSchema().Arrow()
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if names[i] == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(names[i])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	r, _ := array.NewRecordReader(s, []arrow.RecordBatch{rec})
	return r
}

func collect(t *testing.T, tb catalog.Table, cols []int, mem memory.Allocator) (ids []int64, names []string) {
	t.Helper()
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Columns: cols, Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			for c := 0; c < int(rec.NumCols()); c++ {
				switch a := rec.Column(c).(type) {
				case *array.Int64:
					ids = append(ids, a.Value(i))
				case *array.String:
					if a.IsNull(i) {
						names = append(names, "")
					} else {
						names = append(names, a.Value(i))
					}
				}
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, names
}

func TestCreateAppendScanReopen(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, err := Open(dir, mem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db1", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db1", nil); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate database: %v", err)
	}
	d, _ := c.Database(ctx, "db1")
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema(), Comment: "c"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []struct {
		ids   []int64
		names []string
	}{{[]int64{1, 2}, []string{"a", ""}}, {[]int64{3}, []string{"c"}}} {
		r := batch(mem, in.ids, in.names)
		n, err := tb.(catalog.Writable).Append(ctx, r)
		r.Release()
		if err != nil || n != int64(len(in.ids)) {
			t.Fatalf("append = %d, %v", n, err)
		}
	}
	ids, names := collect(t, tb, nil, mem)
	if len(ids) != 3 || ids[2] != 3 || names[1] != "" || names[2] != "c" {
		t.Fatalf("scan = %v %v", ids, names)
	}
	ids, names = collect(t, tb, []int{1}, mem)
	if len(ids) != 0 || len(names) != 3 {
		t.Fatalf("projected scan = %v %v", ids, names)
	}

	// Reopen: everything is still there, with the same types.
	c2, err := Open(dir, mem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := c2.Database(ctx, "db1")
	if err != nil {
		t.Fatal(err)
	}
	tb2, err := d2.Table(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got := tb2.Schema().Columns[1].DisplayType(); got != "varchar(20)" {
		t.Errorf("type after reopen = %s", got)
	}
	if tb2.(catalog.Described).Spec().Comment != "c" {
		t.Errorf("comment lost")
	}
	ids, _ = collect(t, tb2, nil, mem)
	if len(ids) != 3 {
		t.Fatalf("after reopen: %v", ids)
	}
	if _, err := d2.Table(ctx, "T"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("names must be case-sensitive: %v", err)
	}

	if err := d2.(catalog.TableCreator).DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Table(ctx, "t"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("dropped table still there: %v", err)
	}
	if err := c2.DropDatabase(ctx, "db1", false); err != nil {
		t.Fatal(err)
	}
	c3, _ := Open(dir, mem, Options{})
	if dbs, _ := c3.ListDatabases(ctx); len(dbs) != 0 {
		t.Fatalf("databases after drop: %v", dbs)
	}
}

func TestOrphansAndCorruption(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, _ := Open(dir, mem, Options{InlineBytes: -1})
	c.CreateDatabase(ctx, "db", nil)
	d, _ := c.Database(ctx, "db")
	tb, _ := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	r := batch(mem, []int64{1}, []string{"x"})
	tb.(catalog.Writable).Append(ctx, r)
	r.Release()
	// A file left by a crash between write and commit is not visible and is
	// removed at the next open.
	tdir := c.tableDir(tb.(*Table).id)
	orphan := filepath.Join(tdir, "99999999.arrow")
	os.WriteFile(orphan, []byte("garbage"), 0o644)
	c2, err := Open(dir, mem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphan not removed: %v", err)
	}
	d2, _ := c2.Database(ctx, "db")
	tb2, _ := d2.Table(ctx, "t")
	if ids, _ := collect(t, tb2, nil, mem); len(ids) != 1 {
		t.Fatalf("rows = %v", ids)
	}
	// A damaged data file gives an error naming the table and file.
	os.WriteFile(onlyFile(t, tdir), []byte("not arrow"), 0o644)
	sc, err := tb2.Scan(ctx, catalog.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	for sc.Next() {
	}
	if err := sc.Err(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged file: %v", err)
	}
	sc.Release()
	// A damaged manifest is an error, not an empty catalog.
	os.WriteFile(filepath.Join(dir, manifestName), []byte("{"), 0o644)
	if _, err := Open(dir, mem, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged manifest: %v", err)
	}
}

// TestMissingManifestKeepsData: a manifest lost while the FE was stopped
// must not turn every table into an orphan. Open refuses, names the
// manifest, and deletes nothing; with the manifest back, every row is there.
func TestMissingManifestKeepsData(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, err := Open(dir, mem, Options{InlineBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db", nil); err != nil {
		t.Fatal(err)
	}
	d, _ := c.Database(ctx, "db")
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
	if err != nil {
		t.Fatal(err)
	}
	r := batch(mem, []int64{1, 2, 3}, []string{"x", "y", "z"})
	if _, err := tb.(catalog.Writable).Append(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	// A table created but never written has an empty directory: nothing to lose.
	if _, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "empty", Schema: testSchema()}); err != nil {
		t.Fatal(err)
	}
	dataFile := onlyFile(t, c.tableDir(tb.(*Table).id))
	if _, err := os.Stat(dataFile); err != nil {
		t.Fatalf("data file: %v", err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, manifestName))

	for range 2 { // a second attempt must find the data still there
		_, err := Open(dir, mem, Options{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), manifestName) || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("open without manifest: %v", err)
		}
		if _, err := os.Stat(dataFile); err != nil {
			t.Fatalf("data file gone after a refused open: %v", err)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, manifestName), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(dir, mem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := c2.Database(ctx, "db")
	tb2, _ := d2.Table(ctx, "t")
	if ids, _ := collect(t, tb2, nil, mem); len(ids) != 3 {
		t.Fatalf("rows after restoring the manifest = %v", ids)
	}

	// A directory with only empty table directories (no manifest ever
	// committed data) still starts empty.
	fresh := t.TempDir()
	os.MkdirAll(filepath.Join(fresh, "data", "7"), 0o755)
	c3, err := Open(fresh, mem, Options{})
	if err != nil {
		t.Fatalf("fresh dir with an empty table dir: %v", err)
	}
	if dbs, _ := c3.ListDatabases(ctx); len(dbs) != 0 {
		t.Errorf("databases = %v", dbs)
	}
}

// onlyFile names the one data file in dir.
func onlyFile(t *testing.T, dir string) string {
	t.Helper()
	fs, _ := filepath.Glob(filepath.Join(dir, "*.arrow"))
	if len(fs) != 1 {
		t.Fatalf("data files in %s = %v, want one", dir, fs)
	}
	return fs[0]
}
