package paimon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	"github.com/inlet-db/inlet/catalog/paimon/systable"
	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

// TypeName is the value of the 'type' property of a Paimon catalog.
const TypeName = "paimon"

// Property names.
const (
	PropWarehouse = "warehouse"
	// PropCatalogType is Doris' name for the metastore; only filesystem is
	// served.
	PropCatalogType    = "paimon.catalog.type"
	PropMetastore      = "metastore"
	PropMapVarbinary   = "enable.mapping.varbinary"
	PropMapTimestampTZ = "enable.mapping.timestamp_tz"
)

// Type is the paimon catalog type for the registry.
func Type() catalog.Type {
	return catalog.Type{Name: TypeName, Validate: Validate, Check: Check, Open: Open}
}

// Check refuses a catalog whose local warehouse does not exist or is not a
// directory, naming the path. An s3:// warehouse is not contacted here: the
// store may be down at CREATE time and come up later, so it is checked by
// the first query, like a Fluss cluster.
func Check(_ context.Context, props map[string]string) error {
	cfg, err := parse(props)
	if err != nil {
		return err
	}
	switch fileio.Scheme(cfg.warehouse) {
	case "", "file":
	default:
		return nil
	}
	st, err := os.Stat(fileio.LocalPath(cfg.warehouse))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return catalog.Errorf(catalog.ErrInvalidProperty, "Paimon warehouse '%s' does not exist", cfg.warehouse)
	case err != nil:
		return catalog.Errorf(catalog.ErrInvalidProperty, "Paimon warehouse '%s' cannot be read: %v", cfg.warehouse, errors.Unwrap(err))
	case !st.IsDir():
		return catalog.Errorf(catalog.ErrInvalidProperty, "Paimon warehouse '%s' is not a directory", cfg.warehouse)
	}
	return nil
}

// config is a validated property map.
type config struct {
	warehouse string
	storage   map[string]string // engine storage names, may hold secrets
	opts      typeOptions
}

// Validate checks a paimon catalog's properties without I/O.
func Validate(props map[string]string) error {
	_, err := parse(props)
	return err
}

func parse(props map[string]string) (*config, error) {
	wh := strings.TrimRight(strings.TrimSpace(props[PropWarehouse]), "/")
	if wh == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Required property '%s' is missing", PropWarehouse)
	}
	switch fileio.Scheme(wh) {
	case "", "file", "s3", "s3a", "s3n", "oss", "obs":
	default:
		return nil, catalog.Errorf(catalog.ErrUnsupported, "Warehouse '%s' is not supported: only local paths and s3://, oss:// and obs:// locations can be read", wh)
	}
	for _, name := range []string{PropCatalogType, PropMetastore} {
		switch v := strings.ToLower(strings.TrimSpace(props[name])); v {
		case "", "filesystem":
		case "hive", "rest", "dlf", "jdbc":
			return nil, catalog.Errorf(catalog.ErrUnsupported, "Paimon metastore '%s' (property '%s') is not supported yet: only the filesystem metastore is", v, name)
		default:
			return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected filesystem", props[name], name)
		}
	}
	var o typeOptions
	var err error
	if o.varbinary, err = boolProp(props, PropMapVarbinary); err != nil {
		return nil, err
	}
	if o.timestampTZ, err = boolProp(props, PropMapTimestampTZ); err != nil {
		return nil, err
	}
	storage, err := StorageOptions(props)
	if err != nil {
		return nil, err
	}
	return &config{warehouse: wh, storage: storage, opts: o}, nil
}

// StorageOptions translates a catalog's S3 properties to the engine names
// fileio and the BE take (s3.endpoint, s3.access_key, ...; may hold
// secrets). The Iceberg catalog takes the same properties.
func StorageOptions(props map[string]string) (map[string]string, error) {
	s3, err := fileio.S3ConfigFromProperties(props)
	if err != nil {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "%v", err)
	}
	storage := map[string]string{}
	for k, v := range map[string]string{"s3.endpoint": s3.Endpoint, "s3.region": s3.Region, "s3.access_key": s3.AccessKey,
		"s3.secret_key": s3.SecretKey, "s3.session_token": s3.SessionToken} {
		if v != "" {
			storage[k] = v
		}
	}
	if s3.PathStyle {
		storage["use_path_style"] = "true"
	}
	// OSS and OBS under Doris's names (oss.endpoint, oss.access_key, ...).
	for _, store := range []string{"oss.", "obs."} {
		for _, k := range []string{"endpoint", "region", "access_key", "secret_key", "session_token"} {
			if v := strings.TrimSpace(props[store+k]); v != "" {
				storage[store+k] = v
			}
		}
	}
	return storage, nil
}

