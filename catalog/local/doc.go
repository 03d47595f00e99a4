// Package local is the internal catalog: databases and tables whose rows live
// on the FE's local disk as Arrow IPC files, one file per INSERT, listed by a
// JSON manifest.
//
// Layout under the catalog directory:
//
//	manifest.json                 databases, tables, schemas, live files
//	data/<table id>/<seq>.arrow   Arrow IPC file format, one per Append
//
// What must stay true:
//   - A data file is written to a temporary name, fsynced and renamed before
//     the manifest names it; the manifest is replaced atomically (temp file,
//     fsync, rename, fsync of the directory). So after a crash the manifest
//     names only complete files, and an INSERT is either wholly visible or
//     not at all. Files the manifest does not name are removed at Open.
//   - A missing manifest with table data present is an ErrCorrupt error at
//     Open, never an empty catalog: its tables would otherwise all look like
//     orphans and be deleted.
//   - The manifest records each data file's size and CRC-32C; a scan checks
//     both (reading the file once, in bounded pieces) before decoding it, so
//     a damaged file is an ErrCorrupt error naming it, never changed values.
//     Files listed without a checksum (older manifests) are read unchecked.
//   - Scans read the file list as of the moment Scan is called (a snapshot);
//     later appends are not seen by a running scan.
//   - Scans stream: one record batch in memory at a time per scan, allocated
//     from the request's allocator.
//   - Names are case-sensitive (lower_case_table_names = 0), as in Doris.
//
// Concurrency: a Catalog is safe for concurrent use; DDL and appends are
// serialized by one mutex, scans run concurrently with them.
package local
