package record_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStatisticsBytes pins the statistics block against bytes derived by
// hand from the Fluss 1.0 writer's layout (LogRecordBatchStatisticsWriter,
// AlignedRowWriter, MemorySegment's little-endian puts): row type (INT id,
// STRING name, BIGINT big), statistics on id and name, one NULL name.
func TestStatisticsBytes(t *testing.T) {
	types := []typemap.DataType{typemap.Int(), typemap.String(), typemap.BigInt()}
	s := record.BatchStatistics{Columns: []int{0, 1}, NullCounts: []int32{0, 1},
		Min: []any{int32(1), "ab"}, Max: []any{int32(7), "longer-than-7"}}
	// version 1 | 2 columns | indexes 0, 1 | null counts 0, 1 |
	// min row (24 bytes: null bits with the row-kind byte, id 1, "ab"
	// inline with 0x80|2 in the slot's top byte) |
	// max row (40 bytes: id 7, "longer-than-7" at offset 24 (0x18) with
	// length 13, padded to a word).
	want := unhex(t, `01 0200 0000 0100 00000000 01000000
		18000000 0000000000000000 0100000000000000 61620000000000 82
		28000000 0000000000000000 0700000000000000 0d000000 18000000
		6c6f6e6765722d7468616e2d37 000000`)
	got, err := record.AppendStatistics(nil, types, s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("statistics bytes\n got %x\nwant %x", got, want)
	}
	back, err := record.DecodeStatistics(want, types)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("decoded %+v, want %+v", back, s)
	}

	// An all-NULL column: its bit (index + 8) is set in both rows.
	s2 := record.BatchStatistics{Columns: []int{2, 1}, NullCounts: []int32{3, 0}, Min: []any{nil, "a"}, Max: []any{nil, "b"}}
	got, err = record.AppendStatistics(nil, types, s2)
	if err != nil {
		t.Fatal(err)
	}
	want = unhex(t, `01 0200 0200 0100 03000000 00000000
		18000000 0001000000000000 0000000000000000 61000000000000 81
		18000000 0001000000000000 0000000000000000 62000000000000 81`)
	if !bytes.Equal(got, want) {
		t.Fatalf("NULL statistics bytes\n got %x\nwant %x", got, want)
	}
}

// statsTypes has one column of every type Fluss collects statistics for.
func statsTypes() []typemap.DataType {
	return []typemap.DataType{
		typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(), typemap.Int(), typemap.BigInt(),
		typemap.Float(), typemap.Double(), typemap.String(),
		{Root: typemap.RootDecimal, Precision: 10, Scale: 2, Nullable: true},
		{Root: typemap.RootDecimal, Precision: 30, Scale: 3, Nullable: true},
		{Root: typemap.RootDate, Nullable: true}, {Root: typemap.RootTime, Precision: 3, Nullable: true},
		{Root: typemap.RootTimestamp, Precision: 3, Nullable: true}, {Root: typemap.RootTimestamp, Precision: 6, Nullable: true},
		{Root: typemap.RootTimestampLTZ, Precision: 9, Nullable: true},
		{Root: typemap.RootChar, Length: 3, Nullable: true},
	}
}

