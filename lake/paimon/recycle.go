package paimon

import "github.com/apache/arrow-go/v18/arrow/memory"

// recycler is a small pool in front of a scan's allocator for the arrays a
// late-materialised read decodes at full batch length and drops as soon
// as it has compacted them: the next batch reuses their memory instead of
// allocating (and the collector reclaiming) a batch-sized buffer per
// column. Buffers are reused only at their exact allocated length, so
// every slice the pool ever frees to mem is one mem allocated, with its
// length. Reused memory is not zeroed: the decoder writes every row of a
// value buffer and clears its validity bitmaps itself.
type recycler struct {
	mem  memory.Allocator
	free [][]byte
}

const recycleKeep = 8

func (r *recycler) Allocate(n int) []byte {
	for i, b := range r.free {
		if len(b) == n {
			last := len(r.free) - 1
			r.free[i] = r.free[last]
			r.free[last] = nil
			r.free = r.free[:last]
			return b
		}
	}
	return r.mem.Allocate(n)
}

func (r *recycler) Reallocate(n int, b []byte) []byte {
	nb := r.Allocate(n)
	copy(nb, b)
	r.Free(b)
	return nb
}

func (r *recycler) Free(b []byte) {
	if len(r.free) < recycleKeep {
		r.free = append(r.free, b)
		return
	}
	r.mem.Free(b)
}

// release gives every pooled buffer back to mem.
func (r *recycler) release() {
	for _, b := range r.free {
		r.mem.Free(b)
	}
	r.free = nil
}
