package fluss

import (
	"sort"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
)

// Catalog property names (the spec's "Configuring Catalog" tables).
const (
	// PropBootstrapServers is required: a comma-separated host:port list.
	PropBootstrapServers = "fluss.bootstrap.servers"
	// PropUnionReadMode is auto (default), required or disabled.
	PropUnionReadMode = "fluss.union_read.mode"
	// PropMaxTailRows bounds the log tail of one bucket in a PK union read.
	PropMaxTailRows = "fluss.union_read.max_tail_rows"
	// PropMaxTotalTailRows bounds the log tails of one scan in a PK union read.
	PropMaxTotalTailRows = "fluss.union_read.max_total_tail_rows"
	// PropMapVarbinary maps BINARY/BYTES to varbinary instead of string.
	PropMapVarbinary = "enable.mapping.varbinary"
	// PropMapTimestampTZ maps TIMESTAMP_LTZ to timestamptz instead of datetime.
	PropMapTimestampTZ = "enable.mapping.timestamp_tz"
	// LakePrefix starts a per-key override of the lake settings the cluster
	// reports (datalake.paimon.* of its server.yaml, spelled the same).
	LakePrefix = "fluss.lake.paimon."
	// IcebergLakePrefix is the same for tables on an Iceberg lake
	// (datalake.iceberg.*: type, warehouse, storage settings).
	IcebergLakePrefix = "fluss.lake.iceberg."

	// propPrefix is stripped from every other fluss.* property before it
	// reaches the Fluss client.
	propPrefix = "fluss."
)

// Defaults of the union-read ceilings.
const (
	DefaultMaxTailRows      int64 = 2_000_000
	DefaultMaxTotalTailRows int64 = 10 * DefaultMaxTailRows
)

// Config is a validated property map: what the catalog, its tables and the
// planner read instead of re-parsing properties.
type Config struct {
	// Options shape reads (ScanTarget.Options). Options.ClientOptions holds
	// every fluss.* property except the catalog's own and the lake
	// overrides, prefix stripped, with bootstrap.servers trimmed. It may hold
	// secrets.
	Options Options
	// Client is Options.ClientOptions parsed by the Fluss client.
	Client client.Config
	// LakeOverrides are the fluss.lake.paimon.* properties with the prefix
	// stripped; a blank value is no override (ALTER CATALOG cannot remove a
	// key, so blanking is how an override is withdrawn). May hold secrets.
	LakeOverrides map[string]string
	// IcebergOverrides are the fluss.lake.iceberg.* properties, the same
	// way, for tables whose lake is Iceberg.
	IcebergOverrides map[string]string
}

// ParseProperties validates a fluss catalog's full property map, as CREATE
// CATALOG and ALTER CATALOG hand it over. It does no I/O, so a catalog whose
// cluster is down still validates and loads. Unknown names are accepted
// (ALTER CATALOG can never remove a key, so refusing one would leave a
// catalog no statement could repair); bad values are refused. Error texts
// name the property, never a secret value.
func ParseProperties(props map[string]string) (*Config, error) {
	bootstrap := strings.TrimSpace(props[PropBootstrapServers])
	if bootstrap == "" {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Required property '%s' is missing", PropBootstrapServers)
	}
	if err := checkBootstrapServers(bootstrap); err != nil {
		return nil, err
	}
	maxTail, err := positiveRows(props, PropMaxTailRows, DefaultMaxTailRows)
	if err != nil {
		return nil, err
	}
	maxTotal, err := positiveRows(props, PropMaxTotalTailRows, DefaultMaxTotalTailRows)
	if err != nil {
		return nil, err
	}
	if maxTotal < maxTail {
		return nil, catalog.Errorf(catalog.ErrInvalidProperty,
			"Property '%s' (%d) is below '%s' (%d), so no union read could satisfy both",
			PropMaxTotalTailRows, maxTotal, PropMaxTailRows, maxTail)
	}
	mode, err := ParseUnionReadMode(props[PropUnionReadMode], "property '"+PropUnionReadMode+"'")
	if err != nil {
		return nil, err
	}
	varbinary, err := boolProp(props, PropMapVarbinary)
	if err != nil {
		return nil, err
	}
	tz, err := boolProp(props, PropMapTimestampTZ)
	if err != nil {
		return nil, err
	}

	clientOpts := map[string]string{}
	overrides := map[string]string{}
	iceOverrides := map[string]string{}
	for k, v := range props {
		switch {
		case strings.HasPrefix(k, LakePrefix):
			if strings.TrimSpace(v) != "" {
				overrides[strings.TrimPrefix(k, LakePrefix)] = v
			}
		case strings.HasPrefix(k, IcebergLakePrefix):
			if strings.TrimSpace(v) != "" {
				iceOverrides[strings.TrimPrefix(k, IcebergLakePrefix)] = v
			}
		case k == PropUnionReadMode || k == PropMaxTailRows || k == PropMaxTotalTailRows:
		case strings.HasPrefix(k, propPrefix):
			clientOpts[strings.TrimPrefix(k, propPrefix)] = v
		}
	}
	clientOpts[client.PropBootstrapServers] = bootstrap
	if err := checkLakeOverrides(overrides); err != nil {
		return nil, err
	}
	if err := checkIcebergOverrides(iceOverrides); err != nil {
		return nil, err
	}
	cc, err := client.ConfigFromProperties(clientOpts)
	if err != nil {
		// The client's errors name the property (prefix stripped) and never
		// a secret value.
		return nil, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid fluss client property (written with the '%s' prefix): %v", propPrefix, err)
	}
	return &Config{
		Options: Options{
			UnionMode: mode, MaxTailRows: maxTail, MaxTotalTailRows: maxTotal,
			MapVarbinary: varbinary, MapTimestampTZ: tz, ClientOptions: clientOpts,
		},
		Client:           cc,
		LakeOverrides:    overrides,
		IcebergOverrides: iceOverrides,
	}, nil
}

