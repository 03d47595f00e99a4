package minifluss

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/typemap"
)

// LakeConfig is the cluster's datalake.paimon.* configuration plus the
// switches of the emulated tiering service.
type LakeConfig struct {
	// Warehouse is datalake.paimon.warehouse: a local directory or
	// s3://bucket/path. Empty means the cluster has no lake: lake-enabled
	// tables are created without a Paimon table and nothing is tiered.
	Warehouse string
	// Options are the other datalake.paimon.* settings without the prefix
	// (metastore, s3.endpoint, s3.access-key, ...). They are copied into each
	// lake table's properties as table.datalake.paimon.<key>, except those
	// whose lower-cased name contains "key", "secret" or "password", as the
	// Fluss coordinator strips them from table info.
	Options map[string]string
	// FS reaches the warehouse; nil builds one from Options (local paths,
	// or S3 configured by the s3.* options).
	FS fileio.FS
	// LegacySystemColumns gives new lake tables the pre-FIP-27 trailing
	// columns __bucket INT, __offset BIGINT, __timestamp TIMESTAMP_LTZ(3).
	LegacySystemColumns bool
	// Periodic tiers every lake table whose table.datalake.freshness has
	// elapsed since its last round, checked every PeriodicCheck (default 1 s).
	Periodic      bool
	PeriodicCheck time.Duration
}

// sensitiveOption reports options the coordinator never hands to clients.
func sensitiveOption(k string) bool {
	l := strings.ToLower(k)
	return strings.Contains(l, "key") || strings.Contains(l, "secret") || strings.Contains(l, "password")
}

// lakeRuntime is the tiering service's state: one writer per lake table,
// the freeze switch and the periodic loop. Tiering rounds (and the writers)
// are serialised by mu; the cluster lock is taken only for short reads and
// the final publish. Lock order: mu, then Cluster.mu, then cfgMu (a leaf
// guarding the switches and options, also read under Cluster.mu by table
// creation).
type lakeRuntime struct {
	cfg LakeConfig
	fs  fileio.FS

	mu       sync.Mutex
	writers  map[int64]*writer.Table // by Fluss table id
	lastTier map[int64]time.Time     // periodic bookkeeping

	cfgMu    sync.Mutex
	frozen   bool
	holdRead bool              // publish new snapshots as not readable
	opts     map[string]string // current datalake.paimon.* (changeable)
	stopCh   chan struct{}
	wg       sync.WaitGroup
}

func newLakeRuntime(cfg LakeConfig) (*lakeRuntime, error) {
	r := &lakeRuntime{cfg: cfg, fs: cfg.FS, writers: map[int64]*writer.Table{}, lastTier: map[int64]time.Time{}, stopCh: make(chan struct{}),
		opts: map[string]string{}}
	for k, v := range cfg.Options {
		r.opts[k] = v
	}
	if cfg.Warehouse != "" && r.fs == nil {
		fs, err := fileio.New(cfg.Options)
		if err != nil {
			return nil, fmt.Errorf("minifluss: lake warehouse %s: %w", cfg.Warehouse, err)
		}
		r.fs = fs
	}
	if r.cfg.PeriodicCheck <= 0 {
		r.cfg.PeriodicCheck = time.Second
	}
	return r, nil
}

func (r *lakeRuntime) enabled() bool { return r != nil && r.cfg.Warehouse != "" }

func (r *lakeRuntime) start(c *Cluster) {
	if !r.enabled() || !r.cfg.Periodic {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		tick := time.NewTicker(r.cfg.PeriodicCheck)
		defer tick.Stop()
		for {
			select {
			case <-r.stopCh:
				return
			case <-tick.C:
				if err := c.tierDue(context.Background()); err != nil {
					c.cfg.Logger.Warn("minifluss: periodic tiering", "err", err)
				}
			}
		}
	}()
}

func (r *lakeRuntime) stop() {
	if r == nil {
		return
	}
	select {
	case <-r.stopCh:
	default:
		close(r.stopCh)
	}
	r.wg.Wait()
}

// lakeTablePath is <warehouse>/<db>.db/<table> (filesystem catalog layout).
func (r *lakeRuntime) lakeTablePath(t *table) string {
	return fileio.Join(r.cfg.Warehouse, t.DB+".db", t.Name)
}

func (t *table) lakePaimon() bool {
	f := strings.ToLower(t.Desc.Properties["table.datalake.format"])
	return t.lakeEnabled() && (f == "" || f == "paimon")
}

