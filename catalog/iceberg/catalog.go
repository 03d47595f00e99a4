package iceberg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/iceberg/systable"
	cpaimon "github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/iceberg"
)

// TypeName is the value of the 'type' property of an Iceberg catalog.
const TypeName = "iceberg"

// Property names (Doris's).
const (
	PropCatalogType = "iceberg.catalog.type"
	PropWarehouse   = "warehouse"
	PropURI         = "uri"
	// PropRESTCredential is an OAuth2 client credential ("id:secret" or
	// a secret) exchanged at the REST server's token endpoint;
	// PropRESTToken a bearer token used as is. Neither is ever printed.
	PropRESTCredential = "iceberg.rest.oauth2.credential"
	PropRESTToken      = "iceberg.rest.oauth2.token"
)

// Catalog kinds ('iceberg.catalog.type').
const (
	kindHadoop = "hadoop"
	kindREST   = "rest"
)

// Type is the iceberg catalog type for the registry.
func Type() catalog.Type {
	return catalog.Type{Name: TypeName, Validate: Validate, Check: Check, Open: Open}
}

type config struct {
	kind      string
	warehouse string // hadoop: the warehouse; rest: the warehouse asked for (optional)
	uri       string // rest: the server's base URI
	cred      string // rest: OAuth2 credential
	token     string // rest: bearer token
	storage   map[string]string
}

// Validate checks an iceberg catalog's properties without I/O.
func Validate(props map[string]string) error {
	_, err := parse(props)
	return err
}

func parse(props map[string]string) (*config, error) {
	kind := strings.ToLower(strings.TrimSpace(props[PropCatalogType]))
	switch kind {
	case kindHadoop, kindREST:
	case "":
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Required property '%s' is missing; expected hadoop or rest", PropCatalogType)
	case "hms", "glue", "dlf", "jdbc", "s3tables":
		return nil, catalog.Errorf(catalog.ErrUnsupported, "Iceberg catalog type '%s' (property '%s') is not supported yet: only hadoop and rest are", kind, PropCatalogType)
	default:
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected hadoop or rest", props[PropCatalogType], PropCatalogType)
	}
	storage, err := cpaimon.StorageOptions(props)
	if err != nil {
		return nil, err
	}
	wh := strings.TrimRight(strings.TrimSpace(props[PropWarehouse]), "/")
	if kind == kindREST {
		return parseREST(props, wh, storage)
	}
	if wh == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Required property '%s' is missing", PropWarehouse)
	}
	switch fileio.Scheme(wh) {
	case "", "file", "s3", "s3a", "s3n":
	default:
		return nil, catalog.Errorf(catalog.ErrUnsupported, "Warehouse '%s' is not supported: only local paths and s3:// locations can be read", wh)
	}
	return &config{kind: kind, warehouse: wh, storage: storage}, nil
}

// Check refuses a catalog whose local warehouse does not exist or is not a
// directory; an s3:// warehouse is checked by the first query.
func Check(ctx context.Context, props map[string]string) error {
	cfg, err := parse(props)
	if err != nil {
		return err
	}
	if cfg.kind == kindREST {
		return checkREST(ctx, cfg)
	}
	switch fileio.Scheme(cfg.warehouse) {
	case "", "file":
	default:
		return nil
	}
	st, err := os.Stat(fileio.LocalPath(cfg.warehouse))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return catalog.Errorf(catalog.ErrInvalidProperty, "Iceberg warehouse '%s' does not exist", cfg.warehouse)
	case err != nil:
		return catalog.Errorf(catalog.ErrInvalidProperty, "Iceberg warehouse '%s' cannot be read: %v", cfg.warehouse, errors.Unwrap(err))
	case !st.IsDir():
		return catalog.Errorf(catalog.ErrInvalidProperty, "Iceberg warehouse '%s' is not a directory", cfg.warehouse)
	}
	return nil
}

// Catalog is an opened Iceberg catalog: a Hadoop warehouse, or a REST
// catalog server (rest.go).
type Catalog struct {
	name string
	cfg  *config
	fs   fileio.FS
	rest restConn
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
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "iceberg catalog '%s': %v", env.Name, err)
	}
	return &Catalog{name: env.Name, cfg: cfg, fs: fs}, nil
}

// Type implements catalog.Catalog.
func (c *Catalog) Type() string { return TypeName }

// Close implements catalog.Catalog.
func (c *Catalog) Close() error { return c.rest.close() }

func (c *Catalog) list(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	l, ok := c.fs.(fileio.Lister)
	if !ok {
		return nil, fmt.Errorf("iceberg catalog '%s': the file system of %s cannot list", c.name, dir)
	}
	ents, err := l.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("iceberg catalog '%s': list %s: %w", c.name, dir, err)
	}
	return ents, nil
}

