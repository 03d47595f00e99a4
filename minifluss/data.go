package minifluss

import (
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
)

// leaderLocked resolves a data request's bucket and checks that this server
// leads it. The error is the per-bucket one to put into the response.
func (cn *conn) leaderLocked(t *table, partID *int64, bucket int32) (*partition, *bucketData, *Error) {
	c := cn.s.c
	ls, p, err := t.leadersFor(partID)
	if err != nil {
		return nil, nil, asFluss(err)
	}
	if bucket < 0 || int(bucket) >= len(ls) {
		return nil, nil, ferr(codeUnknownTableOrBucket, "table %s has no bucket %d (%d buckets)", t.path(), bucket, len(ls))
	}
	if ls[bucket].Leader != cn.s.id || c.takeNotLeaderLocked(bucketKey{t.ID, partKey(partID), bucket}) {
		return nil, nil, ferr(codeNotLeaderOrFollower, "tablet server %d is not the leader of %s bucket %d (leader is %d)", cn.s.id, t.path(), bucket, ls[bucket].Leader)
	}
	bd, berr := c.bucketLocked(t, partID, bucket)
	if berr != nil {
		return nil, nil, ferr(codeLogStorage, "%s bucket %d: %v", t.path(), bucket, berr)
	}
	return p, bd, nil
}

// leaderOrSetErr is leaderLocked for one entry of a per-bucket response: a
// failure goes into that entry's error fields and the bucket comes back nil.
func (cn *conn) leaderOrSetErr(t *table, partID *int64, bucket int32, code **int32, msg **string) *bucketData {
	_, bd, fe := cn.leaderLocked(t, partID, bucket)
	if fe != nil {
		setErr(code, msg, fe)
		return nil
	}
	return bd
}

// onlyPKTable passes on a table lookup's result for the calls that only
// primary-key tables answer: any other table is NON_PRIMARY_KEY_TABLE.
func onlyPKTable(t *table, err error) (*table, error) {
	if err != nil {
		return nil, err
	}
	if !t.isPK() {
		return nil, ferr(codeNonPrimaryKeyTable, "table %s has no primary key", t.path())
	}
	return t, nil
}

func (c *Cluster) tableByIDLocked(id int64) (*table, error) {
	t := c.cat.tableByID(id)
	if t == nil {
		return nil, ferr(codeUnknownTableOrBucket, "table id %d does not exist", id)
	}
	return t, nil
}

func setErr(code **int32, msg **string, e *Error) {
	*code = proto.Int32(e.Code)
	*msg = proto.String(e.Message)
}

// ---- ProduceLog ----

func (cn *conn) produceLog(req *flusspb.ProduceLogRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableByIDLocked(req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &flusspb.ProduceLogResponse{}
	grew := false
	for _, b := range req.GetBucketsReq() {
		r := &flusspb.PbProduceLogRespForBucket{PartitionId: b.PartitionId, BucketId: b.BucketId}
		resp.BucketsResp = append(resp.BucketsResp, r)
		if t.isPK() {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeInvalidTable, "table %s has a primary key: write it with PutKv, not ProduceLog", t.path()))
			continue
		}
		bd := cn.leaderOrSetErr(t, b.PartitionId, b.GetBucketId(), &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		recs := append([]byte(nil), b.GetRecords()...)
		if err := c.validateProduced(t, recs); err != nil {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeCorruptRecord, "%s bucket %d: %v", t.path(), b.GetBucketId(), err))
			continue
		}
		base, err := bd.log.append(recs, c.now())
		if err != nil {
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeLogStorage, "%s bucket %d: %v", t.path(), b.GetBucketId(), err))
			continue
		}
		grew = true
		r.BaseOffset = proto.Int64(base)
	}
	if grew {
		c.notifyLocked()
	}
	return resp, nil
}

// ---- FetchLog ----

const (
	defaultFetchMaxBytes = 16 << 20
	maxFetchWait         = 30 * time.Second
)

func (cn *conn) fetchLog(req *flusspb.FetchLogRequest) (proto.Message, error) {
	c := cn.s.c
	wait := time.Duration(req.GetMaxWaitMs()) * time.Millisecond
	if wait > maxFetchWait {
		wait = maxFetchWait
	}
	deadline := time.Now().Add(wait)
	for {
		resp, total, urgent, changed, err := cn.fetchOnce(req)
		if err != nil {
			return nil, err
		}
		// Like Fluss's delayed fetch: answer at once on errors or remote
		// segments, else when min_bytes are there or max_wait_ms passed.
		if urgent || total >= int(req.GetMinBytes()) || wait <= 0 {
			return resp, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return resp, nil
		}
		timer := time.NewTimer(left)
		select {
		case <-changed:
		case <-timer.C:
		case <-c.done:
			timer.Stop()
			return resp, nil
		}
		timer.Stop()
	}
}

