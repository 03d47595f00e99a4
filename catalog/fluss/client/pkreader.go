package client

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// PKRange is a read of one primary-key bucket's current state.
type PKRange struct {
	Bucket TableBucket
	// Columns is the table's row type; SchemaID its schema id (KV values
	// written with another schema id are decoded with that schema, fetched
	// by GET_TABLE_SCHEMA, and mapped onto Columns by column id: NULL for
	// columns added since, newer columns left out). 0 skips the check.
	Columns  []typemap.Column
	SchemaID int32
	// ColumnIDs are the column ids of Columns (nil: map by position).
	ColumnIDs []int32
	// PrimaryKey are the positions of the primary-key columns in Columns.
	PrimaryKey []int
	KvFormat   record.KvFormat  // table.kv.format
	LogFormat  record.LogFormat // table.log.format (the changelog's format)
	// Stop is the exclusive end of the changelog to apply; < 0 means the
	// bucket's high watermark when the read starts. A Stop below the scan's
	// own log offset is raised to it (the state cannot be rewound).
	Stop int64
	// Projection lists output columns as positions in Columns; nil = all.
	Projection []int
}

// PKReader streams the live rows of one primary-key bucket as Arrow record
// batches: the SCAN_KV state (a consistent RocksDB view at log offset L)
// merged by primary key with the changelog [L, Stop): +I, +U (and +A) upsert,
// -D deletes, -U is ignored. Snapshot rows whose key the changelog touched
// are dropped while the scan streams; the changelog's surviving rows follow
// at the end. Only the changelog tail is held in memory, never the snapshot.
//
// A PKReader belongs to one goroutine and implements array.RecordReader.
// A leader change during the scan ends it with an error wrapping
// ErrNotLeader (SCAN_KV sessions cannot resume); the caller may retry.
type PKReader struct {
	c    *Client
	ctx  context.Context
	r    PKRange
	mem  memory.Allocator
	refs atomic.Int64

	outSchema *arrow.Schema
	rows      *record.RowDecoder
	oldTypes  map[int16]*oldSchema

	scan      *KvScan
	tail      map[string]tailEntry
	tailRecs  []arrow.RecordBatch
	phase     int // 0 not started, 1 scanning, 2 emitting tail, 3 done
	tailNext  int
	cur       arrow.RecordBatch
	err       error
	logOffset int64
	stop      int64
	// Counters.
	ScanBatches, TailRecords, Suppressed int
}

type tailEntry struct {
	live     bool
	rec, row int
}

// NewPKReader prepares a PK bucket read; nothing is sent until Next.
func (c *Client) NewPKReader(ctx context.Context, r PKRange, mem memory.Allocator) (*PKReader, error) {
	if len(r.Columns) == 0 || len(r.PrimaryKey) == 0 {
		return nil, fmt.Errorf("fluss: pk read of %s: needs columns and primary key", r.Bucket)
	}
	for _, p := range append(append([]int(nil), r.PrimaryKey...), r.Projection...) {
		if p < 0 || p >= len(r.Columns) {
			return nil, fmt.Errorf("fluss: pk read of %s: column position %d out of %d columns", r.Bucket, p, len(r.Columns))
		}
	}
	outCols := r.Columns
	if r.Projection != nil {
		outCols = make([]typemap.Column, len(r.Projection))
		for i, p := range r.Projection {
			outCols[i] = r.Columns[p]
		}
	}
	schema, err := typemap.ArrowSchema(outCols)
	if err != nil {
		return nil, fmt.Errorf("fluss: pk read of %s: %w", r.Bucket, err)
	}
	rd, err := record.NewRowDecoder(r.Columns, r.KvFormat.RowFormat(), mem)
	if err != nil {
		return nil, fmt.Errorf("fluss: pk read of %s: %w", r.Bucket, err)
	}
	pr := &PKReader{c: c, ctx: ctx, r: r, mem: mem, outSchema: schema, rows: rd, oldTypes: map[int16]*oldSchema{}, tail: map[string]tailEntry{}}
	pr.refs.Store(1)
	return pr, nil
}

// Schema is the output schema.
func (pr *PKReader) Schema() *arrow.Schema { return pr.outSchema }

// RecordBatch is the current batch, valid until the next Next.
func (pr *PKReader) RecordBatch() arrow.RecordBatch { return pr.cur }

// Record is RecordBatch.
func (pr *PKReader) Record() arrow.RecordBatch { return pr.cur }

// Err is the error that ended the read.
func (pr *PKReader) Err() error { return pr.err }

// LogOffset is the scan's changelog offset (valid after the first Next).
func (pr *PKReader) LogOffset() int64 { return pr.logOffset }

