package iceberg

import (
	"fmt"

	"github.com/apache/iceberg-go"
)

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

// flussLayout reads where a data file sits in a table Fluss tiered
// (IcebergLakeCatalog's spec: identity fields of the partition keys, then
// bucket(key, N) or identity(__bucket)): its bucket and its partition
// values as Fluss writes partition names. ok is false when the spec has no
// bucket field or a value is not one Fluss writes (then the caller cannot
// bind the file to a Fluss bucket).
func (t *Table) flussLayout(df iceberg.DataFile) (bucket int32, parts []string, ok bool) {
	spec := t.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	if spec == nil {
		return -1, nil, false
	}
	vals := df.Partition()
	bucket, found := -1, false
	for _, f := range spec.Fields() {
		v := vals[f.FieldID]
		src, _ := t.tbl.Schema().FindColumnName(f.SourceID())
		switch f.Transform.(type) {
		case iceberg.BucketTransform:
			n, isInt := v.(int32)
			if !isInt || found {
				return -1, nil, false
			}
			bucket, found = n, true
		case iceberg.IdentityTransform:
			if src == "__bucket" {
				n, isInt := v.(int32)
				if !isInt || found {
					return -1, nil, false
				}
				bucket, found = n, true
				continue
			}
			switch x := v.(type) {
			case string:
				parts = append(parts, x)
			case nil:
				return -1, nil, false
			default:
				parts = append(parts, fmt.Sprint(x))
			}
		default:
			return -1, nil, false
		}
	}
	return bucket, parts, found
}
