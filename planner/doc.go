// Package planner turns a query on a Fluss table into scan ranges: lake
// splits, log ranges, primary-key ranges and log-tail ranges, choosing between
// the union-read modes auto, required and disabled and their fallbacks.
//
// Invariant: the lake snapshot is read before log offsets, KV snapshots before
// latest offsets, earliest offsets last, one instant per partition, so no row
// can fall between the lake and the log.
package planner