// StopOffset is the changelog end applied (valid after the first Next).
func (pr *PKReader) StopOffset() int64 { return pr.stop }

// Retain adds a reference.
func (pr *PKReader) Retain() { pr.refs.Add(1) }

// Release drops a reference; the last frees everything and closes an
// unfinished server-side scan.
func (pr *PKReader) Release() {
	if pr.refs.Add(-1) != 0 {
		return
	}
	if pr.cur != nil {
		pr.cur.Release()
		pr.cur = nil
	}
	for _, r := range pr.tailRecs {
		if r != nil {
			r.Release()
		}
	}
	pr.tailRecs = nil
	if pr.scan != nil {
		_ = pr.scan.Close(context.WithoutCancel(pr.ctx))
		pr.scan = nil
	}
	pr.rows.Release()
}

// Next advances to the next non-empty batch.
func (pr *PKReader) Next() bool {
	if pr.cur != nil {
		pr.cur.Release()
		pr.cur = nil
	}
	if pr.err != nil {
		return false
	}
	if pr.phase != 3 {
		// A cancelled read ends with the context's error even when what is
		// left was already fetched: the caller asked it to stop.
		if err := pr.ctx.Err(); err != nil {
			pr.err = fmt.Errorf("fluss: reading %s bucket %d: %w", pr.r.Bucket.Table, pr.r.Bucket.Bucket, err)
			pr.phase = 3
			return false
		}
	}
	if pr.phase == 0 {
		if err := pr.open(); err != nil {
			pr.err = err
			pr.phase = 3
			return false
		}
		pr.phase = 1
	}
	for pr.phase == 1 {
		b, err := pr.scan.Next(pr.ctx)
		if errors.Is(err, io.EOF) {
			pr.scan = nil
			pr.phase = 2
			break
		}
		if err != nil {
			pr.err = err
			pr.phase = 3
			return false
		}
		rec, err := pr.decodeValues(b)
		if err != nil {
			pr.err = err
			pr.phase = 3
			return false
		}
		pr.ScanBatches++
		var want func(string, int) bool
		if len(pr.tail) > 0 {
			want = func(key string, _ int) bool {
				if _, hit := pr.tail[key]; hit {
					pr.Suppressed++
					return false
				}
				return true
			}
		}
		out, err := pr.keep(rec, want)
		if err != nil {
			pr.err = err
			pr.phase = 3
			return false
		}
		if out != nil {
			pr.cur = out
			return true
		}
	}
	for pr.phase == 2 {
		if pr.tailNext >= len(pr.tailRecs) {
			pr.phase = 3
			break
		}
		i := pr.tailNext
		pr.tailNext++
		rec := pr.tailRecs[i]
		pr.tailRecs[i] = nil
		out, err := pr.keep(rec, func(key string, row int) bool {
			e := pr.tail[key]
			return e.live && e.rec == i && e.row == row
		})
		if err != nil {
			pr.err = err
			pr.phase = 3
			return false
		}
		if out != nil {
			pr.cur = out
			return true
		}
	}
	return false
}

// open starts the scan, then reads the changelog from its log offset.
func (pr *PKReader) open() error {
	scan, err := pr.c.OpenKvScan(pr.ctx, pr.r.Bucket, 0)
	if err != nil {
		return err
	}
	pr.scan = scan
	pr.logOffset = scan.LogOffset()
	stop := pr.r.Stop
	if stop < 0 {
		if stop, err = pr.c.BucketOffset(pr.ctx, pr.r.Bucket, Latest()); err != nil {
			return err
		}
	}
	pr.stop = max(stop, pr.logOffset)
	if pr.stop == pr.logOffset {
		return nil
	}
	lr, err := pr.c.NewLogReader(pr.ctx, LogRange{Bucket: pr.r.Bucket, Start: pr.logOffset, Stop: pr.stop, Columns: pr.r.Columns, SchemaID: pr.r.SchemaID, ColumnIDs: pr.r.ColumnIDs, Format: pr.r.LogFormat}, pr.mem)
	if err != nil {
		return err
	}
	defer lr.Release()
	for lr.Next() {
		rec := lr.RecordBatch()
		cts := lr.ChangeTypes()
		idx := len(pr.tailRecs)
		rec.Retain()
		pr.tailRecs = append(pr.tailRecs, rec)
		for row := 0; row < int(rec.NumRows()); row++ {
			pr.TailRecords++
			switch cts[row] {
			case record.UpdateBefore:
				// The -U image is superseded by the +U that follows it.
			case record.Delete:
				pr.tail[keyOf(rec, pr.r.PrimaryKey, row)] = tailEntry{live: false}
			default: // +I, +U, +A
				pr.tail[keyOf(rec, pr.r.PrimaryKey, row)] = tailEntry{live: true, rec: idx, row: row}
			}
		}
	}
	if err := lr.Err(); err != nil {
		return fmt.Errorf("fluss: pk read of %s: changelog [%d, %d): %w", pr.r.Bucket, pr.logOffset, pr.stop, err)
	}
	return nil
}

