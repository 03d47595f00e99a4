package minifluss

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
)

// kvOp is one upsert (value non-nil: schema id int16 LE + row) or delete.
type kvOp struct {
	key   []byte
	value []byte
}

// changeRow is one changelog record: a change type byte and the row bytes in
// the KV format (no schema id).
type changeRow struct {
	ct  byte
	row []byte
}

const (
	ctInsert       byte = 1
	ctUpdateBefore byte = 2
	ctUpdateAfter  byte = 3
	ctDelete       byte = 4
)

// applyKvLocked applies ops to a bucket's KV state and appends the changelog
// they produce as one batch (a 0-record batch when nothing changed, as Fluss
// does). It returns the log end offset after the write.
func (c *Cluster) applyKvLocked(t *table, bd *bucketData, ops []kvOp) (int64, error) {
	var changes []changeRow
	wal := upper(t.Desc.Properties["table.changelog.image"]) == "WAL"
	firstRow := t.Desc.Properties["table.merge-engine"] == "first_row"
	ignoreDeletes := upper(t.Desc.Properties["table.delete.behavior"]) == "IGNORE"
	kept := ops[:0:0]
	// pending holds this write's own effects, so a key written twice in one
	// call sees its first write (nil value = deleted in this call)
	pending := map[string][]byte{}
	for _, op := range ops {
		old, seen := pending[string(op.key)]
		had := seen && old != nil
		if !seen {
			old, had = bd.kv.get(op.key)
		}
		if (firstRow && had && op.value != nil) || (ignoreDeletes && op.value == nil) {
			// first_row keeps the first value; IGNORE drops deletes: no change
			continue
		}
		kept = append(kept, op)
		pending[string(op.key)] = op.value
		// Values of an older schema (ADD COLUMN since, or a client that
		// wrote with it) go into the changelog in the current schema.
		nv := op.value
		var err error
		if had {
			if old, err = t.upgradeKvValue(old); err != nil {
				return 0, err
			}
		}
		if nv != nil {
			if nv, err = t.upgradeKvValue(nv); err != nil {
				return 0, err
			}
		}
		switch {
		case op.value == nil && had:
			changes = append(changes, changeRow{ctDelete, old[2:]})
		case op.value == nil:
			// deleting a missing key changes nothing
		case had && wal:
			changes = append(changes, changeRow{ctUpdateAfter, nv[2:]})
		case had:
			changes = append(changes, changeRow{ctUpdateBefore, old[2:]}, changeRow{ctUpdateAfter, nv[2:]})
		case wal:
			changes = append(changes, changeRow{ctUpdateAfter, nv[2:]})
		default:
			changes = append(changes, changeRow{ctInsert, nv[2:]})
		}
	}
	batch, err := c.encodeChangelog(t, changes)
	if err != nil {
		return 0, err
	}
	for _, op := range kept {
		if err := bd.kv.put(op.key, op.value); err != nil {
			return 0, err
		}
	}
	if err := bd.kv.flush(); err != nil {
		return 0, err
	}
	if _, err := bd.log.append(batch, c.now()); err != nil {
		return 0, err
	}
	c.notifyLocked()
	return bd.log.highWatermark(), nil
}

// ---- PutKv ----

