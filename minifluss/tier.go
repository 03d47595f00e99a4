package minifluss

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/typemap"
)

func (r *lakeRuntime) isFrozen() bool {
	r.cfgMu.Lock()
	defer r.cfgMu.Unlock()
	return r.frozen
}

// ErrTieringFrozen is returned by TierLake while tiering is frozen.
var ErrTieringFrozen = errors.New("minifluss: tiering is frozen")

// pkChunkKeys bounds the distinct keys folded in memory per PK level-0 file
// (Paimon's write buffer spills the same way: one sorted run per flush).
const pkChunkKeys = 1 << 17

// readChunkBytes is how much log one locked read takes.
const readChunkBytes = 8 << 20

// TierResult describes one tiering round of a table.
type TierResult struct {
	SnapshotID int64 // the Paimon snapshot committed
	Rows       int64 // Fluss log records read into the lake
	Files      int   // data files written
}

// tierJob is one (partition, bucket) of a round: log [From, To).
type tierJob struct {
	partID   *int64
	partName string
	partVals []any // Paimon values of the partition columns
	bucket   int32
	from, to int64
}

// TierLake runs one tiering round of a lake table now, as the Fluss tiering
// service does: per bucket, the log from the last tiered offset up to the
// current log end goes into the Paimon table (log tables as appended rows,
// PK tables as level-0 files of key-sorted changes), one Paimon commit
// records the round with a fluss-offsets property, and the lake snapshot
// (id and exclusive end offsets per bucket) is published for
// GetLakeSnapshot. An empty round still commits, to record offsets.
func (c *Cluster) TierLake(ctx context.Context, db, tbl string) (TierResult, error) {
	r := c.lake
	if !r.enabled() {
		return TierResult{}, ferr(flussapi.LakeStorageNotConfigured, "table %s.%s: the cluster has no lake (Config.Lake.Warehouse)", db, tbl)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isFrozen() {
		return TierResult{}, fmt.Errorf("%w: table %s.%s", ErrTieringFrozen, db, tbl)
	}
	return c.tierLocked(ctx, db, tbl)
}

// TierAll runs a round for every lake table (unless tiering is frozen).
func (c *Cluster) TierAll(ctx context.Context) error {
	r := c.lake
	if !r.enabled() {
		return ferr(flussapi.LakeStorageNotConfigured, "the cluster has no lake (Config.Lake.Warehouse)")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isFrozen() {
		return ErrTieringFrozen
	}
	for _, p := range c.lakeTables() {
		if _, err := c.tierLocked(ctx, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// tierDue is the periodic loop's body: tables whose freshness has elapsed.
func (c *Cluster) tierDue(ctx context.Context) error {
	r := c.lake
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isFrozen() {
		return nil
	}
	now := c.cfg.Now()
	for _, p := range c.lakeTables() {
		c.mu.Lock()
		t, err := c.cat.lookup(p[0], p[1])
		var fresh time.Duration
		var id int64
		if err == nil {
			id = t.ID
			fresh = parseFreshness(t.Desc.Properties["table.datalake.freshness"])
		}
		c.mu.Unlock()
		if err != nil {
			continue
		}
		if fresh <= 0 {
			fresh = 3 * time.Minute // Fluss default table.datalake.freshness
		}
		if now.Sub(r.lastTier[id]) < fresh {
			continue
		}
		if _, err := c.tierLocked(ctx, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// parseFreshness reads a Fluss duration ("30s", "3min", "1 h", "500ms");
// 0 when it is not one.
func parseFreshness(s string) time.Duration {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "")
	for _, u := range []struct{ long, short string }{{"minutes", "m"}, {"minute", "m"}, {"min", "m"}, {"hours", "h"}, {"hour", "h"},
		{"seconds", "s"}, {"second", "s"}, {"sec", "s"}, {"days", "d"}, {"day", "d"}} {
		if strings.HasSuffix(s, u.long) {
			s = strings.TrimSuffix(s, u.long) + u.short
			break
		}
	}
	if strings.HasSuffix(s, "d") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil {
			return 0
		}
		return time.Duration(n) * 24 * time.Hour
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// lakeTables lists (db, table) of every Paimon or Iceberg lake table.
func (c *Cluster) lakeTables() [][2]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][2]string
	for _, d := range c.cat.sortedDatabases() {
		for _, t := range d.sortedTables() {
			if t.lakePaimon() || t.lakeIceberg() {
				out = append(out, [2]string{t.DB, t.Name})
			}
		}
	}
	return out
}

// tierLocked runs a round; called with c.lake.mu held.
func (c *Cluster) tierLocked(ctx context.Context, db, tbl string) (TierResult, error) {
	r := c.lake
	var res TierResult
	c.mu.Lock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		c.mu.Unlock()
		return res, err
	}
	if !t.lakePaimon() && !t.lakeIceberg() {
		c.mu.Unlock()
		return res, ferr(codeInvalidConfig, "table %s is not a Paimon or Iceberg lake table (table.datalake.enabled / table.datalake.format)", t.path())
	}
	jobs, err := c.tierJobsLocked(t)
	// Properties can change under the cluster lock (SetLakeOptions); read
	// what the round needs now.
	logFormat := t.logFormat()
	var prev *lakeSnapshot
	if t.Lake != nil {
		cp := *t.Lake
		prev = &cp
	}
	tableID := t.ID
	c.mu.Unlock()
	if err != nil {
		return res, err
	}
	if prev == nil && !slices.ContainsFunc(jobs, func(j tierJob) bool { return j.to > 0 }) {
		// A table nothing was ever written to: Fluss's tiering service
		// commits no snapshot for it, so it has no readable lake snapshot
		// (Doris's lake_empty fixture) while its lake table exists, empty.
		return res, nil
	}
	if t.lakeIceberg() {
		return c.tierIceberg(ctx, t, tableID, jobs, prev, logFormat)
	}
	w, err := r.lakeWriter(ctx, t)
	if errors.Is(err, paimon.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		// Created before the cluster had a lake: create its lake table now.
		c.mu.Lock()
		err = c.createLakeTableLocked(t)
		if err == nil {
			err = c.persistLocked()
		}
		c.mu.Unlock()
		if err == nil {
			w, err = r.lakeWriter(ctx, t)
		}
	}
	if err != nil {
		return res, err
	}
	commit := w.NewCommit()
	conv, err := newLakeConverter(t, w.Schema())
	if err != nil {
		return res, err
	}
	for _, j := range jobs {
		if j.from >= j.to {
			continue
		}
		n, files, err := c.tierBucket(ctx, t, logFormat, w, commit, conv, j)
		if err != nil {
			return res, fmt.Errorf("table %s bucket %d%s: tiering: %w", t.path(), j.bucket, partSuffix(j.partName), err)
		}
		res.Rows += n
		res.Files += files
	}
	list := mergeOffsets(prev, jobs)
	offPath, err := c.writeOffsetsFile(t, tableID, list)
	if err != nil {
		return res, err
	}
	id, err := commit.Commit(ctx, map[string]string{"fluss-offsets": offPath})
	if err != nil {
		return res, fmt.Errorf("table %s: lake commit: %w", t.path(), err)
	}
	res.SnapshotID = id
	// Deletion-vector tables: tiered level-0 files are invisible to batch
	// reads until compacted, so only a compaction makes a snapshot readable
	// (DvTableReadableSnapshotRetriever).
	dv := t.isPK() && strings.EqualFold(w.Schema().Options["deletion-vectors.enabled"], "true")
	return res, c.publishLake(t, tableID, id, list, prev, dv)
}

// mergeOffsets is the offsets a round publishes: every bucket of this
// round, plus buckets of earlier rounds that are gone from Fluss (dropped
// partitions stay in the lake), ordered by (partition, bucket).
func mergeOffsets(prev *lakeSnapshot, jobs []tierJob) []lakeBucketOffs {
	offs := map[string]lakeBucketOffs{}
	okey := func(pid *int64, b int32) string {
		return strconv.FormatInt(partKey(pid), 10) + "/" + strconv.Itoa(int(b))
	}
	if prev != nil {
		for _, o := range prev.Offsets {
			offs[okey(o.PartitionID, o.Bucket)] = o
		}
	}
	for _, j := range jobs {
		offs[okey(j.partID, j.bucket)] = lakeBucketOffs{PartitionID: j.partID, Bucket: j.bucket, LogOffset: j.to, PartitionName: j.partName}
	}
	list := make([]lakeBucketOffs, 0, len(offs))
	for _, o := range offs {
		list = append(list, o)
	}
	sort.Slice(list, func(a, b int) bool {
		if partKey(list[a].PartitionID) != partKey(list[b].PartitionID) {
			return partKey(list[a].PartitionID) < partKey(list[b].PartitionID)
		}
		return list[a].Bucket < list[b].Bucket
	})
	return list
}

// publishLake makes lake snapshot id with offsets list the table's lake
// snapshot (GetLakeSnapshot). notReadable keeps answering the previous
// readable snapshot, as does the hold-read switch.
func (c *Cluster) publishLake(t *table, tableID, id int64, list []lakeBucketOffs, prev *lakeSnapshot, notReadable bool) error {
	r := c.lake
	c.mu.Lock()
	defer c.mu.Unlock()
	t2 := c.cat.tableByID(tableID)
	if t2 == nil {
		return ferr(codeTableNotExist, "table %s was dropped during tiering", t.path())
	}
	ls := &lakeSnapshot{SnapshotID: id, Offsets: list}
	r.cfgMu.Lock()
	hold := r.holdRead
	r.cfgMu.Unlock()
	if hold || notReadable {
		// The latest snapshot is not readable yet: keep answering the
		// previous readable one (or none).
		none := int64(-1)
		ls.Readable = &none
		if prev != nil {
			if prev.Readable == nil {
				rid := prev.SnapshotID
				ls.Readable, ls.ReadableOffsets = &rid, prev.Offsets
			} else if *prev.Readable >= 0 {
				rid := *prev.Readable
				ls.Readable, ls.ReadableOffsets = &rid, prev.ReadableOffsets
				if ls.ReadableOffsets == nil {
					ls.ReadableOffsets = prev.Offsets
				}
			}
		}
	}
	t2.Lake = ls
	r.lastTier[tableID] = c.cfg.Now()
	return c.persistLocked()
}

func partSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " partition " + name
}

// tierJobsLocked lists the live buckets of a table with their [from, to).
func (c *Cluster) tierJobsLocked(t *table) ([]tierJob, error) {
	type owner struct {
		id   *int64
		name string
		vals []any
	}
	owners := []owner{{}}
	if t.partitioned() {
		owners = owners[:0]
		for _, p := range t.sortedPartitions() {
			id := p.ID
			vals := make([]any, len(p.Spec))
			for i, kv := range p.Spec {
				ci := t.Desc.columnIndex(kv[0])
				fv, err := record.ParsePartitionValue(t.types[ci], kv[1])
				if err != nil {
					return nil, fmt.Errorf("table %s partition %s: %w", t.path(), p.Name, err)
				}
				vals[i] = paimonValue(fv, t.types[ci])
			}
			owners = append(owners, owner{&id, p.Name, vals})
		}
	}
	var jobs []tierJob
	for _, o := range owners {
		for b := int32(0); b < t.buckets(); b++ {
			bd, err := c.bucketLocked(t, o.id, b)
			if err != nil {
				return nil, err
			}
			from := c.tieredOffsetLocked(t, o.id, b)
			if from < 0 {
				from = 0
			}
			to := bd.log.highWatermark()
			if from < to && from < bd.log.meta.LocalStart {
				return nil, ferr(codeLogOffsetOutOfRange, "table %s bucket %d%s: log start %d is past the tiered offset %d: records were expired before tiering",
					t.path(), b, partSuffix(o.name), bd.log.meta.LocalStart, from)
			}
			jobs = append(jobs, tierJob{partID: o.id, partName: o.name, partVals: o.vals, bucket: b, from: from, to: to})
		}
	}
	return jobs, nil
}

// tierBucket reads [from, to) of one bucket's log in chunks (the cluster
// lock is held only while a chunk is read) and writes it into commit.
func (c *Cluster) tierBucket(ctx context.Context, t *table, logFormat string, w *writer.Table, commit *writer.Commit, conv *lakeConverter, j tierJob) (int64, int, error) {
	mem := memory.NewGoAllocator()
	lakeBucket := j.bucket
	if w.Schema().Options["bucket"] == "-1" && !t.isPK() {
		lakeBucket = 0 // bucket-unaware: everything in bucket-0
	}
	sink := newBucketSink(ctx, t, commit, conv, j.partVals, lakeBucket, j.bucket, mem)
	defer sink.abort()
	rows, err := c.eachLogBatch(ctx, t, logFormat, j, mem, sink.add)
	if err != nil {
		return rows, sink.files, err
	}
	return rows, sink.files, sink.finish()
}

// eachLogBatch decodes [from, to) of one bucket's log in chunks (the
// cluster lock is held only while a chunk is read) and hands every
// non-empty batch to fn with its change types, base offset and commit
// timestamp; it returns the records read. fn must not keep rec past its
// return unless it retains it.
func (c *Cluster) eachLogBatch(ctx context.Context, t *table, logFormat string, j tierJob, mem memory.Allocator,
	fn func(rec arrow.RecordBatch, cts record.ChangeTypes, base, ts int64) error) (int64, error) {
	cols := t.columns()
	var arrowDec *record.ArrowDecoder
	var rowDec *record.RowDecoder
	lf, err := record.ParseLogFormat(logFormat)
	if err != nil {
		return 0, err
	}
	if lf == record.LogFormatArrow {
		if arrowDec, err = record.NewArrowDecoder(cols, mem, record.ArrowOptions{}); err != nil {
			return 0, err
		}
		defer arrowDec.Close()
	} else {
		rf, err := lf.RowFormat()
		if err != nil {
			return 0, err
		}
		if rowDec, err = record.NewRowDecoder(cols, rf, mem); err != nil {
			return 0, err
		}
		defer rowDec.Release()
	}
	evo, err := newEvoDecoder(t, lf, mem) // batches of older schema ids (alter.go)
	if err != nil {
		return 0, err
	}
	defer evo.close()
	var rows int64
	off := j.from
	for off < j.to {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		c.mu.Lock()
		var data []byte
		var err error
		if c.cat.tableByID(t.ID) != t || (j.partID != nil && t.Partitions[*j.partID] == nil) {
			// Dropped while this round ran: never reopen its storage.
			err = ferr(codePartitionNotExists, "table or partition was dropped during tiering")
		} else {
			var bd *bucketData
			if bd, err = c.bucketLocked(t, j.partID, j.bucket); err == nil {
				data, err = bd.log.read(off, readChunkBytes)
			}
		}
		c.mu.Unlock()
		if err != nil {
			return rows, err
		}
		if len(data) == 0 {
			return rows, fmt.Errorf("log ends at %d, before the round's end %d", off, j.to)
		}
		it := record.ReadBatches(data, record.DecodeOptions{})
		for it.Next() {
			lb := it.Batch()
			h := lb.Header
			next := h.BaseOffset + int64(h.LastOffsetDelta) + 1
			if h.BaseOffset >= j.to {
				off = j.to
				break
			}
			if h.RecordCount > 0 {
				var rec arrow.RecordBatch
				var cts record.ChangeTypes
				if evo.handles(lb) {
					rec, cts, err = evo.decode(lb)
				} else if arrowDec != nil {
					rec, cts, err = arrowDec.Decode(lb)
				} else {
					rec, cts, err = rowDec.DecodeLogBatch(lb)
				}
				if err != nil {
					return rows, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
				}
				err = fn(rec, cts, h.BaseOffset, h.CommitTimestamp)
				rows += rec.NumRows()
				rec.Release()
				if err != nil {
					return rows, err
				}
			}
			off = next
		}
		if it.Err() != nil {
			return rows, it.Err()
		}
	}
	return rows, nil
}

// writeOffsetsFile writes the tiered offsets JSON the coordinator keeps in
// remote storage (remote.data.dir/lake/<db>/<table>-<id>/metadata/<uuid>.offsets).
func (c *Cluster) writeOffsetsFile(t *table, tableID int64, offs []lakeBucketOffs) (string, error) {
	type partOffs struct {
		PartitionID   int64   `json:"partition_id"`
		BucketOffsets []int64 `json:"bucket_offsets"`
	}
	doc := map[string]any{"version": 1, "table_id": tableID}
	bucketsOf := func(pid int64) []int64 {
		out := make([]int64, t.buckets())
		for i := range out {
			out[i] = -1
		}
		for _, o := range offs {
			if partKey(o.PartitionID) == pid && int(o.Bucket) < len(out) {
				out[o.Bucket] = o.LogOffset
			}
		}
		return out
	}
	if t.partitioned() {
		seen := map[int64]bool{}
		var parts []partOffs
		for _, o := range offs {
			if o.PartitionID != nil && !seen[*o.PartitionID] {
				seen[*o.PartitionID] = true
				parts = append(parts, partOffs{*o.PartitionID, bucketsOf(*o.PartitionID)})
			}
		}
		doc["partition_offsets"] = parts
	} else {
		doc["bucket_offsets"] = bucketsOf(-1)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	var u [16]byte
	rand.Read(u[:])
	dir := filepath.Join(c.remoteDataDir(), "lake", t.DB, t.Name+"-"+strconv.FormatInt(tableID, 10), "metadata")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, hex.EncodeToString(u[:])+".offsets")
	return p, os.WriteFile(p, b, 0o644)
}

// bucketSink turns decoded Fluss batches of one bucket into lake files:
// log tables stream into one file; PK tables fold changes per key (last
// wins) and flush key-sorted level-0 files of at most pkChunkKeys keys.
type bucketSink struct {
	ctx        context.Context
	t          *table
	commit     *writer.Commit
	conv       *lakeConverter
	part       []any
	lakeBucket int32
	flussBkt   int32
	mem        memory.Allocator
	fw         *writer.FileWriter
	files      int
	pending    map[string]*pkChange
	// Columnar PK path (flat column types): converted lake batches held
	// until the next flush, and per key the newest (batch, row).
	held     []arrow.RecordBatch
	heldRows int
	refs     map[string]*pkRef
}

type pkRef struct {
	key        []any
	batch, row int
	kind       int8
}

type pkChange struct {
	key  []any // Paimon values of the trimmed key
	row  []any // Fluss values
	kind int8
	off  int64
	ts   int64
}

func newBucketSink(ctx context.Context, t *table, commit *writer.Commit, conv *lakeConverter, part []any, lakeBucket, flussBucket int32, mem memory.Allocator) *bucketSink {
	return &bucketSink{ctx: ctx, t: t, commit: commit, conv: conv, part: part, lakeBucket: lakeBucket, flussBkt: flussBucket, mem: mem,
		pending: map[string]*pkChange{}, refs: map[string]*pkRef{}}
}

func (s *bucketSink) add(rec arrow.RecordBatch, cts record.ChangeTypes, base, ts int64) error {
	if !s.t.isPK() {
		if s.fw == nil {
			fw, err := s.commit.NewFile(s.ctx, s.part, s.lakeBucket)
			if err != nil {
				return err
			}
			s.fw = fw
		}
		out, err := s.conv.convert(rec, s.flussBkt, base, ts)
		if err != nil {
			return err
		}
		defer out.Release()
		return s.fw.Write(out, nil)
	}
	if s.conv.flat {
		return s.addColumnar(rec, cts, base, ts)
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		row, err := record.RecordRow(rec, s.conv.ftypes, i)
		if err != nil {
			return err
		}
		key := make([]any, len(s.conv.keyIdx))
		for k, idx := range s.conv.keyIdx {
			key[k] = paimonValue(row[idx], s.conv.ftypes[idx])
		}
		kb, err := paimon.EncodeRow(key, s.conv.keyTypes)
		if err != nil {
			return fmt.Errorf("offset %d: key: %w", base+int64(i), err)
		}
		s.pending[string(kb)] = &pkChange{key: key, row: row, kind: paimonKind(cts.At(i)), off: base + int64(i), ts: ts}
		if len(s.pending) >= pkChunkKeys {
			if err := s.flushPK(); err != nil {
				return err
			}
		}
	}
	return nil
}

// addColumnar folds a batch by key without materialising rows: the batch
// is converted once and kept; flushColumnar gathers the surviving rows with
// Arrow's take kernel.
func (s *bucketSink) addColumnar(rec arrow.RecordBatch, cts record.ChangeTypes, base, ts int64) error {
	out, err := s.conv.convert(rec, s.flussBkt, base, ts)
	if err != nil {
		return err
	}
	s.held = append(s.held, out)
	bi := len(s.held) - 1
	n := int(out.NumRows())
	for i := 0; i < n; i++ {
		key := make([]any, len(s.conv.keyIdx))
		for k, idx := range s.conv.keyIdx {
			if key[k], err = writer.Value(out.Column(idx), i); err != nil {
				return fmt.Errorf("offset %d: key: %w", base+int64(i), err)
			}
		}
		kb, err := paimon.EncodeRow(key, s.conv.keyTypes)
		if err != nil {
			return fmt.Errorf("offset %d: key: %w", base+int64(i), err)
		}
		s.refs[string(kb)] = &pkRef{key: key, batch: bi, row: i, kind: paimonKind(cts.At(i))}
	}
	s.heldRows += n
	if len(s.refs) >= pkChunkKeys || s.heldRows >= 4*pkChunkKeys {
		return s.flushColumnar()
	}
	return nil
}

func (s *bucketSink) releaseHeld() {
	for _, b := range s.held {
		b.Release()
	}
	s.held, s.heldRows = s.held[:0], 0
	clear(s.refs)
}

func (s *bucketSink) flushColumnar() error {
	defer s.releaseHeld()
	if len(s.refs) == 0 {
		return nil
	}
	list := make([]*pkRef, 0, len(s.refs))
	for _, r := range s.refs {
		list = append(list, r)
	}
	sort.Slice(list, func(a, b int) bool {
		for k := range list[a].key {
			if c := writer.Compare(list[a].key[k], list[b].key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	starts := make([]int64, len(s.held))
	var total int64
	for i, b := range s.held {
		starts[i] = total
		total += b.NumRows()
	}
	ib := array.NewInt64Builder(s.mem)
	kinds := make([]int8, len(list))
	for i, r := range list {
		ib.Append(starts[r.batch] + int64(r.row))
		kinds[i] = r.kind
	}
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	cols := make([]arrow.Array, s.conv.schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		parts := make([]arrow.Array, len(s.held))
		for i, b := range s.held {
			parts[i] = b.Column(c)
		}
		all, err := array.Concatenate(parts, s.mem)
		if err != nil {
			return err
		}
		cols[c], err = compute.TakeArray(s.ctx, all, idx)
		all.Release()
		if err != nil {
			return fmt.Errorf("column %s: %w", s.conv.schema.Field(c).Name, err)
		}
	}
	out := array.NewRecordBatch(s.conv.schema, cols, int64(len(list)))
	defer out.Release()
	fw, err := s.commit.NewFile(s.ctx, s.part, s.lakeBucket)
	if err != nil {
		return err
	}
	if err := fw.Write(out, kinds); err != nil {
		fw.Abort()
		return err
	}
	s.files++
	return fw.Close(s.ctx)
}

func paimonKind(ct record.ChangeType) int8 {
	switch ct {
	case record.UpdateBefore:
		return paimon.KindUpdateBefore
	case record.UpdateAfter:
		return paimon.KindUpdateAfter
	case record.Delete:
		return paimon.KindDelete
	}
	return paimon.KindInsert
}

func (s *bucketSink) flushPK() error {
	if len(s.pending) == 0 {
		return nil
	}
	list := make([]*pkChange, 0, len(s.pending))
	for _, p := range s.pending {
		list = append(list, p)
	}
	clear(s.pending)
	sort.Slice(list, func(a, b int) bool {
		for k := range list[a].key {
			if c := writer.Compare(list[a].key[k], list[b].key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	fw, err := s.commit.NewFile(s.ctx, s.part, s.lakeBucket)
	if err != nil {
		return err
	}
	const batchRows = 8192
	for start := 0; start < len(list); start += batchRows {
		part := list[start:min(start+batchRows, len(list))]
		rec, err := s.conv.build(s.mem, part, s.flussBkt)
		if err != nil {
			fw.Abort()
			return err
		}
		kinds := make([]int8, len(part))
		for i, p := range part {
			kinds[i] = p.kind
		}
		err = fw.Write(rec, kinds)
		rec.Release()
		if err != nil {
			fw.Abort()
			return err
		}
	}
	s.files++
	return fw.Close(s.ctx)
}

func (s *bucketSink) finish() error {
	if len(s.held) > 0 {
		return s.flushColumnar()
	}
	if s.fw != nil {
		fw := s.fw
		s.fw = nil
		if fw.Rows() > 0 {
			s.files++
		}
		return fw.Close(s.ctx)
	}
	return s.flushPK()
}

func (s *bucketSink) abort() {
	s.releaseHeld()
	if s.fw != nil {
		s.fw.Abort()
		s.fw = nil
	}
}

// lakeConverter maps Fluss Arrow batches (typemap.ArrowType) to the lake
// table's Arrow schema (paimon.ArrowType): columns whose types agree are
// passed through, others are converted value by value; legacy tables get
// __bucket, __offset and __timestamp appended.
type lakeConverter struct {
	schema   *arrow.Schema
	ftypes   []typemap.DataType
	same     []bool
	legacy   bool
	flat     bool // no nested column: the columnar PK path applies
	keyIdx   []int
	keyTypes []paimon.DataType
}

func newLakeConverter(t *table, s *paimon.TableSchema) (*lakeConverter, error) {
	sc, err := paimon.ArrowSchema(s.Fields)
	if err != nil {
		return nil, fmt.Errorf("table %s: lake schema: %w", t.path(), err)
	}
	n := len(t.types)
	legacy := len(s.Fields) == n+3 && s.Fields[n+2].Name == "__timestamp"
	if len(s.Fields) != n && !legacy {
		return nil, fmt.Errorf("table %s: lake table has %d columns, the Fluss table %d", t.path(), len(s.Fields), n)
	}
	cv := &lakeConverter{schema: sc, ftypes: t.types, legacy: legacy, same: make([]bool, n), flat: true}
	for i, ft := range t.types {
		at, err := typemap.ArrowType(ft)
		if err != nil {
			return nil, err
		}
		cv.same[i] = arrow.TypeEqual(at, sc.Field(i).Type)
		switch ft.Root {
		case typemap.RootArray, typemap.RootMap, typemap.RootRow:
			cv.flat = false
		}
	}
	for _, k := range s.TrimmedPrimaryKeys() {
		cv.keyIdx = append(cv.keyIdx, t.Desc.columnIndex(k.Name))
		cv.keyTypes = append(cv.keyTypes, k.Type)
	}
	return cv, nil
}

func (cv *lakeConverter) convert(rec arrow.RecordBatch, bucket int32, base, ts int64) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, 0, cv.schema.NumFields())
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	mem := memory.NewGoAllocator()
	for i := range cv.ftypes {
		src := rec.Column(i)
		if cv.same[i] {
			src.Retain()
			cols = append(cols, src)
			continue
		}
		b := array.NewBuilder(mem, cv.schema.Field(i).Type)
		for r := 0; r < n; r++ {
			v, err := record.ArrowValue(src, cv.ftypes[i], r)
			if err == nil {
				err = appendLakeValue(b, v)
			}
			if err != nil {
				b.Release()
				return nil, fmt.Errorf("column %s row %d: %w", cv.schema.Field(i).Name, r, err)
			}
		}
		cols = append(cols, b.NewArray())
		b.Release()
	}
	if cv.legacy {
		bb := array.NewInt32Builder(mem)
		ob := array.NewInt64Builder(mem)
		tb := array.NewTimestampBuilder(mem, cv.schema.Field(len(cv.ftypes)+2).Type.(*arrow.TimestampType))
		for r := 0; r < n; r++ {
			bb.Append(bucket)
			ob.Append(base + int64(r))
			tb.Append(arrow.Timestamp(ts))
		}
		cols = append(cols, bb.NewArray(), ob.NewArray(), tb.NewArray())
		bb.Release()
		ob.Release()
		tb.Release()
	}
	out := array.NewRecordBatch(cv.schema, cols, int64(n))
	return out, nil
}

// build makes a lake batch from folded PK changes.
func (cv *lakeConverter) build(mem memory.Allocator, rows []*pkChange, bucket int32) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, cv.schema)
	defer b.Release()
	for _, p := range rows {
		for i := range cv.ftypes {
			if err := appendLakeValue(b.Field(i), p.row[i]); err != nil {
				return nil, fmt.Errorf("column %s at offset %d: %w", cv.schema.Field(i).Name, p.off, err)
			}
		}
		if cv.legacy {
			n := len(cv.ftypes)
			b.Field(n).(*array.Int32Builder).Append(bucket)
			b.Field(n + 1).(*array.Int64Builder).Append(p.off)
			b.Field(n + 2).(*array.TimestampBuilder).Append(arrow.Timestamp(p.ts))
		}
	}
	return b.NewRecordBatch(), nil
}

// paimonValue converts a Fluss key or partition value to the Go value
// lake/paimon's BinaryRow encoder takes.
func paimonValue(v any, t typemap.DataType) any {
	switch x := v.(type) {
	case decimal128.Num:
		return paimon.DecimalValue{Unscaled: x.BigInt(), Scale: int(t.Scale)}
	case record.Timestamp:
		return paimon.TimestampValue{Millis: x.Millis, NanoOfMilli: x.NanoOfMilli}
	}
	return v
}

// appendLakeValue appends a Fluss value (record's Go representation) to a
// builder of the lake's Arrow type.
func appendLakeValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("value %T does not fit Arrow %s", v, b.Type()) }
	switch x := b.(type) {
	case *array.BooleanBuilder:
		y, ok := v.(bool)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Int8Builder:
		y, ok := v.(int8)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Int16Builder:
		y, ok := v.(int16)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Int32Builder:
		y, ok := v.(int32)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Int64Builder:
		y, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Float32Builder:
		y, ok := v.(float32)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.Float64Builder:
		y, ok := v.(float64)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.StringBuilder:
		y, ok := v.(string)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.BinaryBuilder:
		switch y := v.(type) {
		case []byte:
			x.Append(y)
		case string:
			x.AppendString(y)
		default:
			return bad()
		}
	case *array.Date32Builder:
		y, ok := v.(int32)
		if !ok {
			return bad()
		}
		x.Append(arrow.Date32(y))
	case *array.Time32Builder:
		y, ok := v.(int32)
		if !ok {
			return bad()
		}
		x.Append(arrow.Time32(y))
	case *array.Decimal128Builder:
		y, ok := v.(decimal128.Num)
		if !ok {
			return bad()
		}
		x.Append(y)
	case *array.TimestampBuilder:
		y, ok := v.(record.Timestamp)
		if !ok {
			return bad()
		}
		x.Append(arrow.Timestamp(record.TimestampToUnit(y, x.Type().(*arrow.TimestampType).Unit)))
	case *array.MapBuilder:
		m, ok := v.(record.Map)
		if !ok {
			return bad()
		}
		x.Append(true)
		for i := range m.Keys {
			if err := appendLakeValue(x.KeyBuilder(), m.Keys[i]); err != nil {
				return err
			}
			if err := appendLakeValue(x.ItemBuilder(), m.Values[i]); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		l, ok := v.([]any)
		if !ok {
			return bad()
		}
		x.Append(true)
		for _, e := range l {
			if err := appendLakeValue(x.ValueBuilder(), e); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		l, ok := v.([]any)
		if !ok || len(l) != x.NumField() {
			return bad()
		}
		x.Append(true)
		for i, e := range l {
			if err := appendLakeValue(x.FieldBuilder(i), e); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}
