package minifluss

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// The Java-written COMPACTED log batch is accepted into a COMPACTED log table
// and served back with only base offset and commit timestamp changed; its
// one +U row decodes to the fixture's values.
func TestJavaCompactedBatchRoundTrip(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	ctx := context.Background()
	c.CreateDatabase(ctx, "fx")
	nested := typemap.Row(typemap.NewField("number", typemap.Int()), typemap.NewField("label", typemap.String()))
	cols := []Column{{Name: "number", Type: typemap.Int()}, {Name: "name", Type: typemap.String()},
		{Name: "values", Type: typemap.Array(typemap.Int())}, {Name: "nested", Type: nested}}
	if _, err := c.CreateTable(ctx, TableSpec{Database: "fx", Name: "compacted", Buckets: 1, SchemaID: 9, Columns: cols,
		Properties: map[string]string{"table.log.format": "COMPACTED"}}); err != nil {
		t.Fatal(err)
	}
	batch := loadHex(t, "compacted_log_batch_java091.hex")
	for i := 0; i < 2; i++ {
		if base, err := c.AppendBatches(ctx, "fx", "compacted", "", 0, batch); err != nil || base != int64(i) {
			t.Fatalf("append %d: base %d, %v", i, base, err)
		}
	}
	info, _ := c.Table("fx", "compacted")
	got := fetchAll(t, c, info.ID, nil, 0, nil)
	if len(got) != 2*len(batch) || binary.LittleEndian.Uint64(got[len(batch):]) != 1 || string(got[21:len(batch)]) != string(batch[21:]) {
		t.Fatalf("served bytes differ beyond offset/timestamp")
	}
	it := record.ReadBatches(got, record.DecodeOptions{})
	n := 0
	for it.Next() {
		err := record.ForEachRowRecord(it.Batch(), func(i int, ct record.ChangeType, row []byte) error {
			vals, err := record.DecodeCompactedRow(row, []typemap.DataType{cols[0].Type, cols[1].Type, cols[2].Type, cols[3].Type})
			if err != nil {
				return err
			}
			if ct != record.UpdateAfter || vals[0] != int32(42) || vals[1] != "fluss" {
				t.Errorf("record %d: %v %v", i, ct, vals)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if it.Err() != nil || n != 2 {
		t.Fatalf("%d records, %v", n, it.Err())
	}
	// a batch whose CRC is broken is refused, naming the problem
	bad := append([]byte(nil), batch...)
	bad[len(bad)-1] ^= 0xff
	if _, err := c.AppendBatches(ctx, "fx", "compacted", "", 0, bad); err == nil {
		t.Fatal("corrupt batch accepted")
	}
}
