package record

import (
	"fmt"
	"slices"

	"github.com/inlet-db/inlet/typemap"
)

// TableKeys applies the §4.6 rules to one table: which columns form the
// primary key (physical: partition keys removed) and the bucket key, which
// encoder makes each byte string, and which hash assigns the bucket.
//
//	PK bytes:     lake=hudi → compacted; kv-format-version 1 → lake encoder;
//	              version 2 → lake encoder if bucket key == physical PK,
//	              else compacted (bucket-key prefix = byte prefix of the PK)
//	bucket bytes: the PK bytes when bucket key == physical PK and lake≠hudi,
//	              else the lake encoder over the bucket-key columns
//	bucket:       Bucket(lake, bucket bytes, bucket count)
//
// Log tables without a bucket key have writer-chosen buckets: Bucket then
// returns ErrUnsupported. A TableKeys is immutable and safe to share.
type TableKeys struct {
	lake      LakeFormat
	buckets   int32
	pk, bk    []int
	pkT, bkT  []typemap.DataType
	pkEncoder LakeFormat
	reusePK   bool
}

// NewTableKeys derives the key rules of a table descriptor.
func NewTableKeys(d *TableDescriptor) (*TableKeys, error) {
	lake, err := d.LakeFormat()
	if err != nil {
		return nil, err
	}
	k := &TableKeys{lake: lake, buckets: d.BucketCount()}
	idx := func(names []string, what string) ([]int, []typemap.DataType, error) {
		var is []int
		var ts []typemap.DataType
		for _, n := range names {
			i := d.Schema.ColumnIndex(n)
			if i < 0 {
				return nil, nil, fmt.Errorf("%w: %s column %q not in the schema", ErrCorrupt, what, n)
			}
			is = append(is, i)
			ts = append(ts, d.Schema.Columns[i].Type)
		}
		return is, ts, nil
	}
	physPK := d.PhysicalPrimaryKey()
	bucketKeys := d.BucketKeys()
	if k.bk, k.bkT, err = idx(bucketKeys, "bucket key"); err != nil {
		return nil, err
	}
	if d.HasPrimaryKey() {
		if k.pk, k.pkT, err = idx(physPK, "primary key"); err != nil {
			return nil, err
		}
		version, err := d.KvFormatVersion()
		if err != nil {
			return nil, err
		}
		sameKeys := slices.Equal(bucketKeys, physPK)
		switch {
		case lake == LakeHudi:
			k.pkEncoder = LakeNone
		case version == 1:
			k.pkEncoder = lake
		case sameKeys:
			k.pkEncoder = lake
		default:
			k.pkEncoder = LakeNone
		}
		k.reusePK = sameKeys && lake != LakeHudi
	}
	return k, nil
}

// Lake is the table's lake format (decides the bucket hash).
func (k *TableKeys) Lake() LakeFormat { return k.lake }

// PrimaryKeyColumns are the row positions of the physical primary key.
func (k *TableKeys) PrimaryKeyColumns() []int { return k.pk }

// BucketKeyColumns are the row positions of the bucket key.
func (k *TableKeys) BucketKeyColumns() []int { return k.bk }

// PrimaryKeyEncoder is the lake format whose encoder makes PK bytes
// (LakeNone = CompactedKeyEncoder).
func (k *TableKeys) PrimaryKeyEncoder() LakeFormat { return k.pkEncoder }

func pick(row []any, cols []int) ([]any, error) {
	out := make([]any, len(cols))
	for i, c := range cols {
		if c >= len(row) {
			return nil, fmt.Errorf("%w: row of %d values lacks key column %d", ErrInvalid, len(row), c)
		}
		out[i] = row[c]
	}
	return out, nil
}

// PrimaryKey encodes the primary-key bytes of a full table row (the RocksDB
// key, the Lookup key, the PutKv key).
func (k *TableKeys) PrimaryKey(dst []byte, row []any) ([]byte, error) {
	if len(k.pk) == 0 {
		return dst, fmt.Errorf("%w: the table has no primary key", ErrInvalid)
	}
	vals, err := pick(row, k.pk)
	if err != nil {
		return dst, err
	}
	return EncodeKey(dst, k.pkEncoder, k.pkT, vals)
}

// BucketKey encodes the bucket-key bytes of a full table row.
func (k *TableKeys) BucketKey(dst []byte, row []any) ([]byte, error) {
	if len(k.bk) == 0 {
		return dst, fmt.Errorf("%w: the table has no bucket key; writers choose buckets", ErrUnsupported)
	}
	if k.reusePK {
		return k.PrimaryKey(dst, row)
	}
	vals, err := pick(row, k.bk)
	if err != nil {
		return dst, err
	}
	return EncodeKey(dst, k.lake, k.bkT, vals)
}

// Bucket is the bucket of a full table row.
func (k *TableKeys) Bucket(row []any) (int32, error) {
	b, err := k.BucketKey(nil, row)
	if err != nil {
		return 0, err
	}
	return k.BucketOfKey(b)
}

// BucketOfKey is the bucket of already-encoded bucket-key bytes.
func (k *TableKeys) BucketOfKey(bucketKey []byte) (int32, error) {
	if k.buckets < 1 {
		return 0, fmt.Errorf("%w: the table's bucket count is unknown", ErrInvalid)
	}
	return Bucket(k.lake, bucketKey, k.buckets)
}
