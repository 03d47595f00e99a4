package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeRows is a[rows] (every row number valid and in range): a typed copy
// loop for fixed-width columns (integers, floats, dates, decimals) and
// strings with 32-bit offsets, which a filter or a join copies on every
// batch; arrow's generic Take serves the other types. idx holds rows as
// an array for that fallback (nil: made when needed).
func takeRows(kctx context.Context, mem memory.Allocator, a arrow.Array, rows []int64, idx arrow.Array) (arrow.Array, error) {
	// As Take does: a cancelled statement stops at the next column, not
	// after copying every column of a large batch (a cross join's pairs).
	if err := kctx.Err(); err != nil {
		return nil, err
	}
	if out := gatherFast(mem, a, rows); out != nil {
		return out, nil
	}
	if idx == nil {
		ib := array.NewInt64Builder(mem)
		ib.AppendValues(rows, nil)
		idx = ib.NewArray()
		ib.Release()
		defer idx.Release()
	}
	return compute.TakeArray(kctx, a, idx)
}

// gatherable says whether gatherFast copies columns of type t.
func gatherable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32, arrow.INT64, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64,
		arrow.DURATION, arrow.DECIMAL128, arrow.STRING, arrow.BINARY:
		return true
	}
	return false
}

// gatherFast is takeRows' typed copy; nil when a's type is not one it
// takes.
func gatherFast(mem memory.Allocator, a arrow.Array, rows []int64) arrow.Array {
	d := a.Data()
	n := len(rows)
	off := int64(d.Offset())
	var bufs []*memory.Buffer
	switch a.DataType().ID() {
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32, arrow.INT64, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64,
		arrow.DURATION, arrow.DECIMAL128:
		w := a.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
		src := d.Buffers()[1].Bytes()
		vb := memory.NewResizableBuffer(mem)
		vb.Resize(n * w)
		dst := vb.Bytes()
		switch w {
		case 4:
			s, t := arrow.Int32Traits.CastFromBytes(src), arrow.Int32Traits.CastFromBytes(dst)
			for i, r := range rows {
				t[i] = s[off+r]
			}
		case 8:
			s, t := arrow.Int64Traits.CastFromBytes(src), arrow.Int64Traits.CastFromBytes(dst)
			for i, r := range rows {
				t[i] = s[off+r]
			}
		case 16:
			s, t := arrow.Decimal128Traits.CastFromBytes(src), arrow.Decimal128Traits.CastFromBytes(dst)
			for i, r := range rows {
				t[i] = s[off+r]
			}
		default:
			for i, r := range rows {
				p := int(off+r) * w
				copy(dst[i*w:(i+1)*w], src[p:p+w])
			}
		}
		bufs = []*memory.Buffer{nil, vb}
	case arrow.STRING, arrow.BINARY:
		offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
		var data []byte
		if b := d.Buffers()[2]; b != nil {
			data = b.Bytes()
		}
		total := 0
		for _, r := range rows {
			total += int(offs[off+r+1] - offs[off+r])
		}
		ob := memory.NewResizableBuffer(mem)
		ob.Resize((n + 1) * 4)
		db := memory.NewResizableBuffer(mem)
		db.Resize(total)
		to, tb := arrow.Int32Traits.CastFromBytes(ob.Bytes()), db.Bytes()
		pos := int32(0)
		for i, r := range rows {
			to[i] = pos
			from, end := offs[off+r], offs[off+r+1]
			pos += int32(copy(tb[pos:], data[from:end]))
		}
		to[n] = pos
		bufs = []*memory.Buffer{nil, ob, db}
	default:
		return nil
	}
	nulls := 0
	if a.NullN() > 0 {
		src := d.Buffers()[0].Bytes()
		nb := memory.NewResizableBuffer(mem)
		nb.Resize(int(bitutil.BytesForBits(int64(n))))
		bm := nb.Bytes()
		clear(bm)
		for i, r := range rows {
			if bitutil.BitIsSet(src, int(off+r)) {
				bitutil.SetBit(bm, i)
			} else {
				nulls++
			}
		}
		bufs[0] = nb
	}
	out := array.NewData(a.DataType(), n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer out.Release()
	return array.MakeFromData(out)
}
