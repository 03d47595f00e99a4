package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/typemap"
)

// LogRange is a bounded read of one bucket's log: offsets [Start, Stop).
type LogRange struct {
	Bucket TableBucket
	Start  int64 // first offset (inclusive), >= 0
	Stop   int64 // end offset (exclusive), normally a high watermark taken at planning time

	// Columns is the table's row type (the schema batches were written with).
	Columns []typemap.Column
	// SchemaID is the schema id of Columns. Batches written with another
	// schema id are decoded with that schema, fetched by GET_TABLE_SCHEMA
	// (cached per table and id), and mapped onto Columns by column id:
	// columns an older batch lacks are NULL, columns a newer one added are
	// left out (Fluss 1.0 only adds nullable columns at the end). 0 skips
	// the check.
	SchemaID int32
	// ColumnIDs are the column ids of Columns; batches of older schemas
	// map onto Columns by them. nil maps by position.
	ColumnIDs []int32
	// Format is the table's log format (table.log.format).
	Format record.LogFormat
	// Projection lists the output columns as positions in Columns, in output
	// order; nil means all columns. ARROW tables push the (sorted) positions
	// down to the server; other formats and remote segments project locally.
	Projection []int
	// LocalProjection keeps the projection on the client even for ARROW
	// tables (push-down positions apply to each batch's own schema, which
	// fails for columns older batches lack — spec §3.6).
	LocalProjection bool
	// PreferRemote reads archived offsets from remote storage even while the
	// tablet server still has them locally (needs WithFS).
	PreferRemote bool
	// Filter is sent with every fetch (see LogFilter): the server may then
	// leave out whole batches none of whose rows can match, so the reader
	// delivers a subset of the range's rows that still holds every match.
	// The caller applies its full filter to what it gets.
	Filter *FetchFilter
	// FirstFetchBytes, when positive and below the configured per-bucket
	// fetch size, is the size of the first fetch; each next one asks for
	// twice the last, up to the configured size. A reader that may be
	// stopped early (under a LIMIT) then fetches little before it is.
	FirstFetchBytes int32
	// PieceEnd, when positive, makes the read one piece of a log tail
	// [TailStart, Stop) that was cut at Start and PieceEnd: it delivers
	// the batches whose first record of the tail, max(base offset,
	// TailStart), lies in [Start, PieceEnd), each up to Stop, and ends
	// there. A batch across a cut is then delivered, and decoded, by the
	// piece it starts in only, and the pieces of a tail deliver each of
	// its records once. Start must be TailStart, a cut, or where a read of
	// the same piece stopped (NextOffset): never inside a batch the piece
	// does not own.
	PieceEnd  int64
	TailStart int64
}

// LogReader streams the records of a LogRange as Arrow record batches, in
// offset order, each row exactly once: batches that start before Start are
// trimmed, records at or after Stop are dropped, a cut-short last batch is
// fetched again, empty batches are skipped, and archived offsets are read
// from the remote segment files through the client's fileio.FS.
//
// If Fluss no longer has part of the range (the server answers an offset
// below its local log start with nothing, because the data was tiered to the
// lake, or with LOG_OFFSET_OUT_OF_RANGE), Next returns false and Err wraps
// ErrLogExpired naming the bucket and offset; the reader never spins.
//
// A LogReader belongs to one goroutine. It implements array.RecordReader; a
// batch returned by RecordBatch is valid until the next call to Next.
type LogReader struct {
	c    *Client
	ctx  context.Context
	r    LogRange
	mem  memory.Allocator
	refs atomic.Int64

	outSchema *arrow.Schema
	pushed    []int32 // sorted positions pushed down (ARROW), nil = none
	// order maps output column i to its index among the decoded columns of a
	// pushed-down (sorted) fetch.
	order []int

	full    *decoder           // decodes whole rows (remote segments, row formats)
	old     map[int16]*decoder // decoders of older schemas, by schema id
	oldMap  map[int16][]int    // their columns' places in Columns (columnMap)
	fullSch *arrow.Schema
	proj    *decoder // decodes pushed-down rows (ARROW + projection)
	next    int64    // next offset to deliver
	fetchSz int32
	maxSz   int32 // fetchSz grows to this after each fetch (FirstFetchBytes)

	cur        arrow.RecordBatch
	curChanges []record.ChangeType
	curFirst   int64 // log offset of cur's first row
	curTs      int64 // commit timestamp (ms) of the batch cur came from
	queue      []pendingBatch
	remote     *remoteCursor
	err        error
	done       bool
	// Counters for tests and metrics.
	Fetches        int
	RemoteSegments int
	// BytesFetched is the size of the records fetched from tablet servers
	// (remote segment files not included).
	BytesFetched int64
	// SkippedRuns counts the gaps server-side filtering left in the offsets
	// read: each is one or more whole batches the server did not send.
	SkippedRuns int64
}

