package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/unionread"
)

var jsonUnmarshal = json.Unmarshal

// limitFirstFetch is the first fetch of a log read under a LIMIT
// (client.LogRange.FirstFetchBytes); later fetches double up to the
// configured size.
const limitFirstFetch = 64 << 10

// emitFn takes over one output batch. It fails when the stream no longer
// wants rows (cancelled, or LIMIT reached).
type emitFn func(arrow.RecordBatch) error

// runRange reads one range to its end, emitting output batches.
func (fx *fragExec) runRange(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	c := fx.ctr
	var release func()
	if fx.f.GetOptions().GetHeapAdmission() {
		c.register(cHeapDeclaredBytes, cHeapWaitTime)
		if r.DeclaredBytes > 0 {
			c.add(cHeapDeclaredBytes, r.DeclaredBytes)
			waited, rel, err := fx.e.adm.acquire(ctx, r.DeclaredBytes)
			c.addTime(cHeapWaitTime, waited)
			if err != nil {
				return err
			}
			release = rel
		}
	}
	if release != nil {
		defer release()
	}
	start := time.Now()
	var err error
	switch r.Type {
	case inletpb.RangeType_LOG:
		c.register(cLogReadTime, cLogRangeNum, cLogRangeReadTime, cLogRowsReturned, cConnectionsOpened, cLogBytesFetched, cLogBatchesSkipped)
		c.add(cLogRangeNum, 1)
		err = fx.readLog(ctx, r, emit)
		d := time.Since(start)
		c.addTime(cLogRangeReadTime, d)
		c.addTime(cLogReadTime, d)
	case inletpb.RangeType_PK_FULL:
		c.register(cLogReadTime, cPkFullRangeNum, cPkFullRangeReadTime, cLogRowsReturned, cConnectionsOpened)
		c.add(cPkFullRangeNum, 1)
		err = fx.readPKFull(ctx, r, emit)
		d := time.Since(start)
		c.addTime(cPkFullRangeReadTime, d)
		c.addTime(cLogReadTime, d)
	case inletpb.RangeType_PK_TAIL:
		c.register(cLogReadTime, cPkTailRangeNum, cPkTailRangeReadTime, cLogRowsReturned, cConnectionsOpened, cLogBytesFetched, cLogBatchesSkipped)
		c.add(cPkTailRangeNum, 1)
		err = fx.readPKTail(ctx, r, emit)
		d := time.Since(start)
		c.addTime(cPkTailRangeReadTime, d)
		c.addTime(cLogReadTime, d)
	case inletpb.RangeType_LAKE, inletpb.RangeType_LAKE_SUPPRESS:
		c.register(cLakeReadTime, cLakeRangeNum, cLakeSuppressRangeNum, cLakeRangeReadTime, cLakeRowsReturned, cLakeBytesRead,
			cSuppressedRows, cTailKeysRead, cTailKeysRetained, cTailCacheHitCount)
		if r.Type == inletpb.RangeType_LAKE {
			c.add(cLakeRangeNum, 1)
		} else {
			c.register(cTailReadTime, cSuppressTime, cConnectionsOpened)
			c.add(cLakeSuppressRangeNum, 1)
		}
		err = fx.readLake(ctx, r, emit)
		d := time.Since(start)
		c.addTime(cLakeRangeReadTime, d)
		c.addTime(cLakeReadTime, d)
	default:
		err = fmt.Errorf("%w: range %d has unknown type %v", ErrInvalid, r.Id, r.Type)
	}
	return err
}

func partOf(has bool, id int64) *int64 {
	if !has {
		return nil
	}
	return &id
}

func (fx *fragExec) bucketName(part *int64, bucket int32) string {
	if part == nil {
		return fmt.Sprintf("%s bucket %d", fx.info.Path, bucket)
	}
	return fmt.Sprintf("%s partition %d bucket %d", fx.info.Path, *part, bucket)
}

// emitOut conforms a batch read in the read layout, filters and projects
// it, and emits what is left; it returns the rows emitted.
func (fx *fragExec) emitOut(ctx context.Context, rec arrow.RecordBatch, conformed bool, emit emitFn) (int64, error) {
	return fx.emitWith(ctx, rec, conformed, fx.predRF, emit)
}

// emitWith is emitOut with the filters rf instead of all of them.
func (fx *fragExec) emitWith(ctx context.Context, rec arrow.RecordBatch, conformed bool, rf *exec.RowFilter, emit emitFn) (int64, error) {
	if !conformed {
		c, err := fx.conform(rec)
		if err != nil {
			return 0, err
		}
		defer c.Release()
		rec = c
	}
	out, err := fx.finish(ctx, rec, rf)
	if err != nil || out == nil {
		return 0, err
	}
	n := out.NumRows()
	return n, emit(out)
}