// TestStatisticsCollectRoundTrip collects statistics over rows of every
// supported type, as the 1.0 collector defines them (NULLs counted, CHAR
// without min/max), and reads them back.
func TestStatisticsCollectRoundTrip(t *testing.T) {
	types := statsTypes()
	negZero := float32(math.Copysign(0, -1))
	big1, _ := decimal128.FromString("-123456789012345678901234.567", 30, 3)
	big2, _ := decimal128.FromString("99999999999999999999.001", 30, 3)
	rows := [][]any{
		{true, int8(-5), int16(300), int32(-7), int64(1) << 40, float32(1.5), math.Inf(-1), "zeta-long-string", decimal128.FromI64(-250), big1,
			int32(19000), int32(3600000), record.Timestamp{Millis: 5}, record.Timestamp{Millis: -1, NanoOfMilli: 999000}, record.Timestamp{Millis: 10, NanoOfMilli: 1}, "abc"},
		{false, int8(9), nil, int32(8), int64(-3), negZero, 2.5, "a", decimal128.FromI64(12345), big2,
			int32(-1), int32(0), record.Timestamp{Millis: -5}, record.Timestamp{Millis: -1, NanoOfMilli: 5}, record.Timestamp{Millis: 10, NanoOfMilli: 0}, nil},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	cols := make([]int, len(types))
	for i := range cols {
		cols[i] = i
	}
	s := record.CollectStatistics(types, cols, rows)
	wantMin := []any{false, int8(-5), int16(300), int32(-7), int64(-3), negZero, math.Inf(-1), "a", decimal128.FromI64(-250), big1,
		int32(-1), int32(0), record.Timestamp{Millis: -5}, record.Timestamp{Millis: -1, NanoOfMilli: 5}, record.Timestamp{Millis: 10}, nil}
	wantMax := []any{true, int8(9), int16(300), int32(8), int64(1) << 40, float32(1.5), 2.5, "zeta-long-string", decimal128.FromI64(12345), big2,
		int32(19000), int32(3600000), record.Timestamp{Millis: 5}, record.Timestamp{Millis: -1, NanoOfMilli: 999000}, record.Timestamp{Millis: 10, NanoOfMilli: 1}, nil}
	wantNulls := []int32{1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}
	if !reflect.DeepEqual(s.Min, wantMin) || !reflect.DeepEqual(s.Max, wantMax) || !reflect.DeepEqual(s.NullCounts, wantNulls) {
		t.Fatalf("collected\nmin %v\nmax %v\nnulls %v", s.Min, s.Max, s.NullCounts)
	}
	if math.Signbit(float64(s.Min[5].(float32))) != true {
		t.Errorf("FLOAT min %v: -0.0 sorts below +0.0 in Java's Float.compare", s.Min[5])
	}
	b, err := record.AppendStatistics(nil, types, s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.DecodeStatistics(b, types)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip\n got %+v\nwant %+v", back, s)
	}
	// Cut short anywhere: an error, never a panic.
	for n := 0; n < len(b); n++ {
		if _, err := record.DecodeStatistics(b[:n], types); err == nil {
			t.Fatalf("%d of %d bytes decoded", n, len(b))
		}
	}
}

func TestStatisticsColumns(t *testing.T) {
	cols := []typemap.Column{{Name: "id", Type: typemap.Int()}, {Name: "b", Type: typemap.Bytes()}, {Name: "s", Type: typemap.String()}}
	for _, c := range []struct {
		prop string
		want []int
		err  bool
	}{
		{"", nil, false}, {"*", []int{0, 2}, false}, {"s, id", []int{0, 2}, false},
		{"b", nil, true}, {"nope", nil, true}, {",", nil, true},
	} {
		got, err := record.StatisticsColumns(cols, c.prop)
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v %v, want %v (error %v)", c.prop, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, record.ErrInvalid) {
			t.Errorf("%q: %v is not ErrInvalid", c.prop, err)
		}
	}
}

