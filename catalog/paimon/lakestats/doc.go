// Package lakestats gives the optimizer column statistics of a Paimon
// table (catalog.TableStats) from its latest snapshot's manifests, for
// both catalogs over Paimon lakes: the Paimon catalog's tables and the lake
// half of tiered Fluss tables. An Iceberg table's manifests, summarized in
// lake/paimon's terms by lake/iceberg, take the same path (Summarized), so
// the Iceberg catalog and Fluss tables on an Iceberg lake estimate alike.
//
// What must stay true:
//
//  1. Statistics are hints, never answers: bounds may be wider than the
//     live rows (merged-away records, deletion vectors, Iceberg delete files), never narrower,
//     and an NDV the manifests cannot estimate is 0 (unknown), not 1.
//  2. No data file is read; one pass over the manifests (and the
//     statistics file a snapshot may name) per new snapshot,
//     kept in a bounded cache keyed by table path and snapshot id, which
//     name immutable files.
package lakestats
