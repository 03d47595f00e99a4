package fluss

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// Table is one Fluss table as a query names it: the table itself, tbl$lake,
// tbl$log or tbl$changelog. The first three have exactly the table's columns
// and types; tbl$changelog has the metadata columns first. Its data
// is read through the planner and a BE (ScanTarget), never through Scan.
type Table struct {
	cat   *Catalog
	info  *client.TableInfo
	name  string // as resolved, with its $lake / $log suffix
	mode  ReadMode
	cols  []catalog.Column
	fcols []typemap.Column

	lakeMu sync.Mutex
	lake   *Lake
}

var (
	_ catalog.Table       = (*Table)(nil)
	_ catalog.Partitioned = (*Table)(nil)
	_ catalog.Described   = (*Table)(nil)
	_ catalog.Refresher   = (*Table)(nil)
	_ catalog.RowCounter  = (*Table)(nil)
	_ Targeted            = (*Table)(nil)
)

func newTable(c *Catalog, info *client.TableInfo, name string, mode ReadMode) (*Table, error) {
	o := typemap.EngineOptions{MapVarbinary: c.cfg.Options.MapVarbinary, MapTimestampTZ: c.cfg.Options.MapTimestampTZ}
	sc := info.Descriptor.Schema
	t := &Table{cat: c, info: info, name: name, mode: mode, fcols: sc.TypeColumns()}
	if mode == ReadBinlog {
		for i, mc := range record.BinlogColumns(t.fcols) {
			col := EngineColumn(mc.Name, mc.Type, "", o)
			col.Nullable, col.Key = i >= len(record.ChangelogColumns()), false
			t.cols = append(t.cols, col)
		}
		return t, nil
	}
	if mode == ReadChangelog {
		for _, mc := range record.ChangelogColumns() {
			col := EngineColumn(mc.Name, mc.Type, "", o)
			col.Nullable, col.Key = false, false
			t.cols = append(t.cols, col)
		}
	}
	for _, col := range sc.Columns {
		t.cols = append(t.cols, EngineColumn(col.Name, col.Type, col.Comment, o))
	}
	return t, nil
}

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Schema implements catalog.Table.
func (t *Table) Schema() catalog.Schema {
	cols := append([]catalog.Column(nil), t.cols...)
	switch t.mode {
	case ReadLog:
		// Doris describes the columns of a $log sys table with Extra NONE
		// (anchors §1.3); types stay those of the base table.
		for i := range cols {
			if cols[i].Extra == "" {
				cols[i].Extra = "NONE"
			}
		}
	case ReadLake:
		// tbl$lake is described by the Paimon table behind it, whose Extra
		// is the aggregation type: NONE on every column, the LTZ one
		// included (Doris's lake_only .out, desc_lake_types_lake).
		for i := range cols {
			cols[i].Extra = "NONE"
		}
	}
	return catalog.Schema{Columns: cols}
}

// Mode is the view this handle reads.
func (t *Table) Mode() ReadMode { return t.mode }

// Info is the table's metadata as the cluster reported it.
func (t *Table) Info() *client.TableInfo { return t.info }

// Scan implements catalog.Table. Fluss tables are planned into ranges and
// read by a BE; reaching Scan means a caller took the wrong path.
func (t *Table) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, catalog.Errorf(catalog.ErrUnsupported,
		"internal error: fluss table '%s' is read through the planner and a BE, not through Table.Scan", t.info.Path)
}

// ScanTarget implements Targeted. The returned value is the planner's own:
// slices and maps are copies.
func (t *Table) ScanTarget() *ScanTarget {
	opts := t.cat.cfg.Options
	opts.ClientOptions = maps.Clone(opts.ClientOptions)
	return &ScanTarget{
		Catalog:       t.cat.name,
		Path:          t.info.Path,
		Info:          t.info,
		Client:        t.cat.client,
		Mode:          t.mode,
		Columns:       append([]catalog.Column(nil), t.cols...),
		FlussColumns:  append([]typemap.Column(nil), t.fcols...),
		PartitionKeys: append([]string(nil), t.info.Descriptor.PartitionKeys...),
		Options:       opts,
		OpenLake:      t.openLake,
	}
}

// openLake opens (once per handle) the lake table behind this table. An
// Iceberg lake table is opened again each time: it is pinned to one
// metadata file, and the snapshot Fluss reports next may be in a newer one
// (a Paimon table reads its snapshots by id, so one handle sees them all).
func (t *Table) openLake(ctx context.Context) (*Lake, error) {
	t.lakeMu.Lock()
	defer t.lakeMu.Unlock()
	if t.lake != nil && t.lake.Iceberg == nil {
		return t.lake, nil
	}
	if !t.info.Descriptor.DatalakeEnabled() {
		return nil, catalog.Errorf(catalog.ErrUnsupported, "Table '%s' has no lake table: it is not created with table.datalake.enabled = true", t.info.Path)
	}
	l, err := t.cat.openLake(ctx, t.info)
	if err != nil {
		return nil, err
	}
	t.lake = l
	return l, nil
}

