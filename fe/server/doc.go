// Package server is the FE's statement glue: for each statement a
// connection sends, parse (fe/sql) → bind (fe/bind) → build operators
// (exec) → stream the rows to the client (fe/mysqlwire). It also answers
// the utility statements itself: SET, USE, SWITCH, SHOW ..., DESC, EXPLAIN,
// catalog, database and table DDL, INSERT, prepared statements, and a small
// information_schema (schemata, tables, columns) in every catalog. Start
// assembles a whole FE (internal catalog, catalog manager, variables, MySQL
// listener) for cmd/fe and tests.
//
// What must stay true:
//   - Errors get their wire code here, from their kind (catalog, vars, bind,
//     sql sentinels) and the object being resolved — never from message
//     text; the errno table itself lives in fe/mysqlwire.
//   - A SET_VAR hint applies to its statement only.
//   - Results stream: rows are rendered batch by batch as the executor
//     yields them; nothing buffers a whole result.
//   - Secret catalog properties are shown masked and never logged.
//
// Concurrency: a Server is shared by all connections; a Session belongs to
// one connection and runs one statement at a time.
package server