type pendingBatch struct {
	rec     arrow.RecordBatch
	changes []record.ChangeType
	first   int64 // log offset of the first row
	ts      int64 // the Fluss batch's commit timestamp (ms)
}

// decoder turns log batches of one column set into record batches.
type decoder struct {
	arrow *record.ArrowDecoder
	rows  *record.RowDecoder
	cols  []typemap.Column
}

func newDecoder(cols []typemap.Column, f record.LogFormat, mem memory.Allocator) (*decoder, error) {
	d := &decoder{cols: cols}
	var err error
	switch f {
	case record.LogFormatArrow:
		d.arrow, err = record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
	default:
		var rf record.RowFormat
		if rf, err = f.RowFormat(); err == nil {
			d.rows, err = record.NewRowDecoder(cols, rf, mem)
		}
	}
	return d, err
}

func (d *decoder) decode(lb *record.LogBatch) (arrow.RecordBatch, record.ChangeTypes, error) {
	if d.arrow != nil {
		return d.arrow.Decode(lb)
	}
	return d.rows.DecodeLogBatch(lb)
}

func (d *decoder) close() {
	if d == nil {
		return
	}
	if d.arrow != nil {
		d.arrow.Close()
	}
	if d.rows != nil {
		d.rows.Release()
	}
}

// NewLogReader prepares a bounded log read; nothing is fetched until Next.
func (c *Client) NewLogReader(ctx context.Context, r LogRange, mem memory.Allocator) (*LogReader, error) {
	if r.Start < 0 || r.Stop < r.Start {
		return nil, fmt.Errorf("fluss: log range of %s: bad offsets [%d, %d)", r.Bucket, r.Start, r.Stop)
	}
	if r.PieceEnd > 0 && (r.TailStart < 0 || r.TailStart > r.Start || r.PieceEnd < r.Start || r.PieceEnd > r.Stop) {
		return nil, fmt.Errorf("fluss: log range of %s: bad piece [%d, %d) of the tail [%d, %d)", r.Bucket, r.Start, r.PieceEnd, r.TailStart, r.Stop)
	}
	if len(r.Columns) == 0 {
		return nil, fmt.Errorf("fluss: log range of %s: no columns", r.Bucket)
	}
	proj := r.Projection
	if proj == nil {
		proj = make([]int, len(r.Columns))
		for i := range proj {
			proj[i] = i
		}
	}
	outCols := make([]typemap.Column, len(proj))
	for i, p := range proj {
		if p < 0 || p >= len(r.Columns) {
			return nil, fmt.Errorf("fluss: log range of %s: projection position %d out of %d columns", r.Bucket, p, len(r.Columns))
		}
		outCols[i] = r.Columns[p]
	}
	schema, err := typemap.ArrowSchema(outCols)
	if err != nil {
		return nil, fmt.Errorf("fluss: log range of %s: %w", r.Bucket, err)
	}
	lr := &LogReader{c: c, ctx: ctx, r: r, mem: mem, outSchema: schema, next: r.Start, fetchSz: c.cfg.FetchMaxBucketBytes, maxSz: c.cfg.FetchMaxBucketBytes}
	if r.FirstFetchBytes > 0 && r.FirstFetchBytes < lr.fetchSz {
		lr.fetchSz = r.FirstFetchBytes
	}
	lr.refs.Store(1)
	lr.full, err = newDecoder(r.Columns, r.Format, mem)
	if err != nil {
		return nil, fmt.Errorf("fluss: log range of %s: %w", r.Bucket, err)
	}
	if lr.fullSch, err = typemap.ArrowSchema(r.Columns); err != nil {
		lr.full.close()
		return nil, fmt.Errorf("fluss: log range of %s: %w", r.Bucket, err)
	}
	lr.old = map[int16]*decoder{}
	if r.Format == record.LogFormatArrow && r.Projection != nil && !r.LocalProjection {
		sorted := slices.Clone(proj)
		slices.Sort(sorted)
		sorted = slices.Compact(sorted)
		pcols := make([]typemap.Column, len(sorted))
		for i, p := range sorted {
			lr.pushed = append(lr.pushed, int32(p))
			pcols[i] = r.Columns[p]
		}
		lr.order = make([]int, len(proj))
		for i, p := range proj {
			lr.order[i] = slices.Index(sorted, p)
		}
		if lr.proj, err = newDecoder(pcols, r.Format, mem); err != nil {
			lr.full.close()
			return nil, fmt.Errorf("fluss: log range of %s: %w", r.Bucket, err)
		}
	}
	return lr, nil
}

