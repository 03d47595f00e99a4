// Package memlimit is the per-statement memory account (Doris
// exec_mem_limit): an arrow memory.Allocator that counts the bytes a
// statement holds and refuses an allocation that would take it past the
// limit.
//
// Arrow allocators cannot return errors, so a refused allocation panics with
// *Exceeded. What must stay true:
//   - Every goroutine that allocates from a limited Allocator recovers that
//     panic (Recover, or Guard around a function) and turns it into an error
//     of kind ErrExceeded; any other panic is re-raised untouched. A missed
//     goroutine takes the whole process down.
//   - Lenient gives a view that counts but never refuses, for code this
//     statement does not control (an in-process BE's own goroutines): their
//     bytes still count against the statement, which then fails at its next
//     strict allocation.
//   - After a statement failed with ErrExceeded, the buffers that were being
//     built when the panic unwound are never freed by their owners; Sweep
//     returns them to the parent allocator so its count ends where it began.
//     Sweep is only for that case: it must not run while any array of the
//     statement is still in use.
//
// Concurrency: an Allocator is safe for concurrent use.
package memlimit
