package fluss

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/colstats"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	icesys "github.com/inlet-db/inlet/catalog/iceberg/systable"
	"github.com/inlet-db/inlet/catalog/paimon/systable"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TypeName is the value of the 'type' property of a Fluss catalog.
const TypeName = "fluss"

// Type is the fluss catalog type for the registry.
func Type() catalog.Type {
	return catalog.Type{Name: TypeName, Validate: Validate, Open: Open}
}

// Catalog is an opened Fluss catalog. It is shared by all sessions and safe
// for concurrent use. It caches database and table listings and table
// metadata until a REFRESH; the lake configuration it serves is pinned by
// the first lake table it opens and survives REFRESH.
type Catalog struct {
	name   string
	cfg    *Config
	client *client.Client
	log    *slog.Logger

	mu     sync.Mutex
	dbs    []string                               // nil: not cached
	tables map[string][]string                    // by database
	infos  map[client.TablePath]*client.TableInfo // tables found

	lakeMu sync.Mutex
	lake   *lakeState

	stats *colstats.Store // ANALYZE TABLE's statistics, in the FE's meta dir
}

var (
	_ catalog.Catalog   = (*Catalog)(nil)
	_ catalog.Refresher = (*Catalog)(nil)
)

// Open builds a catalog from validated properties. It does not contact the
// cluster: a catalog whose cluster is down still loads, and its statements
// fail with an error naming the cluster.
func Open(_ context.Context, props map[string]string, env catalog.Env) (catalog.Catalog, error) {
	cfg, err := ParseProperties(props)
	if err != nil {
		return nil, err
	}
	log := env.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cl, err := client.New(cfg.Client, client.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("fluss catalog '%s': %w", env.Name, err)
	}
	statsDir := ""
	if env.DataDir != "" {
		statsDir = filepath.Join(env.DataDir, "stats")
	}
	return &Catalog{name: env.Name, cfg: cfg, client: cl, log: log,
		tables: map[string][]string{}, infos: map[client.TablePath]*client.TableInfo{},
		stats: colstats.OpenStore(statsDir)}, nil
}

// Type implements catalog.Catalog.
func (c *Catalog) Type() string { return TypeName }

// Config is the catalog's validated configuration.
func (c *Catalog) Config() *Config { return c.cfg }

// Client is the catalog's shared Fluss client.
func (c *Catalog) Client() *client.Client { return c.client }

// Close releases the client's connections.
func (c *Catalog) Close() error { return c.client.Close() }

// Refresh drops every cached listing and table; the lake configuration
// stays (see lakeState).
func (c *Catalog) Refresh(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dbs = nil
	c.tables = map[string][]string{}
	c.infos = map[client.TablePath]*client.TableInfo{}
	return nil
}

// remote wraps a failed cluster call with the catalog and the cluster it
// tried, so a down cluster reads as one and not as a missing object.
func (c *Catalog) remote(what string, err error) error {
	return fmt.Errorf("fluss catalog '%s' (fluss.bootstrap.servers %s): %s: %w", c.name,
		strings.Join(c.cfg.Client.BootstrapServers, ","), what, err)
}

// ListDatabases implements catalog.Catalog.
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	if c.dbs != nil {
		out := slices.Clone(c.dbs)
		c.mu.Unlock()
		return out, nil
	}
	c.mu.Unlock()
	dbs, err := c.client.ListDatabases(ctx)
	if err != nil {
		return nil, c.remote("list databases", err)
	}
	slices.Sort(dbs)
	c.mu.Lock()
	c.dbs = slices.Clone(dbs)
	c.mu.Unlock()
	return dbs, nil
}

// Database implements catalog.Catalog. A name missing from the cached
// listing is asked of the cluster, so a database created since the listing
// resolves without a REFRESH.
func (c *Catalog) Database(ctx context.Context, name string) (catalog.Database, error) {
	dbs, err := c.ListDatabases(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(dbs, name) {
		ok, err := c.client.DatabaseExists(ctx, name)
		if err != nil {
			return nil, c.remote("database "+name, err)
		}
		if !ok {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", name)
		}
	}
	return &Database{cat: c, name: name}, nil
}

// tableInfo returns the cached table metadata, fetching it on a miss.
func (c *Catalog) tableInfo(ctx context.Context, path client.TablePath) (*client.TableInfo, error) {
	c.mu.Lock()
	info := c.infos[path]
	c.mu.Unlock()
	if info != nil {
		return info, nil
	}
	info, err := c.client.GetTableInfo(ctx, path)
	if err != nil {
		if errors.Is(err, client.ErrTableNotExist) || errors.Is(err, client.ErrDatabaseNotExist) {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s.%s' doesn't exist", path.Database, path.Table)
		}
		return nil, c.remote("table "+path.String(), err)
	}
	if info.Descriptor == nil {
		return nil, fmt.Errorf("fluss catalog '%s': table %s: the cluster sent no table descriptor", c.name, path)
	}
	c.mu.Lock()
	c.infos[path] = info
	c.mu.Unlock()
	return info, nil
}

// Database is one Fluss database.
type Database struct {
	cat  *Catalog
	name string
}

var (
	_ catalog.Database  = (*Database)(nil)
	_ catalog.Refresher = (*Database)(nil)
)

// Name implements catalog.Database.
func (d *Database) Name() string { return d.name }

// Refresh drops the cached listing and tables of this database.
func (d *Database) Refresh(context.Context) error {
	c := d.cat
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tables, d.name)
	for p := range c.infos {
		if p.Database == d.name {
			delete(c.infos, p)
		}
	}
	return nil
}

