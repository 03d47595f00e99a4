package orc

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Tests of Writer: every supported type, NULLs, pre-1970 instants,
// several stripes, every codec; values and statistics are checked against
// the generated input, computed here independently of the writer.

func writerSchema() *arrow.Schema {
	md := func(kv ...string) arrow.Metadata { return arrow.NewMetadata(kv[0:1], kv[1:2]) }
	return arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: md("paimon.id", "3")},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "vc", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md(MetaTypeHint, "varchar(20)")},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "t", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "ts3", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "ts6", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "ts9", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "ltz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "dec38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "arr", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "row", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
}

// buildRows makes n rows starting at row index off; row r has NULLs in
// column c when (r+c)%7 == 3.
func buildRows(mem memory.Allocator, sc *arrow.Schema, off, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	big38, _ := new(big.Int).SetString("-9999999999999999999999999999.1234567891", 10)
	_ = big38
	for r := off; r < off+n; r++ {
		for c, fb := range b.Fields() {
			if (r+c)%7 == 3 {
				fb.AppendNull()
				continue
			}
			neg := int64(1)
			if r%2 == 1 {
				neg = -1
			}
			switch x := fb.(type) {
			case *array.BooleanBuilder:
				x.Append(r%3 == 0)
			case *array.Int8Builder:
				x.Append(int8(r))
			case *array.Int16Builder:
				x.Append(int16(r * 37))
			case *array.Int32Builder:
				x.Append(int32(r) * 1_000_003 * int32(neg))
			case *array.Int64Builder:
				x.Append(int64(r) * 1_000_000_007_123 * neg)
			case *array.Float32Builder:
				x.Append(float32(r) / 3 * float32(neg))
			case *array.Float64Builder:
				x.Append(float64(r) * 1.5e300 / 1e6 * float64(neg))
			case *array.StringBuilder:
				if c == 7 {
					x.Append(strings.Repeat("é", r%5) + fmt.Sprint(r%100))
				} else {
					x.Append(fmt.Sprintf("v%d", r%1000))
				}
			case *array.BinaryBuilder:
				x.Append([]byte{byte(r), 0, 255, byte(r >> 8)}[:r%5])
			case *array.Date32Builder:
				x.Append(arrow.Date32(int32(r-200) * 97)) // from 1916 on
			case *array.Time32Builder:
				x.Append(arrow.Time32(r * 1001 % 86_400_000))
			case *array.TimestampBuilder:
				// from 1900 across 1970, with sub-unit digits
				switch x.Type().(*arrow.TimestampType).Unit {
				case arrow.Millisecond:
					x.Append(arrow.Timestamp(int64(r-2000)*1_000_000_007 + int64(r%1000)))
				case arrow.Microsecond:
					x.Append(arrow.Timestamp(int64(r-2000)*1_000_000_000_123 + int64(r%997)))
				default:
					x.Append(arrow.Timestamp(int64(r-2000)*1_000_000_000_123_457 + int64(r%999_983)))
				}
			case *array.Decimal128Builder:
				if x.Type().(*arrow.Decimal128Type).Precision == 9 {
					x.Append(decimal128.FromI64(int64(r) * 1234567 % 999_999_999 * neg))
				} else {
					v := new(big.Int).Mul(big.NewInt(int64(r)*neg+1), new(big.Int).Exp(big.NewInt(10), big.NewInt(33), nil))
					x.Append(decimal128.FromBigInt(v.Add(v, big.NewInt(int64(r)))))
				}
			case *array.ListBuilder:
				x.Append(true)
				vb := x.ValueBuilder().(*array.Int32Builder)
				for k := 0; k < r%4; k++ {
					if k == 1 && r%5 == 0 {
						vb.AppendNull()
					} else {
						vb.Append(int32(r*10 + k))
					}
				}
			case *array.MapBuilder:
				x.Append(true)
				kb, ib := x.KeyBuilder().(*array.StringBuilder), x.ItemBuilder().(*array.Int64Builder)
				for k := 0; k < r%3; k++ {
					kb.Append(fmt.Sprintf("k%d", k))
					if k == 0 && r%4 == 0 {
						ib.AppendNull()
					} else {
						ib.Append(int64(r * k))
					}
				}
			case *array.StructBuilder:
				x.Append(true)
				xb, yb := x.FieldBuilder(0).(*array.Int32Builder), x.FieldBuilder(1).(*array.StringBuilder)
				if r%5 == 1 {
					xb.AppendNull()
				} else {
					xb.Append(int32(-r))
				}
				yb.Append(fmt.Sprint("y", r))
			}
		}
	}
	return b.NewRecordBatch()
}

