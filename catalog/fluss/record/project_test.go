package record_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func TestProjectArrowBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := allTypesColumns()
	schema, _ := typemap.ArrowSchema(cols)
	rb := array.NewRecordBuilder(mem, schema)
	fillAllTypes(rb, 23)
	rec := rb.NewRecordBatch()
	rb.Release()
	defer rec.Release()
	positions := []int{1, 8, 16, 17, 18}
	pcols, err := record.ProjectColumns(cols, positions)
	if err != nil {
		t.Fatal(err)
	}
	var want []arrow.Array
	for _, p := range positions {
		want = append(want, rec.Column(p))
	}
	pschema, _ := typemap.ArrowSchema(pcols)
	wantRec := array.NewRecordBatch(pschema, want, rec.NumRows())
	defer wantRec.Release()
	cts := make([]record.ChangeType, 23)
	for i := range cts {
		cts[i] = record.Insert
	}
	for _, comp := range []record.ArrowCompression{record.CompressionNone, record.CompressionZstd} {
		for _, magic := range []int8{0, 1, 2} {
			enc, _ := record.NewArrowEncoder(comp, 0)
			p := record.BatchParams{Magic: magic, BaseOffset: 50, SchemaID: 2, WriterID: -1, BatchSequence: -1}
			if magic > 0 {
				p.Statistics = []byte{9, 9, 9, 9}
			}
			full, err := enc.AppendBatch(nil, p, rec, cts)
			if err != nil {
				t.Fatal(err)
			}
			empty, err := record.AppendLogBatch(nil, record.BatchParams{Magic: magic, BaseOffset: 73, WriterID: -1, BatchSequence: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			enc.Close()
			both := append(append([]byte(nil), full...), empty...)
			out, err := record.ProjectArrowBatches(nil, both, cols, positions)
			if err != nil {
				t.Fatalf("comp %d magic %d: %v", comp, magic, err)
			}
			it := record.ReadBatches(out, record.DecodeOptions{SkipCRC: true})
			if !it.Next() {
				t.Fatalf("no batch: %v", it.Err())
			}
			lb := it.Batch()
			if lb.Header.BaseOffset != 50 || lb.Header.StatisticsLength != 0 || len(lb.Statistics) != 0 || lb.Header.RecordCount != 23 {
				t.Fatalf("projected header %+v", lb.Header)
			}
			d, _ := record.NewArrowDecoder(pcols, mem, record.ArrowOptions{})
			got, ct, err := d.Decode(lb)
			d.Close()
			if err != nil {
				t.Fatalf("comp %d magic %d: decode projected: %v", comp, magic, err)
			}
			if !array.RecordEqual(got, wantRec) || ct.At(0) != record.Insert {
				t.Errorf("comp %d magic %d: projected batch differs", comp, magic)
			}
			got.Release()
			if !it.Next() || !bytes.Equal(it.Batch().Raw, empty) {
				t.Errorf("empty batch not passed through")
			}
			if it.Next() || it.Err() != nil || it.Truncated() {
				t.Errorf("trailing state: %v %v", it.Err(), it.Truncated())
			}
		}
	}
	if _, err := record.ProjectArrowBatch(nil, nil, cols, nil); err == nil {
		t.Error("empty projection accepted")
	}
	if _, err := record.ProjectArrowBatch(nil, nil, cols, []int{99}); err == nil {
		t.Error("out-of-bound projection accepted")
	}
}

func TestReadBatchesTruncated(t *testing.T) {
	b := loadHex(t, "arrow_v0_batch_java091.hex")
	two := append(append([]byte(nil), b...), b...)
	for cut := 0; cut <= len(two); cut++ {
		it := record.ReadBatches(two[:cut], record.DecodeOptions{})
		n := 0
		for it.Next() {
			n++
		}
		if it.Err() != nil {
			t.Fatalf("cut %d: %v", cut, it.Err())
		}
		want := cut / len(b)
		if n != want || it.NextPosition() != want*len(b) {
			t.Fatalf("cut %d: %d batches, position %d", cut, n, it.NextPosition())
		}
		if it.Truncated() != (cut%len(b) != 0) {
			t.Fatalf("cut %d: truncated=%v", cut, it.Truncated())
		}
	}
	bad := append([]byte(nil), b...)
	bad[12] = 7
	it := record.ReadBatches(bad, record.DecodeOptions{})
	if it.Next() || it.Err() == nil {
		t.Fatal("unknown magic not reported")
	}
}
