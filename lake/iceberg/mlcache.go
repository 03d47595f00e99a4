package iceberg

import (
	"sync"
)

// A manifest list is written once, by the commit of its snapshot, under a
// name of its own (snapshot id and a UUID), and never rewritten: what
// planning reads from it (its bytes, and which manifests it says hold
// deletes) holds for as long as the file exists. Planning used to parse
// it twice a query (here for the delete manifests, then in iceberg-go);
// kept here, each query parses it once, in iceberg-go. A new snapshot
// names a new list, so a changed table misses and is read at once.
//
// Bounded: at most mlKeep lists and mlBytes bytes of them, the oldest
// dropped first; a list larger than mlMaxOne is never kept.
const (
	mlKeep   = 128
	mlBytes  = 16 << 20
	mlMaxOne = 4 << 20
)

type mlEntry struct {
	b       []byte
	deletes map[string]bool // nil: no delete manifests
}

type mlCache struct {
	mu    sync.Mutex
	m     map[string]*mlEntry
	order []string // keys, oldest first
	bytes int
}

var manifestLists = &mlCache{}

func (c *mlCache) get(loc string) (*mlEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[loc]
	return e, ok
}

func (c *mlCache) put(loc string, e *mlEntry) {
	if len(e.b) > mlMaxOne {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[loc]; ok {
		return
	}
	if c.m == nil {
		c.m = map[string]*mlEntry{}
	}
	for len(c.order) > 0 && (len(c.order) >= mlKeep || c.bytes+len(e.b) > mlBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old].b)
		delete(c.m, old)
	}
	c.m[loc] = e
	c.order = append(c.order, loc)
	c.bytes += len(e.b)
}

// size is the lists kept and their bytes (for tests).
func (c *mlCache) size() (n, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.bytes
}
