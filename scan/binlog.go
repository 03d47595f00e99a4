package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// binlogEvent is one folded tbl$binlog row: the record numbers of its
// images in the batch being folded (-1: none) and the metadata of the
// record that closes it.
type binlogEvent struct {
	kind          string
	offset, ts    int64
	before, after int
}

// binlogPending is a -U whose +U has not been seen yet: a one-row slice of
// its batch (held across a batch boundary) and its metadata.
type binlogPending struct {
	row        arrow.RecordBatch
	offset, ts int64
}

// readBinlog reads a LOG range of tbl$binlog: every record of the range in
// offset order, folded as Fluss's $binlog defines (+I insert, -D delete, a
// -U then +U one update at the +U's offset). A +U without a -U before it in
// the range is an update whose before is NULL, a -U without a +U after it
// one whose after is NULL (see planner's tbl$binlog note).
func (fx *fragExec) readBinlog(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	part := partOf(r.HasPartition, r.PartitionId)
	images := false
	for _, m := range fx.meta {
		images = images || m >= metaLen
	}
	proj := []int{0} // only metadata wanted: the records still come from the log
	if images {
		proj = make([]int, len(fx.cols))
		for i := range proj {
			proj[i] = i
		}
	}
	var pend *binlogPending
	defer func() {
		if pend != nil {
			pend.row.Release()
		}
	}()
	err := fx.logRead(ctx, part, r.Bucket, r.LogStartOffset, r.LogStopOffset, nil, proj, func(rd *client.LogReader) error {
		rec := rd.RecordBatch()
		// The rows folded here: the pending -U (if any) as row 0, then the
		// batch's records.
		src, shift := rec, 0
		if pend != nil {
			cat, err := fx.concatRecords(pend.row, rec)
			if err != nil {
				return err
			}
			defer cat.Release()
			src, shift = cat, 1
		}
		var carried *binlogEvent
		if pend != nil {
			carried = &binlogEvent{offset: pend.offset, ts: pend.ts, before: 0}
		}
		evs, open := foldBinlog(rd.ChangeTypes(), rd.FirstOffset(), rd.CommitTimestamp(), shift, carried)
		if pend != nil {
			pend.row.Release()
			pend = nil
		}
		if open != nil {
			// A copy: the reader may reuse the batch's buffers.
			sl := src.NewSlice(int64(open.before), int64(open.before)+1)
			none := sl.NewSlice(0, 0)
			cp, err := fx.concatRecords(sl, none)
			none.Release()
			sl.Release()
			if err != nil {
				return err
			}
			pend = &binlogPending{row: cp, offset: open.offset, ts: open.ts}
		}
		return fx.emitBinlog(ctx, src, evs, emit)
	})
	if err != nil {
		return err
	}
	if pend != nil {
		return fx.emitBinlog(ctx, pend.row, []binlogEvent{{record.BinlogUpdate, pend.offset, pend.ts, 0, -1}}, emit)
	}
	return nil
}

// foldBinlog folds one batch's change types (records first, first+1, …,
// committed at ts; record j is row j+shift of the rows folded) into binlog
// rows. carried is a -U left open by the previous batch (its before is its
// row); open is the -U this batch leaves open, for the next batch or, at
// the end of the range, an update without after.
func foldBinlog(cts []record.ChangeType, first, ts int64, shift int, carried *binlogEvent) (evs []binlogEvent, open *binlogEvent) {
	open = carried
	for j, ct := range cts {
		row, off := j+shift, first+int64(j)
		if open != nil && ct != record.UpdateAfter {
			evs = append(evs, binlogEvent{record.BinlogUpdate, open.offset, open.ts, open.before, -1})
			open = nil
		}
		switch ct {
		case record.UpdateBefore:
			open = &binlogEvent{kind: record.BinlogUpdate, offset: off, ts: ts, before: row, after: -1}
		case record.UpdateAfter:
			before := -1
			if open != nil {
				before = open.before
			}
			evs = append(evs, binlogEvent{record.BinlogUpdate, off, ts, before, row})
			open = nil
		case record.Delete:
			evs = append(evs, binlogEvent{record.BinlogDelete, off, ts, row, -1})
		default: // +I (and +A, which a primary-key table's log does not hold)
			evs = append(evs, binlogEvent{record.BinlogInsert, off, ts, -1, row})
		}
	}
	return evs, open
}

