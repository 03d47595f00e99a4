package record_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func nestedCols() []typemap.Column {
	ts := nestedTypes()
	return []typemap.Column{{Name: "number", Type: ts[0]}, {Name: "name", Type: ts[1]}, {Name: "values", Type: ts[2]}, {Name: "nested", Type: ts[3]}}
}

func TestCompactedLogBatchGolden(t *testing.T) {
	want := loadHex(t, "compacted_log_batch_java091.hex")
	lb, err := record.DecodeLogBatch(want, record.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := lb.Header
	if h.Length != 80 || h.CRC != 0xb77b9a70 || h.SchemaID != 9 || h.RecordCount != 1 || h.WriterID != 7 || h.BatchSequence != 13 || h.AppendOnly() || h.LastOffsetDelta != 0 {
		t.Fatalf("header %+v", h)
	}
	n := 0
	err = record.ForEachRowRecord(&lb, func(i int, ct record.ChangeType, row []byte) error {
		n++
		if ct != record.UpdateAfter {
			t.Errorf("change type %v", ct)
		}
		vals, err := record.DecodeCompactedRow(row, nestedTypes())
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(vals, nestedValue()) {
			t.Errorf("row %#v", vals)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("records %d: %v", n, err)
	}
	got, err := record.AppendRowLogBatch(nil, record.BatchParams{Magic: 0, SchemaID: 9, WriterID: 7, BatchSequence: 13},
		record.RowCompacted, nestedTypes(), [][]any{nestedValue()}, []record.ChangeType{record.UpdateAfter})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode\n got %x\nwant %x", got, want)
	}

	// To Arrow.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d, err := record.NewRowDecoder(nestedCols(), record.RowCompacted, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	rec, ct, err := d.DecodeLogBatch(&lb)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumRows() != 1 || ct.At(0) != record.UpdateAfter {
		t.Fatalf("rows %d ct %v", rec.NumRows(), ct.Slice())
	}
	if got := rec.Column(2).(*array.List).String(); got != "[[1 (null) -2]]" {
		t.Errorf("array column %s", got)
	}
	st := rec.Column(3).(*array.Struct)
	if st.Field(0).(*array.Int32).Value(0) != 7 || st.Field(1).(*array.String).Value(0) != "go" {
		t.Errorf("row column %v", st)
	}
}

func TestKvBatchGolden(t *testing.T) {
	want := loadHex(t, "kv_write_batch_java091.hex")
	kb, n, err := record.DecodeKvBatch(want, record.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) || kb.SchemaID != 9 || kb.WriterID != 7 || kb.BatchSequence != 13 || kb.CRC != 0x67f88949 || len(kb.Records) != 2 {
		t.Fatalf("batch %+v size %d", kb, n)
	}
	row := loadHex(t, "compacted_row_nested.hex")
	if !bytes.Equal(kb.Records[0].Key, []byte{0x2a}) || !bytes.Equal(kb.Records[0].Value, row) {
		t.Errorf("record 0 %+v", kb.Records[0])
	}
	if !bytes.Equal(kb.Records[1].Key, []byte{0x2b}) || kb.Records[1].Value != nil {
		t.Errorf("record 1 %+v", kb.Records[1])
	}
	// The key equals the compacted key encoding of INT 42.
	key, err := record.EncodeCompactedKey(nil, []typemap.DataType{typemap.Int().NotNull()}, []any{int32(42)})
	if err != nil || !bytes.Equal(key, kb.Records[0].Key) {
		t.Errorf("key %x %v", key, err)
	}
	got, err := record.AppendKvBatch(nil, 9, 7, 13, []record.KvRecord{{Key: []byte{0x2a}, Value: row}, {Key: []byte{0x2b}}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("encode\n got %x\nwant %x", got, want)
	}
	bad := append([]byte(nil), want...)
	bad[40] ^= 1
	if _, _, err := record.DecodeKvBatch(bad, record.DecodeOptions{}); !errors.Is(err, record.ErrCorrupt) {
		t.Errorf("CRC flip: %v", err)
	}
	for i := range len(want) {
		if _, _, err := record.DecodeKvBatch(want[:i], record.DecodeOptions{}); err == nil {
			t.Errorf("prefix %d accepted", i)
		}
	}
}

func TestValueBatchRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	row := loadHex(t, "compacted_row_nested.hex")
	kv := record.EncodeKvValue(nil, 9, row)
	sid, r, err := record.DecodeKvValue(kv)
	if err != nil || sid != 9 || !bytes.Equal(r, row) {
		t.Fatalf("kv value %d %x %v", sid, r, err)
	}
	b := record.AppendValueBatch(nil, []record.ValueRecord{{SchemaID: 9, Row: row}, {SchemaID: 10, Row: row}})
	recs, err := record.DecodeValueBatch(b)
	if err != nil || len(recs) != 2 || recs[1].SchemaID != 10 || !bytes.Equal(recs[0].Row, row) {
		t.Fatalf("value batch %+v %v", recs, err)
	}
	for i := range len(b) {
		if _, err := record.DecodeValueBatch(b[:i]); err == nil {
			t.Errorf("prefix %d accepted", i)
		}
	}
	d, err := record.NewRowDecoder(append(nestedCols(), typemap.Column{Name: "added", Type: typemap.BigInt()}), record.RowCompacted, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	for _, v := range recs {
		vals, err := record.DecodeCompactedRow(v.Row, nestedTypes())
		if err != nil {
			t.Fatal(err)
		}
		if err := d.AppendValues(vals); err != nil {
			t.Fatal(err)
		}
	}
	rec := d.NewRecordBatch()
	defer rec.Release()
	if rec.NumRows() != 2 || rec.Column(4).NullN() != 2 {
		t.Fatalf("padded rows %v", rec)
	}
}

func TestRowLogBatchAllTypesToArrow(t *testing.T) {
	types := allScalarTypes()
	cols := make([]typemap.Column, len(types))
	for i, ty := range types {
		cols[i] = typemap.Column{Name: string(rune('a' + i)), Type: ty}
	}
	rows := [][]any{allScalarValues(), make([]any, len(types)), allScalarValues()}
	for _, f := range []record.RowFormat{record.RowCompacted, record.RowIndexed} {
		b, err := record.AppendRowLogBatch(nil, record.BatchParams{WriterID: -1, BatchSequence: -1}, f, types, rows, nil)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := record.DecodeLogBatch(b, record.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !lb.Header.AppendOnly() || lb.Header.RecordCount != 3 || lb.Header.LastOffsetDelta != 2 {
			t.Fatalf("header %+v", lb.Header)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		d, err := record.NewRowDecoder(cols, f, mem)
		if err != nil {
			t.Fatal(err)
		}
		rec, ct, err := d.DecodeLogBatch(&lb)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if rec.NumRows() != 3 || ct.At(2) != record.AppendOnly {
			t.Fatalf("rows %d", rec.NumRows())
		}
		// Arrow round trip through the ARROW codec keeps the batch intact.
		enc, _ := record.NewArrowEncoder(record.CompressionZstd, 0)
		ab, err := enc.AppendBatch(nil, record.BatchParams{WriterID: -1, BatchSequence: -1}, rec, nil)
		enc.Close()
		if err != nil {
			t.Fatal(err)
		}
		alb, err := record.DecodeLogBatch(ab, record.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ad, _ := record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
		arec, _, err := ad.Decode(&alb)
		ad.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !array.RecordEqual(arec, rec) {
			t.Errorf("%v: arrow round trip differs", f)
		}
		arec.Release()
		rec.Release()
		d.Release()
		mem.AssertSize(t, 0)
	}
}

func TestArrowValueRoundTrip(t *testing.T) {
	types := allScalarTypes()
	cols := make([]typemap.Column, len(types))
	for i, ty := range types {
		cols[i] = typemap.Column{Name: string(rune('a' + i)), Type: ty}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d, err := record.NewRowDecoder(cols, record.RowCompacted, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	rows := [][]any{allScalarValues(), make([]any, len(types))}
	for _, r := range rows {
		if err := d.AppendValues(r); err != nil {
			t.Fatal(err)
		}
	}
	rec := d.NewRecordBatch()
	defer rec.Release()
	for i, want := range rows {
		got, err := record.RecordRow(rec, types, i)
		if err != nil {
			t.Fatal(err)
		}
		// BINARY(3) is fixed width in Arrow: the 3-byte value survives as is;
		// TIMESTAMP(9)/LTZ(6) keep nanos; TIME(3) keeps ms; LTZ(0) truncates to s.
		if !reflect.DeepEqual(got, want) {
			t.Errorf("row %d:\n got %#v\nwant %#v", i, got, want)
		}
	}
}

func TestAppendValueRecordsSchemaEvolution(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	oldTypes := nestedTypes()
	cols := append(nestedCols(), typemap.Column{Name: "added", Type: typemap.BigInt()})
	newRow, err := record.EncodeCompactedRow(nil, record.Types(cols), append(nestedValue(), int64(5)))
	if err != nil {
		t.Fatal(err)
	}
	recs := []record.ValueRecord{{SchemaID: 1, Row: loadHex(t, "compacted_row_nested.hex")}, {SchemaID: 2, Row: newRow}}
	d, _ := record.NewRowDecoder(cols, record.RowCompacted, mem)
	defer d.Release()
	typesFor := func(id int16) ([]typemap.DataType, error) {
		switch id {
		case 1:
			return oldTypes, nil
		case 2:
			return record.Types(cols), nil
		}
		return nil, errors.New("unknown schema")
	}
	if err := d.AppendValueRecords(recs, typesFor); err != nil {
		t.Fatal(err)
	}
	rec := d.NewRecordBatch()
	defer rec.Release()
	if rec.NumRows() != 2 || !rec.Column(4).IsNull(0) || rec.Column(4).(*array.Int64).Value(1) != 5 {
		t.Fatalf("evolved rows %v", rec)
	}
	if err := d.AppendValueRecords([]record.ValueRecord{{SchemaID: 9, Row: newRow}}, typesFor); err == nil {
		t.Fatal("unknown schema id accepted")
	}
}

func TestRowDecoderDropsPendingRowsOnError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := []typemap.Column{{Name: "a", Type: typemap.Int()}, {Name: "b", Type: typemap.Binary(2)}}
	d, _ := record.NewRowDecoder(cols, record.RowCompacted, mem)
	defer d.Release()
	if err := d.AppendValues([]any{int32(1), []byte{1, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendValues([]any{int32(2), []byte{1, 2, 3}}); err == nil {
		t.Fatal("BINARY(2) accepted 3 bytes")
	}
	if err := d.AppendValues([]any{int32(3), []byte{9}}); err != nil {
		t.Fatal(err)
	}
	rec := d.NewRecordBatch()
	defer rec.Release()
	if rec.NumRows() != 1 || rec.Column(0).(*array.Int32).Value(0) != 3 {
		t.Fatalf("after error: %v", rec)
	}
	if got := rec.Column(1).(*array.FixedSizeBinary).Value(0); !bytes.Equal(got, []byte{9, 0}) {
		t.Fatalf("short BINARY not zero-padded: %x", got)
	}
}

// TestCompactedFastPathMatchesGeneric: AppendRowBytes (direct to builders)
// and DecodeCompactedRow+AppendValues must build identical batches.
func TestCompactedFastPathMatchesGeneric(t *testing.T) {
	types := allScalarTypes()
	cols := make([]typemap.Column, len(types))
	for i, ty := range types {
		cols[i] = typemap.Column{Name: string(rune('a' + i)), Type: ty}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fast, _ := record.NewRowDecoder(cols, record.RowCompacted, mem)
	defer fast.Release()
	slow, _ := record.NewRowDecoder(cols, record.RowCompacted, mem)
	defer slow.Release()
	for _, row := range [][]any{allScalarValues(), make([]any, len(types)), allScalarValues()} {
		b, err := record.EncodeCompactedRow(nil, types, row)
		if err != nil {
			t.Fatal(err)
		}
		if err := fast.AppendRowBytes(b); err != nil {
			t.Fatal(err)
		}
		vals, err := record.DecodeCompactedRow(b, types)
		if err != nil {
			t.Fatal(err)
		}
		if err := slow.AppendValues(vals); err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < len(b); cut += 7 {
			probe, _ := record.NewRowDecoder(cols, record.RowCompacted, mem)
			if err := probe.AppendRowBytes(b[:cut]); err == nil {
				t.Errorf("truncated row of %d bytes accepted", cut)
			}
			probe.Release()
		}
	}
	a, b := fast.NewRecordBatch(), slow.NewRecordBatch()
	defer a.Release()
	defer b.Release()
	if !array.RecordEqual(a, b) {
		t.Fatalf("fast path differs\n%v\n%v", a, b)
	}
}
