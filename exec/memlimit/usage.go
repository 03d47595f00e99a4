package memlimit

import "github.com/apache/arrow-go/v18/arrow/memory"

// Usage reports what the statement account behind mem (itself or its
// Lenient view) holds and may hold; ok is false for any other allocator.
// Operators that can spill to disk compare the two to decide when to.
func Usage(mem memory.Allocator) (used, limit int64, ok bool) {
	a, _ := account(mem)
	if a == nil {
		return 0, 0, false
	}
	return a.used.Load(), a.limit, true
}
