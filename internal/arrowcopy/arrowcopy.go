package arrowcopy

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// AliasesValues reports whether arrays of type dt hand out values that
// point into their buffers (a string or []byte from Value): such values
// are kept by Go code past the batch's release, legitimately so with heap
// buffers, which the garbage collector keeps alive. Mapped buffers are
// unmapped at release, so these columns must be copied before they leave
// the mapping's owner; fixed-width values are returned by value.
func AliasesValues(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case arrow.BinaryDataType, *arrow.FixedSizeBinaryType, arrow.BinaryViewDataType:
		return true
	case *arrow.DictionaryType:
		return AliasesValues(t.ValueType)
	case arrow.ExtensionType:
		return AliasesValues(t.StorageType())
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if AliasesValues(f.Type) {
				return true
			}
		}
	}
	return false
}

// Column copies c to buffers from mem. A VARCHAR or VARBINARY column at
// offset 0 is copied buffer by buffer (validity, offsets, the value bytes
// up to the last offset) instead of by array.Concatenate, which rebuilds
// the offsets value by value (21 % of TPC-H Q19's CPU). Every buffer is
// copied: one left in a mapping would keep the whole mapped batch, and its
// memory charge, alive for as long as the copy lives. Other types, and
// slices, go through Concatenate.
func Column(mem memory.Allocator, c arrow.Array) (arrow.Array, error) {
	switch c.(type) {
	case *array.String, *array.Binary:
	default:
		return array.Concatenate([]arrow.Array{c}, mem)
	}
	d := c.Data()
	bufs := d.Buffers()
	if len(bufs) != 3 || bufs[1] == nil || len(d.Children()) != 0 || d.Len() == 0 {
		return array.Concatenate([]arrow.Array{c}, mem)
	}
	offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
	if len(offs) < d.Offset()+d.Len()+1 {
		return nil, fmt.Errorf("column of %d rows has %d offsets", d.Len(), len(offs))
	}
	if d.Offset() != 0 || offs[0] != 0 {
		// A slice: Concatenate copies just its part, rebased.
		return array.Concatenate([]arrow.Array{c}, mem)
	}
	end := int(offs[d.Len()])
	var src []byte
	if bufs[2] != nil {
		src = bufs[2].Bytes()
	}
	if end < 0 || end > len(src) {
		return nil, fmt.Errorf("column's values end at byte %d of %d", end, len(src))
	}
	var valid *memory.Buffer
	if bufs[0] != nil && d.NullN() > 0 {
		n := (d.Len() + 7) / 8
		if bufs[0].Len() < n {
			return nil, fmt.Errorf("column of %d rows has a validity bitmap of %d bytes", d.Len(), bufs[0].Len())
		}
		valid = copyBuf(mem, bufs[0].Bytes()[:n])
	}
	offb := copyBuf(mem, bufs[1].Bytes()[:(d.Len()+1)*4])
	vals := copyBuf(mem, src[:end])
	nd := array.NewData(d.DataType(), d.Len(), []*memory.Buffer{valid, offb, vals}, nil, d.NullN(), 0)
	for _, b := range []*memory.Buffer{valid, offb, vals} {
		if b != nil {
			b.Release()
		}
	}
	out := array.MakeFromData(nd)
	nd.Release()
	return out, nil
}

func copyBuf(mem memory.Allocator, b []byte) *memory.Buffer {
	nb := memory.NewResizableBuffer(mem)
	nb.Resize(len(b))
	copy(nb.Bytes(), b)
	return nb
}
