package paimon

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

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

// poisonReused (tests only) fills every reused buffer with 0xAB, so a
// reader relying on bytes it did not write reads garbage and a test
// comparing against pqarrow fails.
var poisonReused bool

// reusedBuffers counts buffers handed out again (tests check reuse
// happens).
var reusedBuffers atomic.Int64

func poison(b []byte) []byte {
	reusedBuffers.Add(1)
	if poisonReused {
		for i := range b {
			b[i] = 0xAB
		}
	}
	return b
}

func (r *recycler) Allocate(n int) []byte {
	for i, b := range r.free {
		if len(b) == n {
			last := len(r.free) - 1
			r.free[i] = r.free[last]
			r.free[last] = nil
			r.free = r.free[:last]
			return poison(b)
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

// outPool recycles the buffers of the batches a raw Parquet read returns:
// the consumer releases a batch (on any goroutine, possibly after the read
// has ended), its value and validity buffers come back here, and the next
// batch of the scan takes them instead of a fresh, zeroed, collector-
// tracked allocation per column per batch. Like recycler, it reuses a
// buffer only at its exact length and only for readers that write every
// byte they return (the page decoder and compactArray's gather clear
// validity bitmaps and fill every value slot themselves). It keeps at most
// outPoolKeep buffers and outPoolBytes bytes; once closed it passes every
// call through to mem.
type outPool struct {
	mem memory.Allocator

	mu     sync.Mutex
	free   [][]byte
	bytes  int
	closed bool
}

const (
	outPoolKeep  = 32
	outPoolBytes = 16 << 20
)

func (p *outPool) Allocate(n int) []byte {
	p.mu.Lock()
	for i := len(p.free) - 1; i >= 0; i-- {
		if b := p.free[i]; len(b) == n {
			last := len(p.free) - 1
			p.free[i] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			p.bytes -= n
			p.mu.Unlock()
			return poison(b)
		}
	}
	p.mu.Unlock()
	return p.mem.Allocate(n)
}

func (p *outPool) Reallocate(n int, b []byte) []byte {
	nb := p.Allocate(n)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *outPool) Free(b []byte) {
	p.mu.Lock()
	if !p.closed && len(p.free) < outPoolKeep && p.bytes+len(b) <= outPoolBytes {
		p.free = append(p.free, b)
		p.bytes += len(b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.mem.Free(b)
}

// close gives the pooled buffers back to mem; buffers of batches still
// alive go straight to mem when they are released.
func (p *outPool) close() {
	p.mu.Lock()
	free := p.free
	p.free, p.bytes, p.closed = nil, 0, true
	p.mu.Unlock()
	for _, b := range free {
		p.mem.Free(b)
	}
}