func boolProp(props map[string]string, name string) (bool, error) {
	v := strings.TrimSpace(props[name])
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected true or false", v, name)
	}
	return b, nil
}

// Catalog is an opened Paimon catalog over one warehouse. It caches no
// metadata that can change (only the creation time of tables' first
// schemas, which cannot): every call reads the warehouse, so it is always
// current and safe for concurrent use.
type Catalog struct {
	name  string
	cfg   *config
	fs    fileio.FS
	stats *colstats.Store // ANALYZE TABLE's statistics, in the FE's meta dir
	log   *slog.Logger

	tagMu sync.Mutex
	tags  map[tagKey]string // Table.statsTag of tables altered since creation
}

var _ catalog.Catalog = (*Catalog)(nil)

// Open builds the catalog; it does not touch the warehouse.
func Open(_ context.Context, props map[string]string, env catalog.Env) (catalog.Catalog, error) {
	cfg, err := parse(props)
	if err != nil {
		return nil, err
	}
	fs, err := fileio.New(cfg.storage)
	if err != nil {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "paimon catalog '%s': %v", env.Name, err)
	}
	statsDir := ""
	if env.DataDir != "" {
		statsDir = filepath.Join(env.DataDir, "stats")
	}
	log := env.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Catalog{name: env.Name, cfg: cfg, fs: fs, stats: colstats.OpenStore(statsDir), log: log,
		tags: map[tagKey]string{}}, nil
}

// Type implements catalog.Catalog.
func (c *Catalog) Type() string { return TypeName }

// Close implements catalog.Catalog.
func (c *Catalog) Close() error { return nil }

func (c *Catalog) list(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	l, ok := c.fs.(fileio.Lister)
	if !ok {
		return nil, fmt.Errorf("paimon catalog '%s': the file system of %s cannot list", c.name, dir)
	}
	ents, err := l.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("paimon catalog '%s': list %s: %w", c.name, dir, err)
	}
	return ents, nil
}

// ListDatabases lists the <name>.db directories of the warehouse.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	ents, err := c.list(ctx, c.cfg.warehouse)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir && strings.HasSuffix(e.Name, ".db") && len(e.Name) > len(".db") {
			out = append(out, strings.TrimSuffix(e.Name, ".db"))
		}
	}
	slices.Sort(out)
	return out, nil
}

// Database implements catalog.Catalog.
func (c *Catalog) Database(ctx context.Context, name string) (catalog.Database, error) {
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(dbs, name) {
		return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
	}
	return &Database{cat: c, name: name}, nil
}

// Database is one <name>.db directory.
type Database struct {
	cat  *Catalog
	name string
}

// Name implements catalog.Database.
func (d *Database) Name() string { return d.name }

func (d *Database) dir() string { return fileio.Join(d.cat.cfg.warehouse, d.name+".db") }

