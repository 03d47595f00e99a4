package memlimit

import "github.com/apache/arrow-go/v18/arrow/memory"

// Charge counts n bytes of Go memory (map entries, index slices: memory
// arrow does not allocate) against mem when mem is a statement's account,
// as an allocation of n bytes would: on the strict account it panics with
// *Exceeded past the statement's or the process' limit (and counts
// nothing); on its Lenient view it counts and never refuses. On any other
// allocator it does nothing. Every Charge is matched by a Refund of the
// same bytes when the memory is let go; Close refunds what is left.
func Charge(mem memory.Allocator, n int64) {
	if n <= 0 {
		return
	}
	a, strict := account(mem)
	if a == nil {
		return
	}
	a.reserve(n, strict)
	a.charged.Add(n)
}

// Refund gives back n bytes charged with Charge (no more than are still
// charged: after Close, nothing).
func Refund(mem memory.Allocator, n int64) {
	if n <= 0 {
		return
	}
	a, _ := account(mem)
	if a == nil {
		return
	}
	for {
		c := a.charged.Load()
		m := min(c, n)
		if m <= 0 {
			return
		}
		if a.charged.CompareAndSwap(c, c-m) {
			a.reserve(-m, false)
			return
		}
	}
}

// Close ends the statement's account: charges not refunded (an operator
// that unwound without releasing) are given back, so the process account
// does not keep them. Buffers are Sweep's business.
func (a *Allocator) Close() {
	if n := a.charged.Swap(0); n > 0 {
		a.reserve(-n, false)
	}
}

func account(mem memory.Allocator) (*Allocator, bool) {
	switch m := mem.(type) {
	case *Allocator:
		return m, true
	case lenient:
		return m.a, false
	}
	return nil, false
}
