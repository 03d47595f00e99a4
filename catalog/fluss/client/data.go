package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"
)

// maxBucketFanout bounds concurrent per-bucket requests of one call.
const maxBucketFanout = 8

// OffsetSpec says which offset LIST_OFFSETS resolves.
type OffsetSpec struct {
	Type      int32 // flussapi.OffsetEarliest, OffsetLatest or OffsetTimestamp
	Timestamp int64 // ms since epoch, for OffsetTimestamp
}

// Earliest is the smallest offset still readable (remote storage included).
func Earliest() OffsetSpec { return OffsetSpec{Type: flussapi.OffsetEarliest} }

// Latest is the high watermark: the end (exclusive) of what readers may see.
func Latest() OffsetSpec { return OffsetSpec{Type: flussapi.OffsetLatest} }

// AtTimestamp is the first offset whose batch commit time is >= ms.
func AtTimestamp(ms int64) OffsetSpec {
	return OffsetSpec{Type: flussapi.OffsetTimestamp, Timestamp: ms}
}

func (s OffsetSpec) String() string {
	switch s.Type {
	case flussapi.OffsetEarliest:
		return "earliest"
	case flussapi.OffsetLatest:
		return "latest"
	case flussapi.OffsetTimestamp:
		return fmt.Sprintf("timestamp %d", s.Timestamp)
	}
	return fmt.Sprintf("offset type %d", s.Type)
}

// Buckets returns the bucket ids of t (or of its partition part), from
// cluster metadata.
func (c *Client) Buckets(ctx context.Context, t TablePath, part *int64) ([]int32, error) {
	if out := c.cachedBuckets(t, part); out != nil {
		return out, nil
	}
	var parts []int64
	if part != nil {
		parts = []int64{*part}
	}
	if _, err := c.refreshMetadataParts(ctx, []TablePath{t}, parts); err != nil {
		return nil, fmt.Errorf("fluss: buckets of %s: %w", t, err)
	}
	if out := c.cachedBuckets(t, part); out != nil {
		return out, nil
	}
	if part != nil {
		return nil, fmt.Errorf("fluss: buckets of %s partition %d: %w", t, *part, &Error{Code: flussapi.PartitionNotExists, Message: "not in cluster metadata"})
	}
	c.mu.Lock()
	known := c.tables[t] != nil
	c.mu.Unlock()
	if known {
		// The table exists but has no table-level buckets: it is partitioned.
		return nil, fmt.Errorf("%w: buckets of %s: the table is partitioned, name a partition id", ErrPartitionNotExist, t)
	}
	return nil, fmt.Errorf("fluss: buckets of %s: %w", t, &Error{Code: flussapi.TableNotExist, Message: "not in cluster metadata"})
}

