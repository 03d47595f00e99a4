package fluss

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// ErrNothingTiered marks a lake table that cannot be found with the current
// lake settings: nothing has been tiered to where the catalog looks (usually
// a fluss.lake.paimon.warehouse that is not the cluster's).
var ErrNothingTiered = errors.New("nothing has been tiered")

// ErrLakeConfigChanged marks a table whose lake settings differ from those
// the catalog already serves lake tables with.
var ErrLakeConfigChanged = errors.New("lake configuration changed")

// tableLakePrefix is where the coordinator copies its datalake.paimon.*
// settings into a lake table's properties (minus anything that looks like a
// credential).
const tableLakePrefix = "table.datalake.paimon."

// storageKeys translates Paimon / Hadoop storage option names (lower case)
// to the engine storage names fileio and the BE read. The spec's "Lake
// Connection Settings" table.
var storageKeys = map[string]string{
	"s3.access-key":            "s3.access_key",
	"s3.access.key":            "s3.access_key",
	"fs.s3a.access.key":        "s3.access_key",
	"s3.secret-key":            "s3.secret_key",
	"s3.secret.key":            "s3.secret_key",
	"fs.s3a.secret.key":        "s3.secret_key",
	"s3.session-token":         "s3.session_token",
	"s3.session.token":         "s3.session_token",
	"fs.s3a.session.token":     "s3.session_token",
	"s3.endpoint":              "s3.endpoint",
	"fs.s3a.endpoint":          "s3.endpoint",
	"s3.region":                "s3.region",
	"fs.s3a.endpoint.region":   "s3.region",
	"s3.path-style-access":     "use_path_style",
	"s3.path.style.access":     "use_path_style",
	"fs.s3a.path.style.access": "use_path_style",
	"fs.oss.accesskeyid":       "oss.access_key",
	"fs.oss.accesskeysecret":   "oss.secret_key",
	"fs.oss.endpoint":          "oss.endpoint",
	"fs.obs.access.key":        "obs.access_key",
	"fs.obs.access-key":        "obs.access_key",
	"fs.obs.secret.key":        "obs.secret_key",
	"fs.obs.secret-key":        "obs.secret_key",
	"fs.obs.endpoint":          "obs.endpoint",
	// Doris's own names pass through.
	"oss.endpoint":      "oss.endpoint",
	"oss.access_key":    "oss.access_key",
	"oss.secret_key":    "oss.secret_key",
	"oss.session_token": "oss.session_token",
	"oss.region":        "oss.region",
	"obs.endpoint":      "obs.endpoint",
	"obs.access_key":    "obs.access_key",
	"obs.secret_key":    "obs.secret_key",
	"obs.session_token": "obs.session_token",
	"obs.region":        "obs.region",
	"use_path_style":    "use_path_style",
}

// lakeSettings is the lake connection of one table: the cluster's
// datalake.paimon.* (from the table's properties) with the catalog's
// overrides applied key by key.
type lakeSettings struct {
	// paimon is the merged Paimon option map (Paimon spellings); it is what
	// "a different paimon configuration" compares.
	paimon    map[string]string
	warehouse string
	metastore string
	// storage holds the storage options under engine names.
	storage map[string]string
}

// resolveLakeSettings merges cluster-reported settings and overrides and
// translates the storage half. Storage options are translated separately
// for each source and the overrides win at the engine name too, so
// overriding s3.endpoint also replaces a cluster fs.s3a.endpoint.
func resolveLakeSettings(path client.TablePath, tableProps, overrides map[string]string) (*lakeSettings, error) {
	cluster := map[string]string{}
	for k, v := range tableProps {
		if strings.HasPrefix(k, tableLakePrefix) {
			cluster[strings.TrimPrefix(k, tableLakePrefix)] = v
		}
	}
	merged := maps.Clone(cluster)
	maps.Copy(merged, overrides)
	s := resolveStorage(cluster, overrides)
	s.paimon = merged
	s.warehouse = strings.TrimSpace(merged["warehouse"])
	s.metastore = strings.TrimSpace(merged["metastore"])
	if err := checkMetastore(s.metastore, "lake setting 'metastore' of table '"+path.String()+"'"); err != nil {
		return nil, err
	}
	if s.warehouse == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty,
			"Table '%s' has no lake warehouse: the fluss cluster reports no datalake.paimon.warehouse and the catalog sets no '%swarehouse'",
			path, LakePrefix)
	}
	if err := checkWarehouseScheme(s.warehouse, "lake setting 'warehouse' of table '"+path.String()+"'"); err != nil {
		return nil, err
	}
	return s, nil
}