// Validate is the catalog type's Validate: ParseProperties without the result.
func Validate(props map[string]string) error {
	_, err := ParseProperties(props)
	return err
}

// ParseUnionReadMode reads a union-read mode. Blank means auto; anything
// else must be auto, required or disabled (case-insensitive). setting names
// the source in the error ("property 'fluss.union_read.mode'" or "session
// variable 'fluss_union_read_mode'"), so the catalog and the session
// variable refuse a typo the same way.
func ParseUnionReadMode(value, setting string) (string, error) {
	t := strings.TrimSpace(value)
	if t == "" {
		return ModeAuto, nil
	}
	for _, m := range []string{ModeAuto, ModeRequired, ModeDisabled} {
		if strings.EqualFold(t, m) {
			return m, nil
		}
	}
	return "", catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for %s; expected one of auto, required, disabled", value, setting)
}

// checkBootstrapServers checks the shape of every host:port entry. The port
// is taken after the last colon, so a bracketed IPv6 literal works.
func checkBootstrapServers(v string) error {
	for _, entry := range strings.Split(v, ",") {
		s := strings.TrimSpace(entry)
		colon := strings.LastIndexByte(s, ':')
		if colon <= 0 || colon == len(s)-1 {
			return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected a comma-separated host:port list", v, PropBootstrapServers)
		}
		port, err := strconv.Atoi(s[colon+1:])
		if err != nil || port < 1 || port > 65535 {
			return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid port in '%s' for property '%s'; expected a number between 1 and 65535", s, PropBootstrapServers)
		}
	}
	return nil
}

// positiveRows reads a row ceiling; blank counts as absent.
func positiveRows(props map[string]string, name string, def int64) (int64, error) {
	v := strings.TrimSpace(props[name])
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected a positive number of rows", v, name)
	}
	return n, nil
}

func boolProp(props map[string]string, name string) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(props[name])); v {
	case "":
		return false, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s'; expected true or false", props[name], name)
}

// checkLakeOverrides refuses the lake settings that are not settings at all
// (a metastore no Paimon has, a warehouse scheme nothing reads), so a typo is
// refused at CREATE. A real Paimon metastore this engine cannot serve (jdbc,
// hive, rest) is accepted here and refused, by name, when a statement reads
// the lake, as Doris does (test_fluss_lake_override: the jdbc catalog is
// created, its `$lake` read fails naming 'jdbc'); the catalog's other tables
// stay readable.
func checkLakeOverrides(o map[string]string) error {
	if v, ok := o["metastore"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "filesystem", "hive", "rest", "jdbc":
		default:
			return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%smetastore'; expected one of filesystem, hive, rest, jdbc", v, LakePrefix)
		}
	}
	if v, ok := o["warehouse"]; ok {
		if err := checkWarehouseScheme(v, "property '"+LakePrefix+"warehouse'"); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(o) {
		if translated, ok := storageKeys[strings.ToLower(k)]; ok && translated == "use_path_style" {
			if _, err := strconv.ParseBool(strings.TrimSpace(o[k])); err != nil {
				return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for property '%s%s'; expected true or false", o[k], LakePrefix, k)
			}
		}
	}
	return nil
}

// checkMetastore accepts the filesystem metastore only: hive and rest are
// Paimon metastores this engine does not speak yet, and jdbc is refused by
// name because Paimon's jdbc catalog keeps table metadata where a
// filesystem reader cannot see it.
func checkMetastore(v, source string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "filesystem":
		return nil
	case "hive", "rest":
		return catalog.Errorf(catalog.ErrUnsupported, "Paimon metastore '%s' (%s) is not supported yet: only the filesystem metastore is", strings.TrimSpace(v), source)
	case "jdbc":
		return catalog.Errorf(catalog.ErrUnsupported, "Paimon metastore 'jdbc' (%s) is not supported: the jdbc catalog keeps table metadata outside the warehouse; use the filesystem metastore", source)
	}
	return catalog.Errorf(catalog.ErrInvalidProperty, "Invalid value '%s' for %s; expected one of filesystem, hive, rest, jdbc", v, source)
}

// checkWarehouseScheme accepts the warehouse locations fileio can read.
func checkWarehouseScheme(v, source string) error {
	w := strings.TrimSpace(v)
	switch scheme(w) {
	case "", "file", "s3", "s3a", "s3n", "oss", "obs":
		return nil
	}
	return catalog.Errorf(catalog.ErrUnsupported, "Lake warehouse '%s' (%s) is not supported: only local paths and s3://, oss:// and obs:// locations can be read", w, source)
}

func scheme(p string) string {
	i := strings.Index(p, "://")
	if i <= 0 {
		if strings.HasPrefix(p, "file:") {
			return "file"
		}
		return ""
	}
	return strings.ToLower(p[:i])
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
