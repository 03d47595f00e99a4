package minifluss

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
)

// ---- DDL shared by the RPCs and the Go API (all called with c.mu held) ----

func (c *Cluster) createDatabaseLocked(name string, js []byte, ignoreIfExists bool) error {
	if err := validName("database", name); err != nil {
		return ferr(codeInvalidDatabase, "%v", err)
	}
	if _, ok := c.cat.Databases[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return ferr(codeDatabaseAlreadyExist, "database %s already exists", name)
	}
	if len(js) == 0 {
		js = []byte(`{"version":1,"custom_properties":{}}`)
	} else if !json.Valid(js) {
		return ferr(codeInvalidDatabase, "database %s: database_json is not valid JSON", name)
	}
	now := c.now()
	c.cat.Databases[name] = &database{Name: name, JSON: append(json.RawMessage(nil), js...), Created: now, Modified: now, Tables: map[string]*table{}}
	return c.persistLocked()
}

func (c *Cluster) dropDatabaseLocked(name string, ignoreIfNotExists, cascade bool) error {
	d, ok := c.cat.Databases[name]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return ferr(codeDatabaseNotExist, "database %s does not exist", name)
	}
	if len(d.Tables) > 0 && !cascade {
		return ferr(codeDatabaseNotEmpty, "database %s is not empty (%d tables)", name, len(d.Tables))
	}
	for _, t := range d.Tables {
		c.dropBucketsLocked(t, nil)
	}
	delete(c.cat.Databases, name)
	return c.persistLocked()
}

func (c *Cluster) createTableLocked(db, name string, desc *tableDescriptor, ignoreIfExists bool) (*table, error) {
	d, ok := c.cat.Databases[db]
	if !ok {
		return nil, ferr(codeDatabaseNotExist, "database %s does not exist", db)
	}
	if err := validName("table", name); err != nil {
		return nil, ferr(codeInvalidTable, "%v", err)
	}
	if t, ok := d.Tables[name]; ok {
		if ignoreIfExists {
			return t, nil
		}
		return nil, ferr(codeTableAlreadyExist, "table %s.%s already exists", db, name)
	}
	if err := desc.applySystemDefaults(&c.cfg); err != nil {
		return nil, err
	}
	now := c.now()
	t := &table{ID: c.cat.NextTableID, DB: db, Name: name, SchemaID: 1, Desc: desc, Created: now, Modified: now, Partitions: map[int64]*partition{}}
	if err := t.bindTypes(); err != nil {
		return nil, ferr(codeInvalidTable, "%v", err)
	}
	if err := c.checkKeyTypes(t); err != nil {
		return nil, err
	}
	if t.isPK() {
		switch me := t.Desc.Properties["table.merge-engine"]; me {
		case "", "first_row":
		default:
			return nil, ferr(codeInvalidConfig, "table %s: table.merge-engine %q is not emulated (only the default and first_row are)", t.path(), me)
		}
		if t.logFormat() == "INDEXED" && !t.kvIndexed() {
			return nil, ferr(codeInvalidConfig, "table %s: table.log.format INDEXED cannot be combined with table.kv.format COMPACTED", t.path())
		}
	}
	if _, err := t.autoPartition(); err != nil {
		return nil, err
	}
	if err := c.createLakeTableLocked(t); err != nil {
		return nil, err
	}
	c.cat.NextTableID++
	if !t.partitioned() {
		t.Leaders = c.assignLeaders(t.ID, t.buckets())
	}
	d.Tables[name] = t
	if _, _, err := c.autoPartitionLocked(t); err != nil {
		return nil, err
	}
	return t, c.persistLocked()
}

func (c *Cluster) dropTableLocked(db, name string, ignoreIfNotExists bool) error {
	t, err := c.cat.lookup(db, name)
	if err != nil {
		if ignoreIfNotExists && asFluss(err).Code == codeTableNotExist {
			return nil
		}
		return err
	}
	c.dropBucketsLocked(t, nil)
	delete(c.cat.Databases[db].Tables, name)
	return c.persistLocked()
}

