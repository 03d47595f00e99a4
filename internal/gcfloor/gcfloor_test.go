package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live, scanned int64
		base, want           int
	}{
		{256 * mib, 64 * mib, 64 * mib, 100, 300},   // 64 + 64 × 3 = 256
		{256 * mib, 64 * mib, 96 * mib, 100, 200},   // 64 + 96 × 2 = 256: stacks and globals count
		{256 * mib, 128 * mib, 128 * mib, 100, 100}, // 128 × 2 = 256 already
		{256 * mib, 200 * mib, 200 * mib, 100, 100}, // past the floor: the base
		{256 * mib, 300 * mib, 301 * mib, 25, 25},   // the FE's tight pacing
		{256 * mib, 100 * mib, 100 * mib, 25, 156},  // (256-100)/100, truncated
		{256 * mib, 1 * mib, 1 * mib, 100, 6400},    // 256/4: the runtime's minimum goal (4 MiB × p/100) is the floor
		{256 * mib, 0, 0, 100, 6400},
		{64 * mib, 1 * mib, 2 * mib, 100, 1600},
		{64 * mib, 16 * mib, 24 * mib, 100, 200},
		{256 * mib, 64 * mib, 64 * mib, -1, -1}, // GOGC=off stays off
		{256 * mib, 64 * mib, 64 * mib, 500, 500},
	} {
		if got := percentFor(c.floor, c.live, c.scanned, c.base); got != c.want {
			t.Errorf("percentFor(%d MiB, %d MiB, %d MiB, %d) = %d, want %d", c.floor/mib, c.live/mib, c.scanned/mib, c.base, got, c.want)
		}
	}
}

func TestFloorFor(t *testing.T) {
	for _, c := range []struct{ limit, want int64 }{
		{0, Default}, {-1, Default}, {64 << 30, Default}, {1 << 30, Default}, {512 << 20, 128 << 20}, {100, 25},
	} {
		if got := FloorFor(c.limit); got != c.want {
			t.Errorf("FloorFor(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// churn allocates n MiB of garbage a MiB at a time and returns the
// collections it took.
func churn(n int) uint64 {
	c0 := readMetric("/gc/cycles/total:gc-cycles")
	var keep []byte
	for range n {
		keep = make([]byte, 1<<20)
		keep[len(keep)-1] = 1
	}
	runtime.KeepAlive(keep)
	return readMetric("/gc/cycles/total:gc-cycles") - c0
}

// waitApplied waits for the finalizer of the last collection to set the
// percent.
func waitApplied(t *testing.T, ok func(int) bool) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if p := Applied(); ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the floor's percent is still %d", Applied())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestFloorHoldsOffCollections: with a 64 MiB floor, 512 MiB of garbage
// over a live heap of a few MiB takes about 512/64 collections (the goal
// is the floor, not past it); at GOGC=100 (goal: 4 MiB or twice the
// live heap) it takes dozens. Then the base: changed through
// SetGCPercent the floor still holds, off stays off, and Stop restores it.
func TestFloorHoldsOffCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	runtime.GC()
	without := churn(512)

	stop := Start(64 << 20)
	runtime.GC()
	p := waitApplied(t, func(p int) bool { return p > 100 })
	with := churn(512)
	if goal := readMetric("/gc/heap/goal:bytes"); goal < 60<<20 || goal > 80<<20 {
		t.Errorf("heap goal %d MiB with a 64 MiB floor (percent %d)", goal>>20, p)
	}
	t.Logf("512 MiB of garbage: %d collections at GOGC=100, %d with a 64 MiB floor (percent %d)", without, with, p)
	if with < 4 || with > 12 || without < 3*with {
		t.Errorf("collections: %d without the floor, %d with it", without, with)
	}

	// A base above what the floor asks wins; the base is what
	// SetGCPercent returns, not the applied percent.
	if prev := SetGCPercent(7000); prev != 100 {
		t.Errorf("SetGCPercent returned the base %d, want 100", prev)
	}
	if got := Applied(); got != 7000 {
		t.Errorf("applied %d after a base of %d", got, 7000)
	}
	SetGCPercent(-1)
	if got := Applied(); got != -1 {
		t.Errorf("applied %d with the collector off", got)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("a collection turned the collector back on (percent %d)", got)
	}
	SetGCPercent(100)
	waitApplied(t, func(p int) bool { return p > 100 })

	stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after stop the percent is %d, want the base 100", got)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("a collection after stop set the percent to %d", got)
	}
	if after := churn(512); after < 3*with {
		t.Errorf("after stop: %d collections, with the floor %d", after, with)
	}
}
