package gcfloor

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the floor the FE and BE run with: a collection before the
// heap holds 256 MiB buys little memory back and costs a scan's speed.
const Default = 256 << 20

// heapMinimum is the runtime's goal for a tiny heap at GOGC=100; it
// scales with the percent, so the percent a floor asks for never exceeds
// floor × 100 / heapMinimum: the goal would then pass the floor even for
// an empty heap (a tiny live heap would otherwise ask for millions).
const heapMinimum = 4 << 20

// FloorFor is the floor for a process whose memory limit is memLimit
// bytes (<= 0: none): Default, at most a quarter of the limit.
func FloorFor(memLimit int64) int64 {
	if memLimit > 0 && memLimit/4 < Default {
		return memLimit / 4
	}
	return Default
}

var state struct {
	mu    sync.Mutex
	floor int64  // 0: not started
	base  int    // the percent without the floor (-1: off)
	gen   uint64 // bumped by Stop, so an old cycle's finalizer does not re-arm
	// applied is the percent last set (for tests and /metrics).
	applied int
}

// Start holds the heap goal at floor bytes or more from now on; the
// percent the process runs at now (GOGC) becomes the base. The returned
// stop restores the base and ends the floor. Starting again replaces the
// floor.
func Start(floor int64) (stop func()) {
	state.mu.Lock()
	if state.floor == 0 {
		old := debug.SetGCPercent(100)
		debug.SetGCPercent(old)
		state.base = old
	}
	state.floor = floor
	state.gen++
	gen := state.gen
	applyLocked()
	state.mu.Unlock()
	arm(gen)
	return func() {
		state.mu.Lock()
		defer state.mu.Unlock()
		if state.gen != gen {
			return
		}
		state.gen++
		state.floor = 0
		debug.SetGCPercent(state.base)
		state.applied = state.base
	}
}

// SetGCPercent is debug.SetGCPercent for a process that may run with a
// floor: it sets the base percent and returns the previous base.
func SetGCPercent(p int) int {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.floor == 0 {
		return debug.SetGCPercent(p)
	}
	old := state.base
	state.base = p
	applyLocked()
	return old
}

// Floor is the floor in force (0: none).
func Floor() int64 {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.floor
}

// Applied is the GC percent the floor last set; meaningful while Floor is
// not 0.
func Applied() int {
	state.mu.Lock()
	defer state.mu.Unlock()
	return state.applied
}

// sentinel is garbage whose finalizer runs once per collection; large
// enough not to share a tiny-allocator block with other objects (whose
// life would delay it).
type sentinel struct{ _ [64]byte }

// arm makes the next collection call after(gen).
func arm(gen uint64) {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) { after(gen) })
}

func after(gen uint64) {
	state.mu.Lock()
	if state.gen != gen || state.floor == 0 {
		state.mu.Unlock()
		return
	}
	applyLocked()
	state.mu.Unlock()
	arm(gen)
}

// The goal is live + (live + stacks + globals) × percent/100: stacks and
// globals count too, else a small heap's large percent overshoots.
var samples = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}

// applyLocked sets the percent for the live heap the last collection
// marked.
func applyLocked() {
	p := state.base
	if p >= 0 && state.floor > 0 {
		metrics.Read(samples)
		var v [3]int64
		for i, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				v[i] = int64(min(s.Value.Uint64(), math.MaxInt64/4))
			}
		}
		p = percentFor(state.floor, v[0], v[0]+v[1]+v[2], p)
	}
	debug.SetGCPercent(p)
	state.applied = p
}

// percentFor is the percent whose goal, live + scanned × p/100 (scanned:
// the live heap, stacks and globals), reaches floor; at least base.
func percentFor(floor, live, scanned int64, base int) int {
	if base < 0 {
		return base
	}
	if live >= floor {
		return base
	}
	limit := floor * 100 / heapMinimum
	need := limit
	if scanned > 0 {
		need = min(need, (floor-live)*100/scanned)
	}
	return int(max(int64(base), need))
}