// specValues orders a partition spec by the table's partition keys and checks
// every value (spec §8).
func specValues(t *table, kv map[string]string) ([]string, error) {
	if !t.partitioned() {
		return nil, ferr(codeTableNotPartitioned, "table %s is not partitioned", t.path())
	}
	if len(kv) != len(t.Desc.PartitionKey) {
		return nil, ferr(codePartitionSpecInvalid, "table %s: partition spec has %d values, the partition key %v needs %d", t.path(), len(kv), t.Desc.PartitionKey, len(t.Desc.PartitionKey))
	}
	vals := make([]string, len(t.Desc.PartitionKey))
	for i, k := range t.Desc.PartitionKey {
		v, ok := kv[k]
		if !ok {
			return nil, ferr(codePartitionSpecInvalid, "table %s: partition spec lacks key %q", t.path(), k)
		}
		if err := validName("partition value", v); err != nil {
			return nil, ferr(codePartitionSpecInvalid, "table %s: %v", t.path(), err)
		}
		if strings.HasPrefix(v, "__") {
			return nil, ferr(codePartitionSpecInvalid, "table %s: partition value %q may not start with __ (reserved)", t.path(), v)
		}
		vals[i] = v
	}
	return vals, nil
}

func (c *Cluster) createPartitionLocked(t *table, kv map[string]string, ignoreIfExists bool) (*partition, error) {
	vals, err := specValues(t, kv)
	if err != nil {
		return nil, err
	}
	name := partitionName(vals)
	if p := t.partitionByName(name); p != nil {
		if ignoreIfExists {
			return p, nil
		}
		return nil, ferr(codePartitionExists, "table %s: partition %s already exists", t.path(), name)
	}
	p := &partition{ID: c.cat.NextPartitionID, Name: name}
	for i, k := range t.Desc.PartitionKey {
		p.Spec = append(p.Spec, [2]string{k, vals[i]})
	}
	p.Leaders = c.assignLeaders(t.ID+p.ID, t.buckets())
	c.cat.NextPartitionID++
	t.Partitions[p.ID] = p
	return p, c.persistLocked()
}

func (c *Cluster) dropPartitionLocked(t *table, kv map[string]string, ignoreIfNotExists bool) error {
	vals, err := specValues(t, kv)
	if err != nil {
		return err
	}
	p := t.partitionByName(partitionName(vals))
	if p == nil {
		if ignoreIfNotExists {
			return nil
		}
		return ferr(codePartitionNotExists, "table %s: partition %s does not exist", t.path(), partitionName(vals))
	}
	id := p.ID
	c.dropBucketsLocked(t, &id)
	delete(t.Partitions, id)
	return c.persistLocked()
}

