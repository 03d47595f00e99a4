// Package record holds the pure byte codecs of Fluss 1.0: log record batches
// (magic V0, V1 with statistics, V2 with leader epoch), ARROW, INDEXED and
// COMPACTED records, CompactedRow and IndexedRow, primary-key encoding and the
// bucket functions. Nothing here does I/O: bytes in, values or errors out, so
// every decoder can be fuzzed and checked against the Java-written bytes in
// shared/fixtures/fluss. Each byte layout is drawn above the code decoding it.

package record
