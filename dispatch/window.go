package dispatch

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// The in-flight window of a Flight read: batches decoded from a BE's
// stream that the consumer has not taken yet (in the channel, in a pump's
// hand, or held back for a re-run). Their bodies are gRPC's Go memory, not
// the statement allocator's, so they are charged to the statement's
// account (memlimit.Charge) while in the window and refunded when the
// consumer takes them or they are dropped. Batches of an in-process BE are
// already counted by the allocator they were built with and are not
// charged.

// charge counts rec against the statement while it is in the window.
func (m *merged) charge(rec arrow.RecordBatch) {
	n := memlimit.BatchBytes(rec)
	memlimit.Charge(m.mem, n)
	m.winMu.Lock()
	if m.window == nil {
		m.window = map[arrow.RecordBatch]int64{}
	}
	m.window[rec] = n
	m.winMu.Unlock()
}

// uncharge refunds rec if it was charged; it is a no-op otherwise.
func (m *merged) uncharge(rec arrow.RecordBatch) {
	m.winMu.Lock()
	n, ok := m.window[rec]
	delete(m.window, rec)
	m.winMu.Unlock()
	if ok {
		memlimit.Refund(m.mem, n)
	}
}

// unchargeAll refunds whatever is still charged (the stream is over).
func (m *merged) unchargeAll() {
	m.winMu.Lock()
	w := m.window
	m.window = nil
	m.winMu.Unlock()
	for _, n := range w {
		memlimit.Refund(m.mem, n)
	}
}