// cell renders a value comparably across the written and the read Arrow
// types: timestamps as epoch nanoseconds, TIME as its int.
func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch x := a.(type) {
	case *array.Timestamp:
		per := map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}
		return fmt.Sprint(int64(x.Value(i)) * per[x.DataType().(*arrow.TimestampType).Unit])
	case *array.Time32:
		return fmt.Sprint(int32(x.Value(i)))
	case *array.Float32:
		return fmt.Sprint(math.Float32bits(x.Value(i)))
	case *array.Float64:
		return fmt.Sprint(math.Float64bits(x.Value(i)))
	case *array.Map:
		lo, hi := x.ValueOffsets(i)
		var parts []string
		for j := lo; j < hi; j++ {
			parts = append(parts, cell(x.Keys(), int(j))+"="+cell(x.Items(), int(j)))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.List:
		lo, hi := x.ValueOffsets(i)
		var parts []string
		for j := lo; j < hi; j++ {
			parts = append(parts, cell(x.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *array.Struct:
		var parts []string
		for f := 0; f < x.NumField(); f++ {
			parts = append(parts, cell(x.Field(f), i))
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	return a.ValueStr(i)
}

func writeFile(t *testing.T, mem memory.Allocator, sc *arrow.Schema, opts WriterOptions, batches, per int) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts.Mem = mem
	w, err := NewWriter(&buf, sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < batches; i++ {
		rec := buildRows(mem, sc, i*per, per)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriterRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		codec   string
		stripe  int64
		block   int
		batches int
		per     int
	}{
		{codec: "zstd", batches: 3, per: 1000},
		{codec: "none", stripe: 20_000, batches: 4, per: 777},
		{codec: "zlib", stripe: 50_000, block: 4096, batches: 2, per: 3000},
		{codec: "snappy", stripe: 30_000, batches: 2, per: 2000},
		{codec: "lz4", stripe: 30_000, block: 1000, batches: 2, per: 2000},
		{codec: "zstd", stripe: 1, batches: 3, per: 5}, // a stripe per batch
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.codec, tc.stripe), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sc := writerSchema()
			b := writeFile(t, mem, sc, WriterOptions{Compression: tc.codec, StripeSize: tc.stripe, BlockSize: tc.block}, tc.batches, tc.per)
			f, err := Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ParseCompression(tc.codec)
			if f.Compression() != want {
				t.Errorf("compression %s, want %s", f.Compression(), want)
			}
			total := tc.batches * tc.per
			if f.NumRows() != int64(total) {
				t.Fatalf("rows %d, want %d", f.NumRows(), total)
			}
			if tc.stripe > 0 && len(f.Stripes()) < 2 {
				t.Errorf("%d stripes with stripe size %d", len(f.Stripes()), tc.stripe)
			}
			if id, ok := f.Schema().Field(3).Metadata.GetValue("paimon.id"); !ok || id != "3" {
				t.Errorf("attribute paimon.id of i32: %q %v", id, ok)
			}
			if k := f.ColumnKind(f.ColumnID("vc")); k != KindVarchar {
				t.Errorf("vc kind %s", k)
			}
			if k := f.ColumnKind(f.ColumnID("ltz")); k != KindTimestampInstant {
				t.Errorf("ltz kind %s", k)
			}
			exp := buildRows(mem, sc, 0, total)
			defer exp.Release()
			rr, err := f.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: 999})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			row := 0
			for rr.Next() {
				rec := rr.RecordBatch()
				for i := 0; i < int(rec.NumRows()); i++ {
					for c := 0; c < int(rec.NumCols()); c++ {
						if g, w := cell(rec.Column(c), i), cell(exp.Column(c), row); g != w {
							t.Fatalf("row %d column %s: got %s, want %s", row, sc.Field(c).Name, g, w)
						}
					}
					row++
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if row != total {
				t.Fatalf("read %d rows, want %d", row, total)
			}
			checkStats(t, f, exp)
		})
	}
}

// checkStats compares the footer statistics with bounds computed here from
// the input batch, and checks that stripe statistics add up to them.
func checkStats(t *testing.T, f *File, exp arrow.RecordBatch) {
	t.Helper()
	fs := f.ColumnStats()
	for c, fl := range exp.Schema().Fields() {
		col := exp.Column(c)
		st := fs[f.ColumnID(fl.Name)]
		nn := uint64(col.Len() - col.NullN())
		if st.NumValues != nn || st.HasNull != (col.NullN() > 0) {
			t.Errorf("%s: values %d hasNull %v, want %d %v", fl.Name, st.NumValues, st.HasNull, nn, col.NullN() > 0)
		}
		var stripeN uint64
		for _, si := range f.Stripes() {
			if si.Stats == nil {
				t.Fatalf("stripe without statistics")
			}
			stripeN += si.Stats[f.ColumnID(fl.Name)].NumValues
		}
		if stripeN != nn {
			t.Errorf("%s: stripe values sum to %d, want %d", fl.Name, stripeN, nn)
		}
		switch a := col.(type) {
		case *array.Int64:
			lo, hi, sum, over := int64(math.MaxInt64), int64(math.MinInt64), int64(0), false
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					v := a.Value(i)
					lo, hi = min(lo, v), max(hi, v)
					s, carry := bitsAdd(sum, v)
					sum, over = s, over || carry
				}
			}
			if st.Int == nil || st.Int.Min != lo || st.Int.Max != hi || st.Int.HasSum == over || (!over && st.Int.Sum != sum) {
				t.Errorf("%s: int stats %+v, want %d..%d sum %d (overflow %v)", fl.Name, st.Int, lo, hi, sum, over)
			}
		case *array.Int32:
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					lo, hi = min(lo, int64(a.Value(i))), max(hi, int64(a.Value(i)))
				}
			}
			if st.Int == nil || st.Int.Min != lo || st.Int.Max != hi {
				t.Errorf("%s: int stats %+v, want %d..%d", fl.Name, st.Int, lo, hi)
			}
		case *array.Date32:
			lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					lo, hi = min(lo, int32(a.Value(i))), max(hi, int32(a.Value(i)))
				}
			}
			if st.Date == nil || st.Date.Min != lo || st.Date.Max != hi {
				t.Errorf("%s: date stats %+v, want %d..%d", fl.Name, st.Date, lo, hi)
			}
		case *array.Float64:
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					lo, hi = min(lo, a.Value(i)), max(hi, a.Value(i))
				}
			}
			if st.Double == nil || st.Double.Min != lo || st.Double.Max != hi {
				t.Errorf("%s: double stats %+v, want %g..%g", fl.Name, st.Double, lo, hi)
			}
		case *array.String:
			var lo, hi string
			var sum int64
			first := true
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					v := a.Value(i)
					sum += int64(len(v))
					if first || v < lo {
						lo = v
					}
					if first || v > hi {
						hi = v
					}
					first = false
				}
			}
			if st.String == nil || st.String.Min != lo || st.String.Max != hi || st.String.Sum != sum {
				t.Errorf("%s: string stats %+v, want %q..%q sum %d", fl.Name, st.String, lo, hi, sum)
			}
		case *array.Timestamp:
			per := map[arrow.TimeUnit]int64{arrow.Millisecond: 1, arrow.Microsecond: 1e3, arrow.Nanosecond: 1e6}[a.DataType().(*arrow.TimestampType).Unit]
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					ms := floorDivTest(int64(a.Value(i)), per)
					lo, hi = min(lo, ms), max(hi, ms)
				}
			}
			if st.Timestamp == nil || !st.Timestamp.HasUTC || st.Timestamp.MinUTC != lo || st.Timestamp.MaxUTC != hi {
				t.Errorf("%s: timestamp stats %+v, want %d..%d ms", fl.Name, st.Timestamp, lo, hi)
			}
		case *array.Decimal128:
			scale := a.DataType().(*arrow.Decimal128Type).Scale
			var lo, hi *big.Rat
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) {
					v := new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
					if lo == nil || v.Cmp(lo) < 0 {
						lo = v
					}
					if hi == nil || v.Cmp(hi) > 0 {
						hi = v
					}
				}
			}
			gotLo, ok1 := new(big.Rat).SetString(st.Decimal.Min)
			gotHi, ok2 := new(big.Rat).SetString(st.Decimal.Max)
			if !ok1 || !ok2 || gotLo.Cmp(lo) != 0 || gotHi.Cmp(hi) != 0 || strings.HasSuffix(st.Decimal.Min, "0") && strings.Contains(st.Decimal.Min, ".") {
				t.Errorf("%s: decimal stats %+v, want %s..%s", fl.Name, st.Decimal, lo.FloatString(int(scale)), hi.FloatString(int(scale)))
			}
		case *array.Boolean:
			var trues uint64
			for i := 0; i < a.Len(); i++ {
				if a.IsValid(i) && a.Value(i) {
					trues++
				}
			}
			if st.Bucket == nil || st.Bucket.TrueCount != trues {
				t.Errorf("%s: bucket stats %+v, want %d true", fl.Name, st.Bucket, trues)
			}
		}
	}
}

