package unionread

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
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
	keep []bool
	runs []int
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
	keep := slices.Grow(s.keep[:0], n)[:n]
	s.keep = keep
	dropped := 0
	if w := s.enc.Stride(); w > 0 {
		// Fixed-width keys: encode the batch column by column, then probe.
		s.buf = s.enc.AppendAll(s.buf[:0], n)
		dropped = s.set.Absent(s.buf, w, keep)
	} else {
		for i := range keep {
			s.buf = s.enc.Append(s.buf[:0], i)
			hit := s.set.Contains(s.buf)
			keep[i] = !hit
			if hit {
				dropped++
			}
		}
	}
	if dropped == 0 {
		rec.Retain()
		return rec, 0, nil
	}
	if dropped == n {
		return rec.NewSlice(0, 0), dropped, nil
	}
	s.runs = runs(s.runs, keep)
	out, err := selectRuns(ctx, rec, keep, s.runs, n-dropped, s.mem)
	if err != nil {
		return nil, 0, err
	}
	return out, dropped, nil
}

// Release frees the step's buffers.
func (s *Suppressor) Release() {
	s.buf, s.keep, s.runs = nil, nil, nil
}
