package dispatch

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// The in-flight window of a Flight read: batches decoded from a BE's
// stream that the consumer has not taken yet (in the channel, in a pump's
// hand, or held back for a re-run). Their bodies are gRPC's Go memory, not
// the statement allocator's, so they are charged to the statement's
// account (memlimit.Charge) while in the window; a batch the consumer
// takes keeps its charge until its buffers are released (handOver), one
// dropped is refunded at once. Batches of an in-process BE are
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

// handOver gives the consumer rec, which it may hold long after (a join's
// build side, a sort's input): when rec was charged in the window, the
// charge moves onto its buffers and is refunded when the last reference
// to each is released, instead of when it is taken. The returned batch
// replaces rec (which is released).
func (m *merged) handOver(rec arrow.RecordBatch) arrow.RecordBatch {
	m.winMu.Lock()
	_, ok := m.window[rec]
	delete(m.window, rec)
	m.winMu.Unlock()
	if !ok {
		return rec
	}
	refund := refundOnFree{m.mem}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := rechargeData(c.Data(), refund)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	rec.Release()
	return out
}

// rechargeData copies d's layout over buffers whose release refunds their
// bytes to the statement (the bytes stay where gRPC put them).
func rechargeData(d arrow.ArrayData, refund refundOnFree) arrow.ArrayData {
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if b != nil {
			bufs[i] = memory.NewBufferWithAllocator(b.Bytes(), refund)
		}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = rechargeData(c, refund)
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		dd := rechargeData(dict, refund)
		out.SetDictionary(dd)
		dd.Release()
	}
	return out
}

// refundOnFree is the allocator of handed-over buffers: it never
// allocates, and freeing a buffer refunds its bytes (a no-op once the
// statement's account is closed).
type refundOnFree struct{ mem memory.Allocator }

func (r refundOnFree) Allocate(int) []byte { panic("dispatch: refundOnFree does not allocate") }
func (r refundOnFree) Reallocate(int, []byte) []byte {
	panic("dispatch: refundOnFree does not allocate")
}
func (r refundOnFree) Free(b []byte) { memlimit.Refund(r.mem, int64(len(b))) }
