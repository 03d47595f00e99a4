// Command lakebench measures the lake scan path (lake/paimon) against DuckDB
// on the same Parquet files (issue 14):
//
//	go run ./cmd/lakebench [--rows N] [--files F] [--dir DIR] [--runs R] [--threads T] [--gc-floor MiB] [--sql [--flight]]
//
// It writes an append table (id BIGINT, k INT, v DOUBLE, s STRING of 16
// characters, ts TIMESTAMP; ZSTD) with lake/paimon/writer, F files, then runs
// four queries — count(*),sum(v); count(*),sum(id); all five columns
// touched; sum(v) WHERE k < 100 with the predicate pushed into the plan —
// through Inlet's reader (plan the latest snapshot, open every split, sum
// over the Arrow batches with typed loops, T goroutines; with T > 1 the
// plan cuts files into 4 MB slices, as file_split_size does, and each
// goroutine carries its paimon.ScanBuffers from split to split) and
// through DuckDB
// read_parquet (npm @duckdb/node-api, T threads), interleaved, and prints the
// median ms, rows/s, MB/s (compressed file bytes), Inlet's peak heap and the
// DuckDB/Inlet time ratio. When DuckDB cannot be installed it prints only
// Inlet's figures.
//
// With --sql (sql.go) Inlet's side is the whole SQL path: the table is
// written inside a warehouse (DIR/wh_N_F/bench.db/t), an FE with a
// type=paimon catalog over it and a BE behind the dispatcher run in this
// process, and go-sql-driver/mysql sends the same queries as SQL. The
// reader alone runs beside it on the same files in the same run, and its
// time over the SQL path's is printed last: what the SQL path costs.
// --flight puts the BE behind an Arrow Flight server on loopback, reached
// as a BE in its own process (cmd/be) is, so the transport is measured too.
//
// With --lake iceberg (iceberg.go) the same rows are also written as an
// Iceberg table by iceberg-go (DIR/ice_N_F, a Hadoop-catalog warehouse:
// format v2, ZSTD, F data files, one commit); Inlet's side is lake/iceberg
// over it (one split per data file, cut into 2 MB slices with T > 1 as
// the Paimon table is cut into 4 MB ones, a row group shared by rows; the k < 100 filter is applied above
// the reader, whose predicate only prunes), DuckDB reads its data files,
// and the Paimon reader on the Paimon table of the same rows runs beside
// it in every run: the last two columns are its time and its time over
// the Iceberg path's.
//
// The process runs with the Go collector held off below --gc-floor MiB of
// heap (default 256, internal/gcfloor), as the FE and BE run; --gc-floor 0
// measures at plain GOGC.
//
// What must stay true:
//   - Every answer is checked: Inlet's against the closed forms derived from
//     the generator's definition (genValue), and DuckDB's against Inlet's; a
//     mismatch is an ERROR line and a non-zero exit.
//   - Generation memory is bounded by one batch, not by --rows.
//   - The flags are a contract for scripts: add, never rename.
package main