func (cn *conn) putKv(req *flusspb.PutKvRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableByIDLocked(req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &flusspb.PutKvResponse{}
	for _, b := range req.GetBucketsReq() {
		r := &flusspb.PbPutKvRespForBucket{PartitionId: b.PartitionId, BucketId: b.BucketId}
		resp.BucketsResp = append(resp.BucketsResp, r)
		if !t.isPK() {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeNonPrimaryKeyTable, "table %s has no primary key: PutKv needs a primary-key table", t.path()))
			continue
		}
		if len(req.GetTargetColumns()) > 0 {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeInvalidTable, "%s: partial updates (target_columns) are not supported by the emulator", t.path()))
			continue
		}
		bd := cn.leaderOrSetErr(t, b.PartitionId, b.GetBucketId(), &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		kb, err := decodeKvBatch(b.GetRecords())
		if err != nil {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeCorruptRecord, "%s bucket %d: %v", t.path(), b.GetBucketId(), err))
			continue
		}
		// Any registered schema id is accepted (KvTablet.validateSchemaId);
		// values keep it, their changelog is written in the latest schema.
		if _, err := t.typesOf(kb.SchemaID); err != nil || kb.SchemaID < 0 || int32(kb.SchemaID) > t.SchemaID {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeSchemaNotExist, "Invalid schema id: %d, latest schema id: %d", kb.SchemaID, t.SchemaID))
			continue
		}
		ops := make([]kvOp, len(kb.Records))
		for i, rec := range kb.Records {
			ops[i].key = rec.Key
			if rec.Value != nil {
				if err := t.checkRowOf(kb.SchemaID, rec.Value); err != nil {
					setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeCorruptRecord, "%s bucket %d record %d: %v", t.path(), b.GetBucketId(), i, err))
					ops = nil
					break
				}
				ops[i].value = record.EncodeKvValue(make([]byte, 0, 2+len(rec.Value)), kb.SchemaID, rec.Value)
			}
		}
		if ops == nil {
			continue
		}
		end, err := c.applyKvLocked(t, bd, ops)
		if err != nil {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeKvStorage, "%s bucket %d: %v", t.path(), b.GetBucketId(), err))
			continue
		}
		r.LogEndOffset = proto.Int64(end)
	}
	return resp, nil
}

// ---- Lookup / PrefixLookup ----

func (cn *conn) lookup(req *flusspb.LookupRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.tableByIDLocked(req.GetTableId()))
	if err != nil {
		return nil, err
	}
	resp := &flusspb.LookupResponse{}
	for _, b := range req.GetBucketsReq() {
		r := &flusspb.PbLookupRespForBucket{PartitionId: b.PartitionId, BucketId: b.BucketId}
		resp.BucketsResp = append(resp.BucketsResp, r)
		bd := cn.leaderOrSetErr(t, b.PartitionId, b.GetBucketId(), &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		for _, k := range b.GetKeys() {
			v := &flusspb.PbValue{}
			if val, ok := bd.kv.get(k); ok {
				v.Values = val
			}
			r.Values = append(r.Values, v)
		}
	}
	return resp, nil
}

func (cn *conn) prefixLookup(req *flusspb.PrefixLookupRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.tableByIDLocked(req.GetTableId()))
	if err != nil {
		return nil, err
	}
	resp := &flusspb.PrefixLookupResponse{}
	for _, b := range req.GetBucketsReq() {
		r := &flusspb.PbPrefixLookupRespForBucket{PartitionId: b.PartitionId, BucketId: b.BucketId}
		resp.BucketsResp = append(resp.BucketsResp, r)
		bd := cn.leaderOrSetErr(t, b.PartitionId, b.GetBucketId(), &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		for _, k := range b.GetKeys() {
			r.ValueLists = append(r.ValueLists, &flusspb.PbValueList{Values: bd.kv.prefix(k)})
		}
	}
	return resp, nil
}

// ---- ScanKv (spec §5.4) ----

const (
	maxScanBatchBytes     = 10 << 20 // kv.scanner.max-batch-size
	maxScannersPerBucket  = 8        // kv.scanner.max-per-bucket
	maxScannersPerCluster = 200      // kv.scanner.max-per-server
	scannerTTL            = 10 * time.Minute
)

type kvScanner struct {
	id       string
	bucket   bucketKey
	server   int32
	entries  []kvEntry
	pos      int
	limit    int64
	returned int64
	seq      int32
	lastUsed time.Time
	expired  bool // idle past the TTL: kept only to answer SCANNER_EXPIRED once
}

