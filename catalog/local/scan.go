package local

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// segReader yields the batches of one segment, one at a time. A data file
// is mapped and its batches point into the mapping (see mapping); a
// segment kept in the commit log, or a file that cannot be mapped, is read
// with pread into buffers from the scan's allocator.
type segReader struct {
	f      *os.File        // pread mode
	fr     *ipc.FileReader // pread mode
	mapped *mappedSegment  // mapped mode
	m      *mapping        // mapped mode: the reader's own reference
	charge externalCharger // mapped mode: the statement account, if any
	pick   *colPick        // the columns next decodes; nil: all
	bi     int
	fi     fileInfo
	p      string
	// skip, per batch, says the scan's zone filter skips it (nil: none).
	skip []bool
	// row is the ordinal within the segment of the first row of the batch
	// last returned; next that of the batch after it (skipped ones count).
	row, nextRow int64
}

// segPath is where a segment's bytes live.
func (c *Catalog) segPath(table int64, fi fileInfo) string {
	if fi.Log {
		return filepath.Join(c.walDir(), fi.Name)
	}
	return filepath.Join(c.tableDir(table), fi.Name)
}

func openSegment(ctx context.Context, mem memory.Allocator, p, table string, fi fileInfo, full *arrow.Schema, mc *mapCache, pick *colPick) (*segReader, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("internal catalog: table %s: %w", table, err)
	}
	name := p
	if fi.Log {
		name = fmt.Sprintf("%s at offset %d", p, fi.Offset)
	}
	corrupt := func(err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			// A cancelled scan (KILL, timeout) is not a corrupt file.
			return ctxErr
		}
		return fmt.Errorf("%w: table %s file %s: %v", ErrCorrupt, table, name, err)
	}
	verified := false
	if !fi.Log {
		start := time.Now()
		id, known := identify(f, fi)
		if m, err := mc.get(f, p, id, known); err == nil {
			if !known || !isVerified(id) {
				if err := verifyBytes(ctx, m.data, fi); err != nil {
					m.release()
					f.Close()
					return nil, corrupt(err)
				}
				if known {
					rememberVerified(id, start)
				}
			}
			ms, err := openMapped(m, mem, full)
			if err == nil {
				f.Close() // the mapping stays
				cg, _ := mem.(externalCharger)
				return &segReader{mapped: ms, m: m, charge: cg, pick: pick, fi: fi, p: name}, nil
			}
			m.release()
			if err != errSchemaDiffers {
				f.Close()
				return nil, corrupt(err)
			}
			// Written with another schema encoding: arrow's file reader
			// decides (and checks the schema) below, over f (still open).
			verified = true
		}
		// Not mappable (an empty file, a platform without mmap): pread.
	}
	if !verified {
		if err := verifyFile(ctx, f, fi); err != nil {
			f.Close()
			return nil, corrupt(err)
		}
	}
	var ra ipc.ReadAtSeeker = f
	if fi.Log {
		ra = io.NewSectionReader(f, fi.Offset, fi.Bytes)
	}
	fr, err := ipc.NewFileReader(ra, ipc.WithAllocator(mem), ipc.WithSchema(full))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: table %s file %s: %v", ErrCorrupt, table, name, err)
	}
	if !fr.Schema().Equal(full) {
		fr.Close()
		f.Close()
		return nil, fmt.Errorf("%w: table %s file %s: schema differs from the table's", ErrCorrupt, table, name)
	}
	return &segReader{f: f, fr: fr, pick: pick, fi: fi, p: name}, nil
}

