package local

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	flatbuffers "github.com/google/flatbuffers/go"
)

// colPick is the columns of a table's stored batches that a reader needs:
// the scan's projection plus what the scan itself evaluates (UNIQUE KEY
// columns for the merge, DELETE predicate columns). A mapped batch is
// decoded for those columns only: building arrays for the columns nobody
// reads (lineitem's comments for TPC-H Q6) was a tenth of such a query's
// CPU, and touching their offsets faults in pages of the mapping.
//
// Batches a reader returns hold the picked columns in table order; at
// maps a table column index to its position there. A nil *colPick picks
// every column.
type colPick struct {
	cols   []int // table column indexes, ascending
	at     []int // table column index → batch column, -1 when not picked
	schema *arrow.Schema
	// flat: every column of the table has a layout decodeFlat knows, so
	// the stored batch can be decoded column by column; otherwise arrow's
	// reader decodes it whole and pick projects it.
	flat bool
	// buf is, per table column, the index of its first buffer in a record
	// batch message (a flat column has one field node: its own index);
	// nbuf the message's buffers.
	buf  []int
	nbuf int
}

// newColPick picks the columns marked in need (indexed as full's fields);
// nil when that is all of them.
func newColPick(full *arrow.Schema, need []bool) *colPick {
	p := &colPick{at: make([]int, full.NumFields()), flat: true}
	var fs []arrow.Field
	nb := 0
	for i, f := range full.Fields() {
		p.at[i] = -1
		if need[i] {
			p.at[i] = len(p.cols)
			p.cols = append(p.cols, i)
			fs = append(fs, f)
		}
		bufs, _ := flatLayout(f.Type)
		if bufs == 0 {
			p.flat = false
		}
		p.buf = append(p.buf, nb)
		nb += bufs
	}
	p.nbuf = nb
	if len(p.cols) == full.NumFields() {
		return nil
	}
	md := full.Metadata()
	p.schema = arrow.NewSchema(fs, &md)
	return p
}

// pickOf is newColPick over a list of table column indexes.
func pickOf(full *arrow.Schema, cols ...[]int) *colPick {
	need := make([]bool, full.NumFields())
	for _, cs := range cols {
		for _, c := range cs {
			need[c] = true
		}
	}
	return newColPick(full, need)
}

// index is the batch position of table column c (c itself for nil p).
func (p *colPick) index(c int) int {
	if p == nil {
		return c
	}
	return p.at[c]
}

// remap returns k with its columns as positions in p's batches.
func (k keyCoder) remap(p *colPick) keyCoder {
	if p == nil {
		return k
	}
	r := keyCoder{buckets: k.buckets, cols: make([]int, len(k.cols))}
	for i, c := range k.cols {
		r.cols[i] = p.at[c]
	}
	return r
}

// project returns the picked columns of a whole-table batch; it consumes
// rec.
func (p *colPick) project(rec arrow.RecordBatch) arrow.RecordBatch {
	if p == nil {
		return rec
	}
	cols := make([]arrow.Array, len(p.cols))
	for i, c := range p.cols {
		cols[i] = rec.Column(c)
	}
	out := array.NewRecordBatch(p.schema, cols, rec.NumRows())
	rec.Release()
	return out
}

// flatLayout is the number of IPC buffers of one column of type dt and the
// width in bytes of its offsets (0: fixed width); 0 buffers: a layout
// decodeFlat leaves to arrow (nested, dictionary, view, null types).
func flatLayout(dt arrow.DataType) (bufs, offsetWidth int) {
	switch dt.ID() {
	case arrow.BOOL, arrow.UINT8, arrow.INT8, arrow.UINT16, arrow.INT16, arrow.UINT32, arrow.INT32,
		arrow.UINT64, arrow.INT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO,
		arrow.FIXED_SIZE_BINARY:
		if _, ok := dt.(arrow.FixedWidthDataType); !ok {
			return 0, 0
		}
		return 2, 0
	case arrow.STRING, arrow.BINARY:
		return 3, 4
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return 3, 8
	}
	return 0, 0
}

// Slots of the Arrow IPC flatbuffer tables read here (Message.fbs).
const (
	fbMessageHeaderType = 6
	fbMessageHeader     = 8
	fbBatchLength       = 4
	fbBatchNodes        = 6
	fbBatchBuffers      = 8
	fbBatchCompression  = 10
	fbHeaderRecordBatch = 3
	fbStructSize        = 16 // FieldNode and Buffer: two int64s
)

var errNotRecordBatch = errors.New("IPC message is not a record batch")

