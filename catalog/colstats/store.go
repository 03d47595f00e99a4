package colstats

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/inlet-db/inlet/catalog"
)

// Store keeps the statistics ANALYZE TABLE computed for an external
// catalog's tables, one JSON file per table under a directory of the FE's
// meta directory (the catalog's catalog.Env DataDir, which DROP CATALOG
// removes): <dir>/d_<db>/t_<table>.json, names path-escaped. Reads are
// cached, so planning costs no file read after the first; the Store is
// the only writer of its directory. A Store with no directory keeps
// nothing and refuses Put.
type Store struct {
	dir string

	mu    sync.Mutex
	cache map[storeKey]*record // nil value: no file
}

type storeKey struct{ db, table string }

// record is one table's file. Tag names the table's incarnation when the
// catalog has one (a Fluss table id): statistics of a dropped table never
// describe the table created under its name later.
type record struct {
	Version int                 `json:"version"`
	Tag     string              `json:"tag,omitempty"`
	Stats   *catalog.TableStats `json:"stats"`
}

const (
	storeVersion = 1
	// maxCached bounds the cache for a catalog of very many tables; a
	// dropped entry costs one file read.
	maxCached = 4096
	// maxFile bounds what Get reads: a table of thousands of columns is a
	// few hundred KiB.
	maxFile = 16 << 20
)

// OpenStore returns the store under dir ("" for none). Nothing is read or
// created until used.
func OpenStore(dir string) *Store {
	return &Store{dir: dir, cache: map[storeKey]*record{}}
}

func (s *Store) path(k storeKey) string {
	return filepath.Join(s.dir, "d_"+url.PathEscape(k.db), "t_"+url.PathEscape(k.table)+".json")
}

// Get returns the statistics kept for db.table under tag, nil when there
// are none (never analysed, or analysed as another incarnation). A damaged
// file is an error naming it the first time, none after. The result is
// shared: callers must not modify it.
func (s *Store) Get(db, table, tag string) (*catalog.TableStats, error) {
	if s == nil || s.dir == "" {
		return nil, nil
	}
	k := storeKey{db, table}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.cache[k]
	if !ok {
		var err error
		r, err = s.read(k)
		// A damaged file is reported once, then read as none until the
		// next ANALYZE replaces it (or the cache is cleared).
		s.remember(k, r)
		if err != nil {
			return nil, err
		}
	}
	if r == nil || r.Tag != tag {
		return nil, nil
	}
	return r.Stats, nil
}

func (s *Store) remember(k storeKey, r *record) {
	if len(s.cache) >= maxCached {
		clear(s.cache)
	}
	s.cache[k] = r
}

func (s *Store) read(k storeKey) (*record, error) {
	p := s.path(k)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("column statistics %s: %w", p, err)
	}
	defer f.Close()
	var r record
	dec := json.NewDecoder(&limitedReader{f: f, left: maxFile})
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("column statistics %s are damaged: %v", p, err)
	}
	if r.Version != storeVersion || r.Stats == nil {
		return nil, fmt.Errorf("column statistics %s: version %d, this build reads %d", p, r.Version, storeVersion)
	}
	if r.Stats.Columns == nil {
		r.Stats.Columns = map[string]catalog.ColumnStats{}
	}
	return &r, nil
}

// Put keeps ts as db.table's statistics under tag. Columns ts does not
// name keep their earlier statistics if the earlier ones are of the same
// incarnation (ANALYZE TABLE t (a) after ANALYZE TABLE t). The file is
// replaced atomically: a crash leaves the old statistics or the new.
func (s *Store) Put(db, table, tag string, ts *catalog.TableStats) error {
	if s == nil || s.dir == "" {
		return errors.New("this catalog has no directory to keep column statistics in")
	}
	k := storeKey{db, table}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := &catalog.TableStats{Rows: ts.Rows, UpdatedMS: ts.UpdatedMS, Columns: maps.Clone(ts.Columns)}
	if next.Columns == nil {
		next.Columns = map[string]catalog.ColumnStats{}
	}
	// A damaged earlier file is replaced, not merged.
	if old, err := s.read(k); err == nil && old != nil && old.Tag == tag {
		for name, cs := range old.Stats.Columns {
			if _, ok := next.Columns[name]; !ok {
				next.Columns[name] = cs
			}
		}
	}
	r := &record{Version: storeVersion, Tag: tag, Stats: next}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := writeAtomic(s.path(k), b); err != nil {
		return fmt.Errorf("column statistics of %s.%s: %w", db, table, err)
	}
	s.remember(k, r)
	return nil
}

func writeAtomic(p string, b []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".stats.tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// limitedReader fails past left bytes, so a huge file is an error rather
// than a truncated decode or an unbounded read.
type limitedReader struct {
	f    *os.File
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("file too large")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	return n, err
}