func (cn *conn) fetchOnce(req *flusspb.FetchLogRequest) (*flusspb.FetchLogResponse, int, bool, <-chan struct{}, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	budget := int(req.GetMaxBytes())
	if budget <= 0 {
		budget = defaultFetchMaxBytes
	}
	total := 0
	resp := &flusspb.FetchLogResponse{}
	for _, tr := range req.GetTablesReq() {
		out := &flusspb.PbFetchLogRespForTable{TableId: tr.TableId}
		resp.TablesResp = append(resp.TablesResp, out)
		t := c.cat.tableByID(tr.GetTableId())
		var proj []int32
		var projErr *Error
		if t != nil && tr.GetProjectionPushdownEnabled() {
			proj, projErr = checkProjection(t, tr.GetProjectedFields())
		}
		filt, err := fetchFilter(t, tr)
		if err != nil {
			return nil, 0, false, nil, err
		}
		for _, br := range tr.GetBucketsReq() {
			r := &flusspb.PbFetchLogRespForBucket{PartitionId: br.PartitionId, BucketId: br.BucketId}
			out.BucketsResp = append(out.BucketsResp, r)
			if t == nil {
				setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeUnknownTableOrBucket, "table id %d does not exist", tr.GetTableId()))
				continue
			}
			if projErr != nil {
				setErr(&r.ErrorCode, &r.ErrorMessage, projErr)
				continue
			}
			p, bd, fe := cn.leaderLocked(t, br.PartitionId, br.GetBucketId())
			if fe != nil {
				setErr(&r.ErrorCode, &r.ErrorMessage, fe)
				continue
			}
			lg := bd.log
			hw := lg.highWatermark()
			r.HighWatermark = proto.Int64(hw)
			r.LogStartOffset = proto.Int64(0) // always 0 in Fluss 1.0 (spec §2.6)
			off := br.GetFetchOffset()
			if off == fetchFromEarliest {
				off = lg.meta.LogStart
			}
			if off < 0 || off > hw || off < lg.meta.LogStart {
				setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeLogOffsetOutOfRange, "%s bucket %d: fetch offset %d outside [%d, %d]", t.path(), br.GetBucketId(), off, lg.meta.LogStart, hw))
				continue
			}
			remoteFirst := req.GetReadPreference() == 1 // 1.0 REMOTE_FIRST
			if off < lg.meta.LocalStart || remoteFirst && off < lg.remoteEnd() {
				if off < lg.meta.LocalStart && t.lakeEnabled() && c.tieredOffsetLocked(t, br.PartitionId, br.GetBucketId()) > off {
					// Already in the lake: empty records, no error (REPMGR.canFetchFromLakeLog).
					continue
				}
				segs, pos, ok := lg.remoteFetch(off)
				if !ok {
					setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeLogOffsetOutOfRange, "%s bucket %d: offset %d is below the local log start %d and in no remote segment", t.path(), br.GetBucketId(), off, lg.meta.LocalStart))
					continue
				}
				info := &flusspb.PbRemoteLogFetchInfo{RemoteLogTabletDir: proto.String(remoteTabletDir(c.remoteDataDir(), t, p, br.GetBucketId())), FirstStartPos: proto.Int32(int32(pos))}
				if p != nil {
					info.PartitionName = proto.String(p.Name)
				}
				for _, s := range segs {
					info.RemoteLogSegments = append(info.RemoteLogSegments, &flusspb.PbRemoteLogSegment{RemoteLogSegmentId: proto.String(s.ID),
						RemoteLogStartOffset: proto.Int64(s.StartOffset), RemoteLogEndOffset: proto.Int64(s.EndOffset),
						SegmentSizeInBytes: proto.Int32(int32(s.SizeInBytes)), MaxTimestamp: proto.Int64(s.MaxTimestamp)})
				}
				r.RemoteLogFetchInfo = info
				continue
			}
			if off == hw || (budget <= 0 && total > 0) {
				r.Records = []byte{}
				continue
			}
			limit := int(br.GetMaxFetchBytes())
			if limit <= 0 || limit > budget {
				limit = budget
			}
			var data []byte
			var err error
			if filt != nil {
				var end int64
				var skipped int
				data, end, skipped, err = lg.filteredRead(off, limit, func(n int32, schemaID int16, stats []byte) bool {
					types, terr := t.typesOf(schemaID)
					return terr != nil || keepBatch(filt, n, stats, types)
				})
				c.filterSkipped += int64(skipped)
				if end >= 0 {
					r.FilteredEndOffset = proto.Int64(end)
				}
				if err == nil && len(data) == 0 {
					r.Records = []byte{}
					continue
				}
			} else {
				data, err = lg.read(off, limit)
			}
			if err != nil {
				setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeLogStorage, "%s bucket %d: %v", t.path(), br.GetBucketId(), err))
				continue
			}
			if proj != nil {
				data, err = projectBatches(t, data, proj)
				if err != nil {
					setErr(&r.ErrorCode, &r.ErrorMessage, asFluss(err))
					continue
				}
			}
			if c.takeCutLocked(bucketKey{t.ID, partKey(br.PartitionId), br.GetBucketId()}) {
				data = cutLastBatch(data)
			}
			r.Records = data
			total += len(data)
			budget -= len(data)
		}
	}
	urgent := false
	for _, tr := range resp.TablesResp {
		for _, br := range tr.BucketsResp {
			urgent = urgent || br.ErrorCode != nil || br.RemoteLogFetchInfo != nil
		}
	}
	return resp, total, urgent, c.changed, nil
}

