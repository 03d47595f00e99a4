// Package manager keeps the FE's catalogs: the internal catalog (id 0, name
// "internal") and the external catalogs made by CREATE CATALOG, whose
// definitions persist in catalogs.json in the FE meta directory.
//
// What must stay true:
//   - A definition change is written to disk (atomically: temp file, fsync,
//     rename) before it becomes visible; a failed write changes nothing.
//   - Properties are validated by the catalog type before they are stored;
//     an unknown type is refused with the list of known ones.
//   - External catalogs are opened lazily on first use, so a catalog whose
//     remote system is down does not keep the FE from starting; changing its
//     properties, renaming or refreshing closes the open instance.
//   - Secret property values leave the manager only masked (catalog.MaskProperties)
//     and are never logged; the meta file itself is written with mode 0600.
//
// Concurrency: a Manager is safe for concurrent use.
package manager
