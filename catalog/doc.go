// Package catalog declares the Catalog, Database and Table interfaces every
// catalog type (internal, fluss, paimon) implements, and helpers that validate
// catalog properties. It holds no implementation: the FE binds names through
// these interfaces and never sees a catalog's wire or file details.
//
// What must stay true:
//   - A Table's Schema is known without reading data, so an empty result still
//     describes its columns; Scan returns a stream (array.RecordReader) whose
//     schema equals the projected Schema, and never materialises the table.
//   - Extra powers (writing, partitions, EXPLAIN lines, refresh, DDL) are
//     separate interfaces found by type assertion; a catalog that lacks one
//     gets a clear "not supported" error from the caller, never a silent no-op.
//   - Catalog types are registered in a Registry the process builds and passes
//     in; there is no package-level registry filled from init.
//   - Secret property values (names containing password, secret, key, token)
//     leave a catalog only through MaskProperties.
//
// Concurrency: Catalog, Database and Table values are shared by all sessions
// and must be safe for concurrent use; a RecordReader belongs to one goroutine.
package catalog
