// Package paimon is the read-only Paimon catalog (type=paimon) over a
// warehouse on a local path or S3: databases, tables, partitions and types
// of plain Paimon tables. Reads are planned by the planner into LAKE ranges
// and executed by a BE; this package only describes tables.
package paimon
