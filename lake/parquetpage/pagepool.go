package parquetpage

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pagePool recycles the buffers of pages whose values batches alias
// (zero-copy PLAIN reads): the last batch of a page released, on any
// goroutine, hands the page's buffer back here, and the next page of
// that size takes it instead of a fresh, zeroed allocation. It keeps at
// most pagePoolKeep buffers, reused only at their exact length, so every
// slice freed to mem is one mem allocated. Once closed (the reader
// released) it passes every free through to mem: batches may outlive
// their reader.
type pagePool struct {
	mem memory.Allocator

	mu     sync.Mutex
	free   [][]byte
	closed bool
}

const pagePoolKeep = 2

func (p *pagePool) Allocate(n int) []byte {
	p.mu.Lock()
	for i, b := range p.free {
		if len(b) == n {
			last := len(p.free) - 1
			p.free[i] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			p.mu.Unlock()
			return b
		}
	}
	p.mu.Unlock()
	return p.mem.Allocate(n)
}

func (p *pagePool) Reallocate(n int, b []byte) []byte {
	nb := p.Allocate(n)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *pagePool) Free(b []byte) {
	p.mu.Lock()
	if !p.closed && len(p.free) < pagePoolKeep {
		p.free = append(p.free, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.mem.Free(b)
}

func (p *pagePool) close() {
	p.mu.Lock()
	free := p.free
	p.free, p.closed = nil, true
	p.mu.Unlock()
	for _, b := range free {
		p.mem.Free(b)
	}
}
