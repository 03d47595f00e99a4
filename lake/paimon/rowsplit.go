package paimon

import (
	"context"
	"io"
	mbits "math/bits"
	"sort"
	"sync/atomic"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/parquetpage"
)

// A row group larger than a slice would leave the scanners of a file of
// few, large row groups (one per file is what iceberg-go and many Spark
// jobs write) unevenly loaded: five single-row-group files over two
// scanners are three against two. So a Parquet row group whose bytes
// cross a slice boundary is split by rows among the slices it overlaps,
// each taking the rows in proportion to its share of the group's bytes,
// the bounds moved to the nearest page start of the group's largest
// column read (so that the column costing most is not decoded twice
// around a bound). Every slice of the file computes the same bounds from
// the same metadata and pages, so each row is read exactly once. That
// holds as long as every slice of a file is read with the same columns
// (the largest column read sets the bounds; whether the page decoder
// reads them decides whether groups are shared at all): the slices of a
// lake scan are ranges of one fragment, one projection. The predicate
// only prunes whole row groups by their statistics, alike for every
// slice.

// rgPart is the part of row group rg one read takes: rows [from, to) of
// it, all of them unless split.
type rgPart struct {
	rg       int
	from, to int64
	split    bool
	// ref is the column (index into pageColumns.cols) whose page starts
	// the bounds were moved to, and refPages its page list (-1, nil: no
	// column is read, or none was needed).
	ref      int
	refPages *parquetpage.Pages
}

// minSplitGroupBytes and minSplitGroupRows: a smaller row group is never
// split by rows; it goes whole to the slice holding its middle byte.
var minSplitGroupBytes, minSplitGroupRows int64 = 1 << 20, 4096

// splitParts counts the row-group parts read by row range (for tests).
var splitParts atomic.Int64

// rowRange reports which rows of a row group of rows rows, spanning bytes
// [start, end) of a file of size bytes, slice s reads: split says the
// group is shared by rows (large enough, at least half a slice, crossing
// a slice boundary, and splittable: asked last, as it may cost a look at
// the file), and [from, to) is s's share before page alignment; else the
// group is read whole by the slice owning its middle byte (from, to =
// 0, rows or 0, 0).
func (s *FileSlice) rowRange(start, end, size, rows int64, splittable func() bool) (from, to int64, split bool) {
	whole := func() (int64, int64, bool) {
		if s.owns(start, end, size) {
			return 0, rows, false
		}
		return 0, 0, false
	}
	if s == nil || s.Count <= 1 || end-start < minSplitGroupBytes || rows < minSplitGroupRows {
		return whole()
	}
	n, i := int64(s.Count), int64(s.Index)
	if end-start < size/n/2 {
		// Under half a slice: whole to one slice, as the middle byte
		// says, leaves no scanner short by more than a quarter slice,
		// and costs no page lists, shared dictionaries or pages decoded
		// on both sides of a bound (the many-row-group files of the
		// Paimon writer and Fluss's Paimon tiering stay as they were).
		return whole()
	}
	crosses := false
	for k := int64(1); k < n; k++ {
		if b := sliceBound(size, k, n); b > start && b < end {
			crosses = true
			break
		}
	}
	if !crosses || !splittable() {
		return whole()
	}
	lo, hi := start, end
	if i > 0 {
		lo = max(lo, sliceBound(size, i, n))
	}
	if i < n-1 {
		hi = min(hi, sliceBound(size, i+1, n))
	}
	if lo >= hi {
		return 0, 0, true
	}
	return rowAt(lo, start, end, rows), rowAt(hi, start, end, rows), true
}

// rowAt is rows*(b-start)/(end-start) for start <= b <= end, without
// overflow.
func rowAt(b, start, end, rows int64) int64 {
	if b <= start {
		return 0
	}
	if b >= end {
		return rows
	}
	hi, lo := mbits.Mul64(uint64(rows), uint64(b-start))
	q, _ := mbits.Div64(hi, lo, uint64(end-start))
	return int64(q)
}

