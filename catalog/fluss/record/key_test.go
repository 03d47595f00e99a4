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

func keyAllTypes(withMap bool) ([]typemap.DataType, []any) {
	ts := record.Timestamp{Millis: 1698235273182}
	types := []typemap.DataType{
		typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(), typemap.Int(), typemap.BigInt(),
		typemap.Float(), typemap.Double(), typemap.Date(), typemap.Time(0), typemap.Binary(20), typemap.Bytes(),
		typemap.Char(2), typemap.String(), typemap.Decimal(5, 2), typemap.Decimal(20, 0),
		typemap.Timestamp(1), typemap.Timestamp(5), typemap.TimestampLTZ(1), typemap.TimestampLTZ(5),
		typemap.Array(typemap.Int()), typemap.Array(typemap.Float().NotNull()), typemap.Array(typemap.Array(typemap.String())),
	}
	vals := []any{
		true, int8(2), int16(10), int32(100), int64(-6101065172474983726),
		float32(13.2), 15.21, int32(19655), int32(34200000), []byte("1234567890"), []byte("20"),
		"1", "hello", decimal128.FromI64(9), decimal128.FromI64(10),
		ts, ts, ts, ts,
		[]any{int32(1), int32(2), int32(3), int32(4), int32(5), int32(-11), nil, int32(444), int32(102234)},
		[]any{float32(0.1), float32(1.1), float32(-0.5), float32(6.6), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)},
		[]any{[]any{"a", nil, "c"}, nil, []any{"hello", "world"}},
	}
	if withMap {
		types = append(types, typemap.Map(typemap.Int(), typemap.String()))
		vals = append(vals, record.Map{Keys: []any{int32(0), int32(1), int32(2)}, Values: []any{nil, "1", "2"}})
	}
	return types, vals
}

func TestCompactedKeyGolden(t *testing.T) {
	for _, withMap := range []bool{false, true} {
		file := "compacted_key_all_types.hex"
		if withMap {
			file = "compacted_key_all_types_with_map.hex"
		}
		want := loadHex(t, file)
		types, vals := keyAllTypes(withMap)
		got, err := record.EncodeKey(nil, record.LakeNone, types, vals)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s\n got %x\nwant %x", file, got, want)
		}
		back, err := record.DecodeCompactedKey(want, types)
		if err != nil {
			t.Fatal(err)
		}
		// BINARY(20) is not padded in the compacted form, so values round-trip.
		if !reflect.DeepEqual(back, vals) {
			t.Errorf("%s: decode\n got %#v\nwant %#v", file, back, vals)
		}
	}
	small := []struct {
		file  string
		types []typemap.DataType
		vals  []any
	}{
		{"compacted_key_int_bigint_int_1_3_2.hex", []typemap.DataType{typemap.Int(), typemap.BigInt(), typemap.Int()}, []any{int32(1), int64(3), int32(2)}},
		{"compacted_key_int_bigint_int_2_5_6.hex", []typemap.DataType{typemap.Int(), typemap.BigInt(), typemap.Int()}, []any{int32(2), int64(5), int32(6)}},
		{"compacted_key_string_a2.hex", []typemap.DataType{typemap.String()}, []any{"a2"}},
	}
	for _, c := range small {
		got, err := record.EncodeCompactedKey(nil, c.types, c.vals)
		if err != nil || !bytes.Equal(got, loadHex(t, c.file)) {
			t.Errorf("%s: got %x %v", c.file, got, err)
		}
	}
	if _, err := record.EncodeCompactedKey(nil, []typemap.DataType{typemap.Int()}, []any{nil}); !errors.Is(err, record.ErrInvalid) {
		t.Errorf("null key: %v", err)
	}
}

type bucketCase struct {
	Function       string    `json:"function"`
	KeyHex         string    `json:"key_hex"`
	NumBuckets     int32     `json:"num_buckets"`
	ExpectedBucket int32     `json:"expected_bucket"`
	HudiStrings    []*string `json:"hudi_string_list"`
}

