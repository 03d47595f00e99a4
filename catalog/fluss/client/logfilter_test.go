package client

import (
	"testing"

	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// TestLogFilter: which conditions become a FetchLog filter_predicate, with
// the literal encodings of Fluss 1.0's PredicateMessageUtils (DATE as
// bigint days, decimals as unscaled values, timestamps as millis plus
// nano-of-millisecond, field ids rather than positions).
func TestLogFilter(t *testing.T) {
	cols := []typemap.Column{
		{Name: "i", Type: typemap.Int()},
		{Name: "s", Type: typemap.String()},
		{Name: "d", Type: typemap.DataType{Root: typemap.RootDate, Nullable: true}},
		{Name: "m", Type: typemap.DataType{Root: typemap.RootDecimal, Precision: 10, Scale: 2, Nullable: true}},
		{Name: "ts", Type: typemap.DataType{Root: typemap.RootTimestamp, Precision: 6, Nullable: true}},
		{Name: "f", Type: typemap.Float()},
		{Name: "nostats", Type: typemap.Int()},
		{Name: "big", Type: typemap.DataType{Root: typemap.RootDecimal, Precision: 20, Scale: 0, Nullable: true}},
	}
	ids := []int32{10, 11, 12, 13, 14, 15, 16, 17}
	stats := []int{0, 1, 2, 3, 4, 5, 7}
	leaf := func(fn, field int32, lits ...*flusspb.PbLiteralValue) *flusspb.PbPredicate {
		return &flusspb.PbPredicate{Type: proto.Int32(0), Leaf: &flusspb.PbLeafPredicate{Function: proto.Int32(fn), FieldId: proto.Int32(field), Literals: lits}}
	}
	lit := func(typ int32, set func(*flusspb.PbLiteralValue)) *flusspb.PbLiteralValue {
		l := &flusspb.PbLiteralValue{LiteralType: proto.Int32(typ), IsNull: proto.Bool(false)}
		set(l)
		return l
	}
	intLit := func(v int32) *flusspb.PbLiteralValue {
		return lit(3, func(l *flusspb.PbLiteralValue) { l.IntValue = proto.Int32(v) })
	}
	cases := []struct {
		name string
		c    Condition
		want *flusspb.PbPredicate // nil: not pushed
	}{
		{"int =", Condition{Column: 0, Op: "=", Values: []any{int64(5)}}, leaf(0, 10, intLit(5))},
		{"int out of range", Condition{Column: 0, Op: "<", Values: []any{int64(1) << 40}}, nil},
		{"int vs float", Condition{Column: 0, Op: "<", Values: []any{2.5}}, nil},
		{"int vs text", Condition{Column: 0, Op: "=", Values: []any{"5"}}, nil},
		{"int IN", Condition{Column: 0, Op: "IN", Values: []any{int64(1), int64(2)}}, leaf(11, 10, intLit(1), intLit(2))},
		{"IN with NULL", Condition{Column: 0, Op: "IN", Values: []any{int64(1), nil}}, nil},
		{"IS NULL", Condition{Column: 1, Op: "IS NULL"}, leaf(6, 11)},
		{"IS NOT NULL", Condition{Column: 1, Op: "IS NOT NULL"}, leaf(7, 11)},
		{"string >=", Condition{Column: 1, Op: ">=", Values: []any{"abc"}}, leaf(5, 11, lit(8, func(l *flusspb.PbLiteralValue) { l.StringValue = proto.String("abc") }))},
		{"date", Condition{Column: 2, Op: "=", Values: []any{"1970-01-11"}}, leaf(0, 12, lit(10, func(l *flusspb.PbLiteralValue) { l.BigintValue = proto.Int64(10) }))},
		{"date not a date", Condition{Column: 2, Op: "=", Values: []any{"soon"}}, nil},
		{"decimal", Condition{Column: 3, Op: ">", Values: []any{"12.3"}}, leaf(4, 13, lit(9, func(l *flusspb.PbLiteralValue) { l.DecimalValue = proto.Int64(1230) }))},
		{"decimal beyond scale", Condition{Column: 3, Op: ">", Values: []any{"12.345"}}, nil},
		{"decimal from int", Condition{Column: 3, Op: "!=", Values: []any{int64(-2)}}, leaf(1, 13, lit(9, func(l *flusspb.PbLiteralValue) { l.DecimalValue = proto.Int64(-200) }))},
		{"wide decimal", Condition{Column: 7, Op: "=", Values: []any{int64(-129)}}, leaf(0, 17, lit(9, func(l *flusspb.PbLiteralValue) { l.DecimalBytes = []byte{0xff, 0x7f} }))},
		{"timestamp", Condition{Column: 4, Op: "<", Values: []any{"1970-01-01 00:00:01.002003"}},
			leaf(2, 14, lit(12, func(l *flusspb.PbLiteralValue) {
				l.TimestampMillisValue = proto.Int64(1002)
				l.TimestampNanoOfMillisValue = proto.Int32(3000)
			}))},
		{"timestamp before the epoch", Condition{Column: 4, Op: "<", Values: []any{"1969-12-31 23:59:59.9995"}},
			leaf(2, 14, lit(12, func(l *flusspb.PbLiteralValue) {
				l.TimestampMillisValue = proto.Int64(-1)
				l.TimestampNanoOfMillisValue = proto.Int32(500000)
			}))},
		{"float column", Condition{Column: 5, Op: "=", Values: []any{1.5}}, nil},
		{"column without statistics", Condition{Column: 6, Op: "=", Values: []any{int64(1)}}, nil},
		{"NOT LIKE-ish op", Condition{Column: 1, Op: "LIKE", Values: []any{"a%"}}, nil},
		{"OR of pushable", Condition{Or: []Condition{{Column: 0, Op: "=", Values: []any{int64(1)}}, {Column: 1, Op: "IS NULL"}}},
			&flusspb.PbPredicate{Type: proto.Int32(1), Compound: &flusspb.PbCompoundPredicate{Function: proto.Int32(1),
				Children: []*flusspb.PbPredicate{leaf(0, 10, intLit(1)), leaf(6, 11)}}}},
		{"OR with a branch the server cannot test", Condition{Or: []Condition{{Column: 0, Op: "=", Values: []any{int64(1)}}, {Column: 6, Op: "IS NULL"}}}, nil},
	}
	for _, c := range cases {
		got := LogFilter(cols, ids, stats, []Condition{c.c})
		if !proto.Equal(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, prototext.Format(got), prototext.Format(c.want))
		}
	}
	// Several pushable conditions are ANDed; the others are left out.
	got := LogFilter(cols, ids, stats, []Condition{{Column: 0, Op: "=", Values: []any{int64(5)}}, {Column: 5, Op: "=", Values: []any{1.5}}, {Column: 1, Op: "IS NULL"}})
	want := &flusspb.PbPredicate{Type: proto.Int32(1), Compound: &flusspb.PbCompoundPredicate{Function: proto.Int32(0),
		Children: []*flusspb.PbPredicate{leaf(0, 10, intLit(5)), leaf(6, 11)}}}
	if !proto.Equal(got, want) {
		t.Errorf("AND:\n got %s\nwant %s", prototext.Format(got), prototext.Format(want))
	}
}
