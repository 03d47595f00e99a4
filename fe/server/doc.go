// Package server is the FE's statement glue: for each statement a
// connection sends, parse (fe/sql) → bind (fe/bind) → build operators
// (fe/physical) → run them (exec) → stream the rows to the client
// (fe/mysqlwire). It begins and ends each statement, files its query
// profile from the scans' counters the physical planner recorded (SHOW
// QUERY PROFILE, /metrics), and prints EXPLAIN from the operators
// fe/physical built, so EXPLAIN shows what runs. It also answers
// the utility statements itself: SET, USE, SWITCH, SHOW ..., DESC, EXPLAIN,
// catalog, database and table DDL, INSERT (and INSERT OVERWRITE, one
// replacing commit through catalog.Overwriter), prepared statements, and the
// information_schema JDBC drivers read (schemata, tables, views, columns with
// MySQL's sizes, statistics, key_column_usage and table_constraints for
// primary keys, empty routines, parameters and referential_constraints) in
// every catalog, its keyword columns compared case-insensitively as MySQL
// does (bind.CaseFolder). Start
// assembles a whole FE (internal catalog, catalog manager, variables, MySQL
// listener) for cmd/fe and tests.
//
// What must stay true:
//   - Errors get their wire code here, in one table (wireKinds in
//     errors.go), from their kind: the catalog, vars, bind, sql, physical
//     and exec sentinels, and this package's own kinds, attached where the
//     object being resolved is known (a catalog's "not found" becomes an
//     unknown catalog, database or table). Nothing else here names a wire
//     code, and never from message text; the code → errno table lives in
//     fe/mysqlwire.
//   - A SET_VAR hint applies to its statement only.
//   - Results stream: rows are rendered batch by batch as the executor
//     yields them; nothing buffers a whole result. A writer that takes
//     Arrow (ArrowWriter, the Flight SQL port in fe/flightsql) gets the
//     executor's batches themselves, with no rendering.
//   - The web pages and /api/profile(s) (webdata.go, fe/webui) answer
//     logged-in SQL users only (HTTP basic auth), each seeing their own
//     statements unless they hold ADMIN_PRIV; /metrics is open, as in
//     Doris, with Doris's FE metric names (dorismetrics.go).
//   - Secret catalog properties are shown masked and never logged; the text
//     SHOW PROCESSLIST and profiles keep has passwords masked (shownText),
//     and so has every statement of the audit log (audit.go:
//     <meta dir>/fe.audit.log, Doris's layout, rotated by size).
//   - SHOW BACKENDS (backends.go) reports liveness observed now: the
//     dispatcher probes --be BEs as the statement runs and reads
//     registered BEs' heartbeats; nothing is assumed alive.
//   - Privileges (accounts.go, with fe/auth): every statement passes
//     authorize before it runs and every table a query binds passes
//     privResolver; a statement kind authorize does not know needs
//     ADMIN_PRIV, as does SET GLOBAL (Doris's rule). Privilege failures keep Doris's own errno (1142, 1044,
//     1227 …), the one exception to the wireKinds table.
//
// Concurrency: a Server is shared by all connections; a Session belongs to
// one connection and runs one statement at a time.
package server