// Schema is the output schema (the projected columns).
func (lr *LogReader) Schema() *arrow.Schema { return lr.outSchema }

// RecordBatch is the current batch.
func (lr *LogReader) RecordBatch() arrow.RecordBatch { return lr.cur }

// Record is RecordBatch (for older callers of array.RecordReader).
func (lr *LogReader) Record() arrow.RecordBatch { return lr.cur }

// ChangeTypes are the change types of the current batch's rows (+A for log
// tables; +I/-U/+U/-D for primary-key changelogs).
func (lr *LogReader) ChangeTypes() []record.ChangeType { return lr.curChanges }

// FirstOffset is the log offset of the current batch's first row; row i
// has offset FirstOffset()+i (offsets are dense within a Fluss batch, and a
// batch handed out never spans two Fluss batches).
func (lr *LogReader) FirstOffset() int64 { return lr.curFirst }

// CommitTimestamp is the commit timestamp (milliseconds since the epoch)
// the tablet server stamped on the Fluss batch the current rows come from.
func (lr *LogReader) CommitTimestamp() int64 { return lr.curTs }

// Err is the error that ended the read, nil at a clean end.
func (lr *LogReader) Err() error { return lr.err }

// NextOffset is the next offset the reader would deliver.
func (lr *LogReader) NextOffset() int64 { return lr.next }

// Retain adds a reference.
func (lr *LogReader) Retain() { lr.refs.Add(1) }

// Release drops a reference; the last one frees everything held.
func (lr *LogReader) Release() {
	if lr.refs.Add(-1) != 0 {
		return
	}
	if lr.cur != nil {
		lr.cur.Release()
		lr.cur = nil
	}
	for _, p := range lr.queue {
		p.rec.Release()
	}
	lr.queue = nil
	lr.remote.close()
	lr.remote = nil
	lr.full.close()
	lr.proj.close()
	for _, d := range lr.old {
		d.close()
	}
	lr.old = nil
}

// Next advances to the next non-empty batch.
func (lr *LogReader) Next() bool {
	if lr.cur != nil {
		lr.cur.Release()
		lr.cur = nil
		lr.curChanges = nil
	}
	for len(lr.queue) == 0 {
		if lr.done || lr.err != nil {
			return false
		}
		if lr.next >= lr.end() {
			lr.done = true
			return false
		}
		if err := lr.ctx.Err(); err != nil {
			lr.err = fmt.Errorf("fluss: reading %s: %w", lr.r.Bucket, err)
			return false
		}
		if err := lr.fill(); err != nil {
			lr.err = err
			return false
		}
	}
	p := lr.queue[0]
	lr.queue = lr.queue[1:]
	lr.cur, lr.curChanges, lr.curFirst, lr.curTs = p.rec, p.changes, p.first, p.ts
	return true
}

// maxNoProgress bounds fetch rounds that deliver nothing new.
const maxNoProgress = 8