// PartitionColumns implements catalog.Partitioned.
func (t *Table) PartitionColumns() []string {
	return append([]string(nil), t.info.Descriptor.PartitionKeys...)
}

// Partitions implements catalog.Partitioned: the partitions Fluss holds, as
// k1=v1/k2=v2, in the order Fluss lists them; for tbl$lake the partitions
// the lake holds data for (those Fluss has dropped included), sorted. A
// table whose partition columns cannot be read fails, naming the column.
func (t *Table) Partitions(ctx context.Context) ([]string, error) {
	keys := t.info.Descriptor.PartitionKeys
	if len(keys) == 0 {
		return nil, nil
	}
	if t.mode == ReadLake {
		l, err := t.openLake(ctx)
		if err != nil {
			return nil, err
		}
		if l.Iceberg != nil {
			return icebergPartitionNames(ctx, l.Iceberg, keys)
		}
		parts, err := l.Table.PartitionNames(ctx)
		if err != nil {
			return nil, fmt.Errorf("list the lake partitions of %s: %w", t.info.Path, err)
		}
		return parts, nil
	}
	if err := checkPartitions(t.info.Path, keys, t.fcols, t.engineOptions()); err != nil {
		return nil, err
	}
	parts, err := t.cat.client.ListPartitionInfos(ctx, t.info.Path)
	if err != nil {
		return nil, t.cat.remote("list partitions of "+t.info.Path.String(), err)
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := PartitionName(p, keys, t.fcols)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (t *Table) engineOptions() typemap.EngineOptions {
	return typemap.EngineOptions{MapVarbinary: t.cat.cfg.Options.MapVarbinary, MapTimestampTZ: t.cat.cfg.Options.MapTimestampTZ}
}

// Spec implements catalog.Described: the table comment for SHOW CREATE
// TABLE. Properties are not shown (the spec: columns and comments only).
func (t *Table) Spec() catalog.TableSpec {
	return catalog.TableSpec{Name: t.name, Schema: t.Schema(), Comment: t.info.Descriptor.Comment,
		PrimaryKey: t.PrimaryKey()}
}

// PrimaryKey implements catalog.PrimaryKeyed: the key columns of a
// primary-key table, none for a log table. tbl$changelog has none: it holds
// every change of a key, so the key repeats.
func (t *Table) PrimaryKey() []string {
	if t.mode == ReadChangelog || t.mode == ReadBinlog {
		return nil
	}
	return slices.Clone(t.info.Descriptor.Schema.PrimaryKey)
}

// Refresh drops this table's cached metadata.
func (t *Table) Refresh(context.Context) error {
	c := t.cat
	c.mu.Lock()
	delete(c.infos, t.info.Path)
	c.mu.Unlock()
	return nil
}

// RowCount implements catalog.RowCounter from Fluss's table statistics: the
// sum of the buckets' row counts, or -1 when any bucket cannot count, the
// total is zero (statistics off reads as zero), the cluster cannot be asked,
// or the handle is tbl$log or tbl$changelog (the whole table's count would be wrong by orders
// of magnitude for the log tail).
func (t *Table) RowCount(ctx context.Context) (int64, error) {
	if t.mode == ReadLog || t.mode == ReadChangelog || t.mode == ReadBinlog {
		return -1, nil
	}
	var parts []*int64
	if len(t.info.Descriptor.PartitionKeys) == 0 {
		parts = []*int64{nil}
	} else {
		ps, err := t.cat.client.ListPartitionInfos(ctx, t.info.Path)
		if err != nil {
			return t.unknownCount(ctx, err)
		}
		for _, p := range ps {
			parts = append(parts, &p.ID)
		}
	}
	var total int64
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		stats, err := t.cat.client.GetTableStats(ctx, t.info.Path, p)
		if err != nil {
			if errors.Is(err, client.ErrPartitionNotExist) {
				continue // dropped since listed
			}
			return t.unknownCount(ctx, err)
		}
		for _, s := range stats {
			if !s.HasRowCount {
				return -1, nil
			}
			total += s.RowCount
		}
	}
	return total, nil
}

func (t *Table) unknownCount(ctx context.Context, err error) (int64, error) {
	if ctx.Err() != nil {
		return -1, ctx.Err()
	}
	t.cat.log.Warn("fluss table statistics unavailable", "catalog", t.cat.name, "table", t.info.Path.String(), "err", err)
	return -1, nil
}

// CanTimeTravel implements catalog.TimeTraveler: only tbl$lake has
// snapshots; the table itself (the union read) and tbl$log have none.
func (t *Table) CanTimeTravel() error {
	if t.mode == ReadLake {
		return nil
	}
	return catalog.Errorf(catalog.ErrUnsupported,
		"Time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on Fluss table '%s'; it is supported on its lake half only: query '%s$lake'",
		t.name, t.info.Path.Table)
}
