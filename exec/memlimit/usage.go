package memlimit

import "github.com/apache/arrow-go/v18/arrow/memory"

// Usage reports what the statement account behind mem (itself or its
// Lenient view) holds and may hold; ok is false for any other allocator.
// Operators that can spill to disk compare the two to decide when to.
// Over a Process, limit is the smaller of the statement's own and what it
// holds plus what the process has left, so statements spill before
// together they pass --mem-limit.
func Usage(mem memory.Allocator) (used, limit int64, ok bool) {
	a, _ := account(mem)
	if a == nil {
		return 0, 0, false
	}
	used, limit = a.used.Load(), a.limit
	if a.proc != nil {
		if left := a.proc.limit.Load() - a.proc.used.Load(); left < limit-used {
			limit = used + max(left, 0)
		}
	}
	return used, limit, true
}
