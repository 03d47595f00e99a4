// Package vars is the session variable registry: Doris names, defaults,
// validation, GLOBAL values and per-session values, and the one-statement
// overlay that a /*+ SET_VAR(k=v) */ hint creates.
//
// What must stay true:
//   - One table (defs.go) describes every variable; SET, SET GLOBAL, SET_VAR,
//     SHOW VARIABLES and SELECT @@x all read it, so they cannot disagree.
//   - Values are stored normalised (booleans "true"/"false", integers in
//     decimal, enums in their canonical spelling); a value that fails
//     validation is never stored, and the error names the variable.
//   - A SET_VAR overlay never changes the session it was made from.
//   - Doris variables that mean nothing here (enable_file_scanner_v2, the
//     planner and cache switches its suites and tools set) are accepted and
//     listed with Doris's defaults, so a Doris script runs; no code reads them.
//   - fluss_union_read_mode is a String whose known spellings are folded: as
//     in Doris, SET takes any value and the planner refuses a bad one when a
//     query reads it, naming the variable.
//
// Concurrency: a Registry is shared by all sessions and safe for concurrent
// use (GLOBAL values are guarded). A Session belongs to one connection.
package vars
