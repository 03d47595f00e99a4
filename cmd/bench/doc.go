// Command bench measures Inlet's Fluss read paths on a generated dataset:
//
//	go run ./cmd/bench [--rows N] [--tail-pct P] [--buckets B] [--dir DIR] [--runs R]
//
// It starts an emulated Fluss cluster (minifluss) whose lake is a Paimon
// warehouse at DIR/lake, writes a log table and a primary-key table of
// --rows rows each in bounded batches, tiers both into the lake, freezes
// tiering and writes a tail (--tail-pct of the keys updated and a few
// deleted in the PK table, the same share of new rows appended to the log
// table). Then it starts a BE (in process, through dispatch) and the FE,
// creates a fluss catalog over the emulator and times queries the way a
// user would run them, through go-sql-driver/mysql: Fluss-only, $lake and
// union reads, a full-row streaming read, and EXPLAIN (planning) latency;
// and the same full-row union read through the FE's Arrow Flight SQL port
// with arrow-go's client (issue 27), whose answer must equal the MySQL
// one.
//
// Beside Inlet, DuckDB (npm @duckdb/node-api, installed into the user cache
// directory as cmd/lakebench does) reads the same lake Parquet files: for
// each $lake and union read of both tables, right after Inlet's run, it
// runs count(*), sum(id), sum(v) over read_parquet of the lake table's
// latest snapshot files (for the PK table merging by key itself: the
// highest _SEQUENCE_NUMBER wins, a winning -U/-D drops the key), and the
// report prints DuckDB/Inlet per query. DuckDB's answer must equal the
// lake's closed form and Inlet's $lake answer of the same run. Without
// node/npm DuckDB is skipped with a note, except under CI=true, where the
// run fails.
//
// What must stay true:
//   - The flags --rows, --tail-pct, --buckets and --dir are a contract:
//     scripts outside the repository pass them. Add flags; never rename.
//   - Every answer is checked: union reads must equal Fluss-only reads and
//     both must equal the closed forms derived from the generator's
//     definition (not from what was written), and so must DuckDB's; a
//     mismatch is printed as an ERROR line and the command exits non-zero.
//   - DIR is kept: DIR/lake stays a readable Paimon warehouse for other
//     tools (DuckDB, type=paimon catalogs).
//   - Generation memory is bounded by the batch size, not by --rows (the
//     emulator's own KV state of the PK table aside).
package main
