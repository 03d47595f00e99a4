// Package fluss is the Fluss catalog: it validates the catalog properties of
// CREATE CATALOG ... PROPERTIES('type'='fluss', ...), maps Fluss databases,
// tables, partitions and types onto the engine's metadata, and exposes the
// `tbl$lake` and `tbl$log` handles. Wire details stay in catalog/fluss/client.
package fluss
