package unionread

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Suppressor is the per-batch step of a LAKE_SUPPRESS split: it drops the
// lake rows whose key is in the bucket's tail key set. It belongs to one
// goroutine; the set may be shared with other suppressors read-only.
type Suppressor struct {
	set  *KeySet
	enc  *KeyEncoder
	mem  memory.Allocator
	buf  []byte
	mask *array.BooleanBuilder
}

// NewSuppressor filters batches whose key columns sit at keyCols (cast to
// the same types the tail keys were encoded from) against set.
func NewSuppressor(set *KeySet, keyCols []int, mem memory.Allocator) *Suppressor {
	return &Suppressor{set: set, enc: NewKeyEncoder(keyCols), mem: mem}
}

// Apply returns rec without its suppressed rows and how many were dropped.
// The result is a new reference (rec itself when nothing was dropped) that
// the caller releases; it may have zero rows.
func (s *Suppressor) Apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, int, error) {
	n := int(rec.NumRows())
	if s.set.Len() == 0 || n == 0 {
		rec.Retain()
		return rec, 0, nil
	}
	if err := s.enc.Bind(rec); err != nil {
		return nil, 0, err
	}
	if s.mask == nil {
		s.mask = array.NewBooleanBuilder(s.mem)
	}
	keep := make([]bool, n)
	dropped := 0
	for i := 0; i < n; i++ {
		s.buf = s.enc.Append(s.buf[:0], i)
		keep[i] = !s.set.Contains(s.buf)
		if !keep[i] {
			dropped++
		}
	}
	if dropped == 0 {
		rec.Retain()
		return rec, 0, nil
	}
	s.mask.AppendValues(keep, nil)
	m := s.mask.NewBooleanArray()
	defer m.Release()
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, s.mem), rec, m, compute.DefaultFilterOptions())
	if err != nil {
		return nil, 0, err
	}
	return out, dropped, nil
}

// Release frees the step's buffers.
func (s *Suppressor) Release() {
	if s.mask != nil {
		s.mask.Release()
		s.mask = nil
	}
}
