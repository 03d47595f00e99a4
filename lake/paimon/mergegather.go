package paimon

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// srcRow is one output row of a gathered merge: row of batch m.srcs[src].
type srcRow struct {
	src, row int32
}

// addSource registers a batch a cursor just loaded so output rows may
// point into it; it returns the batch's index (or -1 when the merge does
// not gather). Batches no pending row, group record or cursor refers to
// any more are dropped first when the list grows, so a long stretch of
// deleted or retracted rows cannot pile batches up.
func (m *mergeSource) addSource(rec arrow.RecordBatch) int32 {
	if !m.gather {
		return -1
	}
	if len(m.srcs) >= 2*len(m.all)+8 {
		m.pruneSources()
	}
	rec.Retain()
	m.srcs = append(m.srcs, rec)
	return int32(len(m.srcs) - 1)
}

func (m *mergeSource) pruneSources() {
	remap := make([]int32, len(m.srcs))
	for i := range remap {
		remap[i] = -1
	}
	for _, p := range m.pend {
		remap[p.src] = 0
	}
	for _, g := range m.group {
		remap[g.src] = 0
	}
	for _, c := range m.all {
		if c.rec != nil && c.src >= 0 {
			remap[c.src] = 0
		}
	}
	kept := m.srcs[:0]
	for i, r := range m.srcs {
		if remap[i] < 0 {
			r.Release()
			continue
		}
		remap[i] = int32(len(kept))
		kept = append(kept, r)
	}
	clear(m.srcs[len(kept):])
	m.srcs = kept
	for i := range m.pend {
		m.pend[i].src = remap[m.pend[i].src]
	}
	for i := range m.group {
		m.group[i].src = remap[m.group[i].src]
	}
	for _, c := range m.all {
		if c.rec != nil && c.src >= 0 {
			c.src = remap[c.src]
		}
	}
}

func (m *mergeSource) releaseSources() {
	for i, r := range m.srcs {
		r.Release()
		m.srcs[i] = nil
	}
	m.srcs = m.srcs[:0]
	m.pend = m.pend[:0]
}

// outRows is the number of rows waiting for the next batch.
func (m *mergeSource) outRows() int {
	if m.gather {
		return len(m.pend)
	}
	return m.bld.Field(0).Len()
}

// flush returns the pending rows as a batch. A gathering merge copies
// each column from the source batches in one typed pass, then keeps only
// the batches the cursors still stand on.
func (m *mergeSource) flush() (arrow.RecordBatch, error) {
	if !m.gather {
		return m.bld.NewRecordBatch(), nil
	}
	n := len(m.pend)
	cols := make([]arrow.Array, m.ncol)
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	arrs := make([]arrow.Array, len(m.srcs))
	for c := 0; c < m.ncol; c++ {
		for i, r := range m.srcs {
			arrs[i] = r.Column(c)
		}
		a, err := m.gatherColumn(c, arrs)
		if err != nil {
			release()
			return nil, fmt.Errorf("column %s: %w", m.outSchema.Field(c).Name, err)
		}
		cols[c] = a
	}
	rec := array.NewRecordBatch(m.outSchema, cols, int64(n))
	release()
	m.releaseSources()
	for _, c := range m.all {
		if c.rec != nil {
			c.src = m.addSource(c.rec)
		}
	}
	return rec, nil
}

