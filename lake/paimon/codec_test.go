package paimon

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
)

func types(t testing.TB, ss ...string) []DataType {
	t.Helper()
	out := make([]DataType, len(ss))
	for i, s := range ss {
		dt, err := ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = dt
	}
	return out
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Worked examples of the format spec (decoded from fixture manifests).
func TestBinaryRowSpecExamples(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hex   string
		types []string
		vals  []any
	}{
		{"partition f1=10", "00000001 0000000000000000 0a00000000000000", []string{"INT"}, []any{int32(10)}},
		{"key Alice,1", "00000002 0000000000000000 416c696365000085 0100000000000000", []string{"STRING", "INT"}, []any{"Alice", int32(1)}},
		{"empty row", "00000000 0000000000000000", nil, []any{}},
		{"timestamp(6) 1us", "00000001 0000000000000000 e803000010000000 0000000000000000", []string{"TIMESTAMP(6)"}, []any{TimestampValue{Millis: 0, NanoOfMilli: 1000}}},
		{"decimal(23,5)", "00000001 0000000000000000 0400000010000000 ff43a15800000000 0000000000000000", []string{"DECIMAL(23, 5)"}, []any{DecimalValue{Unscaled: big.NewInt(-12345000), Scale: 5}}},
		{"long string", "00000001 0000000000000000 0900000010000000 6c6f6e6720746578 7400000000000000", []string{"STRING"}, []any{"long text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := unhex(t, tc.hex)
			ts := types(t, tc.types...)
			got, err := DeserializeRow(b, ts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.vals) {
				t.Fatalf("got %v", got)
			}
			for i := range got {
				if !reflect.DeepEqual(norm(got[i]), norm(tc.vals[i])) {
					if c, ok := compareNorm(norm(got[i]), norm(tc.vals[i])); !ok || c != 0 {
						t.Fatalf("field %d: got %#v want %#v", i, got[i], tc.vals[i])
					}
				}
			}
			enc, err := SerializeRow(tc.vals, ts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, b) {
				t.Fatalf("encode:\n got %x\nwant %x", enc, b)
			}
		})
	}
}

