// Package tpch generates TPC-H data and holds the benchmark's 22 queries,
// so that Inlet's answers and speed can be checked against DuckDB on the
// same rows (cmd/tpchbench).
//
// The generator is written from the TPC-H specification (clause 4.2: the
// schema, cardinalities per scale factor, key rules, value domains and
// distributions, the text grammar's vocabulary); it is not dbgen and does
// not reproduce dbgen's exact pseudo-random streams, so its rows are not
// the TPC's reference data and answers are validated against DuckDB over the
// same files, not against the TPC's answer set.
//
// What must stay true:
//   - Output depends only on the scale factor: every table has its own
//     seeded stream, so a table can be regenerated alone.
//   - Generation streams: memory does not grow with the scale factor.
//   - Foreign keys hold: every l_partkey/l_suppkey pair is a partsupp row,
//     every o_custkey a customer whose key is not a multiple of 3, every
//     nation key in 0..24, and orders' status and total price are derived
//     from their line items as the specification says.
package tpch