// tieredOffsetLocked is the lake's exclusive end offset for a bucket, or -1.
func (c *Cluster) tieredOffsetLocked(t *table, partID *int64, bucket int32) int64 {
	if t.Lake == nil {
		return -1
	}
	for _, o := range t.Lake.Offsets {
		if o.Bucket == bucket && partKey(o.PartitionID) == partKey(partID) {
			return o.LogOffset
		}
	}
	return -1
}

// ---- ListOffsets ----

func (cn *conn) listOffsets(req *flusspb.ListOffsetsRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableByIDLocked(req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &flusspb.ListOffsetsResponse{}
	for _, b := range req.GetBucketId() {
		r := &flusspb.PbListOffsetsRespForBucket{BucketId: proto.Int32(b)}
		resp.BucketsResp = append(resp.BucketsResp, r)
		bd := cn.leaderOrSetErr(t, req.PartitionId, b, &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		switch req.GetOffsetType() {
		case 0:
			r.Offset = proto.Int64(bd.log.meta.LogStart)
		case 1:
			r.Offset = proto.Int64(bd.log.highWatermark())
		case 2:
			ts := req.GetStartTimestamp()
			if ts > c.now() {
				setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeInvalidTimestamp, "timestamp %d is after the current time", ts))
				continue
			}
			r.Offset = proto.Int64(bd.log.offsetForTimestamp(ts))
		default:
			setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeInvalidConfig, "offset type %d is not 0 (EARLIEST), 1 (LATEST) or 2 (TIMESTAMP)", req.GetOffsetType()))
		}
	}
	return resp, nil
}

// ---- GetTableStats ----

func (cn *conn) tableStats(req *flusspb.GetTableStatsRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableByIDLocked(req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &flusspb.GetTableStatsResponse{}
	for _, b := range req.GetBucketsReq() {
		r := &flusspb.PbTableStatsRespForBucket{PartitionId: b.PartitionId, BucketId: b.BucketId}
		resp.BucketsResp = append(resp.BucketsResp, r)
		bd := cn.leaderOrSetErr(t, b.PartitionId, b.GetBucketId(), &r.ErrorCode, &r.ErrorMessage)
		if bd == nil {
			continue
		}
		if bd.kv != nil {
			if upper(t.Desc.Properties["table.changelog.image"]) == "WAL" {
				setErr(&r.ErrorCode, &r.ErrorMessage, ferr(codeInvalidTable, "%s: row count is disabled for table.changelog.image=WAL", t.path()))
				continue
			}
			r.RowCount = proto.Int64(int64(len(bd.kv.data)))
		} else {
			r.RowCount = proto.Int64(bd.log.count())
		}
	}
	return resp, nil
}

// ---- LimitScan ----

func (cn *conn) limitScan(req *flusspb.LimitScanRequest) (proto.Message, error) {
	c := cn.s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.tableByIDLocked(req.GetTableId())
	if err != nil {
		return nil, err
	}
	resp := &flusspb.LimitScanResponse{IsLogTable: proto.Bool(!t.isPK())}
	_, bd, fe := cn.leaderLocked(t, req.PartitionId, req.GetBucketId())
	if fe != nil {
		setErr(&resp.ErrorCode, &resp.ErrorMessage, fe)
		return resp, nil
	}
	limit := int64(req.GetLimit())
	if limit <= 0 {
		setErr(&resp.ErrorCode, &resp.ErrorMessage, ferr(codeInvalidScanRequest, "limit %d must be positive", limit))
		return resp, nil
	}
	if bd.kv != nil {
		var vals [][]byte
		for _, e := range bd.kv.sorted() {
			if int64(len(vals)) >= limit {
				break
			}
			vals = append(vals, e.value)
		}
		if len(vals) > 0 {
			resp.Records = appendValueBatch(nil, vals)
		}
		return resp, nil
	}
	hw := bd.log.highWatermark()
	from := hw - limit
	if from < bd.log.meta.LocalStart {
		from = bd.log.meta.LocalStart
	}
	if from < hw {
		data, _, err := bd.log.readRange(bd.log.boundaryAtOrBefore(from), hw)
		if err != nil {
			setErr(&resp.ErrorCode, &resp.ErrorMessage, ferr(codeLogStorage, "%v", err))
			return resp, nil
		}
		resp.Records = data
	}
	return resp, nil
}

// cutLastBatch drops the second half of the last batch when there are at
// least two, as a size-limited Fluss fetch may (spec §2.6): readers must
// stop at a short tail, not fail.
func cutLastBatch(data []byte) []byte {
	hs, err := splitBatches(data)
	if err != nil || len(hs) < 2 {
		return data
	}
	last := hs[len(hs)-1]
	return data[:len(data)-last.size/2]
}
