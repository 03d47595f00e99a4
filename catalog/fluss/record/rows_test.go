package record_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// nestedTypes is the schema of compacted_row_nested.hex / indexed_row_nested.hex.
func nestedTypes() []typemap.DataType {
	return []typemap.DataType{
		typemap.Int(), typemap.String(), typemap.Array(typemap.Int()),
		typemap.Row(typemap.NewField("number", typemap.Int()), typemap.NewField("label", typemap.String())),
	}
}

func nestedValue() []any {
	return []any{int32(42), "fluss", []any{int32(1), nil, int32(-2)}, []any{int32(7), "go"}}
}

func TestRowGolden(t *testing.T) {
	cases := []struct {
		file   string
		encode func([]byte, []typemap.DataType, []any) ([]byte, error)
		decode func([]byte, []typemap.DataType) ([]any, error)
	}{
		{"compacted_row_nested.hex", record.EncodeCompactedRow, record.DecodeCompactedRow},
		{"indexed_row_nested.hex", record.EncodeIndexedRow, record.DecodeIndexedRow},
	}
	for _, c := range cases {
		want := loadHex(t, c.file)
		got, err := c.encode(nil, nestedTypes(), nestedValue())
		if err != nil {
			t.Fatalf("%s: encode: %v", c.file, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encode\n got %x\nwant %x", c.file, got, want)
		}
		row, err := c.decode(want, nestedTypes())
		if err != nil {
			t.Fatalf("%s: decode: %v", c.file, err)
		}
		if !reflect.DeepEqual(row, nestedValue()) {
			t.Errorf("%s: decode %#v", c.file, row)
		}
		// Every truncation must fail cleanly.
		for i := 0; i < len(want); i++ {
			if _, err := c.decode(want[:i], nestedTypes()); err == nil {
				t.Errorf("%s: decode of %d-byte prefix succeeded", c.file, i)
			}
		}
	}
}

func allScalarTypes() []typemap.DataType {
	return []typemap.DataType{
		typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(), typemap.Int(), typemap.BigInt(),
		typemap.Float(), typemap.Double(), typemap.Char(4), typemap.String(), typemap.Binary(3), typemap.Bytes(),
		typemap.Decimal(10, 2), typemap.Decimal(30, 4), typemap.Date(), typemap.Time(3),
		typemap.Timestamp(3), typemap.Timestamp(9), typemap.TimestampLTZ(0), typemap.TimestampLTZ(6),
		typemap.Array(typemap.String()), typemap.Array(typemap.Decimal(25, 1)), typemap.Array(typemap.Timestamp(6)),
		typemap.Map(typemap.String(), typemap.Array(typemap.Int())),
		typemap.Row(typemap.NewField("a", typemap.Decimal(38, 0)), typemap.NewField("b", typemap.Bytes())),
		typemap.Array(typemap.Row(typemap.NewField("x", typemap.Int()), typemap.NewField("y", typemap.Char(2)))),
	}
}

func allScalarValues() []any {
	big, _ := decimal128.FromString("-12345678901234567890123456.7891", 30, 4)
	huge, _ := decimal128.FromString("99999999999999999999999999999999999999", 38, 0)
	return []any{
		true, int8(-5), int16(-300), int32(-7), int64(math.MinInt64),
		float32(1.5), math.Inf(-1), "ab", "héllo wörld, longer than seven", []byte{1, 0, 2}, []byte{},
		decimal128.FromI64(-12345), big, int32(19655), int32(34200000),
		record.Timestamp{Millis: 1698235273182}, record.Timestamp{Millis: -1, NanoOfMilli: 999999},
		record.Timestamp{Millis: 0}, record.Timestamp{Millis: 1700000000000, NanoOfMilli: 123000},
		[]any{"a", nil, "longer-than-7"}, []any{decimal128.FromI64(-1), nil, decimal128.FromI64(-99)},
		[]any{record.Timestamp{Millis: 5, NanoOfMilli: 7000}, nil},
		record.Map{Keys: []any{"k1", "k2"}, Values: []any{[]any{int32(1)}, nil}},
		[]any{huge, []byte("0123456789")},
		[]any{[]any{int32(1), "xy"}, nil, []any{nil, nil}},
	}
}

func TestRowRoundTripAllTypes(t *testing.T) {
	types := allScalarTypes()
	vals := allScalarValues()
	nulls := make([]any, len(types))
	for name, codec := range map[string]struct {
		enc func([]byte, []typemap.DataType, []any) ([]byte, error)
		dec func([]byte, []typemap.DataType) ([]any, error)
	}{
		"compacted": {record.EncodeCompactedRow, record.DecodeCompactedRow},
		"indexed":   {record.EncodeIndexedRow, record.DecodeIndexedRow},
	} {
		for _, row := range [][]any{vals, nulls} {
			b, err := codec.enc(nil, types, row)
			if err != nil {
				t.Fatalf("%s: encode: %v", name, err)
			}
			got, err := codec.dec(b, types)
			if err != nil {
				t.Fatalf("%s: decode %x: %v", name, b, err)
			}
			if !reflect.DeepEqual(got, row) {
				t.Errorf("%s: round trip\n got %#v\nwant %#v", name, got, row)
			}
		}
	}
}

func TestRowEncodeErrors(t *testing.T) {
	cases := []struct {
		types []typemap.DataType
		row   []any
	}{
		{[]typemap.DataType{typemap.Int()}, []any{int64(1)}},
		{[]typemap.DataType{typemap.Int().NotNull()}, []any{nil}},
		{[]typemap.DataType{typemap.Int()}, []any{}},
		{[]typemap.DataType{typemap.Decimal(3, 0)}, []any{decimal128.FromI64(1000)}},
		{[]typemap.DataType{typemap.Array(typemap.Int().NotNull())}, []any{[]any{nil}}},
		{[]typemap.DataType{typemap.Timestamp(6)}, []any{record.Timestamp{NanoOfMilli: 1_000_000}}},
	}
	for i, c := range cases {
		if _, err := record.EncodeCompactedRow(nil, c.types, c.row); !errors.Is(err, record.ErrInvalid) {
			t.Errorf("case %d compacted: want ErrInvalid, got %v", i, err)
		}
		if _, err := record.EncodeIndexedRow(nil, c.types, c.row); !errors.Is(err, record.ErrInvalid) {
			t.Errorf("case %d indexed: want ErrInvalid, got %v", i, err)
		}
	}
}

func TestDecimalBytesJava(t *testing.T) {
	// BigInteger.toByteArray: minimal two's complement.
	cases := map[int64]string{0: "00", 10: "0a", 127: "7f", 128: "0080", -1: "ff", -128: "80", -129: "ff7f", 1420: "058c", 12345: "3039"}
	for v, want := range cases {
		b, err := record.EncodeCompactedRow(nil, []typemap.DataType{typemap.Decimal(20, 0).NotNull()}, []any{decimal128.FromI64(v)})
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(b[2:]); got != want {
			t.Errorf("%d: got %s want %s", v, got, want)
		}
	}
}
