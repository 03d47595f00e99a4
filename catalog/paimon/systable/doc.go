// Package systable serves Paimon metadata tables (tbl$snapshots) from the
// FE: their rows are read from the lake's snapshot files, not by a BE. It
// also answers which columns a time-travel read has (ColumnsAsOf), for
// both catalogs over Paimon lakes.
//
// What must stay true:
//
//  1. A scan lists the snapshots kept when it starts, oldest first, and
//     reads them lazily batch by batch: memory is bounded by the batch size,
//     not by the number of snapshots, and every step checks ctx.
//  2. A snapshot that expires while the scan walks is skipped, never an
//     error and never a made-up row.
//  3. commit_time is the commit instant shown in the session time zone
//     (time_zone), the zone FOR TIME AS OF reads its datetime in, so a
//     commit_time copied into FOR TIME AS OF selects that snapshot.
package systable
