package minifluss

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/inlet-db/inlet/typemap"
)

// Column is one column of a TableSpec.
type Column struct {
	Name    string
	Type    typemap.DataType
	Comment string
}

// TableSpec describes a table to create through the Go API. Zero values mean
// Fluss's defaults (bucket count = Config.DefaultBucketNumber, bucket keys =
// physical primary key for PK tables, none for log tables).
type TableSpec struct {
	Database, Name   string
	Columns          []Column
	PrimaryKey       []string
	PartitionKeys    []string
	BucketKeys       []string
	Buckets          int
	Comment          string
	Properties       map[string]string // table.* options
	CustomProperties map[string]string
	// SchemaID emulates a table whose schema was altered up to this id
	// (default 1, as for a new table); batches must carry it.
	SchemaID int32
}

// TableInfo is what the coordinator knows of a table.
type TableInfo struct {
	ID            int64
	Database      string
	Name          string
	SchemaID      int32
	Buckets       int32
	PrimaryKey    []string
	PartitionKeys []string
	BucketKeys    []string
	// JSON is the table JSON exactly as GetTableInfo returns it.
	JSON []byte
}

func (t *table) info() TableInfo {
	return TableInfo{ID: t.ID, Database: t.DB, Name: t.Name, SchemaID: t.SchemaID, Buckets: t.buckets(),
		PrimaryKey: append([]string(nil), t.Desc.Schema.PrimaryKey...), PartitionKeys: append([]string(nil), t.Desc.PartitionKey...),
		BucketKeys: append([]string(nil), t.Desc.BucketKey...), JSON: t.Desc.marshal()}
}

// descriptor turns a spec into the table JSON a client would send.
func (s TableSpec) descriptor() (*tableDescriptor, error) {
	d := &tableDescriptor{Version: 1, PartitionKey: append([]string{}, s.PartitionKeys...), BucketKey: append([]string{}, s.BucketKeys...),
		Properties: orderedProps{}, CustomProperties: orderedProps{}}
	d.Schema.Version = 1
	d.Schema.PrimaryKey = s.PrimaryKey
	for i, c := range s.Columns {
		raw, err := c.Type.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("minifluss: table %s.%s column %q: %w", s.Database, s.Name, c.Name, err)
		}
		col := columnJSON{Name: c.Name, DataType: raw}
		id := int32(i)
		col.ID = &id
		if c.Comment != "" {
			cm := c.Comment
			col.Comment = &cm
		}
		d.Schema.Columns = append(d.Schema.Columns, col)
	}
	if s.Comment != "" {
		cm := s.Comment
		d.Comment = &cm
	}
	if s.Buckets > 0 {
		n := int32(s.Buckets)
		d.BucketCount = &n
	}
	for k, v := range s.Properties {
		d.Properties[k] = v
	}
	for k, v := range s.CustomProperties {
		d.CustomProperties[k] = v
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return parseDescriptor(raw)
}

// CreateDatabase creates a database; it is an error if it exists.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.createDatabaseLocked(name, nil, false)
}

// DropDatabase drops a database, with its tables when cascade is set.
func (c *Cluster) DropDatabase(ctx context.Context, name string, cascade bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropDatabaseLocked(name, false, cascade)
}

