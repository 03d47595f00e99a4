// Package mysqlwire is the FE's MySQL protocol front end. It hides vitess
// go/mysql behind two small interfaces: a Session (one per connection, made
// by the factory the FE passes in) runs statements, and a ResultWriter takes
// a statement's columns and rows and streams them to the client as they are
// produced. A Session that also implements Preparer gets server-side
// prepared statements (COM_STMT_PREPARE / COM_STMT_EXECUTE).
//
// What must stay true:
//   - Every statement gets its own context, cancelled when the statement ends,
//     on Server.Close, or when Server.Cancel is called for its connection
//     (KILL); a client that goes away stops the statement at its next write.
//   - Errors become MySQL errno/SQLSTATE in exactly one place, the table in
//     errors.go; nothing else in the FE knows errno values.
//   - A panic while running a statement costs only that connection: it is
//     recovered, answered with an error, and the connection is closed.
//   - The root password never appears in logs or errors.
//   - Rows are written as they arrive: a ResultWriter buffers at most
//     flushRows rows (or flushBytes bytes) before handing them to the wire.
//   - The guard (guard.go) sees every packet of every connection, TLS ones
//     included: with Config.TLSConfig it terminates TLS itself below vitess
//     (tls.go). It answers what vitess cannot (COM_STATISTICS, statements
//     vitess' splitter panics on, malformed handshakes).
//   - An account that requires SSL (SSLRequirer) logs in over TLS only; the
//     refusal is the same 1045 as a wrong password.
//
// Concurrency: calls on one connection are serialized (vitess' Handler
// contract); different connections run concurrently. A Session is used by one
// goroutine at a time. ResultWriter values are valid only during the Query
// call that received them.
package mysqlwire
