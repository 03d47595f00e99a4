package paimon

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// keyView is one key (or sequence.field) column of a cursor's batch,
// unpacked once per batch so the merge compares cells through typed slices
// instead of type-switching arrow.Array per comparison. Types without a
// typed path fall back to compareArrow.
type keyView struct {
	kind  keyKind
	arr   arrow.Array
	valid []byte // validity bitmap (nil: no NULLs), indexed with off
	off   int
	i32   []int32 // kInt32, kDate32 (indexed from 0, the array's offset applied)
	i64   []int64 // kInt64, kTimestamp
	offs  []int32 // kBytes: absolute offsets into data, indexed from 0
	data  []byte
}

type keyKind uint8

const (
	kOther keyKind = iota
	kInt32
	kInt64
	kBytes
)

func makeKeyView(a arrow.Array) keyView {
	v := keyView{arr: a, off: a.Data().Offset()}
	if a.NullN() > 0 {
		if b := a.Data().Buffers()[0]; b != nil {
			v.valid = b.Bytes()
		}
	}
	switch x := a.(type) {
	case *array.Int32:
		v.kind, v.i32 = kInt32, x.Int32Values()
	case *array.Date32:
		v.kind, v.i32 = kInt32, arrow.Int32Traits.CastFromBytes(x.Data().Buffers()[1].Bytes())[v.off:]
	case *array.Int64:
		v.kind, v.i64 = kInt64, x.Int64Values()
	case *array.Timestamp:
		v.kind, v.i64 = kInt64, arrow.Int64Traits.CastFromBytes(x.Data().Buffers()[1].Bytes())[v.off:]
	case *array.String:
		v.kind, v.offs = kBytes, x.ValueOffsets()
		if b := x.Data().Buffers()[2]; b != nil {
			v.data = b.Bytes()
		}
	case *array.Binary:
		v.kind, v.offs = kBytes, x.ValueOffsets()
		if b := x.Data().Buffers()[2]; b != nil {
			v.data = b.Bytes()
		}
	}
	return v
}

func (v *keyView) isNull(i int) bool {
	return v.valid != nil && !bitutil.BitIsSet(v.valid, v.off+i)
}

// compareKey orders row i of a and row j of b, two views of the same
// column: NULL first, integers by value, strings and bytes as unsigned
// bytes (as compareArrow and Paimon's key comparator do).
func compareKey(a *keyView, i int, b *keyView, j int) int {
	if a.valid != nil || b.valid != nil {
		an, bn := a.isNull(i), b.isNull(j)
		switch {
		case an && bn:
			return 0
		case an:
			return -1
		case bn:
			return 1
		}
	}
	switch a.kind {
	case kInt64:
		x, y := a.i64[i], b.i64[j]
		return cmp3(x < y, x > y)
	case kInt32:
		x, y := a.i32[i], b.i32[j]
		return cmp3(x < y, x > y)
	case kBytes:
		return bytes.Compare(a.data[a.offs[i]:a.offs[i+1]], b.data[b.offs[j]:b.offs[j+1]])
	}
	return compareArrow(a.arr, i, b.arr, j)
}

// less orders two cursors by key, then sequence.field, then sequence
// number, then file order (later files win ties, as they were written
// later).
func (a *cursor) less(b *cursor) bool {
	for k := range a.keys {
		if c := compareKey(&a.keys[k], a.row, &b.keys[k], b.row); c != 0 {
			return c < 0
		}
	}
	for k := range a.useq {
		if c := compareKey(&a.useq[k], a.row, &b.useq[k], b.row); c != 0 {
			return (c < 0) != a.m.opts.sequenceDesc
		}
	}
	sa, sb := a.seqs[a.row], b.seqs[b.row]
	if sa != sb {
		return sa < sb
	}
	return a.idx < b.idx
}

// The cursor heap is a binary min-heap by less, kept by hand so the
// comparisons are direct calls rather than through heap.Interface.

func (h cursorHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			j = r
		}
		if !h[j].less(h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

func (h cursorHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// popTop removes the minimum.
func (h *cursorHeap) popTop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
}
