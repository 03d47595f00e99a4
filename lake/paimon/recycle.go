package paimon

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

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

// outPool recycles the fixed-width buffers of a raw Parquet read: those of
// the batches it returns (the consumer releases a batch, on any goroutine,
// possibly after the read has ended, and its value and validity buffers
// come back here) and those of columns decoded at full length only to be
// compacted. The next batch takes them instead of a fresh, zeroed,
// collector-tracked allocation per column per batch. A buffer is reused
// only at its exact allocated length, so every slice freed to mem is one
// mem allocated, with its length; reused memory is not zeroed, so only
// readers that write every byte they return use the pool (the page
// decoder and compactArray's gather clear validity bitmaps and fill every
// value slot themselves). It keeps at most outPoolKeep buffers and
// outPoolBytes bytes; once closed it passes every call through to mem.
type outPool struct {
	mem memory.Allocator

	mu     sync.Mutex
	free   [][]byte
	bytes  int
	closed bool
}

const (
	outPoolKeep  = 64
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