// CreateTable creates a table as the coordinator would on CreateTable,
// including the properties Fluss injects.
func (c *Cluster) CreateTable(ctx context.Context, spec TableSpec) (TableInfo, error) {
	d, err := spec.descriptor()
	if err != nil {
		return TableInfo{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.createTableLocked(spec.Database, spec.Name, d, false)
	if err != nil {
		return TableInfo{}, err
	}
	if spec.SchemaID > 1 {
		t.SchemaID = spec.SchemaID
		if err := c.persistLocked(); err != nil {
			return TableInfo{}, err
		}
	}
	return t.info(), nil
}

// CreateTableJSON creates a table from client-style table JSON (spec §2.3).
func (c *Cluster) CreateTableJSON(ctx context.Context, db, name string, tableJSON []byte) (TableInfo, error) {
	d, err := parseDescriptor(tableJSON)
	if err != nil {
		return TableInfo{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.createTableLocked(db, name, d, false)
	if err != nil {
		return TableInfo{}, err
	}
	return t.info(), nil
}

// DropTable drops a table and deletes its data.
func (c *Cluster) DropTable(ctx context.Context, db, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropTableLocked(db, name, false)
}

// Table describes an existing table.
func (c *Cluster) Table(db, name string) (TableInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, name)
	if err != nil {
		return TableInfo{}, err
	}
	return t.info(), nil
}

// CreatePartition creates a partition from key → value and returns its id.
func (c *Cluster) CreatePartition(ctx context.Context, db, tbl string, spec map[string]string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return 0, err
	}
	p, err := c.createPartitionLocked(t, spec, false)
	if err != nil {
		return 0, err
	}
	return p.ID, nil
}

// DropPartition drops a partition and deletes its data.
func (c *Cluster) DropPartition(ctx context.Context, db, tbl string, spec map[string]string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return err
	}
	return c.dropPartitionLocked(t, spec, false)
}

// PartitionID returns the id of a partition given its name (values joined by '$').
func (c *Cluster) PartitionID(db, tbl, partitionName string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, p, err := c.resolveLocked(db, tbl, partitionName)
	if err != nil {
		return 0, err
	}
	if p == nil {
		return 0, ferr(codeTableNotPartitioned, "table %s is not partitioned", t.path())
	}
	return p.ID, nil
}

// resolveLocked finds a table and (for partitioned tables) the partition with
// the given name; partitionName must be "" exactly for non-partitioned tables.
func (c *Cluster) resolveLocked(db, tbl, partitionName string) (*table, *partition, error) {
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return nil, nil, err
	}
	if !t.partitioned() {
		if partitionName != "" {
			return nil, nil, ferr(codeTableNotPartitioned, "table %s is not partitioned (partition %q given)", t.path(), partitionName)
		}
		return t, nil, nil
	}
	p := t.partitionByName(partitionName)
	if p == nil {
		return nil, nil, ferr(codePartitionNotExists, "table %s: partition %q does not exist", t.path(), partitionName)
	}
	return t, p, nil
}

// logBucketLocked is bucketOfLocked for the direct appends, which only
// log tables (no primary key) take.
func (c *Cluster) logBucketLocked(db, tbl, partitionName string, bucket int32) (*table, *bucketData, error) {
	t, _, bd, err := c.bucketOfLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return nil, nil, err
	}
	if t.isPK() {
		return nil, nil, ferr(codeInvalidTable, "table %s has a primary key: use Upsert/Delete", t.path())
	}
	return t, bd, nil
}

func (c *Cluster) bucketOfLocked(db, tbl, partitionName string, bucket int32) (*table, *partition, *bucketData, error) {
	t, p, err := c.resolveLocked(db, tbl, partitionName)
	if err != nil {
		return nil, nil, nil, err
	}
	if bucket < 0 || bucket >= t.buckets() {
		return nil, nil, nil, ferr(codeUnknownTableOrBucket, "table %s has no bucket %d (%d buckets)", t.path(), bucket, t.buckets())
	}
	var pid *int64
	if p != nil {
		pid = &p.ID
	}
	bd, err := c.bucketLocked(t, pid, bucket)
	return t, p, bd, err
}

// AppendBatches appends already-encoded log batches (as a ProduceLog request
// would carry them) to one bucket of a log table; the server assigns offsets
// and the commit timestamp. It returns the base offset of the first batch.
func (c *Cluster) AppendBatches(ctx context.Context, db, tbl, partitionName string, bucket int32, records []byte) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, bd, err := c.logBucketLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return 0, err
	}
	recs := append([]byte(nil), records...)
	if err := c.validateProduced(t, recs); err != nil {
		return 0, ferr(codeCorruptRecord, "%s bucket %d: %v", t.path(), bucket, err)
	}
	base, err := bd.log.append(recs, c.now())
	if err != nil {
		return 0, err
	}
	c.notifyLocked()
	return base, nil
}

// BucketOffsets reports a bucket's log start (earliest, including the remote
// tier), local log start and high watermark.
type BucketOffsets struct {
	LogStart, LocalStart, HighWatermark int64
}

// Offsets returns the offsets of one bucket.
func (c *Cluster) Offsets(db, tbl, partitionName string, bucket int32) (BucketOffsets, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _, bd, err := c.bucketOfLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return BucketOffsets{}, err
	}
	return BucketOffsets{bd.log.meta.LogStart, bd.log.meta.LocalStart, bd.log.highWatermark()}, nil
}

// ExpireLog moves a bucket's log start to the batch boundary at or before
// offset, as table.log.ttl does; older data is gone (also from the remote tier).
func (c *Cluster) ExpireLog(ctx context.Context, db, tbl, partitionName string, bucket int32, offset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _, bd, err := c.bucketOfLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return err
	}
	return bd.log.expire(offset)
}