// decodeValues turns one SCAN_KV value batch into a record of all columns.
func (pr *PKReader) decodeValues(b []byte) (arrow.RecordBatch, error) {
	vals, err := record.DecodeValueBatch(b)
	if err != nil {
		return nil, fmt.Errorf("fluss: pk read of %s: value batch: %w", pr.r.Bucket, err)
	}
	for i, v := range vals {
		if pr.r.SchemaID == 0 || int32(v.SchemaID) == pr.r.SchemaID {
			err = pr.rows.AppendRowBytes(v.Row)
		} else {
			var old *oldSchema
			if old, err = pr.schemaTypes(v.SchemaID); err == nil {
				var row []any
				if row, err = record.DecodeRow(v.Row, pr.r.KvFormat.RowFormat(), old.types); err == nil {
					err = pr.rows.AppendValues(remapValues(row, old.m))
				}
			}
		}
		if err != nil {
			pr.rows.Release()
			return nil, fmt.Errorf("fluss: pk read of %s: value %d (schema %d): %w", pr.r.Bucket, i, v.SchemaID, err)
		}
	}
	return pr.rows.NewRecordBatch(), nil
}

// oldSchema is an older schema's row types and its columns' places in the
// read's (columnMap).
type oldSchema struct {
	types []typemap.DataType
	m     []int
}

func (pr *PKReader) schemaTypes(id int16) (*oldSchema, error) {
	if o, ok := pr.oldTypes[id]; ok {
		return o, nil
	}
	s, err := pr.c.tableSchema(pr.ctx, pr.r.Bucket, id)
	if err != nil {
		return nil, err
	}
	m, err := columnMap(s.Columns, id, pr.r.Columns, pr.r.ColumnIDs, pr.r.SchemaID)
	if err != nil {
		return nil, err
	}
	o := &oldSchema{types: record.Types(s.TypeColumns()), m: m}
	pr.oldTypes[id] = o
	return o, nil
}

// keep returns the rows of rec for which want is true, projected, or nil
// when none; it consumes rec.
func (pr *PKReader) keep(rec arrow.RecordBatch, want func(key string, row int) bool) (arrow.RecordBatch, error) {
	defer rec.Release()
	n := int(rec.NumRows())
	if want == nil {
		return pr.project(rec, [][2]int64{{0, int64(n)}})
	}
	mask := make([]bool, n)
	for i := range mask {
		mask[i] = want(keyOf(rec, pr.r.PrimaryKey, i), i)
	}
	var runs [][2]int64
	for i := 0; i < n; {
		if !mask[i] {
			i++
			continue
		}
		j := i + 1
		for j < n && mask[j] {
			j++
		}
		runs = append(runs, [2]int64{int64(i), int64(j)})
		i = j
	}
	if len(runs) == 0 {
		return nil, nil
	}
	return pr.project(rec, runs)
}

// project returns the rows in runs of rec, projected; rec stays owned by the
// caller.
func (pr *PKReader) project(rec arrow.RecordBatch, runs [][2]int64) (arrow.RecordBatch, error) {
	if rec.NumRows() == 0 {
		return nil, nil
	}
	colIdx := pr.r.Projection
	if colIdx == nil {
		colIdx = make([]int, rec.NumCols())
		for i := range colIdx {
			colIdx[i] = i
		}
	}
	cols := make([]arrow.Array, len(colIdx))
	var rows int64
	for _, r := range runs {
		rows += r[1] - r[0]
	}
	for ci, c := range colIdx {
		src := rec.Column(c)
		if len(runs) == 1 {
			cols[ci] = array.NewSlice(src, runs[0][0], runs[0][1])
			continue
		}
		parts := make([]arrow.Array, len(runs))
		for k, r := range runs {
			parts[k] = array.NewSlice(src, r[0], r[1])
		}
		cat, err := array.Concatenate(parts, pr.mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			for _, c := range cols[:ci] {
				c.Release()
			}
			return nil, fmt.Errorf("fluss: pk read of %s: column %d: %w", pr.r.Bucket, c, err)
		}
		cols[ci] = cat
	}
	out := array.NewRecordBatch(pr.outSchema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// keyOf builds a merge key from the primary-key columns of one row: each
// value's text form, length-prefixed so that values cannot run together.
func keyOf(rec arrow.RecordBatch, pk []int, row int) string {
	var b []byte
	for _, c := range pk {
		s := rec.Column(c).ValueStr(row)
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return string(b)
}