func specMap(s *flusspb.PbPartitionSpec) map[string]string {
	m := map[string]string{}
	for _, kv := range s.GetPartitionKeyValues() {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

func pbSpec(p *partition) *flusspb.PbPartitionSpec {
	s := &flusspb.PbPartitionSpec{}
	for _, kv := range p.Spec {
		s.PartitionKeyValues = append(s.PartitionKeyValues, &flusspb.PbKeyValue{Key: proto.String(kv[0]), Value: proto.String(kv[1])})
	}
	return s
}

func (c *Cluster) remoteDataDir() string {
	abs, err := filepath.Abs(c.cfg.RemoteDataDir)
	if err != nil {
		return c.cfg.RemoteDataDir
	}
	return abs
}

// ---- read-only admin RPCs ----

func (cn *conn) listDatabases(req *flusspb.ListDatabasesRequest) proto.Message {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := &flusspb.ListDatabasesResponse{}
	for _, d := range c.cat.sortedDatabases() {
		if req.GetIncludeSummary() {
			resp.DatabaseSummary = append(resp.DatabaseSummary, &flusspb.PbDatabaseSummary{DatabaseName: proto.String(d.Name), CreatedTime: proto.Int64(d.Created), TableCount: proto.Int32(int32(len(d.Tables)))})
		} else {
			resp.DatabaseName = append(resp.DatabaseName, d.Name)
		}
	}
	return resp
}

func (cn *conn) tableInfo(req *flusspb.GetTableInfoRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
	if err != nil {
		return nil, err
	}
	return &flusspb.GetTableInfoResponse{TableId: proto.Int64(t.ID), SchemaId: proto.Int32(t.SchemaID), TableJson: t.Desc.marshal(),
		CreatedTime: proto.Int64(t.Created), ModifiedTime: proto.Int64(t.Modified), RemoteDataDir: proto.String(c.remoteDataDir())}, nil
}

func (cn *conn) listPartitionInfos(req *flusspb.ListPartitionInfosRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
	if err != nil {
		return nil, err
	}
	if !t.partitioned() {
		return nil, ferr(codeTableNotPartitioned, "table %s is not partitioned", t.path())
	}
	filter := specMap(req.GetPartialPartitionSpec())
	for k := range filter {
		if t.Desc.columnIndex(k) < 0 || !contains(t.Desc.PartitionKey, k) {
			return nil, ferr(codePartitionSpecInvalid, "table %s: %q is not a partition key", t.path(), k)
		}
	}
	resp := &flusspb.ListPartitionInfosResponse{}
outer:
	for _, p := range t.sortedPartitions() {
		for _, kv := range p.Spec {
			if v, ok := filter[kv[0]]; ok && v != kv[1] {
				continue outer
			}
		}
		resp.PartitionsInfo = append(resp.PartitionsInfo, &flusspb.PbPartitionInfo{PartitionId: proto.Int64(p.ID), PartitionSpec: pbSpec(p), RemoteDataDir: proto.String(c.remoteDataDir())})
	}
	return resp, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func (cn *conn) serverNodes(resp *flusspb.MetadataResponse) {
	c := cn.s.c
	node := func(s *server) *flusspb.PbServerNode {
		for _, l := range s.listeners {
			if l.cfg.Name == cn.l.cfg.Name {
				return &flusspb.PbServerNode{NodeId: proto.Int32(s.id), Host: proto.String(c.cfg.Host), Port: proto.Int32(l.port)}
			}
		}
		return nil
	}
	resp.CoordinatorServer = node(c.servers[0])
	for _, s := range c.servers[1:] {
		resp.TabletServers = append(resp.TabletServers, node(s))
	}
}

func pbBuckets(ls []bucketLeader) []*flusspb.PbBucketMetadata {
	out := make([]*flusspb.PbBucketMetadata, len(ls))
	for b, l := range ls {
		out[b] = &flusspb.PbBucketMetadata{BucketId: proto.Int32(int32(b)), LeaderId: proto.Int32(l.Leader), ReplicaId: []int32{l.Leader}, LeaderEpoch: proto.Int32(l.Epoch)}
	}
	return out
}

func (cn *conn) metadata(req *flusspb.MetadataRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := &flusspb.MetadataResponse{}
	cn.serverNodes(resp)
	var tables []*table
	for _, tp := range req.GetTablePath() {
		t, err := c.cat.lookup(tp.GetDatabaseName(), tp.GetTableName())
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
		tm := &flusspb.PbTableMetadata{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String(t.DB), TableName: proto.String(t.Name)},
			TableId: proto.Int64(t.ID), SchemaId: proto.Int32(t.SchemaID), TableJson: t.Desc.marshal(),
			CreatedTime: proto.Int64(t.Created), ModifiedTime: proto.Int64(t.Modified), RemoteDataDir: proto.String(c.remoteDataDir())}
		if !t.partitioned() {
			tm.BucketMetadata = pbBuckets(t.Leaders)
		}
		resp.TableMetadata = append(resp.TableMetadata, tm)
	}
	addPart := func(t *table, p *partition) {
		resp.PartitionMetadata = append(resp.PartitionMetadata, &flusspb.PbPartitionMetadata{TableId: proto.Int64(t.ID), PartitionName: proto.String(p.Name), PartitionId: proto.Int64(p.ID), BucketMetadata: pbBuckets(p.Leaders)})
	}
	for _, pp := range req.GetPartitionsPath() {
		t, err := c.cat.lookup(pp.GetDatabaseName(), pp.GetTableName())
		if err != nil {
			return nil, err
		}
		p := t.partitionByName(pp.GetPartitionName())
		if p == nil {
			return nil, ferr(codePartitionNotExists, "table %s: partition %q does not exist", t.path(), pp.GetPartitionName())
		}
		addPart(t, p)
	}
	for _, id := range req.GetPartitionsId() {
		found := false
		for _, t := range tables {
			if p, ok := t.Partitions[id]; ok {
				addPart(t, p)
				found = true
				break
			}
		}
		if !found {
			return nil, ferr(codePartitionNotExists, "partition id %d does not exist in the requested tables", id)
		}
	}
	return resp, nil
}

func (cn *conn) lakeSnapshot(req *flusspb.GetLakeSnapshotRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName())
	if err != nil {
		return nil, err
	}
	if req.SnapshotId != nil && req.GetReadable() {
		return nil, ferr(codeInvalidConfig, "GetLakeSnapshot: snapshot_id and readable cannot both be set")
	}
	ls := t.Lake
	if ls == nil || (req.SnapshotId != nil && req.GetSnapshotId() != ls.SnapshotID) {
		return nil, ferr(codeLakeSnapshotNotExist, "table %s has no lake snapshot%s", t.path(), func() string {
			if req.SnapshotId != nil {
				return " " + strconv.FormatInt(req.GetSnapshotId(), 10)
			}
			return ""
		}())
	}
	id := ls.SnapshotID
	offsets := ls.Offsets
	if req.GetReadable() && ls.Readable != nil {
		if *ls.Readable < 0 {
			return nil, ferr(codeLakeSnapshotNotExist, "table %s has no readable lake snapshot yet", t.path())
		}
		id = *ls.Readable
		if ls.ReadableOffsets != nil {
			offsets = ls.ReadableOffsets
		}
	}
	resp := &flusspb.GetLakeSnapshotResponse{TableId: proto.Int64(t.ID), SnapshotId: proto.Int64(id)}
	for _, o := range offsets {
		b := &flusspb.PbLakeSnapshotForBucket{BucketId: proto.Int32(o.Bucket), LogOffset: proto.Int64(o.LogOffset)}
		if o.PartitionID != nil {
			b.PartitionId = proto.Int64(*o.PartitionID)
			if o.PartitionName != "" {
				b.PartitionName = proto.String(o.PartitionName)
			} else if p := t.Partitions[*o.PartitionID]; p != nil {
				b.PartitionName = proto.String(p.Name)
			}
		}
		resp.BucketSnapshots = append(resp.BucketSnapshots, b)
	}
	return resp, nil
}

// fsToken answers with the local file system: there are no credentials to
// hand out, so the token is the empty-credentials JSON and the scheme "file".
func (cn *conn) fsToken() proto.Message {
	return &flusspb.GetFileSystemSecurityTokenResponse{Schema: proto.String("file"), Token: []byte(`{"version":1}`),
		ExpirationTime: proto.Int64(cn.s.c.now() + 3600_000)}
}

func (cn *conn) listRemoteLogManifests(req *flusspb.ListRemoteLogManifestsRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.cat.tableByID(req.GetTableId())
	if t == nil {
		return nil, ferr(codeTableNotExist, "table id %d does not exist", req.GetTableId())
	}
	ls, p, err := t.leadersFor(req.PartitionId)
	if err != nil {
		return nil, err
	}
	resp := &flusspb.ListRemoteLogManifestsResponse{}
	for b := range ls {
		bd, err := c.bucketLocked(t, req.PartitionId, int32(b))
		if err != nil {
			return nil, err
		}
		if bd.log.meta.ManifestID == "" {
			continue
		}
		dir := remoteTabletDir(c.remoteDataDir(), t, p, int32(b))
		end := bd.log.meta.Remote[len(bd.log.meta.Remote)-1].EndOffset
		tb := &flusspb.PbTableBucket{TableId: proto.Int64(t.ID), BucketId: proto.Int32(int32(b))}
		if p != nil {
			tb.PartitionId = proto.Int64(p.ID)
		}
		resp.Manifests = append(resp.Manifests, &flusspb.PbRemoteLogManifestEntry{TableBucket: tb, RemoteLogManifestPath: proto.String(manifestPath(dir, bd.log.meta.ManifestID)), RemoteLogEndOffset: proto.Int64(end)})
	}
	return resp, nil
}
