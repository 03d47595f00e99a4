package local

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
)

// opened is the outcome of opening one unit ahead of the scan.
type opened[T any] struct {
	v   T
	err error
}

// prefetcher opens the units of a scan ahead of the consumer, up to ahead
// of them at a time, in parallel: the segments of a plain scan (mapping
// and checksum: where a mapped scan spends its time, decoding a mapped
// batch costs next to nothing) or the buckets of a merge scan (pass one of
// the merge). The consumer takes them strictly in order, so a scan's
// output order is the same as a sequential scan's.
//
// Workers allocate from the statement's allocator (the pread fallback,
// the merge), which may panic as a refused allocation: they turn any panic
// into the unit's error (wrapping it, so ErrExceeded stays visible), so
// none escapes their goroutine.
type prefetcher[T any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  []chan opened[T]
	drop   func(T)       // closes a unit opened but never taken
	free   chan struct{} // one token per segment that may be open ahead
	wg     sync.WaitGroup
	next   int
}

// scanParallelism is how many segments a scan opens at once: the
// session's parallel_pipeline_task_num when set, else GOMAXPROCS.
func scanParallelism(vars map[string]string) int {
	if n, err := strconv.Atoi(vars["parallel_pipeline_task_num"]); err == nil && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

func newPrefetcher[U, T any](ctx context.Context, ahead int, units []U, open func(context.Context, U) (T, error), drop func(T)) *prefetcher[T] {
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetcher[T]{ctx: ctx, cancel: cancel, slots: make([]chan opened[T], len(units)), drop: drop, free: make(chan struct{}, max(ahead, 1))}
	for i := range p.slots {
		p.slots[i] = make(chan opened[T], 1)
	}
	for range cap(p.free) {
		p.free <- struct{}{}
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for i, u := range units {
			select {
			case <-p.free:
			case <-ctx.Done():
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				var o opened[T]
				defer func() {
					if r := recover(); r != nil {
						// A refused allocation (exec/memlimit) keeps its
						// kind through %w.
						if e, ok := r.(error); ok {
							o = opened[T]{err: fmt.Errorf("internal catalog: reading ahead: %w", e)}
						} else {
							o = opened[T]{err: fmt.Errorf("internal catalog: reading ahead: %v", r)}
						}
					}
					p.slots[i] <- o
				}()
				o.v, o.err = open(ctx, u)
			}()
		}
	}()
	return p
}

// take returns the next unit in order (ok false after the last). Its
// token goes back, so the next unit beyond the window starts opening.
func (p *prefetcher[T]) take() (v T, ok bool, err error) {
	if p.next >= len(p.slots) {
		return v, false, nil
	}
	var o opened[T]
	select {
	case o = <-p.slots[p.next]:
	case <-p.ctx.Done():
		return v, false, p.ctx.Err()
	}
	p.next++
	p.free <- struct{}{}
	return o.v, o.err == nil, o.err
}

// close stops opening and closes whatever was opened but not taken.
func (p *prefetcher[T]) close() {
	p.cancel()
	p.wg.Wait()
	for _, s := range p.slots[p.next:] {
		select {
		case o := <-s:
			if o.err == nil {
				p.drop(o.v)
			}
		default:
		}
	}
	p.next = len(p.slots)
}
