package memlimit

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrExceeded is the kind of every error a refused allocation turns into.
var ErrExceeded = errors.New("memory limit exceeded")

// Exceeded is the panic value of a refused allocation, and the error
// Recover turns it into.
type Exceeded struct {
	// Variable is the session variable that sets the limit.
	Variable string
	Limit    int64
	// Used is what the statement held; Want what it asked for.
	Used, Want int64
	// Process tells that the whole process' account (Process) refused:
	// Used is then what every statement and cache held together.
	Process bool
}

func (e *Exceeded) Error() string {
	if e.Process {
		return fmt.Sprintf("Memory limit exceeded: the FE process would pass its %s of %d bytes (%d held by all queries, %d more requested by this one); retry when fewer queries run or raise --%s",
			e.Variable, e.Limit, e.Used, e.Want, strings.ReplaceAll(e.Variable, "_", "-"))
	}
	return fmt.Sprintf("Memory limit exceeded: the query needs more than %d bytes (%s = %d; %d held, %d more requested); raise %s or narrow the query",
		e.Limit, e.Variable, e.Limit, e.Used, e.Want, e.Variable)
}

// Unwrap makes errors.Is(err, ErrExceeded) hold.
func (e *Exceeded) Unwrap() error { return ErrExceeded }

// Allocator counts the bytes one statement holds against a limit.
type Allocator struct {
	// parent is where bytes come from; proc, when the allocator was made
	// over a Process, is the process account they are counted in too
	// (parent is then the Process' own parent).
	parent   memory.Allocator
	proc     *Process
	limit    int64
	variable string
	used     atomic.Int64
	peak     atomic.Int64
	// over records the first time a counting-only (Lenient) allocation
	// took the statement, or the process, past its limit; Check reports it.
	over atomic.Pointer[Exceeded]
	// charged is what Charge counted and Refund has not given back.
	charged atomic.Int64
	// live maps the first byte of each outstanding buffer to its size,
	// so Sweep can return buffers leaked by an unwinding panic.
	mu   sync.Mutex
	live map[*byte]int
}

// New returns an allocator over parent that refuses to hold more than limit
// bytes; variable names the setting in the error (e.g. "exec_mem_limit").
//
// Over a Process (or its Lenient view), the statement draws from the
// process account as well: an allocation that would take the process past
// its limit is refused like one past the statement's own.
func New(parent memory.Allocator, limit int64, variable string) *Allocator {
	a := &Allocator{parent: parent, limit: limit, variable: variable, live: map[*byte]int{}}
	if p, ok := parent.(*Process); ok {
		a.proc, a.parent = p, p.parent
	}
	return a
}

// Used is the number of bytes held now.
func (a *Allocator) Used() int64 { return a.used.Load() }

// Peak is the most bytes held at once.
func (a *Allocator) Peak() int64 { return a.peak.Load() }

// Limit is the limit in bytes.
func (a *Allocator) Limit() int64 { return a.limit }

func (a *Allocator) reserve(n int64, strict bool) {
	if n <= 0 {
		a.used.Add(n)
		if a.proc != nil {
			a.proc.used.Add(n)
		}
		return
	}
	u := a.used.Add(n)
	if u > a.limit {
		e := &Exceeded{Variable: a.variable, Limit: a.limit, Used: u - n, Want: n}
		if strict {
			a.used.Add(-n)
			panic(e)
		}
		a.over.CompareAndSwap(nil, e)
	}
	if a.proc != nil {
		if e := a.proc.reserve(n, strict); e != nil {
			if strict {
				a.used.Add(-n)
				panic(e)
			}
			a.over.CompareAndSwap(nil, e)
		}
	}
	for {
		p := a.peak.Load()
		if u <= p || a.peak.CompareAndSwap(p, u) {
			return
		}
	}
}

func (a *Allocator) track(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	a.live[unsafe.SliceData(b)] = len(b)
	a.mu.Unlock()
}

func (a *Allocator) untrack(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	delete(a.live, unsafe.SliceData(b))
	a.mu.Unlock()
}

func (a *Allocator) allocate(size int, strict bool) []byte {
	a.reserve(int64(size), strict)
	b := a.parent.Allocate(size)
	a.track(b)
	return b
}

func (a *Allocator) reallocate(size int, b []byte, strict bool) []byte {
	a.reserve(int64(size-len(b)), strict)
	a.untrack(b)
	nb := a.parent.Reallocate(size, b)
	a.track(nb)
	return nb
}

func (a *Allocator) free(b []byte) {
	a.untrack(b)
	a.used.Add(-int64(len(b)))
	if a.proc != nil {
		a.proc.used.Add(-int64(len(b)))
	}
	a.parent.Free(b)
}

// Allocate implements memory.Allocator; it panics with *Exceeded past the
// limit.
func (a *Allocator) Allocate(size int) []byte { return a.allocate(size, true) }

// Reallocate implements memory.Allocator; it panics with *Exceeded past the
// limit.
func (a *Allocator) Reallocate(size int, b []byte) []byte { return a.reallocate(size, b, true) }

// Free implements memory.Allocator.
func (a *Allocator) Free(b []byte) { a.free(b) }

// Sweep frees every buffer still outstanding back to the parent and returns
// how many bytes that was. Call it only once nothing of the statement is in
// use (see the package doc).
func (a *Allocator) Sweep() int64 {
	a.mu.Lock()
	live := a.live
	a.live = map[*byte]int{}
	a.mu.Unlock()
	var n int64
	for p, size := range live {
		a.parent.Free(unsafe.Slice(p, size))
		n += int64(size)
	}
	a.used.Add(-n)
	if a.proc != nil {
		a.proc.used.Add(-n)
	}
	return n
}

// lenient is a counting, never refusing view of an Allocator.
type lenient struct{ a *Allocator }

func (l lenient) Allocate(size int) []byte             { return l.a.allocate(size, false) }
func (l lenient) Reallocate(size int, b []byte) []byte { return l.a.reallocate(size, b, false) }
func (l lenient) Free(b []byte)                        { l.a.free(b) }

// Lenient returns mem itself unless it is a limited Allocator, whose
// counting, never refusing view it returns: for goroutines that cannot
// recover the panic.
func Lenient(mem memory.Allocator) memory.Allocator {
	if a, ok := mem.(*Allocator); ok {
		return lenient{a}
	}
	return mem
}

// Check reports whether mem is a statement's account (or its Lenient
// view) that a counting-only allocation once took past its limit or past
// the process limit: such a statement must fail even if it never allocates
// strictly again. Callers check between batches.
func Check(mem memory.Allocator) error {
	a, _ := account(mem)
	if a == nil {
		return nil
	}
	if e := a.over.Load(); e != nil {
		return e
	}
	return nil
}

// Recover, deferred, turns a refused allocation's panic into *errp (when
// *errp is nil) and re-raises every other panic.
func Recover(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	e, ok := r.(*Exceeded)
	if !ok {
		panic(r)
	}
	if *errp == nil {
		*errp = e
	}
}

// Guard runs f and returns a refused allocation inside it as an error.
func Guard(f func() error) (err error) {
	defer Recover(&err)
	return f()
}

// Handle, deferred directly (defer memlimit.Handle(f)), passes a refused
// allocation's panic to f as an error and re-raises every other panic: for
// goroutines that report errors through something other than a return.
func Handle(f func(error)) {
	r := recover()
	if r == nil {
		return
	}
	e, ok := r.(*Exceeded)
	if !ok {
		panic(r)
	}
	f(e)
}
