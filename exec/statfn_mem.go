package exec

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// Per-entry estimates of the Go memory a value-keeping aggregate holds,
// beyond the key's bytes: a float64 slot; a Go map entry (string header,
// hash, bucket overhead) for a set, and one with an int64 count.
const (
	valBytes      = 8
	setEntryBytes = 48
	cntEntryBytes = 56
)

// valMem counts a value-keeping accumulator's per-value state against the
// statement's account (setMem, called by the operator); the operator's
// fixed per-group charge does not cover it. charge panics with memlimit's
// *Exceeded past the limit, like an allocation, before the state grows;
// release refunds everything charged.
type valMem struct {
	mem     memory.Allocator
	charged int64
}

func (m *valMem) setMem(mem memory.Allocator) { m.mem = mem }

func (m *valMem) charge(n int64) {
	if m.mem == nil || n <= 0 {
		return
	}
	memlimit.Charge(m.mem, n)
	m.charged += n
}

func (m *valMem) release() {
	if m.mem != nil {
		memlimit.Refund(m.mem, m.charged)
	}
	m.charged = 0
}
