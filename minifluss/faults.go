package minifluss

import "time"

// faultState holds the test hooks. Guarded by Cluster.mu.
type faultState struct {
	delays     map[int16][]time.Duration // per api key, one entry per future request
	drops      map[int16]int             // per api key, how many requests to answer by closing the connection
	notLeader  map[bucketKey]int         // per bucket, how many data requests to answer with NOT_LEADER
	cuts       map[bucketKey]int         // per bucket, how many fetches to answer with a torn last batch
	scannerTTL time.Duration             // kv.scanner.ttl override; 0 = 10 min
}

type faultAction struct {
	delay time.Duration
	drop  bool
}

// DelayNext makes the next n requests with the given API key wait d before
// they are handled (their responses are then reordered behind later ones).
func (c *Cluster) DelayNext(apiKey int16, d time.Duration, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.faults.delays == nil {
		c.faults.delays = map[int16][]time.Duration{}
	}
	for i := 0; i < n; i++ {
		c.faults.delays[apiKey] = append(c.faults.delays[apiKey], d)
	}
}

// DropNext makes the next n requests with the given API key close their
// connection instead of answering.
func (c *Cluster) DropNext(apiKey int16, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.faults.drops == nil {
		c.faults.drops = map[int16]int{}
	}
	c.faults.drops[apiKey] += n
}

// DropConnections closes every open connection of tablet server id, or of the
// coordinator when id is -1, and returns how many were closed.
func (c *Cluster) DropConnections(id int32) int {
	idx := int(id) + 1
	if idx < 0 || idx >= len(c.servers) {
		return 0
	}
	return c.servers[idx].dropConnections()
}

// NotLeaderOnce makes the next data request (FetchLog, ListOffsets, ScanKv,
// LimitScan, Lookup, GetTableStats, ProduceLog, PutKv) for the bucket answer
// NOT_LEADER_OR_FOLLOWER (12) even on its leader. partitionID is -1 for
// non-partitioned tables.
func (c *Cluster) NotLeaderOnce(tableID, partitionID int64, bucket int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	addOnce(&c.faults.notLeader, bucketKey{tableID, partitionID, bucket})
}

func (c *Cluster) faultFor(apiKey int16) faultAction {
	c.mu.Lock()
	defer c.mu.Unlock()
	var a faultAction
	if ds := c.faults.delays[apiKey]; len(ds) > 0 {
		a.delay = ds[0]
		c.faults.delays[apiKey] = ds[1:]
	}
	if c.faults.drops[apiKey] > 0 {
		c.faults.drops[apiKey]--
		a.drop = true
	}
	return a
}

// takeNotLeaderLocked consumes one injected NOT_LEADER for the bucket.
func (c *Cluster) takeNotLeaderLocked(k bucketKey) bool {
	return takeOnce(c.faults.notLeader, k)
}

// CutLastBatchOnce makes the next FetchLog of the bucket that returns two or
// more batches cut its last batch in half, as a size-limited Fluss fetch may
// (readers must drop the torn tail and fetch again from there).
// partitionID is -1 for non-partitioned tables.
func (c *Cluster) CutLastBatchOnce(tableID, partitionID int64, bucket int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	addOnce(&c.faults.cuts, bucketKey{tableID, partitionID, bucket})
}

func (c *Cluster) takeCutLocked(k bucketKey) bool {
	return takeOnce(c.faults.cuts, k)
}

// addOnce arms one more one-shot fault for k, making the map on first use.
func addOnce(counts *map[bucketKey]int, k bucketKey) {
	if *counts == nil {
		*counts = map[bucketKey]int{}
	}
	(*counts)[k]++
}

// takeOnce consumes one armed one-shot fault for k, if there is one.
func takeOnce(counts map[bucketKey]int, k bucketKey) bool {
	if counts[k] > 0 {
		counts[k]--
		return true
	}
	return false
}

// SetScannerTTL overrides kv.scanner.ttl (10 min): ScanKv sessions idle for
// longer answer SCANNER_EXPIRED (66) once, then UNKNOWN_SCANNER_ID (67).
func (c *Cluster) SetScannerTTL(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.scannerTTL = d
}
