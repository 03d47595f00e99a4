// Package flussapi holds the numbers of the Fluss 1.0 RPC protocol that are
// not protobuf messages: API keys, response frame types, server types and
// error codes (shared/spec/fluss-protocol.md §1.1, §1.3, §1.7). It is a leaf
// shared by the wire client and the emulator; the framing code itself lives
// with each of them.
//
// What must stay true: every constant equals the number Fluss 1.0 puts on the
// wire, and ErrorName knows every code of the spec's table. Nothing here does
// I/O or holds state.
package flussapi