// ListTables implements catalog.Database. Only tables are listed: tbl$lake
// and tbl$log are ways to read a table, not tables of their own.
func (d *Database) ListTables(ctx context.Context) ([]string, error) {
	c := d.cat
	c.mu.Lock()
	if ts, ok := c.tables[d.name]; ok {
		c.mu.Unlock()
		return slices.Clone(ts), nil
	}
	c.mu.Unlock()
	ts, err := c.client.ListTables(ctx, d.name)
	if err != nil {
		if errors.Is(err, client.ErrDatabaseNotExist) {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown database '%s'", d.name)
		}
		return nil, c.remote("list tables of "+d.name, err)
	}
	slices.Sort(ts)
	c.mu.Lock()
	c.tables[d.name] = slices.Clone(ts)
	c.mu.Unlock()
	return ts, nil
}

// Sys-table suffixes (Fluss names cannot contain '$').
const (
	sysLake      = "lake"
	sysLog       = "log"
	sysChangelog = "changelog"
	sysBinlog    = "binlog"
)

// Table implements catalog.Database: name is a table, its tbl$changelog, or
// tbl$lake / tbl$log of a lake-enabled table. Any other suffix, or a suffix on a table without
// a lake, is the engine's "Unknown sys table".
func (d *Database) Table(ctx context.Context, name string) (catalog.Table, error) {
	base, sys := name, ""
	i := strings.LastIndexByte(name, '$')
	isSys := i >= 0
	if isSys {
		base, sys = name[:i], name[i+1:]
	}
	path := client.TablePath{Database: d.name, Table: base}
	info, err := d.cat.tableInfo(ctx, path)
	if err != nil {
		return nil, err
	}
	mode := ReadDefault
	if isSys && sys == sysChangelog {
		// Every table has a log, so every table has a changelog, tiered or
		// not (Fluss's $changelog virtual table).
		return newTable(d.cat, info, name, ReadChangelog)
	}
	if isSys && sys == sysBinlog {
		// Only a primary-key table has update images to pair (Fluss's
		// $binlog virtual table is defined for primary-key tables only).
		if len(info.Descriptor.Schema.PrimaryKey) == 0 {
			return nil, catalog.Errorf(catalog.ErrUnsupported, "Table %s.%s is a log table: %s$binlog exists only for primary-key tables (%s$changelog reads its log)",
				d.name, base, base, base)
		}
		return newTable(d.cat, info, name, ReadBinlog)
	}
	if isSys {
		desc := info.Descriptor
		if desc.DatalakeEnabled() && sys == systable.SnapshotsSuffix {
			// tbl$snapshots lists the lake table's snapshots, the ids
			// tbl$lake FOR VERSION AS OF reads.
			lt, err := newTable(d.cat, info, base+"$"+sysLake, ReadLake)
			if err != nil {
				return nil, err
			}
			l0, err := lt.openLake(ctx)
			if err != nil {
				return nil, err
			}
			if l0.Iceberg != nil {
				// The Iceberg table's own snapshots, reopened at each scan
				// (an Iceberg lake handle is pinned to one metadata file).
				return icesys.NewSnapshots(name, func(ctx context.Context) (*iceberg.Table, error) {
					l, err := lt.openLake(ctx)
					if err != nil {
						return nil, err
					}
					if l.Iceberg == nil {
						return nil, fmt.Errorf("fluss: table %s: its lake is no longer Iceberg", path)
					}
					return l.Iceberg, nil
				}), nil
			}
			return systable.NewSnapshots(name, func(ctx context.Context) (*paimon.Table, error) {
				l, err := lt.openLake(ctx)
				if err != nil {
					return nil, err
				}
				return l.Table, nil
			}), nil
		}
		switch {
		case !desc.DatalakeEnabled() || (sys != sysLake && sys != sysLog):
			return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown sys table '%s'", name)
		case sys == sysLog && desc.HasPrimaryKey():
			return nil, catalog.Errorf(catalog.ErrUnsupported,
				"Table '%s' has a primary key, so its log past the lake snapshot is a change stream rather than a set of rows and cannot be read as '$log'. "+
					"Query '%s' itself for the merged view, or set '%s' to disabled to read the whole table from fluss alone.",
				path, base, PropUnionReadMode)
		case sys == sysLog:
			mode = ReadLog
		default:
			mode = ReadLake
		}
	}
	t, err := newTable(d.cat, info, name, mode)
	if err != nil {
		return nil, err
	}
	if mode == ReadLake {
		// Resolved now, as Doris resolves the lake handle: a lake table that
		// cannot be found fails DESC and SELECT alike, naming the cause.
		if _, err := t.openLake(ctx); err != nil {
			return nil, err
		}
	}
	return t, nil
}