// fill fetches once and queues the resulting batches.
func (lr *LogReader) fill() error {
	if lr.remote != nil {
		return lr.readRemote()
	}
	for attempt := 0; ; attempt++ {
		before := lr.next
		lr.Fetches++
		res, err := lr.c.FetchLog(lr.ctx, FetchRequest{Bucket: lr.r.Bucket, Offset: lr.next, MaxBytes: lr.fetchSz, Projection: lr.pushed, PreferRemote: lr.r.PreferRemote,
			Filter: lr.r.Filter.predicate(), FilterSchemaID: lr.r.SchemaID})
		var fe *Error
		if err != nil && lr.pushed != nil && errors.As(err, &fe) && fe.Code == flussapi.InvalidColumnProjection {
			// Push-down positions apply to each batch's own schema; an older
			// batch lacks a newer column. Project on the client from here on.
			lr.c.log.Debug("fluss: projection push-down refused, projecting locally", "bucket", lr.r.Bucket.String(), "err", err)
			lr.pushed = nil
			continue
		}
		if err != nil {
			if errors.Is(err, ErrOffsetOutOfRange) {
				return fmt.Errorf("%w: %s offset %d: %w", ErrLogExpired, lr.r.Bucket, lr.next, err)
			}
			return err
		}
		switch {
		case res.Remote != nil:
			if err := lr.startRemote(res.Remote); err != nil {
				return err
			}
			if err := lr.readRemote(); err != nil {
				return err
			}
		case len(res.Records) == 0:
			if res.FilteredEndOffset > lr.next {
				lr.SkippedRuns++
				lr.next = min(res.FilteredEndOffset, lr.r.Stop)
				return nil
			}
			if res.HighWatermark >= 0 && lr.next >= res.HighWatermark {
				return fmt.Errorf("%w: reading %s: range end %d is beyond the high watermark %d (next offset %d)",
					ErrOffsetOutOfRange, lr.r.Bucket, lr.r.Stop, res.HighWatermark, lr.next)
			}
			// Below the high watermark yet nothing, no remote segments: the
			// server found the offset below its local log start and the data
			// only lives in the lake now (§2.6).
			return fmt.Errorf("%w: %s offset %d (high watermark %d): Fluss answered with no records and no remote segments; the data was tiered to the lake",
				ErrLogExpired, lr.r.Bucket, lr.next, res.HighWatermark)
		default:
			lr.BytesFetched += int64(len(res.Records))
			truncated, err := lr.consume(res.Records, 0, lr.pushed != nil, lr.pushed != nil)
			if err != nil {
				return err
			}
			if res.FilteredEndOffset > lr.next {
				// Batches after the last one returned were left out by the
				// server's filter: resume after them (spec §2.6).
				lr.SkippedRuns++
				lr.next = min(res.FilteredEndOffset, lr.r.Stop)
			}
			if truncated && lr.next == before {
				// Not even one whole batch fit: ask for more bytes.
				lr.fetchSz = growFetch(lr.fetchSz)
			} else if lr.fetchSz < lr.maxSz {
				lr.fetchSz = min(growFetch(lr.fetchSz), lr.maxSz)
			}
		}
		if lr.next > before || len(lr.queue) > 0 || lr.next >= lr.end() {
			return nil
		}
		if attempt >= maxNoProgress {
			return fmt.Errorf("%w: reading %s: %d fetches from offset %d made no progress", ErrProtocol, lr.r.Bucket, attempt+1, lr.next)
		}
	}
}

// end is where the read is over: the range's stop, or a piece's end.
func (lr *LogReader) end() int64 {
	if lr.r.PieceEnd > 0 {
		return lr.r.PieceEnd
	}
	return lr.r.Stop
}

func growFetch(n int32) int32 {
	if n >= 1<<29 {
		return 1 << 30
	}
	return n * 2
}

