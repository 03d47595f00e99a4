package scan

import (
	"maps"
	"sync"
	"time"
)

// Profile counter names (shared/seeds/fluss-catalog.md, Query Profile).
const (
	cLogReadTime         = "FlussLogReadTime"
	cLogRangeNum         = "FlussLogRangeNum"
	cPkFullRangeNum      = "FlussPkFullRangeNum"
	cPkTailRangeNum      = "FlussPkTailRangeNum"
	cPkFullRangeReadTime = "FlussPkFullRangeReadTime"
	cPkTailRangeReadTime = "FlussPkTailRangeReadTime"
	cLogRangeReadTime    = "FlussLogRangeReadTime"
	cLogRowsReturned     = "FlussLogRowsReturned"
	// cLogBytesFetched is the size of the log records LOG and PK_TAIL reads
	// fetched from tablet servers; cLogBatchesSkipped counts the runs of
	// whole batches the servers' statistics filter left out (each run is
	// one batch or more; fluss_log_filter_pushdown).
	cLogBytesFetched      = "FlussLogBytesFetched"
	cLogBatchesSkipped    = "FlussLogBatchesSkipped"
	cLakeReadTime         = "FlussLakeReadTime"
	cLakeRangeNum         = "FlussLakeRangeNum"
	cLakeSuppressRangeNum = "FlussLakeSuppressRangeNum"
	cLakeRangeReadTime    = "FlussLakeRangeReadTime"
	cLakeRowsReturned     = "FlussLakeRowsReturned"
	// cLakeBytesRead is the size of the Arrow batches lake readers returned
	// (after the lake reader's own pushed predicate, before suppression and
	// the fragment's filters): what a read that stops early saves.
	cLakeBytesRead     = "FlussLakeBytesRead"
	cTailReadTime      = "FlussUnionTailReadTime"
	cSuppressTime      = "FlussUnionSuppressTime"
	cSuppressedRows    = "FlussUnionSuppressedRows"
	cTailKeysRead      = "FlussUnionTailKeysRead"
	cTailKeysRetained  = "FlussUnionTailKeysRetained"
	cTailCacheHitCount = "FlussUnionTailCacheHitCount"
	cConnectionsOpened = "FlussJniConnectionsOpened"
	// cRangesStoppedEarly counts ranges a per-range Top-N stopped before
	// their end (key-ordered lake splits: the rest sorts after).
	cRangesStoppedEarly = "FlussRangesStoppedEarly"
	cHeapDeclaredBytes  = "JvmHeapDeclaredBytes"
	cHeapWaitTime       = "JvmHeapWaitTime"
)

// counters are one fragment's profile counters. A counter exists only once
// something registered it, so a pure log scan shows no lake counters.
type counters struct {
	mu sync.Mutex
	m  map[string]int64
}

func newCounters() *counters { return &counters{m: map[string]int64{}} }

// register makes the counters exist (at 0).
func (c *counters) register(names ...string) {
	c.mu.Lock()
	for _, n := range names {
		if _, ok := c.m[n]; !ok {
			c.m[n] = 0
		}
	}
	c.mu.Unlock()
}

func (c *counters) add(name string, v int64) {
	c.mu.Lock()
	c.m[name] += v
	c.mu.Unlock()
}

func (c *counters) addTime(name string, d time.Duration) { c.add(name, int64(d)) }

func (c *counters) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}