// resolveStorage translates the storage half of cluster settings and
// overrides to engine names. Each source is translated separately and the
// overrides win at the engine name too, so overriding s3.endpoint also
// replaces a cluster fs.s3a.endpoint.
func resolveStorage(cluster, overrides map[string]string) *lakeSettings {
	s := &lakeSettings{storage: map[string]string{}}
	for _, src := range []map[string]string{cluster, overrides} {
		for _, k := range sortedKeys(src) {
			l := strings.ToLower(k)
			if to, ok := storageKeys[l]; ok {
				s.storage[to] = src[k]
			} else if strings.HasPrefix(l, "fs.") || strings.HasPrefix(l, "dfs.") || strings.HasPrefix(l, "hadoop.") {
				s.storage[k] = src[k]
			}
		}
	}
	return s
}

// lakeState is the one lake configuration a catalog serves: the first one a
// lake table was opened with. REFRESH does not reset it (a catalog reads its
// lake tables with one set of settings; the spec's FAQ says to recreate the
// catalog after the cluster's datalake.paimon.* changed).
type lakeState struct {
	paimon map[string]string
	fs     fileio.FS
}

// openLake opens the Paimon table behind a tiered Fluss table.
func (c *Catalog) openLake(ctx context.Context, info *client.TableInfo) (*Lake, error) {
	path := info.Path
	format := strings.TrimSpace(info.Descriptor.Properties["table.datalake.format"])
	if strings.EqualFold(format, "iceberg") {
		return c.openIcebergLake(ctx, info)
	}
	if !strings.EqualFold(format, "paimon") {
		return nil, catalog.Errorf(catalog.ErrUnsupported,
			"Cannot read the lake table of '%s': its table.datalake.format is '%s', and the fluss catalog reads only 'paimon' and 'iceberg'", path, format)
	}
	s, err := resolveLakeSettings(path, info.Descriptor.Properties, c.cfg.LakeOverrides)
	if err != nil {
		return nil, err
	}
	fs, err := c.lakeFS(s)
	if err != nil {
		return nil, err
	}
	tablePath := fileio.Join(s.warehouse, path.Database+".db", path.Table)
	t, err := paimon.OpenTable(ctx, fs, tablePath)
	if err != nil {
		if errors.Is(err, paimon.ErrNotFound) || fileio.IsNotExist(err) {
			return nil, fmt.Errorf("the lake table of '%s' does not exist at %s: %w there with this catalog's lake settings. "+
				"Check that '%swarehouse' (or the cluster's datalake.paimon.warehouse) points to the warehouse the fluss cluster tiers into",
				path, tablePath, ErrNothingTiered, LakePrefix)
		}
		return nil, fmt.Errorf("the lake table of '%s' at %s: %w", path, tablePath, err)
	}
	return &Lake{Table: t, FS: fs, TablePath: tablePath, StorageOptions: maps.Clone(s.storage)}, nil
}

// lakeFS returns the file system of the catalog's lake, pinning the lake
// configuration on first use.
func (c *Catalog) lakeFS(s *lakeSettings) (fileio.FS, error) {
	c.lakeMu.Lock()
	defer c.lakeMu.Unlock()
	if c.lake != nil {
		if !maps.Equal(c.lake.paimon, s.paimon) {
			return nil, fmt.Errorf("%w: Fluss catalog '%s' is already serving lake tables with a different paimon configuration than this table's. "+
				"Its fluss cluster was reconfigured; recreate the catalog after applying the new lake configuration",
				ErrLakeConfigChanged, c.name)
		}
		return c.lake.fs, nil
	}
	fs, err := fileio.New(s.storage)
	if err != nil {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "lake storage settings of fluss catalog '%s': %v", c.name, err)
	}
	c.lake = &lakeState{paimon: maps.Clone(s.paimon), fs: fs}
	return fs, nil
}
