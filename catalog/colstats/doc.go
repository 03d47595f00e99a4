// Package colstats is ANALYZE TABLE's arithmetic, shared by every catalog
// that takes it: a Collector that turns a stream of batches into per-column
// statistics (count, HyperLogLog NDV, nulls, data size, bounds) in one
// pass, a Store that keeps an external catalog's analysed statistics in the
// FE's meta directory, and Merge, which lays analysed statistics over the
// ones a lake's manifests report.
//
// What must stay true:
//
//  1. The same rows give the same statistics in every process: hashes are
//     fixed functions, never seeded per process, so plans chosen from them
//     are reproducible.
//  2. A Collector's memory is fixed per column (the sketch, two bound
//     strings), whatever the number of rows.
//  3. Statistics are hints: a Store that cannot read its file reports no
//     statistics (and logs through the caller), never a planning error; a
//     merged bound may be wider than the live rows, never narrower.
package colstats