// next returns the next batch (the caller releases it), or nil at the end:
// the columns of s.pick.
// A mapped batch is charged to the statement account (when the allocator
// is one) until its last array is released: the query holds those bytes
// as it would hold a copy. The charge may panic as a refused allocation
// does; the batch is released first.
func (s *segReader) next(table string) (arrow.RecordBatch, error) {
	if s.mapped != nil {
		for {
			if s.skips() {
				if err := s.mapped.skip(); err != nil {
					return nil, fmt.Errorf("%w: table %s file %s batch %d: %v", ErrCorrupt, table, s.p, s.bi, err)
				}
				s.bi++
				continue
			}
			var rec arrow.RecordBatch
			var ref *bodyRef
			var err error
			if s.pick != nil && s.pick.flat {
				rec, ref, err = s.mapped.nextPicked(s.pick)
			} else {
				rec, ref, err = s.mapped.next()
				if rec != nil {
					rec = s.pick.project(rec)
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%w: table %s file %s batch %d: %v", ErrCorrupt, table, s.p, s.bi, err)
			}
			if rec == nil {
				return nil, nil
			}
			s.bi++
			if rec.NumRows() == 0 {
				rec.Release()
				continue
			}
			if s.charge != nil {
				chargeMapped(s.charge, ref, rec)
			}
			s.row, s.nextRow = s.nextRow, s.nextRow+rec.NumRows()
			return rec, nil
		}
	}
	for s.bi < s.fr.NumRecords() {
		if s.skips() {
			s.bi++
			continue
		}
		rec, err := s.fr.RecordBatchAt(s.bi)
		if err != nil {
			return nil, fmt.Errorf("%w: table %s file %s batch %d: %v", ErrCorrupt, table, s.p, s.bi, err)
		}
		rec = s.pick.project(rec)
		s.bi++
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		s.row, s.nextRow = s.nextRow, s.nextRow+rec.NumRows()
		return rec, nil
	}
	return nil, nil
}

// skips says whether the zone filter skips batch bi, and if so counts its
// rows as read. The zone maps name every batch the writer wrote, none of
// them empty, so positions agree with the file's.
func (s *segReader) skips() bool {
	if s.bi >= len(s.skip) || !s.skip[s.bi] {
		return false
	}
	s.nextRow += s.fi.Zones[s.bi].Rows
	return true
}

func chargeMapped(c externalCharger, ref *bodyRef, rec arrow.RecordBatch) {
	ok := false
	defer func() {
		if !ok {
			rec.Release()
		}
	}()
	c.ChargeExternal(ref.n)
	ok = true
	ref.charged = c
}

func (s *segReader) close() {
	if s == nil {
		return
	}
	if s.mapped != nil {
		s.mapped.close()
		s.m.release()
		return
	}
	s.fr.Close()
	s.f.Close()
}

// fileScan streams the batches of a snapshot of a table's segments, one
// segment open at a time, one batch held at a time. For a UNIQUE KEY table
// it merges each bucket (see uniqueBucket): one row per key, the latest.
type fileScan struct {
	refs    atomic.Int64
	ctx     context.Context
	mem     memory.Allocator
	c       *Catalog
	tid     int64
	table   string
	files   []fileInfo
	cols    []int
	pick    *colPick // what segments decode: cols, keys, delete columns
	schema  *arrow.Schema
	full    *arrow.Schema
	keys    *keyCoder // nil: no merge
	release func()
	dels    []deletePred   // DELETE predicates (tables without UNIQUE KEY)
	cat     catalog.Schema // the table's schema, for dels
	zf      *zoneFilter    // the request's predicates over zone maps; nil: none

	seg    *segReader
	pf     *prefetcher[*segReader]    // plain scan: segments opened ahead
	mpf    *prefetcher[*uniqueBucket] // merge scan: buckets merged ahead
	ahead  int                        // units opened at once (scanParallelism)
	merge  *uniqueBucket
	groups [][]fileInfo // merge scan: segments per bucket, in commit order
	// aliased: the batch being returned points into a mapping (not a
	// filtered copy, not pread), so Next detaches its string columns
	// unless raw (ScanRequest.Raw): then the caller copies what it keeps.
	aliased bool
	raw     bool
	cur     arrow.RecordBatch
	err     error
	done    bool
}

func (s *fileScan) Retain() { s.refs.Add(1) }

func (s *fileScan) Release() {
	if s.refs.Add(-1) == 0 {
		s.closeSeg()
		if s.cur != nil {
			s.cur.Release()
			s.cur = nil
		}
		if s.release != nil {
			s.release()
			s.release = nil
		}
	}
}

func (s *fileScan) Schema() *arrow.Schema { return s.schema }

func (s *fileScan) Err() error { return s.err }

func (s *fileScan) RecordBatch() arrow.RecordBatch { return s.cur }

// Record is the deprecated spelling of RecordBatch that RecordReader still
// requires.
func (s *fileScan) Record() arrow.RecordBatch { return s.cur }

func (s *fileScan) closeSeg() {
	s.seg.close()
	s.seg = nil
	if s.pf != nil {
		s.pf.close()
	}
	if s.mpf != nil {
		s.mpf.close()
	}
	if s.merge != nil {
		s.merge.close()
		s.merge = nil
	}
}

func (s *fileScan) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.done {
		return false
	}
	if err := s.ctx.Err(); err != nil {
		return s.fail(err)
	}
	var rec arrow.RecordBatch
	var err error
	if s.keys != nil {
		rec, err = s.nextMerged()
	} else {
		rec, err = s.nextPlain()
	}
	if err != nil {
		return s.fail(err)
	}
	if rec == nil {
		s.done = true
		s.closeSeg()
		return false
	}
	if s.cols != nil {
		cols := make([]arrow.Array, len(s.cols))
		for i, c := range s.cols {
			cols[i] = rec.Column(s.pick.index(c))
		}
		p := array.NewRecordBatch(s.schema, cols, rec.NumRows())
		rec.Release()
		rec = p
	}
	// Strings handed out must not point into a mapping that is unmapped
	// when the batch is released (see arrowcopy.AliasesValues).
	if s.aliased && !s.raw {
		if rec, err = detach(s.mem, rec); err != nil {
			return s.fail(fmt.Errorf("internal catalog: table %s: %w", s.table, err))
		}
	}
	s.cur = rec
	return true
}