func lakeOf(t *testing.T, fn string) record.LakeFormat {
	if fn == "fluss" {
		fn = ""
	}
	f, err := record.ParseLakeFormat(fn)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBucketingGolden(t *testing.T) {
	var f struct {
		Cases []bucketCase `json:"cases"`
	}
	loadJSON(t, "bucketing.json", &f)
	if len(f.Cases) != 64 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	for i, c := range f.Cases {
		key, err := hex.DecodeString(c.KeyHex)
		if err != nil {
			t.Fatal(err)
		}
		got, err := record.Bucket(lakeOf(t, c.Function), key, c.NumBuckets)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got != c.ExpectedBucket {
			t.Errorf("case %d %s key %s n=%d: bucket %d want %d", i, c.Function, c.KeyHex, c.NumBuckets, got, c.ExpectedBucket)
		}
		// Hudi key bytes = List<String>.hashCode of the listed strings.
		if c.Function == "hudi" && c.HudiStrings != nil {
			types := make([]typemap.DataType, len(c.HudiStrings))
			vals := make([]any, len(c.HudiStrings))
			for j, s := range c.HudiStrings {
				types[j] = typemap.String()
				if s != nil && !(len(c.HudiStrings) == 1 && *s == "__null__") {
					vals[j] = *s
				}
			}
			kb, err := record.EncodeKey(nil, record.LakeHudi, types, vals)
			if err != nil || hex.EncodeToString(kb) != c.KeyHex {
				t.Errorf("case %d hudi list %v: key %x want %s (%v)", i, c.HudiStrings, kb, c.KeyHex, err)
			}
		}
	}
}

func TestIcebergKeyEncoder(t *testing.T) {
	big, _ := decimal128.FromString("123.45", 10, 2)
	cases := []struct {
		t    typemap.DataType
		v    any
		want string
	}{
		{typemap.Int(), int32(34), "2200000000000000"},
		{typemap.BigInt(), int64(34), "2200000000000000"},
		{typemap.Decimal(4, 2), decimal128.FromI64(1420), "058c"},
		{typemap.Date(), int32(17486), "4e44000000000000"},
		{typemap.Time(0), int32(81068000), "008307e012000000"},
		{typemap.Timestamp(6), record.Timestamp{Millis: 1510871468000}, "00c3262d215e0500"},
		{typemap.Timestamp(6), record.Timestamp{Millis: 1510871468000, NanoOfMilli: 1000}, "01c3262d215e0500"},
		{typemap.String(), "iceberg", "69636562657267"},
		{typemap.Binary(4), []byte{0, 1, 2, 3}, "00010203"},
		{typemap.Bytes(), []byte{0, 1, 2, 3}, "00010203"},
		{typemap.Decimal(10, 2), big, "3039"},
		{typemap.Timestamp(6), record.Timestamp{Millis: 1698235273182, NanoOfMilli: 123456}, "abfb333689080600"},
		{typemap.Time(0), int32(34200000), "00967af607000000"},
	}
	for _, c := range cases {
		got, err := record.EncodeKey(nil, record.LakeIceberg, []typemap.DataType{c.t}, []any{c.v})
		if err != nil || hex.EncodeToString(got) != c.want {
			t.Errorf("%v %v: %x want %s (%v)", c.t, c.v, got, c.want, err)
		}
	}
	for _, bad := range []typemap.DataType{typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(), typemap.TimestampLTZ(3), typemap.Array(typemap.Int())} {
		if _, err := record.EncodeKey(nil, record.LakeIceberg, []typemap.DataType{bad}, []any{int32(1)}); !errors.Is(err, record.ErrUnsupported) && !errors.Is(err, record.ErrInvalid) {
			t.Errorf("%v accepted as Iceberg key: %v", bad, err)
		}
	}
	if _, err := record.EncodeKey(nil, record.LakeIceberg, []typemap.DataType{typemap.Int(), typemap.Int()}, []any{int32(1), int32(2)}); err == nil {
		t.Error("two-column Iceberg key accepted")
	}
}

func TestHudiKeyEncoder(t *testing.T) {
	dec, _ := decimal128.FromString("123.45", 10, 2)
	ts := record.Timestamp{Millis: 1698235273182, NanoOfMilli: 123456}
	cases := []struct {
		types []typemap.DataType
		vals  []any
		want  string
	}{
		{[]typemap.DataType{typemap.Int()}, []any{int32(42)}, "0000069d"},
		{[]typemap.DataType{typemap.BigInt()}, []any{int64(1234567890123456789)}, "572e5819"},
		{[]typemap.DataType{typemap.String()}, []any{"Hello Hudi - Fluss this side!"}, "9661f22b"},
		{[]typemap.DataType{typemap.Decimal(10, 2)}, []any{dec}, "5675efdc"},
		{[]typemap.DataType{typemap.Timestamp(6)}, []any{ts}, "1ec6d1f2"},
		{[]typemap.DataType{typemap.Date()}, []any{int32(19655)}, "02cd3a4d"},
		{[]typemap.DataType{typemap.Int(), typemap.BigInt(), typemap.String(), typemap.Decimal(10, 2)},
			[]any{int32(42), int64(1234567890123456789), "Hello Hudi - Fluss this side!", dec}, "d44c18ee"},
		{[]typemap.DataType{typemap.String()}, []any{nil}, "f0582fa6"},
		{[]typemap.DataType{typemap.Int(), typemap.String()}, []any{int32(12345), "cn-north"}, "90843711"},
		{[]typemap.DataType{typemap.Int(), typemap.String()}, []any{int32(42), nil}, "0000cd03"},
		{[]typemap.DataType{typemap.Boolean()}, []any{true}, "003675ad"},
		{[]typemap.DataType{typemap.Boolean()}, []any{false}, "05cb1942"},
		{[]typemap.DataType{typemap.TinyInt()}, []any{int8(7)}, "00000056"},
		{[]typemap.DataType{typemap.SmallInt()}, []any{int16(12345)}, "02ca0052"},
		{[]typemap.DataType{typemap.Float()}, []any{float32(3.5)}, "0000c559"},
		{[]typemap.DataType{typemap.Time(0)}, []any{int32(12345678)}, "910e00a3"},
		{[]typemap.DataType{typemap.TimestampLTZ(6)}, []any{record.Timestamp{Millis: 1700000000000}}, "b799e16b"},
		{[]typemap.DataType{typemap.String(), typemap.TimestampLTZ(6)}, []any{"acme", record.Timestamp{Millis: 1700000000000}}, "bd1f7313"},
	}
	for _, c := range cases {
		got, err := record.EncodeKey(nil, record.LakeHudi, c.types, c.vals)
		if err != nil || hex.EncodeToString(got) != c.want {
			t.Errorf("%v %v: %x want %s (%v)", c.types, c.vals, got, c.want, err)
		}
	}
	strs := map[float64]string{3.5: "3.5", 100: "100.0", 1e7: "1.0E7", 0.001: "0.001", 1e-4: "1.0E-4", 123456789: "1.23456789E8"}
	for v, want := range strs {
		if got := record.JavaFloatString(v, 64); got != want {
			t.Errorf("JavaFloatString(%v) = %s want %s", v, got, want)
		}
	}
}

func TestPaimonKeyEncoder(t *testing.T) {
	// Layout check by construction: 2 columns → 8 null-bit bytes + 2 slots.
	got, err := record.EncodeKey(nil, record.LakePaimon, []typemap.DataType{typemap.Int(), typemap.String()}, []any{int32(5), "abc"})
	if err != nil {
		t.Fatal(err)
	}
	want := "0000000000000000" + "0500000000000000" + "6162630000000083"
	if hex.EncodeToString(got) != want {
		t.Errorf("got %x want %s", got, want)
	}
	long := "a string longer than 7"
	got, err = record.EncodeKey(nil, record.LakePaimon, []typemap.DataType{typemap.String(), typemap.Timestamp(6)}, []any{long, record.Timestamp{Millis: 3, NanoOfMilli: 7}})
	if err != nil {
		t.Fatal(err)
	}
	// fixed 8+16 = 24; string at 24 (22 bytes, padded to 24); millis at 48.
	if len(got) != 56 || string(got[24:24+len(long)]) != long || got[48] != 3 {
		t.Errorf("paimon var part %x", got)
	}
	if hex.EncodeToString(got[8:16]) != "1600000018000000" || hex.EncodeToString(got[16:24]) != "0700000030000000" {
		t.Errorf("paimon slots %x", got[8:24])
	}
	if len(got)%8 != 0 {
		t.Error("paimon row not 8-aligned")
	}
}
