// Package flightsql is the FE's Arrow Flight SQL port (cmd/fe
// --flight-sql-port, Doris's arrow_flight_sql_port): the protocol as
// arrow-go's flight/flightsql server defines it, over the same sessions the
// MySQL port runs (fe/server), so a Flight SQL client sees the same
// statements, privileges, limits, query_timeout, KILL and audit lines.
//
// A client logs in with HTTP basic auth on Handshake, checked against the
// SQL users (and slowed by the shared login guard), and gets a bearer token
// naming its session; every later call must carry it. A session keeps its
// catalog, database and variables between calls as a MySQL connection
// does, runs one statement at a time, and has a connection id (SHOW
// PROCESSLIST, KILL).
//
// What must stay true:
//   - A query's result streams to DoGet as the executor's Arrow batches
//     (server.ArrowWriter): no per-row conversion, nothing buffered; the
//     statement runs inside DoGet, so the client's pace bounds the FE's
//     memory and a client that goes away cancels the statement.
//   - Statements that are not queries (SET, USE, DDL, SHOW, EXPLAIN) run in
//     GetFlightInfo, so their effect does not depend on the client reading
//     the result; their (small) result is kept for one DoGet.
//   - A ticket belongs to the session that made it; another token cannot
//     read it.
//   - With a certificate (cmd/fe --tls-cert) the port is TLS-only, so the
//     basic-auth password never crosses in clear; accounts created REQUIRE
//     SSL log in only then.
//   - A panic while running a statement fails that statement, not the FE.
//   - Errors carry the MySQL errno and SQLSTATE the MySQL port would send,
//     in the message, and a gRPC code by kind (PermissionDenied,
//     InvalidArgument, Canceled, DeadlineExceeded, ...).
//
// Clients tested: arrow-go's flightsql.Client and the ADBC Flight SQL
// driver (apache/arrow-adbc), both against the MySQL driver's values.
//
// BE direct (Doris's arrow_flight_sql "BE direct" mode): when the FE has
// BEs of its own with Flight addresses and a query's whole result is a
// scan (no operator left on the FE, the same schema the FE would send, no
// LIMIT split over BEs), GetFlightInfo returns one endpoint per BE, its
// location and a ticket signed with the cluster secret
// (server.Session.DirectEndpoints); the client reads each part from its
// BE. Privileges are checked and the statement audited when planned; KILL
// and CancelFlightInfo do not reach those streams (query_timeout does, as
// the ticket's expiry). Otherwise the FE serves the result.
//
// Not done: Substrait plans, transactions, bulk ingest.
//
// Concurrency: a Server serves any number of clients; calls of one session
// are serialized by its lock.
package flightsql
