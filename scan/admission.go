package scan

import (
	"context"
	"sync"
	"time"
)

// admission is the BE-wide queue of heavy readers (JNI heap admission):
// a reader declaring n bytes opens when the declarations of the open readers
// plus n fit in ratio × heap, or when no reader holds a share (so a reader
// bigger than the whole budget still runs, alone). Readers wait in arrival
// order, and none waits longer than maxWait: after it, it opens anyway.
type admission struct {
	mu      sync.Mutex
	heap    int64
	ratio   float64
	maxWait time.Duration
	held    int64
	queue   []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when admitted
	gone  bool          // left the queue (timeout or cancel)
}

func newAdmission(heap int64, ratio float64, maxWait time.Duration) *admission {
	return &admission{heap: heap, ratio: ratio, maxWait: maxWait}
}

func (a *admission) setRatio(r float64) {
	a.mu.Lock()
	if r > 0 {
		a.ratio = r
	}
	a.admitLocked()
	a.mu.Unlock()
}

func (a *admission) setMaxWait(d time.Duration) {
	a.mu.Lock()
	if d >= 0 {
		a.maxWait = d
	}
	a.mu.Unlock()
}

func (a *admission) budget() int64 { return int64(float64(a.heap) * a.ratio) }

// admitLocked lets queued readers in from the head while they fit.
func (a *admission) admitLocked() {
	for len(a.queue) > 0 {
		w := a.queue[0]
		if w.gone {
			a.queue = a.queue[1:]
			continue
		}
		if a.held > 0 && a.held+w.n > a.budget() {
			return
		}
		a.held += w.n
		a.queue = a.queue[1:]
		close(w.ready)
	}
}

// acquire waits for room for n bytes and returns how long it waited and the
// function giving the share back. It fails only when ctx ends first.
func (a *admission) acquire(ctx context.Context, n int64) (time.Duration, func(), error) {
	if n <= 0 {
		return 0, func() {}, nil
	}
	start := time.Now()
	w := &waiter{n: n, ready: make(chan struct{})}
	a.mu.Lock()
	a.queue = append(a.queue, w)
	a.admitLocked()
	maxWait := a.maxWait
	a.mu.Unlock()
	release := func() {
		a.mu.Lock()
		a.held -= n
		a.admitLocked()
		a.mu.Unlock()
	}
	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return time.Since(start), release, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.ready: // admitted meanwhile
		a.mu.Unlock()
		if err := ctx.Err(); err != nil {
			release()
			return time.Since(start), nil, err
		}
		return time.Since(start), release, nil
	default:
	}
	w.gone = true
	if err := ctx.Err(); err != nil {
		a.admitLocked()
		a.mu.Unlock()
		return time.Since(start), nil, err
	}
	// Waited long enough: open anyway, holding the share like any reader.
	a.held += n
	a.admitLocked()
	a.mu.Unlock()
	return time.Since(start), release, nil
}
