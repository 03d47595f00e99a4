// Package scan is the BE side of a query: it executes the ranges of a
// fragment (lake, log, primary-key and tail ranges), applies pushed filters and
// partial aggregates next to the readers, and streams Arrow batches and
// counters back to the FE. A BE knows ranges, not tables.
package scan
