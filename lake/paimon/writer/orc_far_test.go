package writer_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// TestORCTimestampsFarFromEpoch: a TIMESTAMP(6) ORC lake file holding years
// 1500 and 2500 (beyond int64 nanoseconds) reads back the written
// microseconds. Expected values are hand-derived (Python datetime).
func TestORCTimestampsFarFromEpoch(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	want := []int64{
		-14831769600000000, // 1500-01-01 00:00:00
		16738315200000000,  // 2500-06-01 12:00:00
		-315619199876544,   // 1960-01-01 00:00:00.123456
	}
	path := filepath.Join(t.TempDir(), "db.db", "far")
	s := &paimon.TableSchema{Fields: []paimon.DataField{{ID: 0, Name: "ts", Type: dt(paimon.Timestamp, true, 6, 0)}},
		Options: map[string]string{"bucket": "-1", "file.format": "orc"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewCommit()
	fw, err := c.NewFile(ctx, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := paimon.ArrowSchema(s.Fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	for _, us := range want {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(us))
	}
	rec := b.NewRecordBatch()
	b.Release()
	err = fw.Write(rec, nil)
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}

	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for i := range p.Splits {
		rr, err := p.Open(ctx, &p.Splits[i], mem, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			col := rr.RecordBatch().Column(0).(*array.Timestamp)
			if u := col.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
				t.Fatalf("unit %s", u)
			}
			for r := 0; r < col.Len(); r++ {
				got = append(got, int64(col.Value(r)))
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: got %d µs, want %d µs", i, got[i], want[i])
		}
	}
}