func TestBinaryRowNullEncoding(t *testing.T) {
	ts := types(t, "INT", "DECIMAL(20, 2)", "TIMESTAMP(9)", "STRING")
	enc, err := SerializeRow([]any{nil, nil, nil, nil}, ts)
	if err != nil {
		t.Fatal(err)
	}
	// Null non-compact decimal and timestamp still reserve variable bytes.
	want := unhex(t, "00000004 000f000000000000 0000000000000000 0000000028000000 0000000038000000 0000000000000000 00000000000000000000000000000000 0000000000000000")
	if !bytes.Equal(enc, want) {
		t.Fatalf("got  %x\nwant %x", enc, want)
	}
	got, err := DeserializeRow(enc, ts)
	if err != nil || got[0] != nil || got[1] != nil || got[2] != nil || got[3] != nil {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestBinaryRowRoundTrip(t *testing.T) {
	ts := types(t, "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)", "DECIMAL(38, 10)",
		"STRING", "BYTES", "DATE", "TIMESTAMP(3)", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "CHAR(3)")
	huge, _ := new(big.Int).SetString("-12345678901234567890123456789", 10)
	vals := []any{true, int8(-3), int16(300), int32(-70000), int64(1) << 40, float32(1.5), -2.25,
		DecimalValue{Unscaled: big.NewInt(-12345), Scale: 2}, DecimalValue{Unscaled: huge, Scale: 10},
		"a string longer than seven", []byte{0, 1, 2}, int32(19000), TimestampValue{Millis: -5},
		TimestampValue{Millis: 1700000000123, NanoOfMilli: 456789}, "abc"}
	enc, err := SerializeRow(vals, ts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DeserializeRow(enc, ts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if c, ok := compareNorm(norm(got[i]), norm(vals[i])); !ok || c != 0 {
			t.Fatalf("field %d (%s): got %#v want %#v", i, ts[i], got[i], vals[i])
		}
	}
}

func TestParseType(t *testing.T) {
	for _, s := range []string{"INT", "STRING NOT NULL", "DECIMAL(23, 5)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP(9)", "BYTES", "VARCHAR(10)", "CHAR(3) NOT NULL", "DATE", "TIME(0)"} {
		dt, err := ParseType(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if dt.String() != s {
			t.Fatalf("%s: round trip %s", s, dt)
		}
	}
	for _, s := range []string{"", "FOO", "DECIMAL(99, 1)", "DECIMAL(x)", "TIMESTAMP(12)", "INT WITH LOCAL TIME ZONE", "DECIMAL(5"} {
		if _, err := ParseType(s); err == nil {
			t.Fatalf("%q accepted", s)
		}
	}
}

func TestDeletionVectorSpecExample(t *testing.T) {
	// From the spec: one container, value 4, CRC included.
	b := unhex(t, "00000016 5E43F2D0 3A300000 01000000 0000 0000 10000000 0400 875CA5D7")
	dv, err := DecodeDeletionVector(b)
	if err != nil {
		t.Fatal(err)
	}
	if !dv.Contains(4) || dv.Contains(3) || dv.Cardinality() != 1 {
		t.Fatalf("dv: %+v", dv)
	}
	if enc := EncodeDeletionVector([]uint32{4}); !bytes.Equal(enc, b) {
		t.Fatalf("encode: %x", enc)
	}
	bad := append([]byte(nil), b...)
	bad[len(bad)-1] ^= 1
	if _, err := DecodeDeletionVector(bad); err == nil {
		t.Fatal("bad CRC accepted")
	}
	// Large vectors use bitmap containers.
	var pos []uint32
	for i := uint32(0); i < 70000; i += 3 {
		pos = append(pos, i)
	}
	dv, err = DecodeDeletionVector(EncodeDeletionVector(pos))
	if err != nil {
		t.Fatal(err)
	}
	for i := uint32(0); i < 70010; i++ {
		if dv.Contains(int64(i)) != (i%3 == 0 && i < 70000) {
			t.Fatalf("position %d", i)
		}
	}
}

func TestManifestEncodeRoundTrip(t *testing.T) {
	dr := int64(2)
	src := int32(0)
	ents := []ManifestEntry{{Kind: FileKindAdd, Partition: unhex(t, "00000001 0000000000000000 0a00000000000000"), Bucket: 1, TotalBuckets: 2,
		File: &DataFileMeta{FileName: "data-x-0.parquet", FileSize: 100, RowCount: 5, MinKey: unhex(t, "000000000000000000000000"),
			MaxKey: unhex(t, "000000000000000000000000"), Level: 5, SchemaID: 1, DeleteRowCount: &dr, FileSource: &src}}}
	b, err := EncodeManifestEntries(ents)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeManifestEntries(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].File.FileName != "data-x-0.parquet" || *got[0].File.DeleteRowCount != 2 || got[0].File.Level != 5 || got[0].Bucket != 1 {
		t.Fatalf("got %+v", got[0].File)
	}
	ml, err := EncodeManifestList([]ManifestFileMeta{{FileName: "manifest-1", FileSize: int64(len(b)), NumAddedFiles: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := DecodeManifestList(ml); err != nil || len(l) != 1 || l[0].FileName != "manifest-1" {
		t.Fatalf("list: %v %v", l, err)
	}
}

// seedFiles returns fixture metadata files (manifests, lists, index files).
func seedFiles(f *testing.F, pattern string) [][]byte {
	root := fixtures.Path(f, "paimon")
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.db", "*", pattern))
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && len(b) < 1<<16 {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		f.Fatalf("no seed files for %s", pattern)
	}
	return out
}

func FuzzDecodeAvroManifests(f *testing.F) {
	for _, b := range seedFiles(f, "manifest/*") {
		if sniffFormat(b) == formatAvro {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Errors are fine; panics and hangs are not.
		_, _ = DecodeManifestEntries(b)
		_, _ = DecodeManifestList(b)
		_, _ = DecodeIndexManifest(b)
	})
}

func FuzzDecodeORCManifests(f *testing.F) {
	for _, b := range seedFiles(f, "manifest/*") {
		if sniffFormat(b) == formatORC {
			f.Add(b)
		}
	}
	var tbl Table
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = tbl.decodeManifest(b)
		_, _ = tbl.decodeManifestList(b)
	})
}

func FuzzDeserializeRow(f *testing.F) {
	for _, b := range seedFiles(f, "manifest/*") {
		if sniffFormat(b) != formatAvro {
			continue
		}
		ents, err := DecodeManifestEntries(b)
		if err != nil {
			continue
		}
		for _, e := range ents {
			f.Add(byte(0), e.Partition)
			f.Add(byte(1), e.File.MinKey)
			if e.File.ValueStats != nil {
				f.Add(byte(2), e.File.ValueStats.MinValues)
			}
		}
	}
	schemas := [][]DataType{
		types(f, "INT"),
		types(f, "STRING", "INT"),
		types(f, "STRING", "INT", "INT", "DOUBLE"),
		types(f, "DECIMAL(23, 5)", "TIMESTAMP(9)", "BYTES", "DATE", "BOOLEAN", "FLOAT", "BIGINT", "TINYINT", "SMALLINT", "DECIMAL(5, 2)", "TIMESTAMP(3)"),
	}
	f.Fuzz(func(t *testing.T, sel byte, b []byte) {
		ts := schemas[int(sel)%len(schemas)]
		if n, err := SerializedArity(b); err == nil && n < len(ts) {
			ts = ts[:n]
		}
		vals, err := DeserializeRow(b, ts)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode and decode to the same values.
		enc, err := SerializeRow(vals, ts)
		if err != nil {
			t.Fatalf("re-encode of decoded values: %v", err)
		}
		again, err := DeserializeRow(enc, ts)
		if err != nil {
			t.Fatalf("decode of re-encoded row: %v", err)
		}
		for i := range vals {
			a, b := norm(vals[i]), norm(again[i])
			if a == nil || b == nil {
				if a != b {
					t.Fatalf("field %d: %v vs %v", i, vals[i], again[i])
				}
				continue
			}
			if c, ok := compareNorm(a, b); !ok || (c != 0 && a == a) {
				if fa, isF := a.(float64); isF && fa != fa {
					continue
				}
				t.Fatalf("field %d: %v vs %v", i, vals[i], again[i])
			}
		}
	})
}

func FuzzDecodeDeletionVector(f *testing.F) {
	for _, b := range seedFiles(f, "index/*") {
		if len(b) > 1 {
			f.Add(b[1:])
		}
	}
	f.Add(EncodeDeletionVector([]uint32{1, 2, 3, 70000}))
	f.Add(EncodeDeletionVector64([]uint64{1, 70000, 3<<32 + 5}))
	f.Fuzz(func(t *testing.T, b []byte) {
		dv, err := DecodeDeletionVector(b)
		if err == nil {
			_ = dv.Contains(4)
			_ = dv.Cardinality()
		}
	})
}
