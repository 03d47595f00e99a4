// Package paimon reads and writes Apache Paimon tables natively: schemas,
// snapshots, Avro and ORC manifests, split planning on a pinned snapshot,
// Parquet and ORC data files, merge-on-read for primary-key tables and
// deletion vectors. It knows nothing about Fluss.

package paimon
