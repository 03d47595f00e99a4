// Package parquetpage decodes flat (non-nested) Parquet column chunks page by
// page straight into Arrow arrays, for the lake scan's hot path.
//
// What must stay true:
//   - Values equal what arrow-go's pqarrow returns for the same column, value
//     by value and NULL by NULL (the differential tests read every fixture both
//     ways). A column this package cannot read exactly is reported by
//     Supported before any page is read, so the caller can fall back to
//     pqarrow for the whole file instead of failing half way.
//   - Bad input never panics: every length, offset, bit width and dictionary
//     index read from the file is checked, and the error names the file, the
//     column, the row group and the page's file offset.
//   - Memory: one column chunk is read with one ReadAt into a buffer reused
//     across row groups; pages decompress into a reused buffer; the only
//     allocation proportional to rows read is the output arrays, and all of it
//     comes from the allocator the caller passes in. Two exceptions copy
//     nothing: a compressed PLAIN page of 4- or 8-byte values stored as Arrow
//     stores them decompresses into a buffer of its own, and a batch lying
//     within it without NULLs is a slice of it (the buffer lives until the
//     page's last such batch is released, then a small per-reader pool
//     recycles it); a dictionary page of such values decompresses straight
//     into the dictionary. A page of an optional column whose levels are all
//     1 is read as a required column's, and a batch gets a validity bitmap
//     only when one of its pages has a NULL.
//     Retarget lets a caller reuse a reader, with its buffers, for a column
//     of another file. A ZSTD frame is never decoded past the page's size
//     (a frame declaring more is refused first; one without a size is
//     bounded by the decoder's 1 GiB limit), so the buffer cannot grow.
//   - ctx is checked once per page.
//   - ScanPages lists a chunk's pages (from its offset index, else by
//     reading only the page headers) and ResetRows reads rows [from, to)
//     of the chunk from just the pages holding them (and the dictionary
//     page, unless every one of them is PLAIN), so that several scanners
//     can share a large row group. ResetRows checks each page it reads
//     against the list (offset, row count, encoding): an offset index
//     that lies is an error, never a row lost or read twice
//     (TestResetRowsMatchesPqarrow, TestResetRowsRefusesLyingPageList,
//     FuzzScanPages, FuzzOffsetIndex).
//   - Speed: dictionary indices are unpacked 32 at a time by a kernel per
//     bit width (unpack_gen.go, written by genunpack.go) and each is
//     checked against the dictionary once, so a dictionary-encoded column
//     reads about as fast as a PLAIN one (BenchmarkDictColumn). The
//     kernels are tested against bit-by-bit packing and fuzzed against
//     the one-value reader (FuzzHybrid, and FuzzDictSparse for the
//     selective gather), besides FuzzPage.
//   - ReadSelected may leave the values of unselected rows zero or empty;
//     their NULL-ness is always the file's, and the caller must drop them.
//   - ReadFilter answers a one-column filter on a byte-array column's
//     dictionary: the caller's Eval once per dictionary page (a bool per
//     entry, bounded by the dictionary's size), then an index lookup per
//     row; a NULL row gets DictFilter.Null. Rows of pages in another
//     encoding (a writer's PLAIN fallback mid-chunk) are reported
//     undecided (exact false) with their values, never guessed. It is
//     tested against pqarrow's values with the predicate applied row by
//     row (TestReadFilterMatchesPqarrow, dictionary, fallback and PLAIN
//     chunks, NULLs, selections) and fuzzed (FuzzReadFilter).
//
// Only what the lake needs is implemented: page headers (thrift compact, the
// fields used here), data pages v1 and v2, dictionary pages, RLE/bit-packed
// definition levels of maximum level 1, PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY,
// RLE booleans, BYTE_STREAM_SPLIT and DELTA_BINARY_PACKED (INT32/INT64,
// decoded a page at a time into a reused PLAIN buffer),
// DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY) and DELTA_BYTE_ARRAY (BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY; each page starts with no previous value), decoded
// a page at a time into reused offsets and bytes (a prefix longer than the
// value before it, a negative length, lengths past the page or a page
// expanding past the page bound are errors), and the codecs
// UNCOMPRESSED, SNAPPY, GZIP, ZSTD and LZ4_RAW. Anything else is refused by
// Supported or ChunkOf.
package parquetpage