// gatherColumn copies column c of the pending rows. Fixed-width and
// string/binary columns are built straight into new buffers; other types
// (nested, booleans) go through the column's builder.
func (m *mergeSource) gatherColumn(c int, arrs []arrow.Array) (arrow.Array, error) {
	dt := m.outSchema.Field(c).Type
	n := len(m.pend)
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		return m.gatherBytes(dt, arrs)
	}
	if fw, ok := dt.(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 && dt.ID() != arrow.BOOL {
		switch fw.BitWidth() {
		case 8:
			return gatherFixed[uint8](m.mem, dt, arrs, m.pend), nil
		case 16:
			return gatherFixed[uint16](m.mem, dt, arrs, m.pend), nil
		case 32:
			return gatherFixed[uint32](m.mem, dt, arrs, m.pend), nil
		case 64:
			return gatherFixed[uint64](m.mem, dt, arrs, m.pend), nil
		case 128:
			return gatherFixed[[2]uint64](m.mem, dt, arrs, m.pend), nil
		}
	}
	b := m.bld.Field(c)
	b.Reserve(n)
	for _, p := range m.pend {
		if err := appendValue(b, arrs[p.src], int(p.row)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// validityOf builds the output validity bitmap; nil when no row is NULL.
func validityOf(mem memory.Allocator, arrs []arrow.Array, pend []srcRow) (*memory.Buffer, int) {
	hasNulls := false
	for _, a := range arrs {
		if a.NullN() > 0 {
			hasNulls = true
			break
		}
	}
	if !hasNulls {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(pend)))))
	bm := buf.Bytes()
	clear(bm)
	nulls := 0
	for i, p := range pend {
		if arrs[p.src].IsValid(int(p.row)) {
			bitutil.SetBit(bm, i)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

func gatherFixed[T any](mem memory.Allocator, dt arrow.DataType, arrs []arrow.Array, pend []srcRow) arrow.Array {
	var z T
	w := int(unsafe.Sizeof(z))
	vals := make([][]T, len(arrs))
	for i, a := range arrs {
		d := a.Data()
		if b := d.Buffers()[1]; b != nil && b.Len() > 0 {
			all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b.Bytes()))), b.Len()/w)
			vals[i] = all[d.Offset():]
		}
	}
	n := len(pend)
	db := memory.NewResizableBuffer(mem)
	db.Resize(n * w)
	out := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(db.Bytes()))), n)
	vb, nulls := validityOf(mem, arrs, pend)
	for i, p := range pend {
		if v := vals[p.src]; int(p.row) < len(v) {
			out[i] = v[p.row]
		} else {
			out[i] = z
		}
	}
	d := array.NewData(dt, n, []*memory.Buffer{vb, db}, nil, nulls, 0)
	if vb != nil {
		vb.Release()
	}
	db.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// gatherBytes copies a String or Binary column: offsets first, then the
// bytes of each row with one copy each into a buffer sized once.
func (m *mergeSource) gatherBytes(dt arrow.DataType, arrs []arrow.Array) (arrow.Array, error) {
	type view struct {
		offs []int32
		data []byte
	}
	views := make([]view, len(arrs))
	for i, a := range arrs {
		var v view
		switch x := a.(type) {
		case *array.String:
			v.offs = x.ValueOffsets()
		case *array.Binary:
			v.offs = x.ValueOffsets()
		default:
			return nil, fmt.Errorf("%w: %s column holds %s", ErrCorrupt, dt, a.DataType())
		}
		if b := a.Data().Buffers()[2]; b != nil {
			v.data = b.Bytes()
		}
		views[i] = v
	}
	n := len(m.pend)
	ob := memory.NewResizableBuffer(m.mem)
	ob.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(ob.Bytes())
	var total int64
	offs[0] = 0
	for i, p := range m.pend {
		v := &views[p.src]
		total += int64(v.offs[p.row+1] - v.offs[p.row])
		if total > math.MaxInt32 {
			ob.Release()
			return nil, fmt.Errorf("%w: %d bytes of strings in one batch; use a smaller batch size", ErrUnsupported, total)
		}
		offs[i+1] = int32(total)
	}
	db := memory.NewResizableBuffer(m.mem)
	db.Resize(int(total))
	out := db.Bytes()
	pos := 0
	for _, p := range m.pend {
		v := &views[p.src]
		pos += copy(out[pos:], v.data[v.offs[p.row]:v.offs[p.row+1]])
	}
	vb, nulls := validityOf(m.mem, arrs, m.pend)
	d := array.NewData(dt, n, []*memory.Buffer{vb, ob, db}, nil, nulls, 0)
	if vb != nil {
		vb.Release()
	}
	ob.Release()
	db.Release()
	a := array.MakeFromData(d)
	d.Release()
	return a, nil
}
