package memlimit

// ChargeExternal and RefundExternal are Charge and Refund as methods, for
// packages below exec that hand out buffers they did not allocate from the
// account (the internal catalog's batches pointing into mapped segment
// files) and find the account by an interface assertion, not an import:
// the bytes a statement holds that way count as a copy would have.
func (a *Allocator) ChargeExternal(n int64) { Charge(a, n) }

// RefundExternal gives back bytes charged with ChargeExternal.
func (a *Allocator) RefundExternal(n int64) { Refund(a, n) }

// ChargeExternal on the lenient view counts and never refuses.
func (l lenient) ChargeExternal(n int64) { Charge(l, n) }

// RefundExternal gives back bytes charged with ChargeExternal.
func (l lenient) RefundExternal(n int64) { Refund(l, n) }