func (s *fileScan) nextPlain() (arrow.RecordBatch, error) {
	for {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		if s.seg == nil {
			if s.pf == nil {
				open := func(ctx context.Context, f fileInfo) (*segReader, error) {
					seg, err := openSegment(ctx, s.mem, s.c.segPath(s.tid, f), s.table, f, s.full, s.c.maps, s.pick)
					if err == nil {
						seg.skip = s.zf.skipList(f)
					}
					return seg, err
				}
				s.pf = newPrefetcher(s.ctx, s.ahead, s.files, open, (*segReader).close)
			}
			seg, ok, err := s.pf.take()
			if !ok {
				return nil, err
			}
			s.seg = seg
		}
		rec, err := s.seg.next(s.table)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			s.seg.close()
			s.seg = nil
			continue
		}
		drop, err := deleteMask(s.ctx, s.mem, rec, s.seg.fi.Seq, s.dels, s.cat, s.pick)
		if err != nil {
			rec.Release()
			return nil, err
		}
		in := rec
		if rec, err = dropMasked(s.ctx, s.mem, rec, drop); err != nil || rec != nil {
			// A filtered batch is a copy; the batch itself points into the
			// mapping when its segment is mapped.
			s.aliased = rec == in && s.seg.mapped != nil
			return rec, err
		}
	}
}

func (s *fileScan) nextMerged() (arrow.RecordBatch, error) {
	for {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		if s.merge == nil {
			if s.mpf == nil {
				var groups [][]fileInfo
				for _, g := range s.groups {
					if len(g) > 0 {
						groups = append(groups, g)
					}
				}
				open := func(ctx context.Context, g []fileInfo) (*uniqueBucket, error) {
					return newUniqueBucket(ctx, s.mem, s.c, s.tid, s.table, g, s.full, *s.keys, s.zf, s.pick)
				}
				s.mpf = newPrefetcher(s.ctx, s.ahead, groups, open, (*uniqueBucket).close)
			}
			m, ok, err := s.mpf.take()
			if !ok {
				return nil, err
			}
			s.merge = m
		}
		rec, err := s.merge.next()
		s.aliased = s.merge.aliased
		if err != nil || rec != nil {
			return rec, err
		}
		s.merge.close()
		s.merge = nil
	}
}

func (s *fileScan) fail(err error) bool {
	s.err = err
	s.done = true
	s.closeSeg()
	return false
}

// bucketGroups orders a UNIQUE table's segments by bucket, each bucket in
// commit order (Seq, then position: the rolled files of one load keep the
// order they were written in).
func bucketGroups(files []fileInfo, buckets int) [][]fileInfo {
	n := buckets
	for _, f := range files {
		n = max(n, f.Bucket+1)
	}
	g := make([][]fileInfo, n)
	for _, f := range files {
		g[f.Bucket] = append(g[f.Bucket], f)
	}
	for _, x := range g {
		slices.SortStableFunc(x, func(a, b fileInfo) int {
			switch {
			case a.Seq < b.Seq:
				return -1
			case a.Seq > b.Seq:
				return 1
			}
			return 0
		})
	}
	return g
}

