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
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TypeName is the catalog type of the internal catalog.
const TypeName = "internal"

// Catalog is the internal catalog.
type Catalog struct {
	dir    string
	maps   *mapCache        // nil: data files are mapped per scan
	mem    memory.Allocator // schema decoding and background compaction; scans use the request's
	logger *slog.Logger
	now    func() time.Time

	labelKeep time.Duration
	maxLabels int
	compactAt int
	inline    int
	segMax    int64
	ckptRecs  int

	// qmu guards queue: commits waiting for the next group commit.
	qmu   sync.Mutex
	queue []*commitReq

	// mu guards everything below, and is held while a group commit
	// appends to the log.
	mu      sync.Mutex
	m       *manifest
	log     *logWriter
	labels  map[int64]map[string]labelInfo // db id → committed labels
	running map[int64]map[string]int64     // db id → in-flight label → txn
	broken  error                          // the log cannot be written any more
	scans   int                            // open scans: replaced files wait for 0
	garbage []string                       // replaced files to delete when scans == 0
	tlocks  map[int64]*sync.RWMutex        // UNIQUE tables: partial loads and DELETE exclude other writers

	txn atomic.Int64 // last transaction id handed out

	compactCh chan struct{}
	// Auto analyze (autoanalyze.go).
	autoAnalyze time.Duration
	analyzeCh   chan struct{}
	alocks      map[int64]*sync.Mutex // per table: ANALYZE runs take turns
	stop        chan struct{}
	wg          sync.WaitGroup
	closeOnce   sync.Once
}

// Options configure Open.
type Options struct {
	Logger *slog.Logger
	// Now is the clock for creation times; nil means time.Now.
	Now func() time.Time
	// LabelKeep is how long committed load labels are remembered (Doris's
	// label_keep_max_second); 0 means 3 days. MaxLabels caps their number
	// per database; 0 means 10000.
	LabelKeep time.Duration
	MaxLabels int
	// InlineBytes: a load's segment up to this size is kept inside its
	// commit record instead of a data file of its own; 0 means 256 KiB,
	// negative means never.
	InlineBytes int
	// SegmentBytes: a data file is closed and another started past this
	// size; 0 means 256 MiB.
	SegmentBytes int64
	// CheckpointEvery: after this many commit records the state is written
	// to the manifest and a new log generation starts; 0 means 4096.
	CheckpointEvery int
	// CompactAt is the number of segments in one bucket of a table that
	// starts a background compaction; 0 means 8, negative disables it.
	CompactAt int
	// AutoAnalyze: this long after a commit that adds rows, tables whose
	// statistics are missing or stale are analysed in the background
	// (autoanalyze.go); 0 turns it off.
	AutoAnalyze time.Duration
	// KeepMapped: up to this many bytes of data files stay mapped between
	// scans (mapcache.go); 0 maps them per scan, as tests expect.
	KeepMapped int64
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
	c := &Catalog{dir: dir, mem: mem, logger: opts.Logger, now: opts.Now, m: m,
		labelKeep: opts.LabelKeep, maxLabels: opts.MaxLabels, compactAt: opts.CompactAt, inline: opts.InlineBytes, segMax: opts.SegmentBytes, ckptRecs: opts.CheckpointEvery,
		maps: newMapCache(opts.KeepMapped), autoAnalyze: opts.AutoAnalyze, analyzeCh: make(chan struct{}, 1),
		labels: map[int64]map[string]labelInfo{}, running: map[int64]map[string]int64{},
		tlocks: map[int64]*sync.RWMutex{}, compactCh: make(chan struct{}, 1), stop: make(chan struct{})}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.labelKeep <= 0 {
		c.labelKeep = 3 * 24 * time.Hour
	}
	if c.maxLabels <= 0 {
		c.maxLabels = 10000
	}
	if c.inline == 0 {
		c.inline = inlineMax
	}
	if c.ckptRecs <= 0 {
		c.ckptRecs = maxLogRecs
	}
	if c.segMax <= 0 {
		c.segMax = segmentMax
	}
	if c.compactAt == 0 {
		c.compactAt = 8
	}
	for _, db := range m.Databases {
		for _, t := range db.Tables {
			if _, err := t.schema(mem); err != nil {
				return nil, err
			}
		}
		c.labels[db.ID] = map[string]labelInfo{}
		for _, l := range db.Labels {
			c.labels[db.ID][l.Label] = l
		}
	}
	if err := os.MkdirAll(c.walDir(), 0o755); err != nil {
		return nil, fmt.Errorf("internal catalog: %w", err)
	}
	if m.LogGen == 0 {
		// A new catalog, or one written before the commit log: start one.
		if err := c.checkpoint(c.clone()); err != nil {
			return nil, err
		}
	} else {
		lw, err := replayLog(c.walDir(), m.LogGen, func(r *logRecord) error {
			c.apply(r, true)
			return nil
		})
		if err != nil {
			return nil, err
		}
		c.log = lw
	}
	if err := c.checkLogSegments(); err != nil {
		c.log.close()
		return nil, err
	}
	c.txn.Store(max(c.m.NextTxn-1, 0))
	c.removeOrphans()
	c.garbage = nil
	c.collectLogs()
	if c.compactAt > 0 {
		c.wg.Add(1)
		go c.compactor()
	}
	if c.autoAnalyze > 0 {
		c.wg.Add(1)
		go c.analyzer()
		c.kickAnalyzer() // tables loaded before a restart
	}
	return c, nil
}

