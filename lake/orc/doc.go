// Package orc reads Apache ORC files (specification ORC v1, including the
// UNSTABLE-PRE-2.0 decimal64 encoding) into Apache Arrow record batches,
// and writes Arrow record batches as ORC files.
//
// It is pure Go and self-contained: the file tail (postscript, footer,
// metadata) is decoded by hand from protobuf wire format, and every stream
// codec (byte RLE, boolean RLE, integer RLE v1/v2, dictionary and direct
// strings, decimals, dates, timestamps, nested types) lives in this package.
//
// What must stay true:
//
//   - Decoding distrusts input. Every length read from the file is checked
//     against the bytes that are really there (and against fixed caps) before
//     anything is allocated; bad input yields an error wrapping ErrCorrupt,
//     ErrUnsupported or ErrVersion that names the file offset, stripe, column
//     or stream concerned. Nothing in this package panics on input bytes.
//   - Values are held to their stripe's statistics (verify.go): each
//     top-level column's non-NULL count, integer and string min/max, integer
//     sum and string byte total, and strings must be UTF-8. ORC has no
//     checksums, so this is what turns a flipped byte inside the values into
//     an ErrCorrupt naming the stripe and column instead of a wrong row;
//     only a FLOAT/DOUBLE value that stays within its stripe's min and max
//     (and a string that stays valid and within them) cannot be told from
//     data. Statistics a writer did not record check nothing.
//   - Parsing is split from I/O: parseTail, parseFooter, parseStripeFooter and
//     the stream decoders take []byte, so fuzz targets need no files.
//   - Streaming: a RecordReader holds at most one stripe's selected streams
//     (decompressed) at a time and emits batches of at most BatchSize rows.
//   - Memory: batches are built with the caller's memory.Allocator; the caller
//     owns a batch only until the next call to Next and must Retain to keep it.
//     Decompressed stream buffers are not the caller's: they come from a
//     process-wide cache (compress.go: at most 64 MiB kept, sized per
//     stream from its chunk headers, at most 64× the compressed bytes up
//     front) and go back when the next stripe opens or the reader is
//     released, so nothing handed out may point into them; zstd decoders
//     are pooled the same way. A scan allocates only its output batches.
//   - Flat columns move each value once from the decompressed stream into
//     the batch: FLOAT/DOUBLE by copy() per run of non-NULL rows, BIGINT
//     and TIMESTAMP without NULLs decode straight into the batch (integer
//     RLE v2 runs that fit are unpacked in place), validity bitmaps and
//     counts are built eight flags per word, and dictionary strings of up
//     to 16 bytes move as two words from a padded copy of the dictionary
//     (column.go). Timestamps look the writer zone up once per zone period,
//     not per value.
//
// Type mapping (ORC → Arrow): boolean→Boolean, tinyint→Int8, smallint→Int16,
// int→Int32, bigint→Int64, float→Float32, double→Float64,
// string/char/varchar→String, binary→Binary, date→Date32,
// timestamp→Timestamp(ns) holding the writer's wall-clock time (no zone),
// timestamp with local time zone→Timestamp(ns, "UTC") (ReadOptions.
// TimestampUnit picks µs or ms instead, for values beyond 1677-2262),
// decimal(p,s)→Decimal128(p,s) (Hive 0.11 decimals without precision read as
// Decimal128(38,10)), list→List, map→Map, struct→Struct. A union reads as
// Struct<tag: Int8, "0": child0, "1": child1, ...> with only the tagged child
// set per row, because Arrow unions carry no validity bitmap and ORC unions
// can themselves be null.
//
// Every Arrow field carries the metadata key MetaColumnID ("orc.column_id"),
// the ORC column id by which StripeInfo.Stats and File.ColumnStats are
// indexed, plus the ORC type attributes (e.g. "iceberg.id"). A file whose
// root type is not a struct reads as one column named "_col0"; a zero-byte
// file reads as an empty table.
//
// Statistics are advisory: a count or bound the writer did not record is
// reported as absent (HasNumValues, HasMin, ... false), and per-stripe
// statistics whose root count contradicts the stripe's row count are dropped
// (Stats == nil), so a skipping decision never rests on an empty record.
//
// Time: TIMESTAMP values are converted to the wall-clock time of the stripe's
// writer time zone (UTC when the stripe names none); the zone database is
// embedded (time/tzdata) so results do not depend on the host.
//
// Not supported (a clear ErrUnsupported, never wrong rows): column
// encryption, row-index driven seeking inside a stripe (stripes are the unit
// of selection), and dotted projection paths through lists, maps or unions
// (those columns are read whole).
//
// Writing: Writer (writer.go, wcol.go, wenc.go) writes Arrow batches as an
// ORC v0.12 file the way Java's writer lays it out: one stream per
// (column, kind) in column order, PRESENT only in stripes with a NULL,
// DIRECT for boolean/tinyint/float/double/struct and DIRECT_V2 (integer
// RLE v2: SHORT_REPEAT, fixed-step DELTA and DIRECT runs) for everything else, timestamps
// as seconds since 2015-01-01 UTC plus trailing-zero-coded nanos with the
// stripe zone "UTC", decimals as zigzag varints with a scale stream, and
// ColumnStatistics per stripe (metadata section) and per file (footer)
// with the fields Java fills. What must stay true of it:
//
//   - Every value reads back exactly through this package's reader, or
//     the write fails naming the column (a timestamp within the second
//     before 1970 with a fraction of 1 ms or more, which ORC readers
//     cannot decode exactly, is refused).
//   - Statistics bound every written value: a bound that cannot be kept
//     exactly (strings over 1 KiB, NaN, overflowing sums) is left out,
//     never narrowed.
//   - Memory: a stripe's encoded streams live in buffers of the caller's
//     allocator until the stripe is flushed (WriterOptions.StripeSize bytes
//     of them), plus a few hundred pending values per stream; Close or
//     Abort releases them.
//   - No row index is written (rowIndexStride 0): readers skip by stripe.
//
// Concurrency: a *File is immutable after Open and may be shared by
// goroutines (the io.ReaderAt must allow concurrent ReadAt, as *os.File does);
// each RecordReader belongs to one goroutine.
package orc