// logRead reads [start, stop) of one bucket with the given projection,
// resuming after transient failures from the next undelivered offset (the
// reader delivers each offset once, in order, so nothing repeats). each
// sees every batch (rd.RecordBatch) with its change types, first offset and
// commit timestamp.
//
// A piece of a log tail (tail: [Range.log_tail_start_offset,
// log_tail_stop_offset), nil otherwise) reads the batches [start, stop)
// owns (client.LogRange.PieceEnd), each up to the tail's end.
func (fx *fragExec) logRead(ctx context.Context, part *int64, bucket int32, start, stop int64, tail *[2]int64, proj []int,
	each func(rd *client.LogReader) error) error {
	if start == -2 {
		var err error
		if start, err = fx.cl.BucketOffset(ctx, fx.info.Bucket(part, bucket), client.Earliest()); err != nil {
			return fmt.Errorf("%s: earliest offset: %w", fx.bucketName(part, bucket), err)
		}
		if start > stop {
			start = stop
		}
	}
	if start < 0 || stop < start {
		return fmt.Errorf("%w: %s: log range [%d, %d)", ErrInvalid, fx.bucketName(part, bucket), start, stop)
	}
	if tail != nil && (tail[0] < 0 || tail[0] > start || tail[1] < stop) {
		return fmt.Errorf("%w: %s: log range [%d, %d) is no piece of the tail [%d, %d)", ErrInvalid, fx.bucketName(part, bucket), start, stop, tail[0], tail[1])
	}
	next, attempts := start, 0
	for next < stop {
		var lr client.LogRange
		var err error
		if tail != nil {
			if lr, err = fx.info.LogRange(part, bucket, next, tail[1]); err == nil {
				lr.PieceEnd, lr.TailStart = stop, tail[0]
			}
		} else {
			lr, err = fx.info.LogRange(part, bucket, next, stop)
		}
		if err != nil {
			return err
		}
		lr.Projection = proj
		lr.Filter = fx.logFilter
		if fx.f.Limit >= 0 {
			// The fragment may stop after a few rows: start small.
			lr.FirstFetchBytes = limitFirstFetch
		}
		rd, err := fx.cl.NewLogReader(ctx, lr, fx.mem)
		if err != nil {
			return err
		}
		for rd.Next() {
			if err = each(rd); err != nil {
				break
			}
		}
		if err == nil {
			err = rd.Err()
		}
		fx.ctr.add(cLogBytesFetched, rd.BytesFetched)
		fx.ctr.add(cLogBatchesSkipped, rd.SkippedRuns)
		next = rd.NextOffset()
		rd.Release()
		if err == nil {
			return nil
		}
		if !transient(err) || attempts >= fx.e.cfg.Retries || ctx.Err() != nil {
			return err
		}
		attempts++
		fx.e.log.Debug("scan: retrying log read", "bucket", fx.bucketName(part, bucket), "offset", next, "err", err)
		if err := sleep(ctx, time.Duration(attempts)*50*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (fx *fragExec) readLog(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	part := partOf(r.HasPartition, r.PartitionId)
	if fx.binlog {
		return fx.readBinlog(ctx, r, emit)
	}
	if fx.changelog {
		return fx.readChangelog(ctx, r, emit)
	}
	var tail *[2]int64
	if r.LogTailStopOffset > 0 {
		tail = &[2]int64{r.LogTailStartOffset, r.LogTailStopOffset}
	}
	return fx.logRead(ctx, part, r.Bucket, r.LogStartOffset, r.LogStopOffset, tail, fx.reads,
		func(rd *client.LogReader) error {
			n, err := fx.emitOut(ctx, rd.RecordBatch(), false, emit)
			fx.ctr.add(cLogRowsReturned, n)
			return err
		})
}

func (fx *fragExec) readPKFull(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	part := partOf(r.HasPartition, r.PartitionId)
	for attempt := 0; ; attempt++ {
		pr, err := fx.info.PKRange(part, r.Bucket, r.LogStopOffset)
		if err != nil {
			return err
		}
		pr.Projection = fx.reads
		rd, err := fx.cl.NewPKReader(ctx, pr, fx.mem)
		if err != nil {
			return err
		}
		emitted := false
		for rd.Next() {
			var n int64
			n, err = fx.emitOut(ctx, rd.RecordBatch(), false, emit)
			fx.ctr.add(cLogRowsReturned, n)
			emitted = emitted || n > 0
			if err != nil {
				break
			}
		}
		if err == nil {
			err = rd.Err()
		}
		rd.Release()
		if err == nil {
			return nil
		}
		// A SCAN_KV session cannot resume; start over only while nothing
		// reached the stream, or rows would come twice.
		if emitted || !transient(err) || attempt >= fx.e.cfg.Retries || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", fx.bucketName(part, r.Bucket), err)
		}
		if err := sleep(ctx, time.Duration(attempt+1)*50*time.Millisecond); err != nil {
			return err
		}
	}
}

func (fx *fragExec) readSchema() *arrow.Schema {
	fields := make([]arrow.Field, len(fx.reads))
	for i := range fx.reads {
		fields[i] = arrow.Field{Name: fx.readNames[i], Type: fx.readTypes[i], Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

func (fx *fragExec) readPKTail(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	part := partOf(r.HasPartition, r.PartitionId)
	name := fx.bucketName(part, r.Bucket)
	rp := unionread.NewReplay(name, fx.readSchema(), fx.keyPos, fx.f.MaxTailRows, fx.mem)
	err := fx.logRead(ctx, part, r.Bucket, r.LogStartOffset, r.LogStopOffset, nil, fx.reads,
		func(rd *client.LogReader) error {
			cts := rd.ChangeTypes()
			c, err := fx.conform(rd.RecordBatch())
			if err != nil {
				return err
			}
			defer c.Release()
			var retract []bool
			for i, ct := range cts {
				if ct == record.Delete || ct == record.UpdateBefore {
					if retract == nil {
						retract = make([]bool, len(cts))
					}
					retract[i] = true
				}
			}
			return rp.Add(c, retract)
		})
	if err != nil {
		rp.Release()
		return err
	}
	rd, err := rp.Reader(ctx, fx.batchSize)
	if err != nil {
		rp.Release()
		return err
	}
	defer rd.Release()
	for rd.Next() {
		n, err := fx.emitOut(ctx, rd.RecordBatch(), true, emit)
		fx.ctr.add(cLogRowsReturned, n)
		if err != nil {
			return err
		}
	}
	return rd.Err()
}

func (fx *fragExec) readLake(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	if isIceberg(fx.f.Lake) {
		return fx.readIceberg(ctx, r, emit)
	}
	plan, err := fx.lake(ctx)
	if err != nil {
		return err
	}
	split, err := paimon.DecodeSplit(r.LakeSplit, plan.Schema.PartitionFields())
	if err != nil {
		return fmt.Errorf("%w: range %d: lake split: %w", ErrInvalid, r.Id, err)
	}
	if fx.f.GetOptions().GetForceMergeReader() && len(plan.Schema.PrimaryKeys) > 0 {
		split.RawConvertible = false
	}
	var sup *unionread.Suppressor
	if r.Type == inletpb.RangeType_LAKE_SUPPRESS {
		if r.Tail == nil {
			return fmt.Errorf("%w: range %d: LAKE_SUPPRESS split without a tail", ErrInvalid, r.Id)
		}
		set, err := fx.tailKeys(ctx, r.Tail)
		if err != nil {
			return err
		}
		sup = unionread.NewSuppressor(set, fx.keyPos, fx.mem)
		defer sup.Release()
	}
	bufs := fx.takeBuffers()
	defer fx.putBuffers(bufs)
	cols := fx.readNames
	var ph *placeholders
	if fx.lakeSkip != nil {
		cols, ph = fx.lakeCols, &placeholders{}
		defer ph.release()
	}
	rd, err := plan.Open(ctx, split, fx.mem, paimon.ReadOptions{Columns: cols, BatchSize: fx.batchSize, Buffers: bufs})
	if err != nil {
		return fmt.Errorf("range %d: %w", r.Id, err)
	}
	defer rd.Release()
	for rd.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		fx.ctr.add(cLakeBytesRead, memlimit.BatchBytes(rd.RecordBatch()))
		rec := rd.RecordBatch()
		if ph != nil {
			if rec, err = fx.widen(rec, ph); err != nil {
				return fmt.Errorf("range %d: %w", r.Id, err)
			}
		}
		c, err := fx.conform(rec)
		if ph != nil {
			rec.Release()
		}
		if err != nil {
			return fmt.Errorf("range %d: %w", r.Id, err)
		}
		if sup != nil {
			t0 := time.Now()
			s, dropped, err := sup.Apply(ctx, c)
			c.Release()
			fx.ctr.addTime(cSuppressTime, time.Since(t0))
			if err != nil {
				return fmt.Errorf("range %d: %w", r.Id, err)
			}
			fx.ctr.add(cSuppressedRows, int64(dropped))
			c = s
		}
		fx.ctr.add(cLakeRowsReturned, c.NumRows())
		// The reader applied the lake predicate to every row: only the
		// filters it does not hold are left.
		_, err = fx.emitWith(ctx, c, true, fx.lakeRF, emit)
		c.Release()
		if err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return fmt.Errorf("range %d: %w", r.Id, err)
	}
	return nil
}

// readChangelog reads a LOG range of tbl$changelog: the table columns from
// the log, the metadata columns from each record's change type, its offset
// (the batch's first offset plus the row) and its batch's commit
// timestamp, assembled in the read layout before filters run.
func (fx *fragExec) readChangelog(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	part := partOf(r.HasPartition, r.PartitionId)
	proj := fx.tableReads
	if len(proj) == 0 {
		proj = []int{0} // only metadata wanted: the rows still come from the log
	}
	tablePos := make(map[int]int, len(proj))
	for i, c := range proj {
		tablePos[c] = i
	}
	fields := make([]arrow.Field, len(fx.reads))
	for i := range fx.reads {
		fields[i] = arrow.Field{Name: fx.readNames[i], Type: fx.readTypes[i], Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return fx.logRead(ctx, part, r.Bucket, r.LogStartOffset, r.LogStopOffset, nil, proj,
		func(rd *client.LogReader) error {
			rec := rd.RecordBatch()
			n := int(rec.NumRows())
			cols := make([]arrow.Array, len(fx.reads))
			defer releaseAll(cols)
			for i, c := range fx.reads {
				switch fx.meta[i] {
				case -1:
					a := rec.Column(tablePos[c])
					a.Retain()
					cols[i] = a
				case 0:
					b := array.NewStringBuilder(fx.mem)
					b.Reserve(n)
					for _, ct := range rd.ChangeTypes() {
						b.Append(ct.String())
					}
					cols[i] = b.NewArray()
					b.Release()
				case 1:
					b := array.NewInt64Builder(fx.mem)
					b.Reserve(n)
					first := rd.FirstOffset()
					for j := 0; j < n; j++ {
						b.UnsafeAppend(first + int64(j))
					}
					cols[i] = b.NewArray()
					b.Release()
				case 2:
					b := array.NewTimestampBuilder(fx.mem, fx.readTypes[i].(*arrow.TimestampType))
					b.Reserve(n)
					ts := arrow.Timestamp(rd.CommitTimestamp())
					for j := 0; j < n; j++ {
						b.UnsafeAppend(ts)
					}
					cols[i] = b.NewArray()
					b.Release()
				}
			}
			out := array.NewRecordBatch(schema, cols, int64(n))
			defer out.Release()
			m, err := fx.emitOut(ctx, out, false, emit)
			fx.ctr.add(cLogRowsReturned, m)
			return err
		})
}

// placeholders hold, per skipped read position, one all-NULL array of the
// column's type that the batches of a lake range slice (no copy) where
// the reader left a filter-only column out (fragExec.lakeSkip).
type placeholders struct {
	cols map[int]arrow.Array
}

func (ph *placeholders) get(p int, t arrow.DataType, n int, mem memory.Allocator) arrow.Array {
	a := ph.cols[p]
	if a == nil || a.Len() < n {
		if a != nil {
			a.Release()
		}
		if ph.cols == nil {
			ph.cols = map[int]arrow.Array{}
		}
		a = array.MakeArrayOfNull(mem, t, n)
		ph.cols[p] = a
	}
	return array.NewSlice(a, 0, int64(n))
}

func (ph *placeholders) release() {
	for _, a := range ph.cols {
		a.Release()
	}
	ph.cols = nil
}

// widen puts a lake batch read with fx.lakeCols into the read layout:
// its columns in their places, placeholders in the skipped ones. The
// result is a new reference.
func (fx *fragExec) widen(rec arrow.RecordBatch, ph *placeholders) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) != len(fx.lakeCols) {
		return nil, fmt.Errorf("scan: lake reader returned %d columns, expected %d", rec.NumCols(), len(fx.lakeCols))
	}
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(fx.reads))
	fields := make([]arrow.Field, len(fx.reads))
	defer releaseAll(cols)
	k := 0
	for p := range fx.reads {
		if fx.lakeSkip[p] {
			cols[p] = ph.get(p, fx.readTypes[p], n, fx.mem)
			fields[p] = arrow.Field{Name: fx.readNames[p], Type: fx.readTypes[p], Nullable: true}
			continue
		}
		cols[p] = rec.Column(k)
		cols[p].Retain()
		fields[p] = rec.Schema().Field(k)
		k++
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}
