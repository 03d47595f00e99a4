// Package memlimit is the per-statement memory account (Doris
// exec_mem_limit): an arrow memory.Allocator that counts the bytes a
// statement holds and refuses an allocation that would take it past the
// limit.
//
// Arrow allocators cannot return errors, so a refused allocation panics with
// *Exceeded. What must stay true:
//
//   - Every goroutine that allocates from a limited Allocator recovers that
//     panic (Recover, or Guard around a function) and turns it into an error
//     of kind ErrExceeded; any other panic is re-raised untouched. A missed
//     goroutine takes the whole process down.
//
//   - Lenient gives a view that counts but never refuses, for code this
//     statement does not control (an in-process BE's own goroutines): their
//     bytes still count against the statement, which then fails at its next
//     strict allocation.
//
//   - After a statement failed with ErrExceeded, the buffers that were being
//     built when the panic unwound are never freed by their owners; Sweep
//     returns them to the parent allocator so its count ends where it began.
//     Sweep is only for that case: it must not run while any array of the
//     statement is still in use.
//
//   - A Process is the whole process' account (Doris mem_limit, the FE's
//     --mem-limit). Statement Allocators made over it count every byte in it
//     as well and are refused, as by their own limit, when the process would
//     pass its cap: the statement that pushes it over fails, the others go
//     on. Used directly it counts but never refuses (nothing outside a
//     statement recovers the panic).
//
//   - Go memory an operator holds for the statement (hash-table entries,
//     index slices, a Flight stream's undecoded bodies) is counted with
//     Charge and given back with Refund; Close, when the statement ends,
//     gives back what an unwound operator never refunded, so the process
//     account returns to what it was.
//
//   - A counting-only allocation or charge that takes the statement (or
//     the process) past its limit marks the statement; Check, called
//     between batches, then fails it.
//
//   - Usage tells an operator what its statement holds against the limit,
//     so it can spill to disk before it is refused; RSS is the process'
//     resident set, shown next to the accounts in /metrics.
//
// Concurrency: an Allocator and a Process are safe for concurrent use.
package memlimit