func (cn *conn) scanKv(req *flusspb.ScanKvRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := &flusspb.ScanKvResponse{}
	fail := func(e *Error) (proto.Message, error) {
		setErr(&resp.ErrorCode, &resp.ErrorMessage, e)
		return resp, nil
	}
	now := time.Now()
	ttl := c.faults.scannerTTL
	if ttl <= 0 {
		ttl = scannerTTL
	}
	for id, s := range c.scanners {
		idle := now.Sub(s.lastUsed)
		switch {
		case s.expired && idle > 2*ttl:
			delete(c.scanners, id)
		case !s.expired && idle > ttl:
			s.expired, s.entries = true, nil
		}
	}
	if br := req.GetBucketScanReq(); br != nil {
		if req.ScannerId != nil {
			return fail(ferr(codeInvalidScanRequest, "scanner_id and bucket_scan_req are mutually exclusive"))
		}
		if req.GetBatchSizeBytes() <= 0 {
			return fail(ferr(codeInvalidScanRequest, "batch_size_bytes must be positive, got %d", req.GetBatchSizeBytes()))
		}
		if req.GetCallSeqId() != 0 {
			return fail(ferr(codeInvalidScanRequest, "a new scan must start with call_seq_id 0, got %d", req.GetCallSeqId()))
		}
		t, err := c.tableByIDLocked(br.GetTableId())
		if err != nil {
			return fail(asFluss(err))
		}
		if !t.isPK() {
			return fail(ferr(codeNonPrimaryKeyTable, "table %s has no primary key: ScanKv needs a primary-key table", t.path()))
		}
		_, bd, fe := cn.leaderLocked(t, br.PartitionId, br.GetBucketId())
		if fe != nil {
			return fail(fe)
		}
		k := bucketKey{t.ID, partKey(br.PartitionId), br.GetBucketId()}
		perBucket, open := 0, 0
		for _, s := range c.scanners {
			if !s.expired {
				open++
				if s.bucket == k {
					perBucket++
				}
			}
		}
		if perBucket >= maxScannersPerBucket || open >= maxScannersPerCluster {
			return fail(ferr(codeTooManyScanners, "too many open scanners (%d on this bucket, %d in total)", perBucket, open))
		}
		resp.LogOffset = proto.Int64(bd.log.highWatermark())
		entries := bd.kv.sorted()
		limit := br.GetLimit()
		if len(entries) == 0 || (br.Limit != nil && limit <= 0) {
			resp.HasMoreResults = proto.Bool(false)
			return resp, nil
		}
		c.nextScan++
		s := &kvScanner{id: fmt.Sprintf("s%d-%d", cn.s.id, c.nextScan), bucket: k, server: cn.s.id, entries: entries, limit: limit, seq: 0, lastUsed: now}
		resp.ScannerId = []byte(s.id)
		if c.scanPage(s, req.GetBatchSizeBytes(), resp) {
			c.scanners[s.id] = s
		}
		return resp, nil
	}
	if req.ScannerId == nil {
		return fail(ferr(codeInvalidScanRequest, "ScanKv needs scanner_id or bucket_scan_req"))
	}
	s, ok := c.scanners[string(req.GetScannerId())]
	if !ok {
		return fail(ferr(codeUnknownScannerID, "unknown scanner id %q", req.GetScannerId()))
	}
	resp.ScannerId = req.GetScannerId()
	if s.expired {
		delete(c.scanners, s.id)
		return fail(ferr(codeScannerExpired, "scanner %s expired after being idle longer than %s", s.id, ttl))
	}
	if req.GetCloseScanner() {
		delete(c.scanners, s.id)
		resp.HasMoreResults = proto.Bool(false)
		return resp, nil
	}
	if t := c.cat.tableByID(s.bucket.table); t == nil {
		delete(c.scanners, s.id)
		return fail(ferr(codeUnknownTableOrBucket, "table id %d was dropped during the scan", s.bucket.table))
	} else if ls, _, err := t.leadersFor(partPtr(s.bucket.partition)); err != nil || ls[s.bucket.bucket].Leader != cn.s.id {
		delete(c.scanners, s.id)
		return fail(ferr(codeNotLeaderOrFollower, "tablet server %d no longer leads %s bucket %d: restart the scan", cn.s.id, t.path(), s.bucket.bucket))
	}
	if req.GetCallSeqId() != s.seq+1 {
		return fail(ferr(codeInvalidScanRequest, "scanner %s expected call_seq_id %d, got %d", s.id, s.seq+1, req.GetCallSeqId()))
	}
	if req.GetBatchSizeBytes() <= 0 {
		return fail(ferr(codeInvalidScanRequest, "batch_size_bytes must be positive, got %d", req.GetBatchSizeBytes()))
	}
	s.seq++
	s.lastUsed = now
	if !c.scanPage(s, req.GetBatchSizeBytes(), resp) {
		delete(c.scanners, s.id)
	}
	return resp, nil
}