// uniqueBucket is the merge-on-read of one bucket of a UNIQUE KEY table.
// Pass one reads every segment's keys and keeps, per key, the position of
// its latest row (or a tombstone); pass two reads the segments again and
// lets through only the rows at those positions. Memory is one map entry
// per key of the bucket plus one batch: bounded by the bucket (times the
// buckets a scan merges ahead, see prefetcher), not the table.
type uniqueBucket struct {
	ctx     context.Context
	mem     memory.Allocator
	c       *Catalog
	tid     int64
	table   string
	segs    []fileInfo
	full    *arrow.Schema
	keys    keyCoder         // as positions in pick's batches
	pick    *colPick         // pass two's columns (pass one reads the keys only)
	winners map[string]int64 // key → seg<<40 | row; -1 deleted
	si      int
	seg     *segReader
	// zf skips batches in pass two only: pass one must see every key, and
	// a batch none of whose rows match the scan's predicates holds no row
	// to return, whether or not its rows are the latest of their keys.
	zf      *zoneFilter
	passthr bool
	aliased bool // the last batch returned points into a mapping
}

const deleted = -1

// pick is the columns the bucket's batches carry (nil: all); it must
// include the key columns.
func newUniqueBucket(ctx context.Context, mem memory.Allocator, c *Catalog, tid int64, table string, segs []fileInfo, full *arrow.Schema, keys keyCoder, zf *zoneFilter, pick *colPick) (*uniqueBucket, error) {
	u := &uniqueBucket{ctx: ctx, mem: mem, c: c, tid: tid, table: table, segs: segs, full: full, keys: keys.remap(pick), pick: pick, zf: zf}
	if len(segs) == 1 && segs[0].Unique && !segs[0].Delete {
		u.passthr = true
		return u, nil
	}
	u.winners = map[string]int64{}
	var buf []byte
	kp := pickOf(full, keys.cols)
	keys = keys.remap(kp)
	for si, f := range segs {
		seg, err := openSegment(ctx, mem, c.segPath(tid, f), table, f, full, c.maps, kp)
		if err != nil {
			return nil, err
		}
		var row int64
		for {
			if err := ctx.Err(); err != nil {
				seg.close()
				return nil, err
			}
			rec, err := seg.next(table)
			if err != nil {
				seg.close()
				return nil, err
			}
			if rec == nil {
				break
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				buf = keys.encode(rec, i, buf)
				if f.Delete {
					u.winners[string(buf)] = deleted
				} else {
					u.winners[string(buf)] = int64(si)<<40 | (row + int64(i))
				}
			}
			row += rec.NumRows()
			rec.Release()
		}
		seg.close()
	}
	return u, nil
}

func (u *uniqueBucket) next() (arrow.RecordBatch, error) {
	var buf []byte
	for {
		if err := u.ctx.Err(); err != nil {
			return nil, err
		}
		if u.seg == nil {
			for u.si < len(u.segs) && u.segs[u.si].Delete {
				u.si++
			}
			if u.si >= len(u.segs) {
				return nil, nil
			}
			seg, err := openSegment(u.ctx, u.mem, u.c.segPath(u.tid, u.segs[u.si]), u.table, u.segs[u.si], u.full, u.c.maps, u.pick)
			if err != nil {
				return nil, err
			}
			seg.skip = u.zf.skipList(u.segs[u.si])
			u.seg = seg
		}
		rec, err := u.seg.next(u.table)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			u.seg.close()
			u.seg = nil
			u.si++
			continue
		}
		u.aliased = u.seg.mapped != nil
		if u.passthr {
			return rec, nil
		}
		mb := array.NewBooleanBuilder(u.mem)
		keep := 0
		for i := 0; i < int(rec.NumRows()); i++ {
			buf = u.keys.encode(rec, i, buf)
			ok := u.winners[string(buf)] == int64(u.si)<<40|(u.seg.row+int64(i))
			if ok {
				keep++
			}
			mb.Append(ok)
		}
		mask := mb.NewArray()
		mb.Release()
		switch keep {
		case 0:
			mask.Release()
			rec.Release()
			continue
		case int(rec.NumRows()):
			mask.Release()
			return rec, nil
		}
		out, err := compute.FilterRecordBatch(compute.WithAllocator(u.ctx, u.mem), rec, mask, compute.DefaultFilterOptions())
		mask.Release()
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("internal catalog: table %s: %w", u.table, err)
		}
		u.aliased = false // FilterRecordBatch copied the rows kept
		return out, nil
	}
}

func (u *uniqueBucket) close() {
	u.seg.close()
	u.seg = nil
	u.winners = nil
}