// ListDatabases lists the warehouse's namespace directories (those that
// are not tables themselves).
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	if c.cfg.kind == kindREST {
		return c.restDatabases(ctx)
	}
	ents, err := c.list(ctx, c.cfg.warehouse)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir && !strings.HasPrefix(e.Name, ".") && !lake.IsTableDir(ctx, c.fs, e.Path) {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Database implements catalog.Catalog.
func (c *Catalog) Database(ctx context.Context, name string) (catalog.Database, error) {
	if c.cfg.kind == kindREST {
		return c.restDatabase(ctx, name)
	}
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(dbs, name) {
		return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
	}
	return &Database{cat: c, name: name}, nil
}

// Database is one namespace directory.
type Database struct {
	cat  *Catalog
	name string
}

// Name implements catalog.Database.
func (d *Database) Name() string { return d.name }

func (d *Database) dir() string { return fileio.Join(d.cat.cfg.warehouse, d.name) }

// ListTables lists the directories holding Iceberg metadata.
func (d *Database) ListTables(ctx context.Context) ([]string, error) {
	if d.cat.cfg.kind == kindREST {
		return d.restTables(ctx)
	}
	ents, err := d.cat.list(ctx, d.dir())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.IsDir && lake.IsTableDir(ctx, d.cat.fs, e.Path) {
			out = append(out, e.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Table implements catalog.Database. Of Iceberg's metadata tables only
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
	var t *lake.Table
	var err error
	if d.cat.cfg.kind == kindREST {
		t, err = d.restTable(ctx, name)
	} else {
		t, err = lake.OpenDir(ctx, d.cat.fs, fileio.Join(d.dir(), name))
	}
	if err != nil {
		if errors.Is(err, lake.ErrNotFound) || fileio.IsNotExist(err) {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", d.name, name)
		}
		return nil, fmt.Errorf("iceberg catalog '%s': table %s.%s: %w", d.cat.name, d.name, name, err)
	}
	t.Name = d.name + "." + name
	fields, err := t.Fields()
	if err != nil {
		return nil, catalog.Errorf(catalog.ErrUnsupported, "iceberg catalog '%s': %v", d.cat.name, err)
	}
	tb := &Table{cat: d.cat, db: d.name, name: name, lake: t}
	for _, f := range fields {
		tb.cols = append(tb.cols, cpaimon.EngineColumn(f))
	}
	return tb, nil
}

// Table is one Iceberg table as of its current metadata file. Its data is
// read through the planner and a BE (IcebergTarget), never through Scan.
type Table struct {
	cat      *Catalog
	db, name string
	lake     *lake.Table
	cols     []catalog.Column
}

var (
	_ catalog.Table        = (*Table)(nil)
	_ catalog.Partitioned  = (*Table)(nil)
	_ catalog.TimeTraveler = (*Table)(nil)
	_ Targeted             = (*Table)(nil)
)

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Schema implements catalog.Table.
func (t *Table) Schema() catalog.Schema {
	return catalog.Schema{Columns: append([]catalog.Column(nil), t.cols...)}
}

// Scan implements catalog.Table; Iceberg tables are read by a BE.
func (t *Table) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, catalog.Errorf(catalog.ErrUnsupported,
		"internal error: iceberg table '%s.%s' is read through the planner and a BE, not through Table.Scan", t.db, t.name)
}

// PartitionColumns implements catalog.Partitioned: the identity-partition
// source columns of the current spec.
func (t *Table) PartitionColumns() []string { return t.lake.PartitionColumns() }

// Partitions implements catalog.Partitioned; partitions are not listed.
func (t *Table) Partitions(context.Context) ([]string, error) { return nil, nil }

// CanTimeTravel implements catalog.TimeTraveler: Iceberg tables keep
// snapshots, branches and tags.
func (t *Table) CanTimeTravel() error { return nil }

// ScanTarget is what an Iceberg catalog table hands the planner.
type ScanTarget struct {
	Catalog, Database, Table string
	Lake                     *lake.Table
	// StorageOptions configure fileio on the BE. May hold secrets.
	StorageOptions map[string]string
	// Columns are the engine columns in the table schema's order.
	Columns []catalog.Column
}

// Targeted is implemented by this catalog's tables.
type Targeted interface {
	IcebergTarget() *ScanTarget
}

// IcebergTarget implements Targeted.
func (t *Table) IcebergTarget() *ScanTarget {
	st := &ScanTarget{Catalog: t.cat.name, Database: t.db, Table: t.name, Lake: t.lake,
		StorageOptions: map[string]string{}, Columns: append([]catalog.Column(nil), t.cols...)}
	for k, v := range t.cat.cfg.storage {
		st.StorageOptions[k] = v
	}
	return st
}
