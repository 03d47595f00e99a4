// Package orc reads Apache ORC files (specification ORC v1, including the
// UNSTABLE-PRE-2.0 decimal64 encoding) into Apache Arrow record batches.
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
//   - Parsing is split from I/O: parseTail, parseFooter, parseStripeFooter and
//     the stream decoders take []byte, so fuzz targets need no files.
//   - Streaming: a RecordReader holds at most one stripe's selected streams
//     (decompressed) at a time and emits batches of at most BatchSize rows.
//   - Memory: batches are built with the caller's memory.Allocator; the caller
//     owns a batch only until the next call to Next and must Retain to keep it.
//
// Type mapping (ORC → Arrow): boolean→Boolean, tinyint→Int8, smallint→Int16,
// int→Int32, bigint→Int64, float→Float32, double→Float64,
// string/char/varchar→String, binary→Binary, date→Date32,
// timestamp→Timestamp(ns) holding the writer's wall-clock time (no zone),
// timestamp with local time zone→Timestamp(ns, "UTC"),
// decimal(p,s)→Decimal128(p,s) (Hive 0.11 decimals without precision read as
// Decimal128(38,10)), list→List, map→Map, struct→Struct. A union reads as
// Struct<tag: Int8, "0": child0, "1": child1, ...> with only the tagged child
// set per row, because Arrow unions carry no validity bitmap and ORC unions
// can themselves be null.
//
// Concurrency: a *File is immutable after Open and may be shared by
// goroutines; each RecordReader belongs to one goroutine.
package orc