// ArchiveSegments copies the bucket's local log below upTo (rounded down to a
// batch boundary) into a new remote segment in the §6 layout and moves the
// local log start there; FetchLog below it then answers remote_log_fetch_info.
func (c *Cluster) ArchiveSegments(ctx context.Context, db, tbl, partitionName string, bucket int32, upTo int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, p, bd, err := c.bucketOfLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return err
	}
	_, err = bd.log.archive(remoteTabletDir(c.remoteDataDir(), t, p, bucket), t, p, bucket, upTo)
	return err
}

// MoveLeader makes tablet server to the leader of a bucket and bumps its
// leader epoch. Clients that do not refresh metadata get NOT_LEADER (12).
func (c *Cluster) MoveLeader(ctx context.Context, db, tbl, partitionName string, bucket int32, to int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, p, err := c.resolveLocked(db, tbl, partitionName)
	if err != nil {
		return err
	}
	if to < 0 || int(to) >= c.cfg.TabletServers {
		return fmt.Errorf("minifluss: tablet server %d does not exist (%d servers)", to, c.cfg.TabletServers)
	}
	ls := t.Leaders
	if p != nil {
		ls = p.Leaders
	}
	if bucket < 0 || int(bucket) >= len(ls) {
		return ferr(codeUnknownTableOrBucket, "table %s has no bucket %d", t.path(), bucket)
	}
	ls[bucket].Leader = to
	ls[bucket].Epoch++
	return c.persistLocked()
}

// Leader returns the tablet server leading a bucket.
func (c *Cluster) Leader(db, tbl, partitionName string, bucket int32) (int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, p, err := c.resolveLocked(db, tbl, partitionName)
	if err != nil {
		return 0, err
	}
	ls := t.Leaders
	if p != nil {
		ls = p.Leaders
	}
	if bucket < 0 || int(bucket) >= len(ls) {
		return 0, ferr(codeUnknownTableOrBucket, "table %s has no bucket %d", t.path(), bucket)
	}
	return ls[bucket].Leader, nil
}

// LakeBucketOffset is one bucket's tiered offset in a lake snapshot: the
// exclusive end of the Fluss log contained in the lake.
type LakeBucketOffset struct {
	PartitionName string // "" for non-partitioned tables
	Bucket        int32
	LogOffset     int64
}

// SetLakeSnapshot records a lake snapshot for a table, the hook the tiering
// service (a later issue) calls: GetLakeSnapshot then answers it, and FetchLog
// below the local log start of a lake-enabled table answers empty records for
// tiered offsets. readableID, when non-nil, is the id answered for
// readable=true requests.
func (c *Cluster) SetLakeSnapshot(ctx context.Context, db, tbl string, snapshotID int64, readableID *int64, offsets []LakeBucketOffset) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return err
	}
	ls := &lakeSnapshot{SnapshotID: snapshotID, Readable: readableID}
	for _, o := range offsets {
		_, p, err := c.resolveLocked(db, tbl, o.PartitionName)
		if err != nil {
			return err
		}
		if o.Bucket < 0 || o.Bucket >= t.buckets() {
			return ferr(codeUnknownTableOrBucket, "table %s has no bucket %d", t.path(), o.Bucket)
		}
		e := lakeBucketOffs{Bucket: o.Bucket, LogOffset: o.LogOffset}
		if p != nil {
			id := p.ID
			e.PartitionID = &id
			// Kept with the offsets, as tiering keeps it, so the name is
			// still answered once the partition is dropped.
			e.PartitionName = p.Name
		}
		ls.Offsets = append(ls.Offsets, e)
	}
	t.Lake = ls
	return c.persistLocked()
}

// SnapshotKv records a KV snapshot of every bucket of a PK table (or of one
// partition) at the current log end; see snapshotKvLocked for what is written.
func (c *Cluster) SnapshotKv(ctx context.Context, db, tbl, partitionName string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, p, err := c.resolveLocked(db, tbl, partitionName)
	if err != nil {
		return err
	}
	if !t.isPK() {
		return ferr(codeNonPrimaryKeyTable, "table %s has no primary key", t.path())
	}
	for b := int32(0); b < t.buckets(); b++ {
		_, _, bd, err := c.bucketOfLocked(db, tbl, partitionName, b)
		if err != nil {
			return err
		}
		if _, err := c.snapshotKvLocked(t, p, b, bd); err != nil {
			return err
		}
	}
	return nil
}