// consume decodes the whole batches in b (starting at byte pos), queues the
// rows in [next, Stop), advances next and reports a cut-short tail.
func (lr *LogReader) consume(b []byte, pos int, projected, skipCRC bool) (truncated bool, err error) {
	it := record.ReadBatches(b[pos:], record.DecodeOptions{SkipCRC: skipCRC})
	for it.Next() {
		lb := it.Batch()
		h := &lb.Header
		if h.NextOffset() <= lr.next {
			continue // wholly before what we still need
		}
		if h.BaseOffset >= lr.r.Stop {
			lr.next = lr.r.Stop
			return false, nil
		}
		if lr.r.PieceEnd > 0 {
			// Owned by the piece its first record of the tail lies in;
			// decided from the header, before decoding anything.
			switch first := max(h.BaseOffset, lr.r.TailStart); {
			case first < lr.r.Start:
				lr.next = h.NextOffset() // the piece before's
				continue
			case first >= lr.r.PieceEnd:
				lr.next = max(lr.next, lr.r.PieceEnd) // the next piece's
				return false, nil
			}
		}
		if h.RecordCount == 0 {
			lr.next = h.NextOffset()
			continue
		}
		dec := lr.full
		if projected {
			dec = lr.proj
		}
		evolved := !projected && lr.r.SchemaID != 0 && int32(h.SchemaID) != lr.r.SchemaID
		if evolved {
			if dec, err = lr.oldDecoder(h.SchemaID); err != nil {
				return false, err
			}
		}
		rec, cts, err := dec.decode(lb)
		if err != nil {
			return false, fmt.Errorf("fluss: reading %s: batch at offset %d (schema %d): %w", lr.r.Bucket, h.BaseOffset, h.SchemaID, err)
		}
		if evolved {
			rec = remapRecord(rec, lr.fullSch, lr.oldMap[h.SchemaID], lr.mem)
		}
		// Rows [lo, hi) of the batch are wanted. lo is clamped at 0: a
		// batch may legitimately start after the offset asked for (offsets
		// consumed by nothing, e.g. expired or filtered data).
		if lr.r.Filter != nil && h.BaseOffset > lr.next {
			lr.SkippedRuns++ // the server's filter left out the batches in between
		}
		lo := max(lr.next, lr.r.Start, h.BaseOffset) - h.BaseOffset
		hi := min(lr.r.Stop, h.BaseOffset+int64(h.RecordCount)) - h.BaseOffset
		lr.next = min(h.NextOffset(), lr.r.Stop)
		if lo >= hi {
			rec.Release()
			continue
		}
		out := lr.shape(rec, projected, lo, hi)
		changes := make([]record.ChangeType, hi-lo)
		for i := range changes {
			changes[i] = cts.At(int(lo) + i)
		}
		lr.queue = append(lr.queue, pendingBatch{rec: out, changes: changes, first: h.BaseOffset + lo, ts: h.CommitTimestamp})
	}
	if err := it.Err(); err != nil {
		return false, fmt.Errorf("fluss: reading %s from offset %d: %w", lr.r.Bucket, lr.next, err)
	}
	return it.Truncated(), nil
}

// oldDecoder returns a decoder for batches written with schema id (and
// records how its columns map onto the read's, in oldMap).
func (lr *LogReader) oldDecoder(id int16) (*decoder, error) {
	if d, ok := lr.old[id]; ok {
		return d, nil
	}
	sch, err := lr.c.tableSchema(lr.ctx, lr.r.Bucket, id)
	if err != nil {
		return nil, fmt.Errorf("fluss: reading %s: batch schema %d: %w", lr.r.Bucket, id, err)
	}
	m, err := columnMap(sch.Columns, id, lr.r.Columns, lr.r.ColumnIDs, lr.r.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("fluss: reading %s: %w", lr.r.Bucket, err)
	}
	d, err := newDecoder(sch.TypeColumns(), lr.r.Format, lr.mem)
	if err != nil {
		return nil, fmt.Errorf("fluss: reading %s: schema %d: %w", lr.r.Bucket, id, err)
	}
	lr.old[id] = d
	if lr.oldMap == nil {
		lr.oldMap = map[int16][]int{}
	}
	lr.oldMap[id] = m
	return d, nil
}

// shape trims rec to rows [lo, hi) and to the output columns; it consumes rec.
func (lr *LogReader) shape(rec arrow.RecordBatch, projected bool, lo, hi int64) arrow.RecordBatch {
	defer rec.Release()
	var cols []arrow.Array
	switch {
	case projected:
		cols = make([]arrow.Array, len(lr.order))
		for i, j := range lr.order {
			cols[i] = rec.Column(j)
		}
	case lr.r.Projection != nil:
		cols = make([]arrow.Array, len(lr.r.Projection))
		for i, p := range lr.r.Projection {
			cols[i] = rec.Column(p)
		}
	default:
		cols = rec.Columns()
	}
	whole := array.NewRecordBatch(lr.outSchema, cols, rec.NumRows())
	if lo == 0 && hi == rec.NumRows() {
		return whole
	}
	defer whole.Release()
	return whole.NewSlice(lo, hi)
}

// remoteChunk is how much of a remote segment is read at a time.
const remoteChunk = 4 << 20