func bitsAdd(a, b int64) (int64, bool) {
	s := a + b
	return s, (b > 0 && s < a) || (b < 0 && s > a)
}

func floorDivTest(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// TestWriterRefuses: values ORC cannot hold exactly and bad options are
// errors naming the column, never silently different data.
func TestWriterRefuses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	b.Field(0).(*array.TimestampBuilder).Append(-500) // 1969-12-31 23:59:59.500
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if err == nil || !strings.Contains(err.Error(), "ts") || !strings.Contains(err.Error(), "cannot be stored") {
		t.Errorf("write: %v", err)
	}
	w.Abort()
	if _, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: "brotli"}); err == nil || !strings.Contains(err.Error(), "brotli") {
		t.Errorf("codec: %v", err)
	}
	bad := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint64}}, nil)
	if _, err := NewWriter(&buf, bad, WriterOptions{Mem: mem}); err == nil || !strings.Contains(err.Error(), "column u") {
		t.Errorf("uint64: %v", err)
	}
}

// TestWriterEmpty: a file without rows is a valid ORC file with no stripes.
func TestWriterEmpty(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := writeFile(t, mem, writerSchema(), WriterOptions{}, 0, 0)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 0 || len(f.Stripes()) != 0 || f.Schema().NumFields() != writerSchema().NumFields() {
		t.Errorf("rows %d stripes %d fields %d", f.NumRows(), len(f.Stripes()), f.Schema().NumFields())
	}
}

// TestWriterMemoryBounded: the writer's allocator holds about one stripe
// of encoded streams, however many rows the file gets, and nothing after
// Close.
func TestWriterMemoryBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := writerSchema()
	var buf bytes.Buffer
	const stripe = 64 << 10
	w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, StripeSize: stripe})
	if err != nil {
		t.Fatal(err)
	}
	peak := 0
	for i := 0; i < 100; i++ {
		before := mem.CurrentAlloc() // the writer's buffers
		rec := buildRows(mem, sc, i*500, 500)
		input := mem.CurrentAlloc() - before
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, mem.CurrentAlloc()-input)
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	// 50,000 rows make a file several times larger than the bound.
	if f.NumRows() != 50000 || buf.Len() < 4*256<<10 || len(f.Stripes()) < 10 {
		t.Fatalf("%d rows, %d bytes, %d stripes", f.NumRows(), buf.Len(), len(f.Stripes()))
	}
	if peak > 256<<10 {
		t.Errorf("writer held %d bytes with a %d-byte stripe size", peak, stripe)
	}
	t.Logf("peak %d bytes, file %d bytes, %d stripes", peak, buf.Len(), len(f.Stripes()))
}
