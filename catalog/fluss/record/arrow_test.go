package record_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

var goldenArrowCols = []typemap.Column{{Name: "id", Type: typemap.Int()}, {Name: "value", Type: typemap.String()}}

func TestArrowGoldenDecode(t *testing.T) {
	b := loadHex(t, "arrow_v0_batch_java091.hex")
	lb, err := record.DecodeLogBatch(b, record.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := lb.Header
	want := record.BatchHeader{BaseOffset: 0, Length: 294, Magic: 0, CRC: 0xbb708502, SchemaID: 9, LastOffsetDelta: 1,
		WriterID: 7, BatchSequence: 13, RecordCount: 2, LeaderEpoch: -1}
	if h != want {
		t.Fatalf("header %+v\nwant %+v", h, want)
	}
	if h.AppendOnly() || h.NextOffset() != 2 {
		t.Fatalf("append-only %v next %d", h.AppendOnly(), h.NextOffset())
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d, err := record.NewArrowDecoder(goldenArrowCols, mem, record.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rec, ct, err := d.Decode(&lb)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got := ct.Slice(); len(got) != 2 || got[0] != record.Insert || got[1] != record.Delete {
		t.Fatalf("change types %v", got)
	}
	ids := rec.Column(0).(*array.Int32)
	vals := rec.Column(1).(*array.String)
	if rec.NumRows() != 2 || ids.Value(0) != 1 || ids.Value(1) != 2 || vals.Value(0) != "one" || vals.Value(1) != "two" {
		t.Fatalf("rows %v", rec)
	}

	// Encoding the same inputs must give the Java bytes.
	enc, err := record.NewArrowEncoder(record.CompressionNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	out, err := enc.AppendBatch(nil, record.BatchParams{Magic: 0, SchemaID: 9, WriterID: 7, BatchSequence: 13}, rec, []record.ChangeType{record.Insert, record.Delete})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, b) {
		t.Fatalf("encoded batch differs from Java bytes\n got %s\nwant %s", hex.EncodeToString(out), hex.EncodeToString(b))
	}
}

func TestCRCMismatch(t *testing.T) {
	b := append([]byte(nil), loadHex(t, "arrow_v0_batch_java091.hex")...)
	b[300] ^= 0xff
	if _, err := record.DecodeLogBatch(b, record.DecodeOptions{}); !errors.Is(err, record.ErrCorrupt) {
		t.Fatalf("want ErrCorrupt, got %v", err)
	}
	if _, err := record.DecodeLogBatch(b, record.DecodeOptions{SkipCRC: true}); err != nil {
		t.Fatalf("SkipCRC: %v", err)
	}
	// Base offset and commit timestamp are outside the CRC.
	c := append([]byte(nil), loadHex(t, "arrow_v0_batch_java091.hex")...)
	if err := record.SetBaseOffsetAndTimestamp(c, 1000, 1700000000000); err != nil {
		t.Fatal(err)
	}
	lb, err := record.DecodeLogBatch(c, record.DecodeOptions{})
	if err != nil || lb.Header.BaseOffset != 1000 || lb.Header.CommitTimestamp != 1700000000000 {
		t.Fatalf("stamped batch: %+v %v", lb.Header, err)
	}
}

// crc32cRef is a bitwise CRC-32C (reflected polynomial 0x82F63B78, init
// and final xor 0xFFFFFFFF) written from the algorithm's definition, so it
// shares no table or library call with the code under test.
func crc32cRef(b []byte) uint32 {
	crc := ^uint32(0)
	for _, x := range b {
		crc ^= uint32(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

func parseHex32(t *testing.T, s string) uint32 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		t.Fatalf("fixture value %q: %v", s, err)
	}
	return uint32(v)
}

// TestCRC32CCheckValue pins the batch CRC to CRC-32C from outside the code:
// the reference CRC must give vectors.json's crc32c_check value, then the
// product's CRC must agree with it on synthetic batches of every magic and
// with the CRCs Java stored in the fixture batches.
func TestCRC32CCheckValue(t *testing.T) {
	var v struct {
		Check struct {
			Input string `json:"input_ascii"`
			CRC   string `json:"crc32c"`
		} `json:"crc32c_check"`
		Files map[string]struct {
			CRC struct {
				Stored string `json:"stored"`
				Covers string `json:"covers"`
			} `json:"crc"`
		} `json:"files"`
	}
	loadJSON(t, "vectors.json", &v)
	if v.Check.Input == "" || v.Check.CRC == "" {
		t.Fatal("vectors.json has no crc32c_check")
	}
	if got, want := crc32cRef([]byte(v.Check.Input)), parseHex32(t, v.Check.CRC); got != want {
		t.Fatalf("reference crc32c(%q) = %#x, vectors.json says %#x", v.Check.Input, got, want)
	}
	// Synthetic batches with records, for each header layout.
	for _, magic := range []int8{record.MagicV0, record.MagicV1, record.MagicV2} {
		p := record.BatchParams{Magic: magic, BaseOffset: 7, SchemaID: 2, WriterID: -1, BatchSequence: -1}
		if magic != record.MagicV0 {
			p.Statistics = []byte{9, 8, 7}
		}
		b, err := record.AppendLogBatch(nil, p, []byte(v.Check.Input))
		if err != nil {
			t.Fatal(err)
		}
		crcAt := 21
		if magic == record.MagicV2 {
			crcAt = 25
		}
		want := crc32cRef(b[crcAt+4:])
		got, err := record.ComputeCRC(b)
		if err != nil || got != want {
			t.Errorf("magic %d: ComputeCRC = %#x (%v), CRC-32C of bytes [%d, %d) = %#x", magic, got, err, crcAt+4, len(b), want)
		}
		if stored := binary.LittleEndian.Uint32(b[crcAt:]); stored != want {
			t.Errorf("magic %d: AppendLogBatch stored CRC %#x, want %#x", magic, stored, want)
		}
	}
	// Java-written log batches: ComputeCRC must reproduce what Java stored.
	for _, name := range []string{"arrow_v0_batch_java091.hex", "compacted_log_batch_java091.hex"} {
		f, ok := v.Files[name]
		if !ok || f.CRC.Stored == "" {
			t.Fatalf("vectors.json has no crc for %s", name)
		}
		want := parseHex32(t, f.CRC.Stored)
		b := loadHex(t, name)
		got, err := record.ComputeCRC(b)
		if err != nil || got != want {
			t.Errorf("%s: ComputeCRC = %#x (%v), Java stored %#x (covers %s)", name, got, err, want, f.CRC.Covers)
		}
		if ref := crc32cRef(b[25:]); ref != want {
			t.Errorf("%s: reference CRC-32C over [25, end) = %#x, Java stored %#x", name, ref, want)
		}
	}
}

func roundTripArrow(t *testing.T, cols []typemap.Column, comp record.ArrowCompression, build func(b *array.RecordBuilder), changeTypes []record.ChangeType) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema, err := typemap.ArrowSchema(cols)
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(mem, schema)
	build(rb)
	rec := rb.NewRecordBatch()
	rb.Release()
	defer rec.Release()
	enc, err := record.NewArrowEncoder(comp, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	for _, magic := range []int8{record.MagicV0, record.MagicV1, record.MagicV2} {
		p := record.BatchParams{Magic: magic, BaseOffset: 100, SchemaID: 3, WriterID: -1, BatchSequence: -1, LeaderEpoch: 5}
		if magic != 0 {
			p.Statistics = []byte{1, 2, 3}
		}
		out, err := enc.AppendBatch(nil, p, rec, changeTypes)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := record.DecodeLogBatch(out, record.DecodeOptions{})
		if err != nil {
			t.Fatalf("magic %d: %v", magic, err)
		}
		if lb.Header.Magic != magic || lb.Header.BaseOffset != 100 || int64(lb.Header.RecordCount) != rec.NumRows() {
			t.Fatalf("header %+v", lb.Header)
		}
		if magic == record.MagicV2 && lb.Header.LeaderEpoch != 5 {
			t.Fatalf("leader epoch %d", lb.Header.LeaderEpoch)
		}
		if magic != 0 && !bytes.Equal(lb.Statistics, []byte{1, 2, 3}) {
			t.Fatalf("statistics %v", lb.Statistics)
		}
		d, err := record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, ct, err := d.Decode(&lb)
		d.Close()
		if err != nil {
			t.Fatalf("magic %d comp %d: %v", magic, comp, err)
		}
		if !array.RecordEqual(got, rec) {
			t.Errorf("magic %d comp %d: round trip\n got %v\nwant %v", magic, comp, got, rec)
		}
		if changeTypes == nil {
			if !ct.AppendOnlyBatch() || ct.Len() != int(rec.NumRows()) {
				t.Errorf("append-only change types %v", ct)
			}
		} else {
			for i, c := range changeTypes {
				if ct.At(i) != c {
					t.Errorf("change type %d: %v want %v", i, ct.At(i), c)
				}
			}
		}
		got.Release()
	}
}

func allTypesColumns() []typemap.Column {
	return []typemap.Column{
		{Name: "b", Type: typemap.Boolean()},
		{Name: "i8", Type: typemap.TinyInt()},
		{Name: "i16", Type: typemap.SmallInt()},
		{Name: "i32", Type: typemap.Int().NotNull()},
		{Name: "i64", Type: typemap.BigInt()},
		{Name: "f32", Type: typemap.Float()},
		{Name: "f64", Type: typemap.Double()},
		{Name: "c", Type: typemap.Char(3)},
		{Name: "s", Type: typemap.String()},
		{Name: "bin", Type: typemap.Binary(2)},
		{Name: "bytes", Type: typemap.Bytes()},
		{Name: "dec", Type: typemap.Decimal(20, 2)},
		{Name: "d", Type: typemap.Date()},
		{Name: "t", Type: typemap.Time(3)},
		{Name: "ts", Type: typemap.Timestamp(6)},
		{Name: "ltz", Type: typemap.TimestampLTZ(3)},
		{Name: "arr", Type: typemap.Array(typemap.String())},
		{Name: "m", Type: typemap.Map(typemap.Int(), typemap.String())},
		{Name: "row", Type: typemap.Row(typemap.NewField("x", typemap.Int()), typemap.NewField("y", typemap.Array(typemap.BigInt())))},
	}
}

func TestArrowRoundTripAllTypes(t *testing.T) {
	cols := allTypesColumns()
	for _, comp := range []record.ArrowCompression{record.CompressionNone, record.CompressionZstd, record.CompressionLZ4Frame} {
		roundTripArrow(t, cols, comp, func(b *array.RecordBuilder) { fillAllTypes(b, 37) }, nil)
		cts := make([]record.ChangeType, 37)
		for i := range cts {
			cts[i] = record.ChangeType(1 + i%4)
		}
		roundTripArrow(t, cols, comp, func(b *array.RecordBuilder) { fillAllTypes(b, 37) }, cts)
		roundTripArrow(t, cols, comp, func(b *array.RecordBuilder) {}, nil)
	}
}

// TestArrowEncodeSlicedRecord: arrays with a non-zero offset (slices) must
// encode their own values only, with rebased offsets and bitmaps.
func TestArrowEncodeSlicedRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := allTypesColumns()
	schema, _ := typemap.ArrowSchema(cols)
	rb := array.NewRecordBuilder(mem, schema)
	fillAllTypes(rb, 40)
	rec := rb.NewRecordBatch()
	rb.Release()
	defer rec.Release()
	for _, bounds := range [][2]int64{{3, 29}, {9, 10}, {13, 13}, {0, 40}} {
		sl := rec.NewSlice(bounds[0], bounds[1])
		for _, comp := range []record.ArrowCompression{record.CompressionNone, record.CompressionZstd} {
			enc, _ := record.NewArrowEncoder(comp, 0)
			b, err := enc.AppendBatch(nil, record.BatchParams{WriterID: -1, BatchSequence: -1}, sl, nil)
			enc.Close()
			if err != nil {
				t.Fatal(err)
			}
			lb, err := record.DecodeLogBatch(b, record.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := record.NewArrowDecoder(cols, mem, record.ArrowOptions{})
			got, _, err := d.Decode(&lb)
			d.Close()
			if err != nil {
				t.Fatalf("slice %v: %v", bounds, err)
			}
			if !array.RecordEqual(got, sl) {
				t.Errorf("slice %v comp %d: round trip differs\n got %v\nwant %v", bounds, comp, got, sl)
			}
			got.Release()
		}
		sl.Release()
	}
}