// createLakeTableLocked does what the coordinator does for a new
// lake-enabled table: write the lake settings into its properties and
// create the Paimon table, so that a table never tiered reads as empty.
func (c *Cluster) createLakeTableLocked(t *table) error {
	r := c.lake
	if r.enabled() && t.lakeIceberg() {
		return c.createIcebergTableLocked(t)
	}
	if !r.enabled() || !t.lakePaimon() {
		return nil
	}
	if err := checkPaimonOptions(t); err != nil {
		return err
	}
	r.cfgMu.Lock()
	opts := map[string]string{"warehouse": r.cfg.Warehouse}
	for k, v := range r.opts {
		opts[k] = v
	}
	legacy := r.cfg.LegacySystemColumns
	r.cfgMu.Unlock()
	if _, ok := opts["metastore"]; !ok {
		opts["metastore"] = "filesystem"
	}
	if t.Desc.Properties["table.datalake.format"] == "" {
		t.Desc.Properties["table.datalake.format"] = "paimon"
	}
	for k, v := range opts {
		if !sensitiveOption(k) {
			t.Desc.Properties["table.datalake.paimon."+k] = v
		}
	}
	s, err := paimonSchema(t, legacy)
	if err != nil {
		return ferr(codeInvalidTable, "table %s: lake schema: %v", t.path(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := r.lakeTablePath(t)
	err = writer.CreateTable(ctx, r.fs, path, s, time.UnixMilli(c.now()))
	if errors.Is(err, writer.ErrTableExists) {
		// Fluss refuses to adopt a lake table that already holds data.
		pt, oerr := paimon.OpenTable(ctx, r.fs, path)
		if oerr != nil {
			return ferr(codeUnknownServerError, "table %s: lake table %s: %v", t.path(), path, oerr)
		}
		if id, _ := pt.LatestSnapshotID(ctx); id > 0 {
			return ferr(flussapi.LakeTableAlreadyExist, "table %s: lake table %s already exists and is not empty", t.path(), path)
		}
		return nil
	}
	if err != nil {
		return ferr(codeUnknownServerError, "table %s: create lake table %s: %v", t.path(), path, err)
	}
	return nil
}

// paimonSchema maps a Fluss table (legacy adds the pre-FIP-27 system
// columns; later rounds recognise such a table by its __timestamp column,
// as Fluss's PaimonUtils.isLegacyTable does) to its Paimon table (spec paimon-format
// §8.1): same columns and ids, same keys, bucket option from the bucket
// keys, partition.legacy-name=false, changelog-producer=input for PK
// tables, fluss.<k> copies of the properties, paimon.<k> as real options.
func paimonSchema(t *table, legacy bool) (*paimon.TableSchema, error) {
	s := &paimon.TableSchema{PartitionKeys: append([]string{}, t.Desc.PartitionKey...), PrimaryKeys: append([]string{}, t.Desc.Schema.PrimaryKey...),
		Options: map[string]string{}}
	// Nested ROW fields get ids above every top-level id.
	next := len(t.Desc.Schema.Columns)
	for _, col := range t.Desc.Schema.Columns {
		if col.ID != nil {
			next = max(next, int(*col.ID)+1)
		}
	}
	if legacy {
		next += 3
	}
	for i, col := range t.Desc.Schema.Columns {
		pt, err := paimonType(t.types[i], &next)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name, err)
		}
		id := i
		if col.ID != nil {
			id = int(*col.ID)
		}
		if col.Comment != nil {
			s.Fields = append(s.Fields, paimon.DataField{ID: id, Name: col.Name, Type: pt, Description: *col.Comment})
		} else {
			s.Fields = append(s.Fields, paimon.DataField{ID: id, Name: col.Name, Type: pt})
		}
	}
	if legacy {
		next := len(t.Desc.Schema.Columns)
		for _, col := range t.Desc.Schema.Columns {
			if col.ID != nil {
				next = max(next, int(*col.ID)+1)
			}
		}
		s.Fields = append(s.Fields,
			paimon.DataField{ID: next, Name: "__bucket", Type: paimon.DataType{Root: paimon.Int, Nullable: true}},
			paimon.DataField{ID: next + 1, Name: "__offset", Type: paimon.DataType{Root: paimon.BigInt, Nullable: true}},
			paimon.DataField{ID: next + 2, Name: "__timestamp", Type: paimon.DataType{Root: paimon.TimestampLTZ, Nullable: true, Precision: 3}})
	}
	if len(t.Desc.BucketKey) > 0 {
		s.Options["bucket"] = strconv.Itoa(int(t.buckets()))
		s.Options["bucket-key"] = strings.Join(t.Desc.BucketKey, ",")
	} else {
		s.Options["bucket"] = "-1"
	}
	s.Options["partition.legacy-name"] = "false"
	if t.isPK() {
		s.Options["changelog-producer"] = "input"
	}
	copyProps := func(props map[string]string) {
		for k, v := range props {
			switch {
			case strings.HasPrefix(k, "table.datalake.paimon."):
			case strings.HasPrefix(k, "paimon."):
				s.Options[strings.TrimPrefix(k, "paimon.")] = v
			default:
				s.Options["fluss."+k] = v
			}
		}
	}
	copyProps(t.Desc.Properties)
	copyProps(t.Desc.CustomProperties)
	if t.Desc.Comment != nil {
		s.Comment = *t.Desc.Comment
	}
	return s, nil
}

// paimonType maps a Fluss type (FlussDataTypeToPaimonDataType).
func paimonType(ft typemap.DataType, next *int) (paimon.DataType, error) {
	p := paimon.DataType{Nullable: ft.Nullable}
	switch ft.Root {
	case typemap.RootBoolean:
		p.Root = paimon.Boolean
	case typemap.RootTinyInt:
		p.Root = paimon.TinyInt
	case typemap.RootSmallInt:
		p.Root = paimon.SmallInt
	case typemap.RootInt:
		p.Root = paimon.Int
	case typemap.RootBigInt:
		p.Root = paimon.BigInt
	case typemap.RootFloat:
		p.Root = paimon.Float
	case typemap.RootDouble:
		p.Root = paimon.Double
	case typemap.RootChar:
		p.Root, p.Precision = paimon.Char, int(ft.Length)
	case typemap.RootString:
		p.Root, p.Precision = paimon.VarChar, 2147483647
	case typemap.RootBinary:
		p.Root, p.Precision = paimon.Binary, int(ft.Length)
	case typemap.RootBytes:
		p.Root, p.Precision = paimon.VarBinary, 2147483647
	case typemap.RootDecimal:
		p.Root, p.Precision, p.Scale = paimon.Decimal, int(ft.Precision), int(ft.Scale)
	case typemap.RootDate:
		p.Root = paimon.Date
	case typemap.RootTime:
		p.Root, p.Precision = paimon.Time, int(ft.Precision)
	case typemap.RootTimestamp:
		p.Root, p.Precision = paimon.Timestamp, int(ft.Precision)
	case typemap.RootTimestampLTZ:
		p.Root, p.Precision = paimon.TimestampLTZ, int(ft.Precision)
	case typemap.RootArray:
		e, err := paimonType(*ft.Elem, next)
		if err != nil {
			return p, err
		}
		p.Root, p.Element = paimon.Array, &e
	case typemap.RootMap:
		k, err := paimonType(*ft.Key, next)
		if err != nil {
			return p, err
		}
		k.Nullable = false
		v, err := paimonType(*ft.Value, next)
		if err != nil {
			return p, err
		}
		p.Root, p.Key, p.Value = paimon.Map, &k, &v
	case typemap.RootRow:
		p.Root = paimon.Row
		for _, f := range ft.Fields {
			id := *next
			*next++
			st, err := paimonType(f.Type, next)
			if err != nil {
				return p, err
			}
			p.Fields = append(p.Fields, paimon.DataField{ID: id, Name: f.Name, Type: st})
		}
	default:
		return p, fmt.Errorf("no Paimon type for %s", ft)
	}
	return p, nil
}

// lakeWriter opens (once) the writer of a table's lake table. Called with
// r.mu held.
func (r *lakeRuntime) lakeWriter(ctx context.Context, t *table) (*writer.Table, error) {
	if w, ok := r.writers[t.ID]; ok {
		return w, nil
	}
	w, err := writer.Open(ctx, r.fs, r.lakeTablePath(t), nil, writer.Options{CommitUser: "__fluss_lake_tiering"})
	if err != nil {
		return nil, fmt.Errorf("table %s: open lake table: %w", t.path(), err)
	}
	r.writers[t.ID] = w
	return w, nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