// snapRow moves an interior bound to the nearest of starts (a column's
// page starts, increasing, 0 first and the row count last; the lower one
// on a tie). The move is monotone, so the slices' ranges still tile the
// group.
func snapRow(r int64, starts []int64) int64 {
	i := sort.Search(len(starts), func(i int) bool { return starts[i] >= r })
	if i == len(starts) {
		return starts[len(starts)-1]
	}
	if starts[i] == r || i == 0 {
		return starts[i]
	}
	if r-starts[i-1] <= starts[i]-r {
		return starts[i-1]
	}
	return starts[i]
}

// alignPart moves a split part's interior bounds to page starts of the
// largest of the group's chunks read (pc's), keeping that column's page
// list for the read. Without columns (pc nil) the bounds stay.
func alignPart(ctx context.Context, f io.ReaderAt, pc *pageColumns, pt *rgPart, rows int64) error {
	pt.ref = -1
	if !pt.split {
		return nil
	}
	splitParts.Add(1)
	if pc == nil || pt.from == pt.to {
		return nil
	}
	chunks := pc.chunks[pt.rg]
	ref := 0
	for i := range chunks {
		if chunks[i].Size > chunks[ref].Size {
			ref = i
		}
	}
	pg, err := parquetpage.ScanPages(ctx, f, pc.cols[ref], chunks[ref])
	if err != nil {
		return err
	}
	starts := pg.Starts()
	if pt.from > 0 {
		pt.from = snapRow(pt.from, starts)
	}
	if pt.to < rows {
		pt.to = snapRow(pt.to, starts)
	}
	pt.ref, pt.refPages = ref, pg
	return nil
}

// SliceSize is the slice size a plan of files totalling total bytes cuts
// its sliceable files at (lake/iceberg plans as this package does):
// splitSize, or, when that leaves fewer than minSplits splits (splits of
// them at splitSize), about total/minSplits, never under minSliceBytes.
func SliceSize(total, splitSize int64, splits, minSplits int) int64 {
	if minSplits <= splits {
		return splitSize
	}
	return min(splitSize, max(total/int64(minSplits), minSliceBytes))
}

// SliceCount is how many slices a sliceable data file of size bytes is cut
// into at slice size sliceSize (see sliceCount).
func SliceCount(size, sliceSize int64) int {
	if sliceSize <= 0 {
		return 1
	}
	return sliceCountBytes(size, sliceSize)
}

// SliceRows shares rows out over count slices by position: slice index's
// estimate, exact in total.
func SliceRows(rows int64, index, count int) int64 {
	return sliceBound(rows, int64(index+1), int64(count)) - sliceBound(rows, int64(index), int64(count))
}

// MaxSlices bounds the slices one file is cut into.
const MaxSlices = maxSlices

// SetSliceLimitsForTest sets the smallest slice MinSplits cuts and the
// smallest row group split by rows, so that tests of other packages
// (lake/iceberg, the planner) slice files of kilobytes; it returns a
// function restoring the previous values. Tests only: the limits are
// package state, not safe to change while scans run.
func SetSliceLimitsForTest(minSlice, minGroupBytes, minGroupRows int64) (restore func()) {
	os, ob, or := minSliceBytes, minSplitGroupBytes, minSplitGroupRows
	minSliceBytes, minSplitGroupBytes, minSplitGroupRows = minSlice, minGroupBytes, minGroupRows
	return func() { minSliceBytes, minSplitGroupBytes, minSplitGroupRows = os, ob, or }
}

// localFile: path is on the local file system, where reading a page
// header costs a system call, not a request.
func localFile(path string) bool {
	switch fileio.Scheme(path) {
	case "", "file":
		return true
	}
	return false
}

// indexed: every chunk to be read has an offset index.
func (pc *pageColumns) indexed() bool {
	for _, chs := range pc.chunks {
		for _, ch := range chs {
			if ch.OffsetIndexLen <= 0 {
				return false
			}
		}
	}
	return true
}

// OwnsStripe reports whether slice s reads ORC stripe st of a file of
// size bytes: the slice holding its middle byte (every stripe when s is
// nil or one slice).
func (s *FileSlice) OwnsStripe(st orc.StripeInfo, size int64) bool {
	end := st.Offset + st.IndexLength + st.DataLength + st.FooterLength
	return s.owns(int64(st.Offset), int64(end), size)
}
