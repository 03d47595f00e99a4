package paimon

// SetParquetFastPath switches lake/parquetpage on or off for the files it
// can read and returns the previous setting (tests compare both paths).
func SetParquetFastPath(on bool) bool {
	old := parquetFastPath
	parquetFastPath = on
	return old
}

// PageFiles is how many files the page decoder has opened.
func PageFiles() int64 { return pageFiles.Load() }

// LateFiles is how many of those were read with late materialisation.
func LateFiles() int64 { return lateFiles.Load() }

// StagedFiles is how many of those decoded the filter's variable-width
// columns only for the rows its fixed-width leaves kept.
func StagedFiles() int64 { return stagedFiles.Load() }

// DictBatches is how many batches had a filter stage answered on a
// string column's dictionary, DictInexact how many of them had pages of
// another encoding left to the row path.
func DictBatches() (all, inexact int64) { return dictBatches.Load(), dictInexact.Load() }

// DropFiles is how many of those dropped filtered and deleted rows in the
// reader.
func DropFiles() int64 { return dropFiles.Load() }

// PooledReaders is how many page readers scans took from their pool.
func PooledReaders() int64 { return pooledReaders.Load() }

// SetPoisonReused makes the scan's buffer pools fill reused buffers with
// 0xAB and returns the previous setting.
func SetPoisonReused(on bool) bool {
	old := poisonReused
	poisonReused = on
	return old
}

// ReusedBuffers is how many buffers the scans' pools handed out again.
func ReusedBuffers() int64 { return reusedBuffers.Load() }

// UnreadCols is how many filter-only columns dropping readers left
// ungathered.
func UnreadCols() int64 { return unreadCols.Load() }

// NoValueCols is how many of those were answered on their dictionary
// without a value built.
func NoValueCols() int64 { return noValueCols.Load() }

// SetMinSliceBytes sets the smallest slice ScanOptions.MinSplits cuts and
// returns the previous value (tests slice files of kilobytes).
func SetMinSliceBytes(n int64) int64 {
	old := minSliceBytes
	minSliceBytes = n
	return old
}

// SetMinSplitGroup sets the smallest row group split by rows among
// slices and returns a function restoring the previous values.
func SetMinSplitGroup(bytes, rows int64) func() {
	ob, or := minSplitGroupBytes, minSplitGroupRows
	minSplitGroupBytes, minSplitGroupRows = bytes, rows
	return func() { minSplitGroupBytes, minSplitGroupRows = ob, or }
}

// SplitParts counts the row-group parts read by row range (for tests).
func SplitParts() int64 { return splitParts.Load() }

// FooterHits counts opens that reused a parsed Parquet footer.
func FooterHits() int64 { return footerHits.Load() }
