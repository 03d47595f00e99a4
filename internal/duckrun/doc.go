// Package duckrun runs DuckDB beside Inlet for the benchmarks that compare
// the two on the same data (cmd/lakebench, cmd/tablebench, cmd/bench): a
// node process with @duckdb/node-api, the version pinned in package.json,
// installed once per version into the user cache directory, fed one
// statement at a time so its runs interleave with Inlet's.
//
// What must stay true:
//   - Nothing is installed into the repository (internal/npmcache installs
//     into the user cache, atomically).
//   - A statement's time is DuckDB's own wall time for it, measured in the
//     runner, not the pipe round trip.
//   - INLET_SKIP_DUCKDB set makes Start fail at once (callers then print
//     only Inlet's figures, or fail under CI=true).
package duckrun
