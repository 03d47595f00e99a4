// Command tpchbench runs TPC-H on Inlet's internal tables and checks every
// answer against DuckDB on the same rows:
//
//	go run ./cmd/tpchbench [--sf 1] [--dir DIR] [--runs 3] [--threads 2] [--queries 1-22] [--timeout 300s] [--fe-bin PATH] [--explain DIR] [--source internal|paimon|fluss] [--fluss-dir DIR]
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
// answered correctly, and the FE process's peak RSS (VmHWM) with its RSS
// after the last query split into anonymous and mapped-file pages (the FE
// keeps internal tables' data files mapped). The log gives each table's
// Stream Load rate and ANALYZE time.
//
// --explain DIR writes each query's EXPLAIN VERBOSE to DIR/qNN.txt first.
//
// --source says where the tables live (lake.go, fluss.go). internal (the
// default) is the above. paimon writes the same rows once into a Paimon
// warehouse at DIR/sf<sf>/paimon with lake/paimon/writer (append tables,
// Parquet, files of at most 1 Mi rows; reused), creates a type=paimon
// catalog over it and runs the queries there; DuckDB gets a view per
// table over read_parquet of the snapshot's data files, so both read the
// same Parquet files on every query. fluss starts the Fluss emulator
// (minifluss) in this process, appends the rows to lake-enabled log tables
// and tiers them into its Paimon lake, except the last 5% of orders and
// lineitem, which stay in the log; the queries run through a type=fluss
// catalog as union reads, and DuckDB reads the lake's data files UNION ALL
// those tail rows. With --fluss-dir DIR the emulator keeps its state in
// DIR/sf<sf> (data directory, Paimon lake, tail files) and a later run
// reopens a complete one instead of appending and tiering again (about a
// minute at SF 1); fe/server's BenchmarkTPCHFluss profiles the same state
// in one process.
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