// decodeFlat builds the picked columns of one record batch message (meta,
// its flatbuffer; body, its body) from slices of body: no copy. Every
// buffer's place is checked against the body and its size against the
// column's length. Metadata the checks do not cover (a damaged flatbuffer
// pointer) is caught as a panic and reported as an error, as arrow's
// reader does.
func (p *colPick) decodeFlat(meta []byte, body *memory.Buffer) (rec arrow.RecordBatch, err error) {
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, fmt.Errorf("damaged record batch metadata: %v", r)
		}
	}()
	if len(meta) < 4 {
		return nil, errors.New("record batch metadata too short")
	}
	var msg flatbuffers.Table
	msg.Bytes, msg.Pos = meta, flatbuffers.GetUOffsetT(meta)
	if msg.GetByteSlot(fbMessageHeaderType, 0) != fbHeaderRecordBatch {
		return nil, errNotRecordBatch
	}
	o := flatbuffers.UOffsetT(msg.Offset(fbMessageHeader))
	if o == 0 {
		return nil, errNotRecordBatch
	}
	var rb flatbuffers.Table
	msg.Union(&rb, o)
	if rb.Offset(fbBatchCompression) != 0 {
		return nil, errors.New("compressed record batch (this build writes none)")
	}
	rows := rb.GetInt64Slot(fbBatchLength, 0)
	var nodes, bufs flatbuffers.UOffsetT
	var nNodes, nBufs int
	if o := flatbuffers.UOffsetT(rb.Offset(fbBatchNodes)); o != 0 {
		nodes, nNodes = rb.Vector(o), rb.VectorLen(o)
	}
	if o := flatbuffers.UOffsetT(rb.Offset(fbBatchBuffers)); o != 0 {
		bufs, nBufs = rb.Vector(o), rb.VectorLen(o)
	}
	if nf := len(p.at); nNodes != nf {
		return nil, fmt.Errorf("record batch has %d field nodes, the table %d columns", nNodes, nf)
	}
	if nBufs != p.nbuf {
		return nil, fmt.Errorf("record batch has %d buffers, the table's columns %d", nBufs, p.nbuf)
	}
	if rows < 0 {
		return nil, fmt.Errorf("record batch length %d", rows)
	}
	bl := int64(body.Len())
	buffer := func(i int, min int64) (*memory.Buffer, error) {
		at := bufs + flatbuffers.UOffsetT(i*fbStructSize)
		off, n := rb.GetInt64(at), rb.GetInt64(at+8)
		if off < 0 || n < 0 || off > bl || n > bl-off {
			return nil, fmt.Errorf("buffer %d (offset %d, %d bytes) outside the body's %d bytes", i, off, n, bl)
		}
		if n < min {
			return nil, fmt.Errorf("buffer %d has %d bytes, its column needs %d", i, n, min)
		}
		if n == 0 {
			return memory.NewBufferBytes(nil), nil
		}
		return memory.SliceBuffer(body, int(off), int(n)), nil
	}
	cols := make([]arrow.Array, 0, len(p.cols))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for k, c := range p.cols {
		f := p.schema.Field(k)
		at := nodes + flatbuffers.UOffsetT(c*fbStructSize)
		n, nulls := rb.GetInt64(at), rb.GetInt64(at+8)
		if n != rows || nulls < 0 || nulls > n {
			return nil, fmt.Errorf("column %s: %d rows, %d nulls in a batch of %d", f.Name, n, nulls, rows)
		}
		nb, ow := flatLayout(f.Type)
		bs := make([]*memory.Buffer, nb)
		release := func() {
			for _, b := range bs {
				if b != nil {
					b.Release()
				}
			}
		}
		if nulls > 0 {
			if bs[0], err = buffer(p.buf[c], bitutil.BytesForBits(n)); err != nil {
				release()
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
		}
		if ow == 0 {
			bw := int64(f.Type.(arrow.FixedWidthDataType).BitWidth())
			if bs[1], err = buffer(p.buf[c]+1, bitutil.BytesForBits(n*bw)); err != nil {
				release()
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
		} else {
			var need int64
			if n > 0 {
				need = (n + 1) * int64(ow)
			}
			if bs[1], err = buffer(p.buf[c]+1, need); err != nil {
				release()
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
			if bs[2], err = buffer(p.buf[c]+2, 0); err != nil {
				release()
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
			if n > 0 {
				first, end := offsetAt(bs[1].Bytes(), 0, ow), offsetAt(bs[1].Bytes(), n, ow)
				if first < 0 || end < first || end > int64(bs[2].Len()) {
					release()
					return nil, fmt.Errorf("column %s: offsets %d..%d outside its %d data bytes", f.Name, first, end, bs[2].Len())
				}
			}
		}
		d := array.NewData(f.Type, int(n), bs, nil, int(nulls), 0)
		release()
		cols = append(cols, array.MakeFromData(d))
		d.Release()
	}
	return array.NewRecordBatch(p.schema, cols, rows), nil
}

func offsetAt(b []byte, i int64, w int) int64 {
	if w == 4 {
		return int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
	}
	return int64(binary.LittleEndian.Uint64(b[i*8:]))
}