// cachedBuckets returns the bucket ids known from metadata, or nil.
func (c *Client) cachedBuckets(t TablePath, part *int64) []int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.tables[t]
	if m == nil {
		return nil
	}
	leaders := m.leaders
	if part != nil {
		leaders = m.partLeads[*part]
	}
	if len(leaders) == 0 {
		return nil
	}
	out := make([]int32, 0, len(leaders))
	for b := range leaders {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ListOffsets resolves spec for every bucket of t (or of partition part) and
// returns bucket → offset. Each bucket is asked at its leader.
func (c *Client) ListOffsets(ctx context.Context, t TablePath, part *int64, spec OffsetSpec) (map[int32]int64, error) {
	buckets, err := c.Buckets(ctx, t, part)
	if err != nil {
		return nil, err
	}
	return c.ListBucketOffsets(ctx, t, part, buckets, spec)
}

// ListBucketOffsets is ListOffsets for chosen buckets, one LIST_OFFSETS per
// leader.
func (c *Client) ListBucketOffsets(ctx context.Context, t TablePath, part *int64, buckets []int32, spec OffsetSpec) (map[int32]int64, error) {
	id, err := c.tableID(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make(map[int32]int64, len(buckets))
	var missing []int32
	err = c.perLeader(ctx, t, id, part, buckets, flussapi.ListOffsets, func(bs []int32) (proto.Message, proto.Message) {
		req := &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(spec.Type), TableId: proto.Int64(id), PartitionId: part, BucketId: bs}
		if spec.Type == flussapi.OffsetTimestamp {
			req.StartTimestamp = proto.Int64(spec.Timestamp)
		}
		return req, &flusspb.ListOffsetsResponse{}
	}, func(m proto.Message, each func(b int32, code *int32, msg *string) bool) {
		for _, r := range m.(*flusspb.ListOffsetsResponse).GetBucketsResp() {
			if each(r.GetBucketId(), r.ErrorCode, r.ErrorMessage) {
				if r.Offset == nil {
					missing = append(missing, r.GetBucketId())
					continue
				}
				out[r.GetBucketId()] = r.GetOffset()
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("fluss: %s offsets: %w", spec, err)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: LIST_OFFSETS answers for %s buckets %v have no offset", ErrProtocol, t, missing)
	}
	return out, nil
}

// perLeader sends one request per leader for the given buckets of a table
// (build makes the request and an empty response for a bucket group) and
// hands each answer to visit, which calls each(bucket, code, message) per
// bucket entry; each reports whether the entry is a success to keep.
// Buckets whose leader moved (per-bucket or whole-request not-leader
// answers, or an unreachable server) are retried after a metadata reload.
func (c *Client) perLeader(ctx context.Context, t TablePath, id int64, part *int64, buckets []int32, key flussapi.APIKey,
	build func([]int32) (proto.Message, proto.Message), visit func(proto.Message, func(int32, *int32, *string) bool)) error {
	pending := slices.Clone(buckets)
	var last error
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt > leaderRetries {
			return last
		}
		if attempt > 0 {
			if err := sleepCtx(ctx, time.Duration(attempt)*20*time.Millisecond); err != nil {
				return fmt.Errorf("%w (after %w)", err, last)
			}
			var parts []int64
			if part != nil {
				parts = []int64{*part}
			}
			if _, err := c.refreshMetadataParts(ctx, []TablePath{t}, parts); err != nil {
				return err
			}
		}
		groups := map[string][]int32{}
		var retry []int32
		for _, b := range pending {
			addr, err := c.leaderAddr(ctx, TableBucket{Table: t, TableID: id, PartitionID: part, Bucket: b}, false)
			if err != nil {
				if errors.Is(err, ErrNotLeader) {
					retry, last = append(retry, b), err
					continue
				}
				return err
			}
			groups[addr] = append(groups[addr], b)
		}
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(maxBucketFanout)
		for addr, bs := range groups {
			g.Go(func() error {
				req, resp := build(bs)
				err := c.callAddr(gctx, addr, key, req, resp)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if (errors.Is(err, ErrNotLeader) || errors.Is(err, ErrConnection)) && gctx.Err() == nil {
						retry, last = append(retry, bs...), fmt.Errorf("%s of %s at %s: %w", key, t, addr, err)
						return nil
					}
					return fmt.Errorf("%s of %s buckets %v at %s: %w", key, t, bs, addr, err)
				}
				got := map[int32]bool{}
				var ferr error
				visit(resp, func(b int32, code *int32, msg *string) bool {
					if !slices.Contains(bs, b) || got[b] || ferr != nil {
						return false
					}
					got[b] = true
					if e := codeError(code, msg); e != nil {
						if errors.Is(e, ErrNotLeader) {
							retry, last = append(retry, b), fmt.Errorf("%s of %s bucket %d at %s: %w", key, t, b, addr, e)
						} else {
							ferr = fmt.Errorf("%s of %s bucket %d at %s: %w", key, t, b, addr, e)
						}
						return false
					}
					return true
				})
				if ferr != nil {
					return ferr
				}
				for _, b := range bs {
					if !got[b] {
						return fmt.Errorf("%w: %s answer from %s lacks %s bucket %d", ErrProtocol, key, addr, t, b)
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		pending = retry
	}
	return nil
}

// BucketOffset resolves spec for one bucket.
func (c *Client) BucketOffset(ctx context.Context, b TableBucket, spec OffsetSpec) (int64, error) {
	return c.bucketOffset(ctx, b, spec)
}

func (c *Client) bucketOffset(ctx context.Context, b TableBucket, spec OffsetSpec) (int64, error) {
	req := &flusspb.ListOffsetsRequest{
		FollowerServerId: proto.Int32(-1),
		OffsetType:       proto.Int32(spec.Type),
		TableId:          proto.Int64(b.TableID),
		PartitionId:      b.PartitionID,
		BucketId:         []int32{b.Bucket},
	}
	if spec.Type == flussapi.OffsetTimestamp {
		req.StartTimestamp = proto.Int64(spec.Timestamp)
	}
	var off int64
	_, _, err := c.callLeader(ctx, b, flussapi.ListOffsets, req,
		func() proto.Message { return &flusspb.ListOffsetsResponse{} },
		func(m proto.Message) error {
			for _, r := range m.(*flusspb.ListOffsetsResponse).GetBucketsResp() {
				if r.GetBucketId() != b.Bucket {
					continue
				}
				if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
					return err
				}
				if r.Offset == nil {
					return fmt.Errorf("%w: LIST_OFFSETS answer for bucket %d has no offset", ErrProtocol, b.Bucket)
				}
				off = r.GetOffset()
				return nil
			}
			return fmt.Errorf("%w: LIST_OFFSETS answer lacks bucket %d", ErrProtocol, b.Bucket)
		})
	if err != nil {
		return 0, fmt.Errorf("fluss: %s offset: %w", spec, err)
	}
	return off, nil
}

// FetchRequest asks for log records of one bucket.
type FetchRequest struct {
	Bucket TableBucket
	Offset int64 // first offset wanted; flussapi.FetchFromEarliest for earliest
	// MaxBytes per bucket; 0 = Config.FetchMaxBucketBytes. The server returns
	// at least one whole batch even when it is larger.
	MaxBytes int32
	// Projection lists column positions, strictly ascending, to push down
	// (ARROW tables only); nil reads every column.
	Projection []int32
	// MaxWait is how long the server may wait for data at the end of the log;
	// 0 = do not wait.
	MaxWait time.Duration
	// PreferRemote asks for archived segments (read_preference REMOTE_FIRST,
	// Fluss 1.0) when the offset is both local and archived, so that bulk
	// readers take the data from remote storage instead of the tablet server.
	PreferRemote bool
	// Filter, when set, asks the server to leave out batches whose
	// statistics prove no row matches (filter_predicate, Fluss 1.0); its
	// field ids are those of schema FilterSchemaID. Rows of the batches
	// returned still need the full filter.
	Filter         *flusspb.PbPredicate
	FilterSchemaID int32
}

// RemoteSegment is one archived log segment; offsets [Start, End).
type RemoteSegment struct {
	ID           string // UUID text, the segment's directory name
	StartOffset  int64
	EndOffset    int64
	SizeInBytes  int32
	MaxTimestamp int64
}

// RemoteLogFetchInfo says that the fetched offset lives in remote storage.
type RemoteLogFetchInfo struct {
	TabletDir     string // {remote.data.dir}/log/{db}/{table}-{id}/[{partition}-p{id}/]{bucket}
	PartitionName string
	Segments      []RemoteSegment
	FirstStartPos int32 // byte position in the first segment to start decoding at
}

// SegmentPath is where segment s's data file lives:
// {tablet dir}/{segment id}/{start offset as 20 digits}.log.
func (r *RemoteLogFetchInfo) SegmentPath(s RemoteSegment) string {
	return fmt.Sprintf("%s/%s/%020d.log", trimSlash(r.TabletDir), s.ID, s.StartOffset)
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// FetchResult is one bucket's FETCH_LOG answer.
type FetchResult struct {
	HighWatermark int64
	// Records holds zero or more log batches back to back; the first may
	// start before the requested offset and the last may be cut short.
	Records []byte
	// Remote is set (and Records empty) when the offset is archived.
	Remote *RemoteLogFetchInfo
	// FilteredEndOffset is >= 0 when server-side filtering skipped batches.
	FilteredEndOffset int64
}

// FetchLog fetches one bucket from its leader.
func (c *Client) FetchLog(ctx context.Context, r FetchRequest) (*FetchResult, error) {
	maxBytes := r.MaxBytes
	if maxBytes <= 0 {
		maxBytes = c.cfg.FetchMaxBucketBytes
	}
	total := c.cfg.FetchMaxBytes
	if total < maxBytes {
		total = maxBytes
	}
	for i := 1; i < len(r.Projection); i++ {
		if r.Projection[i] <= r.Projection[i-1] {
			return nil, fmt.Errorf("fluss: fetch %s: projection %v is not strictly ascending", r.Bucket, r.Projection)
		}
	}
	treq := &flusspb.PbFetchLogReqForTable{
		TableId:                   proto.Int64(r.Bucket.TableID),
		ProjectionPushdownEnabled: proto.Bool(r.Projection != nil),
		ProjectedFields:           r.Projection,
		BucketsReq: []*flusspb.PbFetchLogReqForBucket{{
			PartitionId:   r.Bucket.PartitionID,
			BucketId:      proto.Int32(r.Bucket.Bucket),
			FetchOffset:   proto.Int64(r.Offset),
			MaxFetchBytes: proto.Int32(maxBytes),
		}},
	}
	req := &flusspb.FetchLogRequest{
		FollowerServerId: proto.Int32(-1),
		MaxBytes:         proto.Int32(total),
		TablesReq:        []*flusspb.PbFetchLogReqForTable{treq},
		MaxWaitMs:        proto.Int32(int32(r.MaxWait / time.Millisecond)),
		MinBytes:         proto.Int32(1),
	}
	if r.PreferRemote {
		req.ReadPreference = proto.Int32(1)
	}
	if r.Filter != nil {
		treq.FilterPredicate = r.Filter
		treq.FilterSchemaId = proto.Int32(r.FilterSchemaID)
	}
	var out *FetchResult
	_, _, err := c.callLeader(ctx, r.Bucket, flussapi.FetchLog, req,
		func() proto.Message { return &flusspb.FetchLogResponse{} },
		func(m proto.Message) error {
			for _, tr := range m.(*flusspb.FetchLogResponse).GetTablesResp() {
				if tr.GetTableId() != r.Bucket.TableID {
					continue
				}
				for _, br := range tr.GetBucketsResp() {
					if br.GetBucketId() != r.Bucket.Bucket || !samePartition(br.PartitionId, r.Bucket.PartitionID) {
						continue
					}
					if err := codeError(br.ErrorCode, br.ErrorMessage); err != nil {
						return err
					}
					res := &FetchResult{HighWatermark: -1, Records: br.GetRecords(), FilteredEndOffset: -1}
					if br.HighWatermark != nil {
						res.HighWatermark = br.GetHighWatermark()
					}
					if br.FilteredEndOffset != nil {
						res.FilteredEndOffset = br.GetFilteredEndOffset()
					}
					if ri := br.GetRemoteLogFetchInfo(); ri != nil {
						info := &RemoteLogFetchInfo{TabletDir: ri.GetRemoteLogTabletDir(), PartitionName: ri.GetPartitionName(), FirstStartPos: ri.GetFirstStartPos()}
						for _, s := range ri.GetRemoteLogSegments() {
							info.Segments = append(info.Segments, RemoteSegment{
								ID: s.GetRemoteLogSegmentId(), StartOffset: s.GetRemoteLogStartOffset(), EndOffset: s.GetRemoteLogEndOffset(),
								SizeInBytes: s.GetSegmentSizeInBytes(), MaxTimestamp: s.GetMaxTimestamp(),
							})
						}
						res.Remote = info
					}
					out = res
					return nil
				}
			}
			return fmt.Errorf("%w: FETCH_LOG answer lacks %s", ErrProtocol, r.Bucket)
		})
	if err != nil {
		return nil, fmt.Errorf("fluss: fetch %s from offset %d: %w", r.Bucket, r.Offset, err)
	}
	return out, nil
}

func samePartition(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// LakeSnapshot is GET_LAKE_SNAPSHOT's answer: the lake's snapshot id and, per
// bucket, the exclusive end of the Fluss log contained in it.
type LakeSnapshot struct {
	TableID    int64
	SnapshotID int64
	Buckets    []LakeBucketOffset
}

// LakeBucketOffset is one bucket's tiered log end (LogOffset -1 if absent).
// PartitionName is the name the lake snapshot records for PartitionID
// ("" when the server sends none): the name of the partition the rows were
// tiered from, which stays known after Fluss drops the partition.
type LakeBucketOffset struct {
	PartitionID   *int64
	PartitionName string
	Bucket        int32
	LogOffset     int64
}

// LogOffset returns the tiered end offset of one bucket, if the snapshot has it.
func (s LakeSnapshot) LogOffset(part *int64, bucket int32) (int64, bool) {
	for _, b := range s.Buckets {
		if b.Bucket == bucket && samePartition(b.PartitionID, part) && b.LogOffset >= 0 {
			return b.LogOffset, true
		}
	}
	return 0, false
}

// LatestLakeSnapshot returns the latest tiered lake snapshot of t
// (errors.Is(err, ErrLakeSnapshotNotExist) when none).
func (c *Client) LatestLakeSnapshot(ctx context.Context, t TablePath) (LakeSnapshot, error) {
	return c.lakeSnapshot(ctx, t, &flusspb.GetLakeSnapshotRequest{TablePath: t.pb()}, "latest")
}

// ReadableLakeSnapshot returns the latest snapshot whose data is visible to
// lake readers; use it for union reads.
func (c *Client) ReadableLakeSnapshot(ctx context.Context, t TablePath) (LakeSnapshot, error) {
	return c.lakeSnapshot(ctx, t, &flusspb.GetLakeSnapshotRequest{TablePath: t.pb(), Readable: proto.Bool(true)}, "readable")
}

// LakeSnapshotByID returns the Fluss offsets recorded for one lake snapshot.
func (c *Client) LakeSnapshotByID(ctx context.Context, t TablePath, id int64) (LakeSnapshot, error) {
	return c.lakeSnapshot(ctx, t, &flusspb.GetLakeSnapshotRequest{TablePath: t.pb(), SnapshotId: proto.Int64(id)}, fmt.Sprintf("id %d", id))
}

func (c *Client) lakeSnapshot(ctx context.Context, t TablePath, req *flusspb.GetLakeSnapshotRequest, what string) (LakeSnapshot, error) {
	var resp flusspb.GetLakeSnapshotResponse
	if err := c.callAny(ctx, flussapi.GetLakeSnapshot, req, &resp); err != nil {
		return LakeSnapshot{}, fmt.Errorf("fluss: %s lake snapshot of %s: %w", what, t, err)
	}
	s := LakeSnapshot{TableID: resp.GetTableId(), SnapshotID: resp.GetSnapshotId()}
	for _, b := range resp.GetBucketSnapshots() {
		off := int64(-1)
		if b.LogOffset != nil {
			off = b.GetLogOffset()
		}
		s.Buckets = append(s.Buckets, LakeBucketOffset{PartitionID: b.PartitionId, PartitionName: b.GetPartitionName(), Bucket: b.GetBucketId(), LogOffset: off})
	}
	return s, nil
}

// KvSnapshots is GET_LATEST_KV_SNAPSHOTS's answer, one entry per bucket.
type KvSnapshots struct {
	TableID     int64
	PartitionID *int64
	Buckets     []KvSnapshot
}

// KvSnapshot is one bucket's latest KV snapshot. Without one (HasSnapshot
// false) the bucket's state is its changelog from the earliest offset.
type KvSnapshot struct {
	Bucket      int32
	HasSnapshot bool
	SnapshotID  int64
	LogOffset   int64 // next changelog offset not in the snapshot
}

// LatestKvSnapshots returns the latest KV snapshot of every bucket of a
// primary-key table (of partition part when partitioned).
func (c *Client) LatestKvSnapshots(ctx context.Context, t TablePath, part *int64) (KvSnapshots, error) {
	req := &flusspb.GetLatestKvSnapshotsRequest{TablePath: t.pb()}
	if part != nil {
		name, err := c.partitionName(ctx, t, *part)
		if err != nil {
			return KvSnapshots{}, fmt.Errorf("fluss: kv snapshots of %s: %w", t, err)
		}
		req.PartitionName = proto.String(name)
	}
	var resp flusspb.GetLatestKvSnapshotsResponse
	if err := c.callAny(ctx, flussapi.GetLatestKvSnapshots, req, &resp); err != nil {
		return KvSnapshots{}, fmt.Errorf("fluss: kv snapshots of %s: %w", t, err)
	}
	out := KvSnapshots{TableID: resp.GetTableId(), PartitionID: resp.PartitionId}
	for _, s := range resp.GetLatestSnapshots() {
		out.Buckets = append(out.Buckets, KvSnapshot{Bucket: s.GetBucketId(), HasSnapshot: s.SnapshotId != nil, SnapshotID: s.GetSnapshotId(), LogOffset: s.GetLogOffset()})
	}
	return out, nil
}

// ListKvSnapshots lists the active (retained or still leased) KV snapshots
// of a table or partition; coordinator only, Fluss 1.0. Several entries may
// share a bucket.
func (c *Client) ListKvSnapshots(ctx context.Context, tableID int64, part *int64) ([]KvSnapshot, error) {
	var resp flusspb.ListKvSnapshotsResponse
	if err := c.callCoordinator(ctx, flussapi.ListKvSnapshots, &flusspb.ListKvSnapshotsRequest{TableId: proto.Int64(tableID), PartitionId: part}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: kv snapshots of table %d: %w", tableID, err)
	}
	var out []KvSnapshot
	for _, s := range resp.GetActiveSnapshots() {
		out = append(out, KvSnapshot{Bucket: s.GetBucketId(), HasSnapshot: s.SnapshotId != nil, SnapshotID: s.GetSnapshotId(), LogOffset: s.GetLogOffset()})
	}
	return out, nil
}

// KvSnapshotFile is one file of a KV snapshot (a RocksDB checkpoint).
type KvSnapshotFile struct {
	RemotePath    string
	LocalFileName string
}

// KvSnapshotMetadata lists a snapshot's files and its changelog offset.
type KvSnapshotMetadata struct {
	LogOffset int64
	Files     []KvSnapshotFile
}

// GetKvSnapshotMetadata returns the files of one bucket's KV snapshot.
func (c *Client) GetKvSnapshotMetadata(ctx context.Context, tableID int64, part *int64, bucket int32, snapshotID int64) (KvSnapshotMetadata, error) {
	req := &flusspb.GetKvSnapshotMetadataRequest{TableId: proto.Int64(tableID), PartitionId: part, BucketId: proto.Int32(bucket), SnapshotId: proto.Int64(snapshotID)}
	var resp flusspb.GetKvSnapshotMetadataResponse
	if err := c.callAny(ctx, flussapi.GetKvSnapshotMetadata, req, &resp); err != nil {
		return KvSnapshotMetadata{}, fmt.Errorf("fluss: kv snapshot %d of table %d bucket %d: %w", snapshotID, tableID, bucket, err)
	}
	out := KvSnapshotMetadata{LogOffset: resp.GetLogOffset()}
	for _, f := range resp.GetSnapshotFiles() {
		out.Files = append(out.Files, KvSnapshotFile{RemotePath: f.GetRemotePath(), LocalFileName: f.GetLocalFileName()})
	}
	return out, nil
}

// BucketStats is one bucket's GET_TABLE_STATS answer.
type BucketStats struct {
	PartitionID *int64
	Bucket      int32
	RowCount    int64
	HasRowCount bool // false when the bucket cannot count (WAL changelog image, old tables)
}

// GetTableStats returns row counts of every bucket of t (or of partition
// part), one GET_TABLE_STATS per leader.
func (c *Client) GetTableStats(ctx context.Context, t TablePath, part *int64) ([]BucketStats, error) {
	buckets, err := c.Buckets(ctx, t, part)
	if err != nil {
		return nil, err
	}
	id, err := c.tableID(ctx, t)
	if err != nil {
		return nil, err
	}
	stats := map[int32]BucketStats{}
	err = c.perLeader(ctx, t, id, part, buckets, flussapi.GetTableStats, func(bs []int32) (proto.Message, proto.Message) {
		req := &flusspb.GetTableStatsRequest{TableId: proto.Int64(id)}
		for _, b := range bs {
			req.BucketsReq = append(req.BucketsReq, &flusspb.PbTableStatsReqForBucket{PartitionId: part, BucketId: proto.Int32(b)})
		}
		return req, &flusspb.GetTableStatsResponse{}
	}, func(m proto.Message, each func(b int32, code *int32, msg *string) bool) {
		for _, r := range m.(*flusspb.GetTableStatsResponse).GetBucketsResp() {
			if each(r.GetBucketId(), r.ErrorCode, r.ErrorMessage) {
				stats[r.GetBucketId()] = BucketStats{PartitionID: part, Bucket: r.GetBucketId(), RowCount: r.GetRowCount(), HasRowCount: r.RowCount != nil}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("fluss: table stats: %w", err)
	}
	out := make([]BucketStats, len(buckets))
	for i, b := range buckets {
		out[i] = stats[b]
	}
	return out, nil
}

// LimitScanResult is LIMIT_SCAN's answer: log batches for a log table, one
// value batch for a primary-key table.
type LimitScanResult struct {
	IsLogTable bool
	Records    []byte
}

// LimitScan returns up to limit rows of one bucket (the last ones below the
// high watermark for log tables).
func (c *Client) LimitScan(ctx context.Context, b TableBucket, limit int32) (LimitScanResult, error) {
	req := &flusspb.LimitScanRequest{TableId: proto.Int64(b.TableID), PartitionId: b.PartitionID, BucketId: proto.Int32(b.Bucket), Limit: proto.Int32(limit)}
	var out LimitScanResult
	_, _, err := c.callLeader(ctx, b, flussapi.LimitScan, req,
		func() proto.Message { return &flusspb.LimitScanResponse{} },
		func(m proto.Message) error {
			r := m.(*flusspb.LimitScanResponse)
			if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
				return err
			}
			out = LimitScanResult{IsLogTable: r.GetIsLogTable(), Records: r.GetRecords()}
			return nil
		})
	if err != nil {
		return LimitScanResult{}, fmt.Errorf("fluss: limit scan: %w", err)
	}
	return out, nil
}

// RemoteLogManifest points at one bucket's remote-log manifest JSON.
type RemoteLogManifest struct {
	TableID     int64
	PartitionID *int64
	Bucket      int32
	Path        string
	EndOffset   int64
}

// ListRemoteLogManifests lists the remote-log manifests of a table (or of one
// partition); coordinator only, Fluss 1.0.
func (c *Client) ListRemoteLogManifests(ctx context.Context, tableID int64, part *int64) ([]RemoteLogManifest, error) {
	var resp flusspb.ListRemoteLogManifestsResponse
	if err := c.callCoordinator(ctx, flussapi.ListRemoteLogManifests, &flusspb.ListRemoteLogManifestsRequest{TableId: proto.Int64(tableID), PartitionId: part}, &resp); err != nil {
		return nil, fmt.Errorf("fluss: remote log manifests of table %d: %w", tableID, err)
	}
	var out []RemoteLogManifest
	for _, m := range resp.GetManifests() {
		tb := m.GetTableBucket()
		out = append(out, RemoteLogManifest{TableID: tb.GetTableId(), PartitionID: tb.PartitionId, Bucket: tb.GetBucketId(), Path: m.GetRemoteLogManifestPath(), EndOffset: m.GetRemoteLogEndOffset()})
	}
	return out, nil
}

// KvScan is a server-side scan of one primary-key bucket (SCAN_KV, Fluss
// 1.0). It belongs to one goroutine. The rows reflect exactly the changelog
// before LogOffset, so "the bucket now" = this scan + the changelog from
// LogOffset. A scan cannot resume after an error; open a new one.
type KvScan struct {
	c         *Client
	b         TableBucket
	addr      string
	id        []byte
	seq       int32
	more      bool
	logOffset int64
	first     []byte
	started   bool
}

// OpenKvScan starts a SCAN_KV session on b's leader; limit <= 0 means all rows.
func (c *Client) OpenKvScan(ctx context.Context, b TableBucket, limit int64) (*KvScan, error) {
	sreq := &flusspb.PbScanReqForBucket{TableId: proto.Int64(b.TableID), PartitionId: b.PartitionID, BucketId: proto.Int32(b.Bucket)}
	if limit > 0 {
		sreq.Limit = proto.Int64(limit)
	}
	req := &flusspb.ScanKvRequest{BucketScanReq: sreq, CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(c.cfg.ScanKvBatchBytes)}
	backoff := 50 * time.Millisecond
	for {
		m, addr, err := c.callLeader(ctx, b, flussapi.ScanKv, req,
			func() proto.Message { return &flusspb.ScanKvResponse{} },
			func(m proto.Message) error {
				r := m.(*flusspb.ScanKvResponse)
				return codeError(r.ErrorCode, r.ErrorMessage)
			})
		if err != nil {
			var fe *Error
			if errors.As(err, &fe) && fe.Code == flussapi.TooManyScanners {
				if werr := sleepCtx(ctx, backoff); werr != nil {
					return nil, fmt.Errorf("fluss: open kv scan of %s: %w (after %w)", b, werr, err)
				}
				backoff = min(2*backoff, 2*time.Second)
				continue
			}
			return nil, fmt.Errorf("fluss: open kv scan of %s: %w", b, err)
		}
		r := m.(*flusspb.ScanKvResponse)
		if r.LogOffset == nil {
			return nil, fmt.Errorf("%w: first SCAN_KV answer for %s has no log_offset", ErrProtocol, b)
		}
		s := &KvScan{c: c, b: b, addr: addr, id: r.GetScannerId(), more: r.GetHasMoreResults(), logOffset: r.GetLogOffset(), first: r.GetRecords()}
		if s.more && len(s.id) == 0 {
			return nil, fmt.Errorf("%w: SCAN_KV for %s has more results but no scanner id", ErrProtocol, b)
		}
		return s, nil
	}
}

// LogOffset is the changelog offset the scanned state corresponds to.
func (s *KvScan) LogOffset() int64 { return s.logOffset }

// Next returns the next value batch (§5.3 layout), or io.EOF at the end.
func (s *KvScan) Next(ctx context.Context) ([]byte, error) {
	if !s.started {
		s.started = true
		if len(s.first) > 0 {
			b := s.first
			s.first = nil
			return b, nil
		}
	}
	for s.more {
		s.seq++
		req := &flusspb.ScanKvRequest{ScannerId: s.id, CallSeqId: proto.Int32(s.seq), BatchSizeBytes: proto.Int32(s.c.cfg.ScanKvBatchBytes)}
		var r flusspb.ScanKvResponse
		// No transparent retry: a continuation must not be sent twice.
		if err := s.c.callAddrOnce(ctx, s.addr, flussapi.ScanKv, req, &r); err != nil {
			s.more = false
			return nil, fmt.Errorf("fluss: kv scan of %s, call %d: %w", s.b, s.seq, err)
		}
		if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
			s.more = false
			return nil, fmt.Errorf("fluss: kv scan of %s, call %d: %w", s.b, s.seq, err)
		}
		s.more = r.GetHasMoreResults()
		if len(r.GetRecords()) > 0 {
			return r.GetRecords(), nil
		}
		if s.more {
			return nil, fmt.Errorf("%w: SCAN_KV call %d for %s returned no records but more to come", ErrProtocol, s.seq, s.b)
		}
	}
	return nil, io.EOF
}

// Close abandons the scan, telling the server to drop its session when one
// is still open.
func (s *KvScan) Close(ctx context.Context) error {
	if !s.more {
		return nil
	}
	s.more = false
	s.seq++
	req := &flusspb.ScanKvRequest{ScannerId: s.id, CallSeqId: proto.Int32(s.seq), CloseScanner: proto.Bool(true)}
	var r flusspb.ScanKvResponse
	if err := s.c.callAddrOnce(ctx, s.addr, flussapi.ScanKv, req, &r); err != nil {
		return fmt.Errorf("fluss: close kv scan of %s: %w", s.b, err)
	}
	return nil
}

// Lookup fetches the current values of primary keys in one bucket (LOOKUP,
// v1 when the server offers it). keys are encoded primary keys
// (record.EncodeKey with the table's key encoder); the result has one entry
// per key, nil when the key is absent, else the KV value (schema id + row).
func (c *Client) Lookup(ctx context.Context, b TableBucket, keys [][]byte) ([][]byte, error) {
	req := &flusspb.LookupRequest{TableId: proto.Int64(b.TableID), BucketsReq: []*flusspb.PbLookupReqForBucket{{PartitionId: b.PartitionID, BucketId: proto.Int32(b.Bucket), Keys: keys}}}
	var out [][]byte
	_, _, err := c.callLeader(ctx, b, flussapi.Lookup, req,
		func() proto.Message { return &flusspb.LookupResponse{} },
		func(m proto.Message) error {
			for _, r := range m.(*flusspb.LookupResponse).GetBucketsResp() {
				if r.GetBucketId() != b.Bucket || !samePartition(r.PartitionId, b.PartitionID) {
					continue
				}
				if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
					return err
				}
				if len(r.GetValues()) != len(keys) {
					return fmt.Errorf("%w: LOOKUP answered %d values for %d keys", ErrProtocol, len(r.GetValues()), len(keys))
				}
				out = make([][]byte, len(keys))
				for i, v := range r.GetValues() {
					if v.Values != nil {
						out[i] = v.GetValues()
					}
				}
				return nil
			}
			return fmt.Errorf("%w: LOOKUP answer lacks %s", ErrProtocol, b)
		})
	if err != nil {
		return nil, fmt.Errorf("fluss: lookup of %d keys: %w", len(keys), err)
	}
	return out, nil
}