func partPtr(p int64) *int64 {
	if p < 0 {
		return nil
	}
	return &p
}

// scanPage fills one page (at least one record) and reports whether more remain.
func (c *Cluster) scanPage(s *kvScanner, batchBytes int32, resp *flusspb.ScanKvResponse) bool {
	budget := int(batchBytes)
	if budget > maxScanBatchBytes {
		budget = maxScanBatchBytes
	}
	var vals [][]byte
	size := 0
	for s.pos < len(s.entries) && (s.limit <= 0 || s.returned < s.limit) {
		v := s.entries[s.pos].value
		if len(vals) > 0 && size+4+len(v) > budget {
			break
		}
		vals = append(vals, v)
		size += 4 + len(v)
		s.pos++
		s.returned++
	}
	if len(vals) > 0 {
		resp.Records = appendValueBatch(nil, vals)
	}
	more := s.pos < len(s.entries) && (s.limit <= 0 || s.returned < s.limit)
	resp.HasMoreResults = proto.Bool(more)
	return more
}

// ---- KV snapshots ----

func (b *bucketData) loadSnapshots(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "kv", "snapshots.json"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, &b.kv.snapshots)
}

func remoteKvDir(root string, t *table, p *partition, bucket int32) string {
	d := filepath.Join(root, "kv", t.DB, t.Name+"-"+strconv.FormatInt(t.ID, 10))
	if p != nil {
		d = filepath.Join(d, p.Name+"-p"+strconv.FormatInt(p.ID, 10))
	}
	return filepath.Join(d, strconv.Itoa(int(bucket)))
}

// snapshotKvLocked records a KV snapshot of a bucket at its current log end.
// It writes the _METADATA JSON of spec §5.1 into snap-{id}/ in the remote kv
// dir; it does NOT write RocksDB files (there is no RocksDB here), so readers
// must use ScanKv for the rows and the snapshot only for its log offset.
func (c *Cluster) snapshotKvLocked(t *table, p *partition, bucket int32, bd *bucketData) (kvSnapshot, error) {
	id := int64(1)
	if n := len(bd.kv.snapshots); n > 0 {
		id = bd.kv.snapshots[n-1].ID + 1
	}
	snap := kvSnapshot{ID: id, LogOffset: bd.log.highWatermark(), RowCount: int64(len(bd.kv.data))}
	dir := filepath.Join(remoteKvDir(c.remoteDataDir(), t, p, bucket), "snap-"+strconv.FormatInt(id, 10))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return snap, err
	}
	meta := map[string]any{"version": 1, "table_id": t.ID, "bucket_id": bucket, "snapshot_id": id, "snapshot_location": dir,
		"kv_snapshot_handle": map[string]any{"shared_file_handles": []any{}, "private_file_handles": []any{}, "snapshot_incremental_size": 0},
		"log_offset":         snap.LogOffset, "row_count": snap.RowCount}
	if p != nil {
		meta["partition_id"] = p.ID
	}
	mb, _ := json.Marshal(meta)
	f := filepath.Join(dir, "_METADATA")
	if err := os.WriteFile(f, mb, 0o644); err != nil {
		return snap, err
	}
	snap.Files = []string{f}
	bd.kv.snapshots = append(bd.kv.snapshots, snap)
	sb, _ := json.Marshal(bd.kv.snapshots)
	k := bucketKey{t.ID, -1, bucket}
	if p != nil {
		k.partition = p.ID
	}
	return snap, os.WriteFile(filepath.Join(c.tabletDir(k), "kv", "snapshots.json"), sb, 0o644)
}

