package fluss

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg"
)

// tableIcebergPrefix is where the coordinator copies its datalake.iceberg.*
// settings into a lake table's properties.
const tableIcebergPrefix = "table.datalake.iceberg."

// icebergCatalogTypes are Iceberg catalog types Fluss's tiering can use
// (datalake.iceberg.type); only hadoop (a filesystem catalog) is read.
var icebergCatalogTypes = map[string]bool{"hadoop": true, "rest": true, "hive": true, "glue": true, "jdbc": true, "nessie": true}

// checkIcebergOverrides refuses at CREATE what is not an Iceberg setting
// at all; a real catalog type this engine cannot serve is refused when a
// statement reads the lake, naming it.
func checkIcebergOverrides(o map[string]string) error {
	if v, ok := o["type"]; ok {
		if t := strings.ToLower(strings.TrimSpace(v)); t != "" && !icebergCatalogTypes[t] {
			return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%stype'; expected one of hadoop, rest, hive, glue, jdbc, nessie", v, IcebergLakePrefix)
		}
	}
	if v, ok := o["warehouse"]; ok {
		if err := checkWarehouseScheme(v, "property '"+IcebergLakePrefix+"warehouse'"); err != nil {
			return err
		}
	}
	return nil
}

// openIcebergLake opens the Iceberg table behind a Fluss table tiered with
// datalake.format=iceberg: the Hadoop-catalog table <warehouse>/<db>/<table>.
func (c *Catalog) openIcebergLake(ctx context.Context, info *client.TableInfo) (*Lake, error) {
	path := info.Path
	cluster := map[string]string{}
	for k, v := range info.Descriptor.Properties {
		if strings.HasPrefix(k, tableIcebergPrefix) {
			cluster[strings.TrimPrefix(k, tableIcebergPrefix)] = v
		}
	}
	s := resolveStorage(cluster, c.cfg.IcebergOverrides)
	merged := maps.Clone(cluster)
	maps.Copy(merged, c.cfg.IcebergOverrides)
	typ := strings.ToLower(strings.TrimSpace(merged["type"]))
	if typ == "" {
		typ = "hadoop"
	}
	if typ != "hadoop" {
		return nil, catalog.Errorf(catalog.ErrUnsupported,
			"Cannot read the lake table of '%s': its Iceberg catalog type is '%s', and only 'hadoop' (a filesystem warehouse) is read; set '%stype' and '%swarehouse' to read the warehouse directly",
			path, typ, IcebergLakePrefix, IcebergLakePrefix)
	}
	s.warehouse = strings.TrimSpace(merged["warehouse"])
	if s.warehouse == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty,
			"Table '%s' has no lake warehouse: the fluss cluster reports no datalake.iceberg.warehouse and the catalog sets no '%swarehouse'",
			path, IcebergLakePrefix)
	}
	if err := checkWarehouseScheme(s.warehouse, "lake setting 'warehouse' of table '"+path.String()+"'"); err != nil {
		return nil, err
	}
	// The pinned configuration tells the formats apart.
	s.paimon = map[string]string{"datalake.format": "iceberg"}
	for k, v := range merged {
		s.paimon["iceberg."+k] = v
	}
	fs, err := c.lakeFS(s)
	if err != nil {
		return nil, err
	}
	dir := fileio.Join(s.warehouse, path.Database, path.Table)
	t, err := iceberg.OpenDir(ctx, fs, dir)
	if err != nil {
		if errors.Is(err, iceberg.ErrNotFound) || fileio.IsNotExist(err) {
			return nil, fmt.Errorf("the Iceberg lake table of '%s' does not exist at %s: %w there with this catalog's lake settings. "+
				"Check that '%swarehouse' (or the cluster's datalake.iceberg.warehouse) points to the warehouse the fluss cluster tiers into",
				path, dir, ErrNothingTiered, IcebergLakePrefix)
		}
		return nil, fmt.Errorf("the Iceberg lake table of '%s' at %s: %w", path, dir, err)
	}
	t.Name = path.String() + " (lake " + dir + ")"
	return &Lake{Iceberg: t, FS: fs, TablePath: dir, StorageOptions: maps.Clone(s.storage)}, nil
}

// icebergPartitionNames lists the partitions an Iceberg lake holds data
// for at its current snapshot, as k1=v1/k2=v2, sorted.
func icebergPartitionNames(ctx context.Context, t *iceberg.Table, keys []string) ([]string, error) {
	plan, err := t.Plan(ctx, iceberg.ScanOptions{})
	if err != nil {
		return nil, fmt.Errorf("list the lake partitions of %s: %w", t.Name, err)
	}
	seen := map[string]bool{}
	for _, sp := range plan.Splits {
		if !sp.FlussLayoutOK || len(sp.FlussPartition) != len(keys) {
			return nil, fmt.Errorf("list the lake partitions of %s: data file %s is not laid out as Fluss tiers (partition %s)", t.Name, sp.Path, sp.Partition)
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + sp.FlussPartition[i]
		}
		seen[strings.Join(parts, "/")] = true
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}
