package server

import (
	"sync"
	"time"

	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/internal/gcfloor"
)

// The accounts count what statements hold; the resident set is that plus
// what the Go collector has not reclaimed yet. At the default GOGC=100 the
// heap may grow to twice its live part before a collection, so a 2 GB
// hash join (its arrow buffers, the key arena of its table) ran at 1.7-2.1
// times its accounted bytes, far past any limit set from those bytes.
// While the statements running hold more than gcTightAbove together, the
// collector therefore runs at gcTightPercent (the heap stays within a
// quarter above its live part) and goes back to the configured value once
// they hold less than half of that. What statements hold is mostly arrow
// buffers, which hold no pointers: a collection barely scans them, so the
// extra cycles are cheap. A GOGC at or below gcTightPercent (or off) is
// left alone. The percent goes through gcfloor, whose floor (cmd/fe
// starts one) then applies over it: a heap above gcTightAbove is past
// any floor, so tight stays tight.
const (
	gcTightAbove   = 256 << 20
	gcTightPercent = 25
	gcPaceEvery    = 20 * time.Millisecond
)

var gcPace struct {
	mu       sync.Mutex
	accts    map[*memlimit.Allocator]struct{}
	watching bool
	tight    bool
	base     int // the GC percent to go back to
	// tightened counts the times the collector was tightened (/metrics).
	tightened int64
}

// paceStart and paceEnd bracket a statement's account; while any is open a
// watcher looks at what they hold every gcPaceEvery.
func paceStart(a *memlimit.Allocator) {
	gcPace.mu.Lock()
	defer gcPace.mu.Unlock()
	if gcPace.accts == nil {
		gcPace.accts = map[*memlimit.Allocator]struct{}{}
	}
	gcPace.accts[a] = struct{}{}
	if !gcPace.watching {
		gcPace.watching = true
		go paceWatch()
	}
}

func paceEnd(a *memlimit.Allocator) {
	gcPace.mu.Lock()
	delete(gcPace.accts, a)
	gcPace.mu.Unlock()
}

func paceWatch() {
	t := time.NewTicker(gcPaceEvery)
	defer t.Stop()
	for range t.C {
		if !paceStep() {
			return
		}
	}
}

// paceStep tightens or relaxes the collector for what the open accounts
// hold; it returns false (relaxed, no longer watching) once none is open.
func paceStep() bool {
	gcPace.mu.Lock()
	defer gcPace.mu.Unlock()
	var used int64
	for a := range gcPace.accts {
		used += a.Used()
	}
	open := len(gcPace.accts) > 0
	switch {
	case gcPace.tight && (!open || used < gcTightAbove/2):
		gcfloor.SetGCPercent(gcPace.base)
		gcPace.tight = false
	case !gcPace.tight && open && used >= gcTightAbove:
		old := gcfloor.SetGCPercent(gcTightPercent)
		if old >= 0 && old <= gcTightPercent {
			gcfloor.SetGCPercent(old) // already as tight, or chosen lower
			break
		}
		gcPace.base, gcPace.tight = old, true
		gcPace.tightened++
	}
	if !open {
		gcPace.watching = false
	}
	return open
}

func gcTightenedCount() int64 {
	gcPace.mu.Lock()
	defer gcPace.mu.Unlock()
	return gcPace.tightened
}
