package local

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TypeName is the catalog type of the internal catalog.
const TypeName = "internal"

// Catalog is the internal catalog.
type Catalog struct {
	dir string
	mem memory.Allocator // for schema decoding only; scans use the request's
	log *slog.Logger
	now func() time.Time

	mu sync.Mutex
	m  *manifest
}

// Options configure Open.
type Options struct {
	Logger *slog.Logger
	// Now is the clock for creation times; nil means time.Now.
	Now func() time.Time
}

// Open loads (or creates) the internal catalog stored in dir.
func Open(dir string, mem memory.Allocator, opts Options) (*Catalog, error) {
	if mem == nil {
		return nil, fmt.Errorf("internal catalog: an allocator is required")
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("internal catalog: %w", err)
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	c := &Catalog{dir: dir, mem: mem, log: opts.Logger, now: opts.Now, m: m}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	for _, db := range m.Databases {
		for _, t := range db.Tables {
			if _, err := t.schema(mem); err != nil {
				return nil, err
			}
		}
	}
	c.removeOrphans()
	return c, nil
}

// removeOrphans deletes data files and table directories the manifest does
// not name: leftovers of an append or drop interrupted by a crash.
func (c *Catalog) removeOrphans() {
	live := map[string]map[string]bool{}
	for _, db := range c.m.Databases {
		for _, t := range db.Tables {
			files := map[string]bool{}
			for _, f := range t.Files {
				files[f.Name] = true
			}
			live[strconv.FormatInt(t.ID, 10)] = files
		}
	}
	dataDir := filepath.Join(c.dir, "data")
	ents, err := os.ReadDir(dataDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		files, ok := live[e.Name()]
		if !ok {
			c.log.Info("internal catalog: removing orphan table directory", "dir", e.Name())
			os.RemoveAll(filepath.Join(dataDir, e.Name()))
			continue
		}
		fs, _ := os.ReadDir(filepath.Join(dataDir, e.Name()))
		for _, f := range fs {
			if !files[f.Name()] {
				os.Remove(filepath.Join(dataDir, e.Name(), f.Name()))
			}
		}
	}
}

// Type implements catalog.Catalog.
func (c *Catalog) Type() string { return TypeName }

// Close implements catalog.Catalog.
func (c *Catalog) Close() error { return nil }

// ListDatabases implements catalog.Catalog.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.m.Databases))
	for _, d := range c.m.Databases {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out, nil
}

func (c *Catalog) findDB(name string) (int, *dbManifest) {
	for i, d := range c.m.Databases {
		if d.Name == name {
			return i, d
		}
	}
	return -1, nil
}

// Database implements catalog.Catalog.
func (c *Catalog) Database(ctx context.Context, name string) (catalog.Database, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, d := c.findDB(name)
	if d == nil {
		return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
	}
	return &Database{c: c, id: d.ID, name: d.Name}, nil
}

// CreateDatabase implements catalog.DatabaseCreator.
func (c *Catalog) CreateDatabase(ctx context.Context, name string, props map[string]string) error {
	if err := checkName("database", name); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, d := c.findDB(name); d != nil {
		return catalog.Errorf(catalog.ErrExists, "Can't create database '%s'; database exists", name)
	}
	next := c.clone()
	next.Databases = append(next.Databases, &dbManifest{ID: next.NextID, Name: name, CreatedMS: c.now().UnixMilli(), Properties: props, Tables: []*tableManifest{}})
	next.NextID++
	return c.commit(next)
}

// DropDatabase implements catalog.DatabaseCreator. As in Doris, the tables
// go with the database (there is no recycle bin, so force changes nothing).
func (c *Catalog) DropDatabase(ctx context.Context, name string, force bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, d := c.findDB(name)
	if d == nil {
		return catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
	}
	next := c.clone()
	next.Databases = slices.Delete(next.Databases, i, i+1)
	if err := c.commit(next); err != nil {
		return err
	}
	for _, t := range d.Tables {
		os.RemoveAll(c.tableDir(t.ID))
	}
	return nil
}

// clone deep-copies the manifest so that a failed commit leaves the live one
// untouched.
func (c *Catalog) clone() *manifest {
	n := &manifest{Version: c.m.Version, NextID: c.m.NextID, Databases: make([]*dbManifest, len(c.m.Databases))}
	for i, d := range c.m.Databases {
		dc := *d
		dc.Properties = maps.Clone(d.Properties)
		dc.Tables = make([]*tableManifest, len(d.Tables))
		for j, t := range d.Tables {
			tc := *t
			tc.Files = slices.Clone(t.Files)
			dc.Tables[j] = &tc
		}
		n.Databases[i] = &dc
	}
	return n
}

func (c *Catalog) commit(next *manifest) error {
	if err := writeManifest(c.dir, next); err != nil {
		return err
	}
	c.m = next
	return nil
}

func (c *Catalog) tableDir(id int64) string {
	return filepath.Join(c.dir, "data", strconv.FormatInt(id, 10))
}

func checkName(kind, name string) error {
	// Names must be valid UTF-8: the JSON manifest would store anything else
	// as U+FFFD, a different name from the one created.
	if !utf8.ValidString(name) {
		return catalog.Errorf(catalog.ErrUnsupported, "invalid %s name %q: not valid UTF-8", kind, name)
	}
	if name == "" || len(name) > 256 || strings.ContainsAny(name, "/\\\x00") {
		return catalog.Errorf(catalog.ErrUnsupported, "invalid %s name '%s'", kind, name)
	}
	return nil
}

// Database is a database of the internal catalog.
type Database struct {
	c    *Catalog
	id   int64
	name string
}

// Name implements catalog.Database.
func (d *Database) Name() string { return d.name }

// lookup returns the live manifest entry of the database.
func (d *Database) lookup() (*dbManifest, error) {
	for _, m := range d.c.m.Databases {
		if m.ID == d.id {
			return m, nil
		}
	}
	return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", d.name)
}

// ListTables implements catalog.Database.
func (d *Database) ListTables(ctx context.Context) ([]string, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	m, err := d.lookup()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(m.Tables))
	for _, t := range m.Tables {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out, nil
}

// Table implements catalog.Database.
func (d *Database) Table(ctx context.Context, name string) (catalog.Table, error) {
	d.c.mu.Lock()
	defer d.c.mu.Unlock()
	m, err := d.lookup()
	if err != nil {
		return nil, err
	}
	for _, t := range m.Tables {
		if t.Name == name {
			return d.c.tableHandle(d, t)
		}
	}
	return nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", d.name, name)
}

func (c *Catalog) tableHandle(d *Database, t *tableManifest) (*Table, error) {
	s, err := t.schema(c.mem)
	if err != nil {
		return nil, err
	}
	return &Table{c: c, db: d, id: t.ID, name: t.Name, schema: s, arrow: s.Arrow(), spec: catalog.TableSpec{
		Name: t.Name, Schema: s, Comment: t.Comment, Properties: maps.Clone(t.Properties),
		KeysType: t.KeysType, KeyColumns: slices.Clone(t.KeyColumns), Distribution: t.Distribution,
	}}, nil
}

// CreateTable implements catalog.TableCreator.
func (d *Database) CreateTable(ctx context.Context, spec catalog.TableSpec) (catalog.Table, error) {
	if err := checkName("table", spec.Name); err != nil {
		return nil, err
	}
	if len(spec.Schema.Columns) == 0 {
		return nil, catalog.Errorf(catalog.ErrUnsupported, "table '%s' needs at least one column", spec.Name)
	}
	seen := map[string]bool{}
	cols := make([]columnManifest, len(spec.Schema.Columns))
	for i, col := range spec.Schema.Columns {
		k := strings.ToLower(col.Name)
		if seen[k] {
			return nil, catalog.Errorf(catalog.ErrExists, "Duplicate column name '%s'", col.Name)
		}
		seen[k] = true
		if col.Type == nil {
			return nil, catalog.Errorf(catalog.ErrUnsupported, "column '%s' has no type", col.Name)
		}
		cols[i] = columnManifest{Name: col.Name, TypeName: col.TypeName, Nullable: col.Nullable, Key: col.Key, Default: col.Default, Comment: col.Comment, Extra: col.Extra}
	}
	as, err := encodeSchema(spec.Schema.Arrow())
	if err != nil {
		return nil, fmt.Errorf("internal catalog: table %s: %w", spec.Name, err)
	}
	c := d.c
	c.mu.Lock()
	defer c.mu.Unlock()
	m, err := d.lookup()
	if err != nil {
		return nil, err
	}
	for _, t := range m.Tables {
		if t.Name == spec.Name {
			return nil, catalog.Errorf(catalog.ErrExists, "Table '%s' already exists", spec.Name)
		}
	}
	next := c.clone()
	var nd *dbManifest
	for _, x := range next.Databases {
		if x.ID == d.id {
			nd = x
		}
	}
	tm := &tableManifest{
		ID: next.NextID, Name: spec.Name, CreatedMS: c.now().UnixMilli(), Comment: spec.Comment,
		KeysType: spec.KeysType, KeyColumns: spec.KeyColumns, Distribution: spec.Distribution,
		Properties: spec.Properties, Columns: cols, ArrowSchema: as, Files: []fileInfo{},
	}
	next.NextID++
	nd.Tables = append(nd.Tables, tm)
	if err := os.MkdirAll(c.tableDir(tm.ID), 0o755); err != nil {
		return nil, fmt.Errorf("internal catalog: %w", err)
	}
	if err := c.commit(next); err != nil {
		return nil, err
	}
	return c.tableHandle(d, tm)
}

// DropTable implements catalog.TableCreator.
func (d *Database) DropTable(ctx context.Context, name string) error {
	c := d.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := d.lookup(); err != nil {
		return err
	}
	next := c.clone()
	for _, nd := range next.Databases {
		if nd.ID != d.id {
			continue
		}
		for i, t := range nd.Tables {
			if t.Name == name {
				nd.Tables = slices.Delete(nd.Tables, i, i+1)
				if err := c.commit(next); err != nil {
					return err
				}
				os.RemoveAll(c.tableDir(t.ID))
				return nil
			}
		}
	}
	return catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", d.name, name)
}

// Table is a table of the internal catalog.
type Table struct {
	c      *Catalog
	db     *Database
	id     int64
	name   string
	schema catalog.Schema
	arrow  *arrow.Schema
	spec   catalog.TableSpec
}

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Schema implements catalog.Table.
func (t *Table) Schema() catalog.Schema { return t.schema }

// Spec implements catalog.Described.
func (t *Table) Spec() catalog.TableSpec { return t.spec }

func (t *Table) lookup() (*tableManifest, error) {
	m, err := t.db.lookup()
	if err != nil {
		return nil, err
	}
	for _, x := range m.Tables {
		if x.ID == t.id {
			return x, nil
		}
	}
	return nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", t.db.name, t.name)
}

// Stats returns the number of rows and files of the table.
func (t *Table) Stats() (rows, files int64, err error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	m, err := t.lookup()
	if err != nil {
		return 0, 0, err
	}
	for _, f := range m.Files {
		rows += f.Rows
	}
	return rows, int64(len(m.Files)), nil
}

// Append implements catalog.Writable: it writes all batches of r into one
// new data file and then commits it to the manifest.
func (t *Table) Append(ctx context.Context, r array.RecordReader) (int64, error) {
	if !r.Schema().Equal(t.arrow) {
		if err := compatible(t.arrow, r.Schema()); err != nil {
			return 0, fmt.Errorf("table %s: %w", t.name, err)
		}
	}
	dir := t.c.tableDir(t.id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("internal catalog: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "append-*.tmp")
	if err != nil {
		return 0, fmt.Errorf("internal catalog: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := &crcWriter{w: tmp}
	w, err := ipc.NewFileWriter(sum, ipc.WithSchema(t.arrow), ipc.WithAllocator(t.c.mem))
	if err != nil {
		return 0, fmt.Errorf("internal catalog: table %s: %w", t.name, err)
	}
	var rows int64
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		if !rec.Schema().Equal(t.arrow) {
			rec = array.NewRecordBatch(t.arrow, rec.Columns(), rec.NumRows())
			err = w.Write(rec)
			rec.Release()
		} else {
			err = w.Write(rec)
		}
		if err != nil {
			return 0, fmt.Errorf("internal catalog: table %s: write %s: %w", t.name, tmp.Name(), err)
		}
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return 0, err
	}
	if rows == 0 {
		return 0, nil
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("internal catalog: table %s: %w", t.name, err)
	}
	if err := tmp.Sync(); err != nil {
		return 0, fmt.Errorf("internal catalog: sync %s: %w", tmp.Name(), err)
	}
	st, err := tmp.Stat()
	if err != nil {
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}

	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := t.lookup(); err != nil {
		return 0, err
	}
	next := c.clone()
	var tm *tableManifest
	for _, d := range next.Databases {
		for _, x := range d.Tables {
			if x.ID == t.id {
				tm = x
			}
		}
	}
	name := fmt.Sprintf("%08d.arrow", tm.NextFile)
	tm.NextFile++
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return 0, fmt.Errorf("internal catalog: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return 0, err
	}
	if st.Size() != sum.n {
		return 0, fmt.Errorf("internal catalog: table %s: %s holds %d bytes, %d were written", t.name, tmp.Name(), st.Size(), sum.n)
	}
	crc := sum.crc
	tm.Files = append(tm.Files, fileInfo{Name: name, Rows: rows, Bytes: st.Size(), CRC32C: &crc})
	if err := c.commit(next); err != nil {
		os.Remove(filepath.Join(dir, name))
		return 0, err
	}
	committed = true
	return rows, nil
}

// compatible accepts a batch schema whose field types equal the table's
// (names and nullability may differ: the binder produces positional rows).
func compatible(table, got *arrow.Schema) error {
	if got.NumFields() != table.NumFields() {
		return catalog.Errorf(catalog.ErrUnsupported, "got %d columns, table has %d", got.NumFields(), table.NumFields())
	}
	for i := range got.NumFields() {
		if !arrow.TypeEqual(got.Field(i).Type, table.Field(i).Type) {
			return catalog.Errorf(catalog.ErrUnsupported, "column '%s' has type %s, got %s", table.Field(i).Name, table.Field(i).Type, got.Field(i).Type)
		}
	}
	return nil
}

// Scan implements catalog.Table.
func (t *Table) Scan(ctx context.Context, req catalog.ScanRequest) (array.RecordReader, error) {
	if req.Mem == nil {
		return nil, fmt.Errorf("internal catalog: table %s: scan needs an allocator", t.name)
	}
	for _, c := range req.Columns {
		if c < 0 || c >= len(t.schema.Columns) {
			return nil, fmt.Errorf("internal catalog: table %s: column index %d out of range", t.name, c)
		}
	}
	t.c.mu.Lock()
	m, err := t.lookup()
	var files []fileInfo
	if err == nil {
		files = slices.Clone(m.Files)
	}
	t.c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := t.schema.Projected(req.Columns).Arrow()
	r := &fileScan{ctx: ctx, mem: req.Mem, dir: t.c.tableDir(t.id), table: t.name, files: files, cols: req.Columns, schema: out, full: t.arrow}
	r.refs.Store(1)
	return r, nil
}

// ExplainScan implements catalog.Explainer.
func (t *Table) ExplainScan(ctx context.Context, req catalog.ScanRequest, verbose bool) (string, []string, error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	m, err := t.lookup()
	if err != nil {
		return "", nil, err
	}
	var rows, size int64
	for _, f := range m.Files {
		rows += f.Rows
		size += f.Bytes
	}
	lines := []string{
		fmt.Sprintf("TABLE: internal.%s.%s", t.db.name, t.name),
		fmt.Sprintf("files=%d, totalFileSize=%d, rows=%d", len(m.Files), size, rows),
	}
	if verbose {
		for _, f := range m.Files {
			lines = append(lines, fmt.Sprintf("  file %s rows=%d bytes=%d", f.Name, f.Rows, f.Bytes))
		}
	}
	return "LocalScanNode", lines, nil
}