func (cn *conn) latestKvSnapshots(req *flusspb.GetLatestKvSnapshotsRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.cat.lookup(req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName()))
	if err != nil {
		return nil, err
	}
	resp := &flusspb.GetLatestKvSnapshotsResponse{TableId: proto.Int64(t.ID)}
	var partID *int64
	if t.partitioned() {
		if req.PartitionName == nil {
			return nil, ferr(codePartitionSpecInvalid, "table %s is partitioned: partition_name is required", t.path())
		}
		p := t.partitionByName(req.GetPartitionName())
		if p == nil {
			return nil, ferr(codePartitionNotExists, "table %s: partition %q does not exist", t.path(), req.GetPartitionName())
		}
		partID = &p.ID
		resp.PartitionId = proto.Int64(p.ID)
	} else if req.PartitionName != nil {
		return nil, ferr(codeTableNotPartitioned, "table %s is not partitioned", t.path())
	}
	for b := int32(0); b < t.buckets(); b++ {
		bd, err := c.bucketLocked(t, partID, b)
		if err != nil {
			return nil, err
		}
		s := &flusspb.PbKvSnapshot{BucketId: proto.Int32(b)}
		if n := len(bd.kv.snapshots); n > 0 {
			s.SnapshotId = proto.Int64(bd.kv.snapshots[n-1].ID)
			s.LogOffset = proto.Int64(bd.kv.snapshots[n-1].LogOffset)
		}
		resp.LatestSnapshots = append(resp.LatestSnapshots, s)
	}
	return resp, nil
}

func (cn *conn) kvSnapshotMetadata(req *flusspb.GetKvSnapshotMetadataRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.tableByIDLocked(req.GetTableId()))
	if err != nil {
		return nil, err
	}
	ls, _, err := t.leadersFor(req.PartitionId)
	if err != nil {
		return nil, err
	}
	if req.GetBucketId() < 0 || int(req.GetBucketId()) >= len(ls) {
		return nil, ferr(codeUnknownTableOrBucket, "table %s has no bucket %d", t.path(), req.GetBucketId())
	}
	bd, err := c.bucketLocked(t, req.PartitionId, req.GetBucketId())
	if err != nil {
		return nil, err
	}
	for _, s := range bd.kv.snapshots {
		if s.ID == req.GetSnapshotId() {
			resp := &flusspb.GetKvSnapshotMetadataResponse{LogOffset: proto.Int64(s.LogOffset)}
			for _, f := range s.Files {
				resp.SnapshotFiles = append(resp.SnapshotFiles, &flusspb.PbRemotePathAndLocalFile{RemotePath: proto.String(f), LocalFileName: proto.String(filepath.Base(f))})
			}
			return resp, nil
		}
	}
	return nil, ferr(codeKvSnapshotNotExist, "%s bucket %d has no kv snapshot %d", t.path(), req.GetBucketId(), req.GetSnapshotId())
}

func (cn *conn) listKvSnapshots(req *flusspb.ListKvSnapshotsRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.tableByIDLocked(req.GetTableId()))
	if err != nil {
		return nil, err
	}
	if _, _, err := t.leadersFor(req.PartitionId); err != nil {
		return nil, err
	}
	resp := &flusspb.ListKvSnapshotsResponse{TableId: proto.Int64(t.ID), PartitionId: req.PartitionId}
	for b := int32(0); b < t.buckets(); b++ {
		bd, err := c.bucketLocked(t, req.PartitionId, b)
		if err != nil {
			return nil, err
		}
		for _, s := range bd.kv.snapshots {
			resp.ActiveSnapshots = append(resp.ActiveSnapshots, &flusspb.PbKvSnapshot{BucketId: proto.Int32(b), SnapshotId: proto.Int64(s.ID), LogOffset: proto.Int64(s.LogOffset)})
		}
	}
	return resp, nil
}
