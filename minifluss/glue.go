package minifluss

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/inlet-db/inlet/typemap"
)

// checkKeyTypes rejects tables whose partition or key columns have types
// Fluss does not allow there (spec §8, §4.5).
func (c *Cluster) checkKeyTypes(t *table) error {
	for _, k := range t.Desc.PartitionKey {
		ty := t.types[t.Desc.columnIndex(k)]
		switch ty.Root {
		case typemap.RootDecimal, typemap.RootArray, typemap.RootMap, typemap.RootRow:
			return ferr(codeInvalidTable, "table %s: partition key %q has type %s, which cannot be a partition key", t.path(), k, ty.Root)
		}
	}
	for _, list := range [][]string{t.Desc.Schema.PrimaryKey, t.Desc.BucketKey} {
		for _, k := range list {
			ty := t.types[t.Desc.columnIndex(k)]
			switch ty.Root {
			case typemap.RootArray, typemap.RootMap, typemap.RootRow:
				return ferr(codeInvalidTable, "table %s: key column %q has type %s, which cannot be a key", t.path(), k, ty.Root)
			}
		}
	}
	for _, k := range t.Desc.Schema.PrimaryKey {
		if t.types[t.Desc.columnIndex(k)].Nullable {
			// Fluss forces primary-key columns NOT NULL.
			i := t.Desc.columnIndex(k)
			t.types[i] = t.types[i].NotNull()
			raw, err := t.types[i].MarshalJSON()
			if err != nil {
				return err
			}
			t.Desc.Schema.Columns[i].DataType = raw
		}
	}
	return nil
}

func crcOffset(magic byte) int {
	if magic == 2 {
		return 25
	}
	return 21
}

// validateProduced checks a ProduceLog payload: whole batches of a known
// magic, valid CRCs, the table's schema id.
func (c *Cluster) validateProduced(t *table, recs []byte) error {
	hs, err := splitBatches(recs)
	if err != nil {
		return err
	}
	if len(hs) == 0 {
		return fmt.Errorf("no batches in the request")
	}
	pos := 0
	for i, h := range hs {
		b := recs[pos : pos+h.size]
		q := crcOffset(h.magic)
		want := binary.LittleEndian.Uint32(b[q:])
		if got := crc32.Checksum(b[q+4:], crc32.MakeTable(crc32.Castagnoli)); got != want {
			return fmt.Errorf("batch %d at byte %d: crc %#08x does not match computed %#08x", i, pos, want, got)
		}
		// A batch of an older schema id (a writer from before ALTER TABLE)
		// is stored as it is: readers decode it by its id.
		if sid := int16(binary.LittleEndian.Uint16(b[q+4:])); int32(sid) != t.SchemaID && t.Schemas[int32(sid)] == nil {
			return fmt.Errorf("batch %d at byte %d: schema id %d, table schema id is %d", i, pos, sid, t.SchemaID)
		}
		pos += h.size
	}
	return nil
}

// checkProjection validates FetchLog projected_fields (spec §2.6): non-empty,
// strictly ascending, in range. Projection applies only to ARROW tables; for
// the others it returns nil (fetch whole rows).
func checkProjection(t *table, fields []int32) ([]int32, *Error) {
	if len(fields) == 0 {
		return nil, ferr(codeInvalidColumnProj, "%s: projection is enabled but projected_fields is empty", t.path())
	}
	for i, f := range fields {
		if f < 0 || int(f) >= len(t.Desc.Schema.Columns) {
			return nil, ferr(codeInvalidColumnProj, "%s: projected field %d is out of bound (%d columns)", t.path(), f, len(t.Desc.Schema.Columns))
		}
		if i > 0 && f <= fields[i-1] {
			return nil, ferr(codeInvalidColumnProj, "%s: projected fields %v must be strictly ascending", t.path(), fields)
		}
	}
	if t.logFormat() != "ARROW" {
		return nil, nil
	}
	return fields, nil
}