// ListTables lists the table directories that hold a schema.
func (d *Database) ListTables(ctx context.Context) ([]string, error) {
	ents, err := d.cat.list(ctx, d.dir())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.IsDir {
			continue
		}
		schemas, err := d.cat.list(ctx, fileio.Join(d.dir(), e.Name, "schema"))
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(schemas, func(f fileio.FileInfo) bool { return !f.IsDir && strings.HasPrefix(f.Name, "schema-") }) {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Table implements catalog.Database. Of Paimon's system tables only
// tbl$snapshots is served.
func (d *Database) Table(ctx context.Context, name string) (catalog.Table, error) {
	if i := strings.IndexByte(name, '$'); i >= 0 {
		if name[i+1:] != systable.SnapshotsSuffix {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown sys table '%s'", name)
		}
		base, err := d.Table(ctx, name[:i])
		if err != nil {
			return nil, err
		}
		lt := base.(*Table).lake
		return systable.NewSnapshots(name, func(context.Context) (*lake.Table, error) { return lt, nil }), nil
	}
	path := fileio.Join(d.dir(), name)
	t, err := lake.OpenTable(ctx, d.cat.fs, path)
	if err != nil {
		if errors.Is(err, lake.ErrNotFound) || fileio.IsNotExist(err) {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", d.name, name)
		}
		return nil, fmt.Errorf("paimon catalog '%s': table %s.%s: %w", d.cat.name, d.name, name, err)
	}
	schema, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("paimon catalog '%s': table %s.%s: %w", d.cat.name, d.name, name, err)
	}
	tb := &Table{cat: d.cat, db: d.name, name: name, lake: t, path: path, schema: schema}
	for _, f := range schema.Fields {
		tb.cols = append(tb.cols, engineColumn(f, d.cat.cfg.opts))
	}
	return tb, nil
}

// Table is one Paimon table. Its data is read through the planner and a BE
// (PaimonTarget), never through Scan.
type Table struct {
	cat      *Catalog
	db, name string
	lake     *lake.Table
	path     string
	schema   *lake.TableSchema
	cols     []catalog.Column
}

var (
	_ catalog.Table       = (*Table)(nil)
	_ catalog.Partitioned = (*Table)(nil)
	_ catalog.Described   = (*Table)(nil)
	_ Targeted            = (*Table)(nil)
	_ catalog.RowCounter  = (*Table)(nil)
)

// RowCount implements catalog.RowCounter from the latest snapshot's
// totalRecordCount (one small JSON file; no manifest is read). For a
// primary-key table it counts stored records, not merged rows: a planning
// hint. -1 when there is no snapshot or it has no count (old writers).
func (t *Table) RowCount(ctx context.Context) (int64, error) {
	id, err := t.lake.LatestSnapshotID(ctx)
	if err != nil || id == 0 {
		return -1, nil
	}
	snap, err := t.lake.Snapshot(ctx, id)
	if err != nil || snap.TotalRecordCount == nil {
		return -1, nil
	}
	return *snap.TotalRecordCount, nil
}

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Schema implements catalog.Table.
func (t *Table) Schema() catalog.Schema {
	return catalog.Schema{Columns: append([]catalog.Column(nil), t.cols...)}
}

// Scan implements catalog.Table; Paimon catalog tables are read by a BE.
func (t *Table) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, catalog.Errorf(catalog.ErrUnsupported,
		"internal error: paimon table '%s.%s' is read through the planner and a BE, not through Table.Scan", t.db, t.name)
}

// PaimonTarget implements Targeted.
func (t *Table) PaimonTarget() *ScanTarget {
	st := &ScanTarget{Catalog: t.cat.name, Database: t.db, Table: t.name, Lake: t.lake, FS: t.cat.fs, TablePath: t.path,
		StorageOptions: map[string]string{}, Columns: append([]catalog.Column(nil), t.cols...),
		PartitionKeys: append([]string(nil), t.schema.PartitionKeys...)}
	for k, v := range t.cat.cfg.storage {
		st.StorageOptions[k] = v
	}
	return st
}

// Spec implements catalog.Described: the table comment.
func (t *Table) Spec() catalog.TableSpec {
	return catalog.TableSpec{Name: t.name, Schema: t.Schema(), Comment: t.schema.Comment,
		PrimaryKey: slices.Clone(t.schema.PrimaryKeys)}
}

// PartitionColumns implements catalog.Partitioned.
func (t *Table) PartitionColumns() []string { return append([]string(nil), t.schema.PartitionKeys...) }

// Partitions implements catalog.Partitioned: the partitions holding live
// files in the latest snapshot, as k1=v1/k2=v2, sorted.
func (t *Table) Partitions(ctx context.Context) ([]string, error) {
	if len(t.schema.PartitionKeys) == 0 {
		return nil, nil
	}
	out, err := t.lake.PartitionNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s.%s: %w", t.db, t.name, err)
	}
	return out, nil
}

// CanTimeTravel implements catalog.TimeTraveler: every Paimon table keeps
// snapshots and tags.
func (t *Table) CanTimeTravel() error { return nil }
