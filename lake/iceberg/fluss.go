package iceberg

// Fluss's Iceberg tiering (fluss-lake-iceberg's IcebergLakeCommitter)
// commits each round with commit-user=__fluss_lake_tiering in the
// snapshot summary, beside the tiering's own snapshot properties (in Fluss
// 1.0, fluss-offsets: the path of the tiered-offsets file, as for Paimon).
const (
	FlussCommitUserKey   = "commit-user"
	FlussCommitUser      = "__fluss_lake_tiering"
	FlussOffsetsProperty = "fluss-offsets"
)

// FlussTiered is the latest snapshot Fluss's tiering committed (by
// sequence number: Iceberg snapshot ids are not ordered) and its
// fluss-offsets property; ok is false when Fluss committed none.
func (t *Table) FlussTiered() (s Snapshot, offsets string, ok bool) {
	for _, sn := range t.Snapshots() {
		if sn.Summary[FlussCommitUserKey] != FlussCommitUser {
			continue
		}
		if !ok || sn.Sequence > s.Sequence {
			s, ok = sn, true
		}
	}
	return s, s.Summary[FlussOffsetsProperty], ok
}
