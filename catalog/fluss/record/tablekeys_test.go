package record_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func keysTable(pk, partition, bucket []string, props map[string]string) *record.TableDescriptor {
	return &record.TableDescriptor{
		Schema: record.Schema{Columns: []record.TableColumn{
			{Name: "id", Type: typemap.Int().NotNull(), ID: 0},
			{Name: "k2", Type: typemap.String().NotNull(), ID: 1},
			{Name: "dt", Type: typemap.String().NotNull(), ID: 2},
			{Name: "v", Type: typemap.BigInt(), ID: 3},
		}, PrimaryKey: pk},
		PartitionKeys: partition,
		Distribution:  &record.Distribution{BucketKeys: bucket, BucketCount: 8},
		Properties:    props,
	}
}

func TestTableKeysChoice(t *testing.T) {
	row := []any{int32(42), "abc", "2024", int64(7)}
	compacted := func(types []typemap.DataType, vals ...any) []byte {
		b, err := record.EncodeCompactedKey(nil, types, vals)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	enc := func(f record.LakeFormat, types []typemap.DataType, vals ...any) []byte {
		b, err := record.EncodeKey(nil, f, types, vals)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	intT, strT := typemap.Int().NotNull(), typemap.String().NotNull()
	cases := []struct {
		name      string
		d         *record.TableDescriptor
		pk        []byte
		bucketKey []byte
		lake      record.LakeFormat
	}{
		{"no lake, default bucket key", keysTable([]string{"id", "k2", "dt"}, []string{"dt"}, nil, map[string]string{}),
			compacted([]typemap.DataType{intT, strT}, int32(42), "abc"), compacted([]typemap.DataType{intT, strT}, int32(42), "abc"), record.LakeNone},
		{"paimon v2, bucket == pk", keysTable([]string{"id", "k2"}, nil, []string{"id", "k2"}, map[string]string{"table.datalake.format": "paimon", "table.kv.format-version": "2"}),
			enc(record.LakePaimon, []typemap.DataType{intT, strT}, int32(42), "abc"), enc(record.LakePaimon, []typemap.DataType{intT, strT}, int32(42), "abc"), record.LakePaimon},
		{"paimon v2, bucket prefix", keysTable([]string{"id", "k2"}, nil, []string{"id"}, map[string]string{"table.datalake.format": "paimon", "table.kv.format-version": "2"}),
			compacted([]typemap.DataType{intT, strT}, int32(42), "abc"), enc(record.LakePaimon, []typemap.DataType{intT}, int32(42)), record.LakePaimon},
		{"paimon v1, bucket prefix", keysTable([]string{"id", "k2"}, nil, []string{"id"}, map[string]string{"table.datalake.format": "paimon"}),
			enc(record.LakePaimon, []typemap.DataType{intT, strT}, int32(42), "abc"), enc(record.LakePaimon, []typemap.DataType{intT}, int32(42)), record.LakePaimon},
		{"hudi", keysTable([]string{"id"}, nil, nil, map[string]string{"table.datalake.format": "hudi", "table.kv.format-version": "2"}),
			compacted([]typemap.DataType{intT}, int32(42)), enc(record.LakeHudi, []typemap.DataType{intT}, int32(42)), record.LakeHudi},
		{"log table with bucket key, iceberg", keysTable(nil, nil, []string{"id"}, map[string]string{"table.datalake.format": "iceberg"}),
			nil, enc(record.LakeIceberg, []typemap.DataType{intT}, int32(42)), record.LakeIceberg},
	}
	for _, c := range cases {
		k, err := record.NewTableKeys(c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.pk != nil {
			pk, err := k.PrimaryKey(nil, row)
			if err != nil || !bytes.Equal(pk, c.pk) {
				t.Errorf("%s: pk %x want %x (%v)", c.name, pk, c.pk, err)
			}
		} else if _, err := k.PrimaryKey(nil, row); err == nil {
			t.Errorf("%s: log table produced a primary key", c.name)
		}
		bk, err := k.BucketKey(nil, row)
		if err != nil || !bytes.Equal(bk, c.bucketKey) {
			t.Errorf("%s: bucket key %x want %x (%v)", c.name, bk, c.bucketKey, err)
		}
		want, _ := record.Bucket(c.lake, c.bucketKey, 8)
		if got, err := k.Bucket(row); err != nil || got != want {
			t.Errorf("%s: bucket %d want %d (%v)", c.name, got, want, err)
		}
	}
	k, err := record.NewTableKeys(keysTable(nil, nil, []string{}, map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Bucket(row); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("log table without bucket key: %v", err)
	}
}