// remoteCursor is the reader's position inside the archived segments listed
// by one FETCH_LOG answer. Segments are read chunk by chunk so that a large
// segment never sits in memory whole.
type remoteCursor struct {
	info  *RemoteLogFetchInfo
	seg   int // index into info.Segments
	f     fileio.File
	path  string
	pos   int64
	chunk int64
}

func (rc *remoteCursor) close() {
	if rc != nil && rc.f != nil {
		_ = rc.f.Close()
		rc.f = nil
	}
}

// startRemote begins reading archived segments; projection happens locally.
func (lr *LogReader) startRemote(info *RemoteLogFetchInfo) error {
	if lr.c.fs == nil {
		return fmt.Errorf("%w: %s offset %d is in remote storage (%s) but the client has no file system (WithFS)",
			ErrUnsupported, lr.r.Bucket, lr.next, info.TabletDir)
	}
	if len(info.Segments) == 0 {
		return fmt.Errorf("%w: %s offset %d: remote log fetch info lists no segments", ErrProtocol, lr.r.Bucket, lr.next)
	}
	lr.remote = &remoteCursor{info: info, seg: -1}
	return nil
}

// readRemote decodes the next chunk of the archived segments. When the listed
// segments are exhausted the cursor is dropped and reading goes back to
// FETCH_LOG from the next offset.
func (lr *LogReader) readRemote() error {
	rc := lr.remote
	for {
		if lr.next >= lr.end() {
			rc.close()
			lr.remote = nil
			return nil
		}
		if rc.f == nil {
			rc.seg++
			for rc.seg < len(rc.info.Segments) && rc.info.Segments[rc.seg].EndOffset <= lr.next {
				rc.seg++
			}
			if rc.seg >= len(rc.info.Segments) {
				lr.remote = nil
				return nil
			}
			seg := rc.info.Segments[rc.seg]
			rc.path = rc.info.SegmentPath(seg)
			f, err := lr.c.fs.Open(lr.ctx, rc.path)
			if err != nil {
				lr.remote = nil
				return fmt.Errorf("fluss: reading %s: remote segment %s: %w", lr.r.Bucket, seg.ID, err)
			}
			rc.f, rc.pos, rc.chunk = f, 0, remoteChunk
			if rc.seg == 0 {
				rc.pos = int64(rc.info.FirstStartPos)
			}
			lr.RemoteSegments++
		}
		size := rc.f.Size()
		if rc.pos >= size {
			seg := rc.info.Segments[rc.seg]
			rc.close()
			if lr.next < seg.EndOffset && lr.next < lr.end() {
				lr.remote = nil
				return fmt.Errorf("%w: remote segment %s of %s ends at offset %d, its end offset is %d", record.ErrCorrupt, rc.path, lr.r.Bucket, lr.next, seg.EndOffset)
			}
			continue
		}
		n := min(rc.chunk, size-rc.pos)
		buf := make([]byte, n)
		if _, err := rc.f.ReadAt(buf, rc.pos); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("fluss: reading %s: remote segment %s at byte %d: %w", lr.r.Bucket, rc.path, rc.pos, err)
		}
		it := record.ReadBatches(buf, record.DecodeOptions{})
		consumed := 0
		for it.Next() {
			consumed = it.NextPosition()
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("fluss: reading %s: remote segment %s after byte %d: %w", lr.r.Bucket, rc.path, rc.pos+int64(consumed), err)
		}
		if consumed == 0 {
			if n == size-rc.pos {
				return fmt.Errorf("%w: remote segment %s of %s ends inside a batch at byte %d", record.ErrCorrupt, rc.path, lr.r.Bucket, rc.pos)
			}
			rc.chunk *= 2 // one batch larger than the chunk
			if rc.chunk > int64(lr.c.cfg.MaxFrameSize) {
				return fmt.Errorf("%w: remote segment %s of %s: batch at byte %d larger than %d bytes", record.ErrCorrupt, rc.path, lr.r.Bucket, rc.pos, lr.c.cfg.MaxFrameSize)
			}
			continue
		}
		if _, err := lr.consume(buf[:consumed], 0, false, false); err != nil {
			return fmt.Errorf("%w (remote segment %s)", err, rc.path)
		}
		rc.pos += int64(consumed)
		if len(lr.queue) > 0 {
			return nil
		}
	}
}