// checkLogSegments makes sure every segment kept inside a commit log lies
// within that log: a log cut short (truncated, or lost) after a checkpoint
// named its segments would otherwise start as if nothing were wrong and
// fail only when a scan reached the missing bytes.
func (c *Catalog) checkLogSegments() error {
	sizes := map[string]int64{}
	for _, d := range c.m.Databases {
		for _, t := range d.Tables {
			for _, f := range t.Files {
				if !f.Log {
					continue
				}
				p := filepath.Join(c.walDir(), f.Name)
				size, ok := sizes[f.Name]
				if !ok {
					st, err := os.Stat(p)
					if err != nil {
						return fmt.Errorf("%w: commit log %s, which holds rows of table %s.%s, is missing", ErrCorrupt, p, d.Name, t.Name)
					}
					size = st.Size()
					sizes[f.Name] = size
				}
				if f.Offset < 0 || f.Bytes < 0 || f.Offset+f.Bytes > size {
					return fmt.Errorf("%w: commit log %s has %d bytes, but rows of table %s.%s are at bytes %d..%d of it (the log was cut short)",
						ErrCorrupt, p, size, d.Name, t.Name, f.Offset, f.Offset+f.Bytes)
				}
			}
		}
	}
	return nil
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
	// Log generations past the current one are checkpoints that never
	// completed.
	logs, _ := os.ReadDir(c.walDir())
	for _, e := range logs {
		gen, err := strconv.ParseInt(strings.TrimSuffix(e.Name(), ".log"), 10, 64)
		if err != nil || gen > c.m.LogGen {
			os.Remove(filepath.Join(c.walDir(), e.Name()))
		}
	}
	for _, e := range ents {
		if e.Name() == filepath.Base(walDirName) {
			continue
		}
		files, ok := live[e.Name()]
		if !ok {
			c.logger.Info("internal catalog: removing orphan table directory", "dir", e.Name())
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

// Close implements catalog.Catalog: it stops the background compaction and
// closes the commit log. Every acknowledged commit is already durable.
func (c *Catalog) Close() error {
	c.closeOnce.Do(func() {
		close(c.stop)
		c.wg.Wait()
		c.mu.Lock()
		c.log.close()
		c.maps.close()
		c.broken = fmt.Errorf("internal catalog: closed")
		c.mu.Unlock()
	})
	return nil
}

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
	delete(c.labels, d.ID)
	for _, t := range d.Tables {
		c.maps.forget(c.tableDir(t.ID))
		os.RemoveAll(c.tableDir(t.ID))
	}
	return nil
}

// clone deep-copies the manifest so that a failed commit leaves the live one
// untouched.
func (c *Catalog) clone() *manifest {
	n := &manifest{Version: c.m.Version, NextID: c.m.NextID, NextTxn: c.m.NextTxn, NextSeq: c.m.NextSeq,
		LogGen: c.m.LogGen, Databases: make([]*dbManifest, len(c.m.Databases))}
	for i, d := range c.m.Databases {
		dc := *d
		dc.Properties = maps.Clone(d.Properties)
		dc.Labels = slices.Clone(d.Labels)
		dc.Tables = make([]*tableManifest, len(d.Tables))
		for j, t := range d.Tables {
			tc := *t
			tc.Files = slices.Clone(t.Files)
			tc.Deletes = slices.Clone(t.Deletes)
			dc.Tables[j] = &tc
		}
		n.Databases[i] = &dc
	}
	return n
}

// commit makes a DDL change durable: a checkpoint of the whole state.
func (c *Catalog) commit(next *manifest) error {
	if c.broken != nil {
		return c.broken
	}
	return c.checkpoint(next)
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

// SupportsUniqueKey implements catalog.UniqueKeyCreator.
func (d *Database) SupportsUniqueKey() bool { return true }

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
	tb := &Table{c: c, db: d, id: t.ID, name: t.Name, schema: s, arrow: s.Arrow(), spec: catalog.TableSpec{
		Name: t.Name, Schema: s, Comment: t.Comment, Properties: maps.Clone(t.Properties),
		KeysType: t.KeysType, KeyColumns: slices.Clone(t.KeyColumns), Distribution: t.Distribution,
	}}
	if isUnique(t.KeysType) {
		k, err := uniqueKeys(t.Name, s, t.KeyColumns, t.Distribution)
		if err != nil {
			return nil, err
		}
		tb.keys = &k
		tb.spec.PrimaryKey = slices.Clone(t.KeyColumns)
	}
	return tb, nil
}

// uniqueKeys finds the key columns of a UNIQUE KEY table: the KeyColumns
// named by UNIQUE KEY(...), or the columns marked Key.
func uniqueKeys(table string, s catalog.Schema, names []string, distribution string) (keyCoder, error) {
	k := keyCoder{buckets: bucketCount(distribution)}
	for _, n := range names {
		i := s.Index(n)
		if i < 0 {
			return keyCoder{}, catalog.Errorf(catalog.ErrNotFound, "table '%s': key column '%s' does not exist", table, n)
		}
		k.cols = append(k.cols, i)
	}
	if len(k.cols) == 0 {
		for i, c := range s.Columns {
			if c.Key {
				k.cols = append(k.cols, i)
			}
		}
	}
	if len(k.cols) == 0 {
		return keyCoder{}, catalog.Errorf(catalog.ErrUnsupported, "UNIQUE KEY table '%s' has no key columns", table)
	}
	return k, nil
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
	if isUnique(spec.KeysType) {
		k, err := uniqueKeys(spec.Name, spec.Schema, spec.KeyColumns, spec.Distribution)
		if err != nil {
			return nil, err
		}
		for _, i := range k.cols {
			switch spec.Schema.Columns[i].Type.ID() {
			case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
				// Doris's rule and text: equal keys must compare equal.
				return nil, catalog.Errorf(catalog.ErrUnsupported, "Float or double can not used as a key, use decimal instead.")
			}
		}
	}
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
				c.maps.forget(c.tableDir(t.ID))
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
	keys   *keyCoder // UNIQUE KEY tables only
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

// Append implements catalog.Writable: an unlabelled Load, so INSERT takes
// the same path as Stream Load (UNIQUE KEY merge, group commit).
func (t *Table) Append(ctx context.Context, r array.RecordReader) (int64, error) {
	res, err := t.Load(ctx, r, catalog.LoadOptions{})
	return res.Rows, err
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

// ScansRaw implements catalog.RawScanner: with ScanRequest.Raw, batches
// read from a mapped segment keep their string values in the mapping
// (each holds it by reference) instead of being copied out (detach).
func (t *Table) ScansRaw() bool { return true }

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
	files, dels, release, err := t.snapshot()
	if err != nil {
		return nil, err
	}
	out := t.schema.Projected(req.Columns).Arrow()
	zf := newZoneFilter(t.schema, req.Predicates)
	if zf != nil && t.keys == nil {
		// A segment none of whose batches can match is not even opened.
		files = slices.DeleteFunc(files, zf.skipsAll)
	}
	r := &fileScan{ctx: ctx, mem: req.Mem, c: t.c, tid: t.id, table: t.name, files: files, cols: req.Columns,
		pick: t.scanPick(req.Columns, dels), schema: out, full: t.arrow, keys: t.keys, release: release, dels: dels, cat: t.schema, ahead: scanParallelism(req.Vars), zf: zf, raw: req.Raw}
	if t.keys != nil {
		r.groups = bucketGroups(files, t.keys.buckets)
	}
	r.refs.Store(1)
	return r, nil
}

// scanPick is the columns a scan of cols decodes: cols, the UNIQUE KEY
// columns the merge compares, the columns DELETE predicates test; nil
// (every column) when cols is nil.
func (t *Table) scanPick(cols []int, dels []deletePred) *colPick {
	if cols == nil {
		return nil
	}
	need := make([]bool, len(t.schema.Columns))
	for _, c := range cols {
		need[c] = true
	}
	if t.keys != nil {
		for _, c := range t.keys.cols {
			need[c] = true
		}
	}
	for _, d := range dels {
		for _, p := range d.Preds {
			// An unknown column is reported by deleteMask.
			if i := t.schema.Index(p.Column); i >= 0 {
				need[i] = true
			}
		}
	}
	return newColPick(t.arrow, need)
}

// snapshot returns the table's current segments and a func to call when
// done reading them: until then, replaced files are kept.
func (t *Table) snapshot() ([]fileInfo, []deletePred, func(), error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	m, err := t.lookup()
	if err != nil {
		return nil, nil, nil, err
	}
	t.c.scans++
	var once sync.Once
	return slices.Clone(m.Files), slices.Clone(m.Deletes), func() { once.Do(t.c.scanDone) }, nil
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
	if t.keys != nil {
		// rows counts stored versions; the scan merges them to one per key.
		names := make([]string, len(t.keys.cols))
		for i, k := range t.keys.cols {
			names[i] = t.schema.Columns[k].Name
		}
		lines = append(lines, fmt.Sprintf("UNIQUE KEY(%s), buckets=%d, merge-on-read", strings.Join(names, ", "), t.keys.buckets))
	}
	if len(m.Deletes) > 0 {
		lines = append(lines, fmt.Sprintf("delete predicates=%d", len(m.Deletes)))
	}
	if verbose {
		for _, f := range m.Files {
			name := f.Name
			if f.Log {
				name = fmt.Sprintf("%s@%d", f.Name, f.Offset)
			}
			lines = append(lines, fmt.Sprintf("  file %s rows=%d bytes=%d", name, f.Rows, f.Bytes))
		}
	}
	return "LocalScanNode", lines, nil
}