// metaLen is the number of metadata columns; read positions with a larger
// meta are the images.
var metaLen = len(record.ChangelogColumns())

// emitBinlog assembles the read layout of evs over the rows of src and
// sends it through the filters.
func (fx *fragExec) emitBinlog(ctx context.Context, src arrow.RecordBatch, evs []binlogEvent, emit emitFn) error {
	if len(evs) == 0 {
		return nil
	}
	n := len(evs)
	cols := make([]arrow.Array, len(fx.reads))
	defer releaseAll(cols)
	fields := make([]arrow.Field, len(fx.reads))
	for i := range fx.reads {
		var err error
		switch m := fx.meta[i]; m {
		case 0:
			b := array.NewStringBuilder(fx.mem)
			for _, e := range evs {
				b.Append(e.kind)
			}
			cols[i] = b.NewArray()
			b.Release()
		case 1:
			b := array.NewInt64Builder(fx.mem)
			b.Reserve(n)
			for _, e := range evs {
				b.UnsafeAppend(e.offset)
			}
			cols[i] = b.NewArray()
			b.Release()
		case 2:
			b := array.NewTimestampBuilder(fx.mem, fx.readTypes[i].(*arrow.TimestampType))
			b.Reserve(n)
			for _, e := range evs {
				b.UnsafeAppend(arrow.Timestamp(e.ts))
			}
			cols[i] = b.NewArray()
			b.Release()
		default:
			pick := make([]int, n)
			for k, e := range evs {
				pick[k] = e.before
				if m == metaLen+1 {
					pick[k] = e.after
				}
			}
			cols[i], err = fx.binlogImage(ctx, src, fx.readTypes[i], pick)
			if err != nil {
				return err
			}
		}
		fields[i] = arrow.Field{Name: fx.readNames[i], Type: cols[i].DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	defer out.Release()
	m, err := fx.emitOut(ctx, out, false, emit)
	fx.ctr.add(cLogRowsReturned, m)
	return err
}

// binlogImage is a ROW image column: per event the table row pick names
// (NULL for -1), with the fields of want (all table columns, or the ones
// nested column pruning kept), each child taken from src by name.
func (fx *fragExec) binlogImage(ctx context.Context, src arrow.RecordBatch, want arrow.DataType, pick []int) (arrow.Array, error) {
	st, ok := want.(*arrow.StructType)
	if !ok {
		return nil, fmt.Errorf("%w: binlog image of type %s, want a struct", ErrInvalid, want)
	}
	ib := array.NewInt32Builder(fx.mem)
	defer ib.Release()
	valid := make([]bool, len(pick))
	for k, p := range pick {
		if p < 0 {
			ib.AppendNull()
			continue
		}
		ib.Append(int32(p))
		valid[k] = true
	}
	idx := ib.NewArray()
	defer idx.Release()
	names := make([]string, st.NumFields())
	children := make([]arrow.Array, st.NumFields())
	defer releaseAll(children)
	for f := range st.NumFields() {
		name := st.Field(f).Name
		c := -1
		for i, col := range fx.cols {
			if col.Name == name {
				c = i
			}
		}
		if c < 0 || c >= int(src.NumCols()) {
			return nil, fmt.Errorf("%w: binlog image field %q is no column of %s", ErrInvalid, name, fx.info.Path)
		}
		taken, err := compute.TakeArray(compute.WithAllocator(ctx, fx.mem), src.Column(c), idx)
		if err != nil {
			return nil, fmt.Errorf("binlog image field %q: %w", name, err)
		}
		names[f], children[f] = name, taken
	}
	bm := make([]byte, (len(pick)+7)/8)
	nulls := 0
	for k, v := range valid {
		if v {
			bm[k/8] |= 1 << (k % 8)
		} else {
			nulls++
		}
	}
	return array.NewStructArrayWithNulls(children, names, memory.NewBufferBytes(bm), nulls, 0)
}

// concatRecords is a's rows then b's (same schema).
func (fx *fragExec) concatRecords(a, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, b.NumCols())
	defer releaseAll(cols)
	for i := range cols {
		c, err := array.Concatenate([]arrow.Array{a.Column(i), b.Column(i)}, fx.mem)
		if err != nil {
			return nil, fmt.Errorf("binlog: carrying an update across batches: %w", err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(b.Schema(), cols, a.NumRows()+b.NumRows()), nil
}
