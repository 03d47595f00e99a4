// Command tpchbench runs TPC-H on Inlet's internal tables and checks every
// answer against DuckDB on the same rows:
//
//	go run ./cmd/tpchbench [--sf 1] [--dir DIR] [--runs 3] [--threads 2] [--queries 1-22] [--timeout 300s] [--fe-bin PATH] [--explain DIR]
//
// It generates the eight tables at scale factor --sf with internal/tpch
// (kept in DIR/sf<sf>/ and reused), starts the FE binary (--fe-bin, or one
// built from ./cmd/fe) with an empty metadata directory, creates the tables
// and loads them through Stream Load as a user would (HTTP PUT to the FE,
// followed to its BE) and runs ANALYZE TABLE on each (counted in the load
// time), and loads the same files into DuckDB (npm
// @duckdb/node-api, internal/duckrun) with --threads threads. Then, query by
// query, it runs Inlet (through go-sql-driver) and DuckDB in turn --runs
// times, compares the first answers (internal/tpch.Compare) and prints per
// query the medians, DuckDB/Inlet, the geometric mean over the queries
// answered correctly, and the FE process's peak RSS (VmHWM).
//
// --explain DIR writes each query's EXPLAIN VERBOSE to DIR/qNN.txt first.
//
// Inlet's time is the client's wall time including the transfer of the
// result; DuckDB's is its own statement time inside the runner.
//
// What must stay true:
//   - Every answer is checked; a wrong answer, an error or a timeout is
//     printed as such, excluded from the geometric mean, and makes the
//     command exit non-zero.
//   - The flags are a contract for scripts: add flags, never rename.
package main
