// Command tablebench measures scans of an internal (local catalog) table
// through the whole FE, as a MySQL client sees them, against DuckDB on the
// same rows (issue 14).
//
// It starts an FE in-process, loads bench.t(id BIGINT, k INT, v BIGINT,
// s VARCHAR) with --rows rows (k = id % 1000, v = id % 97, s = 's' ||
// id % 100: the definition fe/server's benchmarks use), builds the same
// table in DuckDB with range(), and runs each query on both, interleaved,
// --runs times; it prints the medians, rows/s, Inlet's CPU time and peak
// heap, and DuckDB's time over Inlet's. --explain prints Inlet's plan of
// each query first; --cpuprofile profiles the Inlet runs.
//
// What must stay true: every answer is checked (Inlet against the
// generator's closed form where there is one, and against DuckDB), and a
// wrong answer exits non-zero. DuckDB runs in node through
// @duckdb/node-api, installed into the user cache directory as
// cmd/lakebench does; without node or npm only Inlet's figures print.
package main