// TestStatsPredicate: the batch-skipping decisions of Fluss 1.0's
// predicates over min/max/null counts, for a batch of 10 rows with
// id in [10, 20] (no NULL) and name NULL in 3 rows, in ["b", "d"].
func TestStatsPredicate(t *testing.T) {
	s := &record.BatchStatistics{Columns: []int{0, 1}, NullCounts: []int32{0, 3}, Min: []any{int64(10), "b"}, Max: []any{int64(20), "d"}}
	allNull := &record.BatchStatistics{Columns: []int{0}, NullCounts: []int32{10}, Min: []any{nil}, Max: []any{nil}}
	id := func(fn record.LeafFunction, lits ...any) *record.StatsPredicate {
		return &record.StatsPredicate{Leaf: true, Func: fn, Field: 0, Type: typemap.BigInt(), Literals: lits}
	}
	name := func(fn record.LeafFunction, lits ...any) *record.StatsPredicate {
		return &record.StatsPredicate{Leaf: true, Func: fn, Field: 1, Type: typemap.String(), Literals: lits}
	}
	other := &record.StatsPredicate{Leaf: true, Func: record.FnEqual, Field: 2, Type: typemap.Int(), Literals: []any{int32(1)}}
	and := func(k ...*record.StatsPredicate) *record.StatsPredicate {
		return &record.StatsPredicate{Compound: record.FnAnd, Children: k}
	}
	or := func(k ...*record.StatsPredicate) *record.StatsPredicate {
		return &record.StatsPredicate{Compound: record.FnOr, Children: k}
	}
	cases := []struct {
		name  string
		p     *record.StatsPredicate
		stats *record.BatchStatistics
		want  bool
	}{
		{"= inside", id(record.FnEqual, int64(15)), s, true},
		{"= at min", id(record.FnEqual, int64(10)), s, true},
		{"= below", id(record.FnEqual, int64(9)), s, false},
		{"= above", id(record.FnEqual, int64(21)), s, false},
		{"= NULL", id(record.FnEqual, nil), s, false},
		{"!= single value", id(record.FnNotEqual, int64(10)), &record.BatchStatistics{Columns: []int{0}, NullCounts: []int32{0}, Min: []any{int64(10)}, Max: []any{int64(10)}}, false},
		{"!= range", id(record.FnNotEqual, int64(10)), s, true},
		{"< min", id(record.FnLessThan, int64(10)), s, false},
		{"< above min", id(record.FnLessThan, int64(11)), s, true},
		{"<= min", id(record.FnLessOrEqual, int64(10)), s, true},
		{"> max", id(record.FnGreaterThan, int64(20)), s, false},
		{">= max", id(record.FnGreaterOrEqual, int64(20)), s, true},
		{"> below max", id(record.FnGreaterThan, int64(19)), s, true},
		{"IN miss", id(record.FnIn, int64(1), int64(30)), s, false},
		{"IN hit", id(record.FnIn, int64(1), int64(12)), s, true},
		{"NOT IN all equal", id(record.FnNotIn, int64(10)), &record.BatchStatistics{Columns: []int{0}, NullCounts: []int32{0}, Min: []any{int64(10)}, Max: []any{int64(10)}}, false},
		{"NOT IN NULL literal", id(record.FnNotIn, int64(1), nil), s, false},
		{"NOT IN range", id(record.FnNotIn, int64(10)), s, true},
		{"IS NULL none", id(record.FnIsNull), s, false},
		{"IS NULL some", name(record.FnIsNull), s, true},
		{"IS NOT NULL all null", id(record.FnIsNotNull), allNull, false},
		{"IS NOT NULL some", name(record.FnIsNotNull), s, true},
		{"= on all-NULL", id(record.FnEqual, int64(1)), allNull, false},
		{"string =", name(record.FnEqual, "c"), s, true},
		{"string > max", name(record.FnGreaterThan, "d"), s, false},
		{"no statistics for column", other, s, true},
		{"no statistics at all", id(record.FnEqual, int64(1)), nil, true},
		{"STARTS_WITH keeps", name(record.FnStartsWith, "z"), s, true},
		{"AND one false", and(id(record.FnEqual, int64(15)), name(record.FnEqual, "z")), s, false},
		{"AND all true", and(id(record.FnEqual, int64(15)), name(record.FnEqual, "c")), s, true},
		{"OR one true", or(id(record.FnEqual, int64(1)), name(record.FnEqual, "c")), s, true},
		{"OR all false", or(id(record.FnEqual, int64(1)), name(record.FnEqual, "z")), s, false},
		{"OR with unknown column", or(id(record.FnEqual, int64(1)), other), s, true},
	}
	for _, c := range cases {
		if got := c.p.MayMatch(10, c.stats); got != c.want {
			t.Errorf("%s: MayMatch = %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzDecodeStatistics: any bytes decode to an error or to statistics
// whose encoding decodes and encodes to itself.
func FuzzDecodeStatistics(f *testing.F) {
	types := statsTypes()
	cols := make([]int, len(types))
	for i := range cols {
		cols[i] = i
	}
	row := []any{true, int8(1), int16(2), int32(3), int64(4), float32(5), 6.0, "a-long-string", decimal128.FromI64(7), decimal128.FromI64(8),
		int32(9), int32(10), record.Timestamp{Millis: 11}, record.Timestamp{Millis: 12, NanoOfMilli: 13}, record.Timestamp{Millis: 14, NanoOfMilli: 15}, "x"}
	seed, err := record.AppendStatistics(nil, types, record.CollectStatistics(types, cols, [][]any{row}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(unhex(f, "01 0100 0000 00000000 10000000 0000000000000000 0100000000000000 10000000 0000000000000000 0200000000000000"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := record.DecodeStatistics(b, types)
		if err != nil {
			return
		}
		again, err := record.AppendStatistics(nil, types, s)
		if err != nil {
			t.Fatalf("decoded statistics do not encode: %v", err)
		}
		// Compared as bytes: a NaN statistic is not DeepEqual to itself.
		s2, err := record.DecodeStatistics(again, types)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		third, err := record.AppendStatistics(nil, types, s2)
		if err != nil || !bytes.Equal(third, again) {
			t.Fatalf("not stable: %v\n%x\n%x", err, third, again)
		}
		p := &record.StatsPredicate{Leaf: true, Func: record.FnEqual, Field: 4, Type: types[4], Literals: []any{int64(4)}}
		_ = p.MayMatch(1, &s)
	})
}
