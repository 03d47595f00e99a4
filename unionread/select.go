package unionread

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// runs lists the kept rows of keep as [start, end) pairs.
func runs(dst []int, keep []bool) []int {
	dst = dst[:0]
	for i := 0; i < len(keep); {
		if !keep[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(keep) && keep[j] {
			j++
		}
		dst = append(dst, i, j)
		i = j
	}
	return dst
}

// selectRuns returns a new batch of rec's rows in the kept runs (pairs of
// [start, end), kept rows in all), each column copied run by run with bulk
// copies: suppression drops few, scattered rows, so the kept rows come in
// long runs and a per-value kernel (builder appends for strings) would be
// the slow way. Column types without a plain layout go through the compute
// filter kernel.
func selectRuns(ctx context.Context, rec arrow.RecordBatch, keep []bool, rs []int, kept int, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var mask arrow.Array
	defer func() {
		if mask != nil {
			mask.Release()
		}
	}()
	for i, a := range rec.Columns() {
		if c := copyRuns(a, rs, kept, mem); c != nil {
			cols[i] = c
			continue
		}
		if mask == nil {
			b := array.NewBooleanBuilder(mem)
			b.AppendValues(keep, nil)
			mask = b.NewArray()
			b.Release()
		}
		c, err := compute.FilterArray(compute.WithAllocator(ctx, mem), a, mask, *compute.DefaultFilterOptions())
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(kept)), nil
}

// copyRuns copies the runs of a into a new array, or returns nil for a
// layout it does not handle.
func copyRuns(a arrow.Array, rs []int, kept int, mem memory.Allocator) arrow.Array {
	d := a.Data() // the type switch below admits only layouts without children or a dictionary
	off := d.Offset()
	bufs := d.Buffers()
	var valid *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		if len(bufs) == 0 || bufs[0] == nil {
			return nil
		}
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(kept))))
		src, dst, pos := bufs[0].Bytes(), valid.Bytes(), 0
		for r := 0; r < len(rs); r += 2 {
			bitutil.CopyBitmap(src, off+rs[r], rs[r+1]-rs[r], dst, pos)
			pos += rs[r+1] - rs[r]
		}
		nulls = kept - bitutil.CountSetBits(dst, 0, kept)
	}
	release := func(bs ...*memory.Buffer) {
		for _, b := range bs {
			if b != nil {
				b.Release()
			}
		}
	}
	var out []*memory.Buffer
	switch dt := a.DataType(); dt.ID() {
	case arrow.BOOL:
		if len(bufs) != 2 {
			release(valid)
			return nil
		}
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(int(bitutil.BytesForBits(int64(kept))))
		src, dst, pos := bufs[1].Bytes(), vals.Bytes(), 0
		for r := 0; r < len(rs); r += 2 {
			bitutil.CopyBitmap(src, off+rs[r], rs[r+1]-rs[r], dst, pos)
			pos += rs[r+1] - rs[r]
		}
		out = []*memory.Buffer{valid, vals}
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64,
		arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256, arrow.FIXED_SIZE_BINARY,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth()%8 != 0 || len(bufs) != 2 || bufs[1] == nil {
			release(valid)
			return nil
		}
		w := fw.BitWidth() / 8
		vals := memory.NewResizableBuffer(mem)
		vals.Resize(kept * w)
		src, dst, pos := bufs[1].Bytes(), vals.Bytes(), 0
		for r := 0; r < len(rs); r += 2 {
			pos += copy(dst[pos:], src[(off+rs[r])*w:(off+rs[r+1])*w])
		}
		out = []*memory.Buffer{valid, vals}
	case arrow.STRING, arrow.BINARY:
		if len(bufs) != 3 {
			release(valid)
			return nil
		}
		out = copyVarRuns(bufs, off, rs, kept, valid, mem, arrow.Int32Traits.CastFromBytes, 4)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		if len(bufs) != 3 {
			release(valid)
			return nil
		}
		out = copyVarRuns(bufs, off, rs, kept, valid, mem, arrow.Int64Traits.CastFromBytes, 8)
	default:
		release(valid)
		return nil
	}
	nd := array.NewData(a.DataType(), kept, out, nil, nulls, 0)
	release(out...)
	defer nd.Release()
	return array.MakeFromData(nd)
}

// copyVarRuns copies the runs of a variable-width (offsets + data) column
// with offsets of type O.
func copyVarRuns[O int32 | int64](bufs []*memory.Buffer, off int, rs []int, kept int, valid *memory.Buffer, mem memory.Allocator,
	cast func([]byte) []O, width int) []*memory.Buffer {
	srcOffs := cast(bufs[1].Bytes())
	var srcData []byte
	if bufs[2] != nil {
		srcData = bufs[2].Bytes()
	}
	size := O(0)
	for r := 0; r < len(rs); r += 2 {
		size += srcOffs[off+rs[r+1]] - srcOffs[off+rs[r]]
	}
	offs := memory.NewResizableBuffer(mem)
	offs.Resize((kept + 1) * width)
	data := memory.NewResizableBuffer(mem)
	data.Resize(int(size))
	dstOffs, dstData := cast(offs.Bytes())[:kept+1], data.Bytes()
	j, pos := 0, O(0)
	dstOffs[0] = 0
	for r := 0; r < len(rs); r += 2 {
		s, e := off+rs[r], off+rs[r+1]
		base := srcOffs[s]
		copy(dstData[pos:], srcData[base:srcOffs[e]])
		delta := pos - base
		for _, o := range srcOffs[s+1 : e+1] {
			j++
			dstOffs[j] = o + delta
		}
		pos += srcOffs[e] - base
	}
	return []*memory.Buffer{valid, offs, data}
}
