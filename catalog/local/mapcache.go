package local

import (
	"os"
	"strings"
	"sync"
)

// mapCache keeps the mappings of data files between scans (Options.
// KeepMapped). Mapping a segment and reading it through costs a page fault
// per few pages touched, and its munmap the teardown of their page
// tables: for a scan of a few columns of a large table that was a fifth
// of the CPU time, paid again by every query. A kept mapping is reused by
// the next scan of the same file (same identity: device, inode, size,
// times and checksum, as verified.go), its pages already mapped.
//
// The cache holds one reference of each mapping: a mapping is unmapped
// when it leaves the cache and the last batch of it is released. Entries
// leave when their file is deleted (sweep, DROP), oldest first past the
// byte bound, and all of them at Close.
type mapCache struct {
	max int64 // bytes kept mapped at most

	mu      sync.Mutex
	bytes   int64
	entries map[fileIdent]*cachedMapping
	order   []fileIdent // insertion order, for eviction
}

type cachedMapping struct {
	m    *mapping
	path string
}

func newMapCache(max int64) *mapCache {
	if max <= 0 {
		return nil
	}
	return &mapCache{max: max}
}

// get returns a reference to the mapping of f (identity id) at path,
// mapping it when not kept yet. A nil cache maps every time.
func (c *mapCache) get(f *os.File, path string, id fileIdent, known bool) (*mapping, error) {
	if c == nil || !known {
		return mapFile(f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[id]; ok {
		e.m.retain()
		return e.m, nil
	}
	m, err := mapFile(f)
	if err != nil || int64(len(m.data)) > c.max {
		return m, err
	}
	for c.bytes+int64(len(m.data)) > c.max && len(c.order) > 0 {
		c.dropLocked(c.order[0])
	}
	if c.entries == nil {
		c.entries = map[fileIdent]*cachedMapping{}
	}
	m.retain() // the cache's reference
	c.entries[id] = &cachedMapping{m: m, path: path}
	c.order = append(c.order, id)
	c.bytes += int64(len(m.data))
	return m, nil
}

func (c *mapCache) dropLocked(id fileIdent) {
	e, ok := c.entries[id]
	if !ok {
		return
	}
	delete(c.entries, id)
	for i, x := range c.order {
		if x == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	c.bytes -= int64(len(e.m.data))
	e.m.release()
}

// forget drops the mappings of files at path or under it (a deleted file,
// a dropped table's directory).
func (c *mapCache) forget(path string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []fileIdent
	for id, e := range c.entries {
		if e.path == path || strings.HasPrefix(e.path, path+string(os.PathSeparator)) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		c.dropLocked(id)
	}
}

// close drops every mapping.
func (c *mapCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.order) > 0 {
		c.dropLocked(c.order[0])
	}
}
