package exec

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestRuntimeFilterKinds joins a probe scan carrying a filter of the join
// with its build side, for each key type and filter kind: the answer is
// the join's, and the rows the filter dropped before the join are the
// ones derived by hand (a bloom filter may let false positives through,
// never drop a match).
func TestRuntimeFilterKinds(t *testing.T) {
	dec := func(v int64) decimal128.Num { return decimal128.FromI64(v) }
	d32 := func(v int32) arrow.Date32 { return arrow.Date32(v) }
	for _, c := range []struct {
		name         string
		typ          arrow.DataType
		probe, build []any
		join         JoinType
		kind         RFKind
		maxIn        int
		want         []string // the join's rows (probe key, build key)
		dropped      int
	}{
		{"int in", arrow.PrimitiveTypes.Int64, []any{1, 2, 3, nil, 5, 1}, []any{1, 3, nil, 7, 3}, InnerJoin, RFIn, 1024,
			[]string{"1|1", "3|3", "3|3", "1|1"}, 3},
		{"int in, spread too wide for a bitmap", arrow.PrimitiveTypes.Int64, []any{1, 1 << 40, 5, nil}, []any{1 << 40, 1}, InnerJoin, RFIn, 1024,
			[]string{"1|1", "1099511627776|1099511627776"}, 2},
		{"int min_max", arrow.PrimitiveTypes.Int64, []any{1, 2, 3, nil, 5, 8, 1}, []any{1, 3, nil, 7, 3}, InnerJoin, RFMinMax, 1024,
			[]string{"1|1", "3|3", "3|3", "1|1"}, 2},
		{"int bloom", arrow.PrimitiveTypes.Int64, []any{1, 2, 3, nil, 5, 1}, []any{1, 3, nil, 7, 3}, InnerJoin, RFBloom, 1024,
			[]string{"1|1", "3|3", "3|3", "1|1"}, 3},
		{"int in over too many values", arrow.PrimitiveTypes.Int64, []any{1, 2, 3}, []any{1, 3}, InnerJoin, RFIn, 1,
			[]string{"1|1", "3|3"}, 0},
		{"int in_or_bloom as bloom", arrow.PrimitiveTypes.Int64, []any{1, 2, 3}, []any{1, 3}, InnerJoin, RFInOrBloom, 1,
			[]string{"1|1", "3|3"}, 1},
		{"int32 semi", arrow.PrimitiveTypes.Int32, []any{1, 2, 3, nil}, []any{3, 3, 1}, LeftSemiJoin, RFInOrBloom, 1024,
			[]string{"1", "3"}, 2},
		{"string in", arrow.BinaryTypes.String, []any{"a", "b", "c", nil, "e"}, []any{"a", "c", "g"}, InnerJoin, RFIn, 1024,
			[]string{"a|a", "c|c"}, 3},
		{"string min_max", arrow.BinaryTypes.String, []any{"a", "b", "c", nil, "h", ""}, []any{"a", "c", "g"}, InnerJoin, RFMinMax, 1024,
			[]string{"a|a", "c|c"}, 3},
		{"string bloom", arrow.BinaryTypes.String, []any{"a", "b", "a long string, over eight bytes", nil}, []any{"a long string, over eight bytes", "g"}, InnerJoin, RFBloom, 1024,
			[]string{"a long string, over eight bytes|a long string, over eight bytes"}, 3},
		{"decimal in", &arrow.Decimal128Type{Precision: 10, Scale: 2}, []any{dec(100), dec(200), dec(300)}, []any{dec(200)}, InnerJoin, RFIn, 1024,
			[]string{"2.00|2.00"}, 2},
		{"decimal min_max", &arrow.Decimal128Type{Precision: 10, Scale: 2}, []any{dec(-100), dec(200), dec(300)}, []any{dec(200), dec(250)}, InnerJoin, RFMinMax, 1024,
			[]string{"2.00|2.00"}, 2},
		{"date min_max", arrow.FixedWidthTypes.Date32, []any{d32(-5), d32(10), d32(20)}, []any{d32(10), d32(15)}, InnerJoin, RFMinMax, 1024,
			[]string{"1970-01-11|1970-01-11"}, 2},
		{"float in, -0 = 0", arrow.PrimitiveTypes.Float64, []any{1.5, math.Copysign(0, -1), 9.0}, []any{0.0, 1.5}, InnerJoin, RFIn, 1024,
			[]string{"1.5|1.5", "0|0"}, 1},
		{"float min_max, -0 = 0", arrow.PrimitiveTypes.Float64, []any{1.5, math.Copysign(0, -1), 9.0}, []any{0.0, 1.5}, InnerJoin, RFMinMax, 1024,
			[]string{"1.5|1.5", "0|0"}, 1},
		{"empty build", arrow.PrimitiveTypes.Int64, []any{1, 2}, nil, InnerJoin, RFMinMax, 1024, nil, 2},
		{"NULL-only build", arrow.PrimitiveTypes.Int64, []any{1, nil}, []any{nil}, LeftSemiJoin, RFIn, 1024, nil, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := func(vs []any) [][]any {
				var out [][]any
				for _, v := range vs {
					out = append(out, []any{v})
				}
				return out
			}
			s := sch("k", c.typ)
			probe, build := scanOf(s, rows(c.probe)), scanOf(s, rows(c.build))
			k := []expr.Expr{expr.Col(0, "k", c.typ)}
			j := must(NewHashJoin(probe, build, c.join, k, k, nil))
			rf := &RuntimeFilter{Kind: c.kind, MaxIn: c.maxIn, Target: "k"}
			if err := j.AddRuntimeFilters(rf); err != nil {
				t.Fatal(err)
			}
			probe.Filters = []ScanFilter{{RF: rf, Column: 0}}
			var got []string
			for _, r := range run(t, j) {
				got = append(got, strings.Join(r, "|"))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("join rows %q, want %q", got, c.want)
			}
			d := int(rf.Filtered.Load())
			if c.kind == RFBloom || (c.kind == RFInOrBloom && c.maxIn < len(c.build)) {
				if d > c.dropped {
					t.Errorf("bloom filter dropped %d rows, more than the %d that match nothing", d, c.dropped)
				}
			} else if d != c.dropped {
				t.Errorf("filter dropped %d rows, want %d", d, c.dropped)
			}
			seen := len(c.probe)
			if c.kind == RFIn && c.maxIn < len(c.build) {
				seen = 0 // over runtime_filter_max_in_num: not applied at all
			}
			if in := int(rf.Input.Load()); in != seen {
				t.Errorf("filter saw %d rows, want %d", in, seen)
			}
		})
	}
}

// TestRuntimeFilterRefused: an outer or anti join keeps probe rows without
// a match, so it makes no filter.
func TestRuntimeFilterRefused(t *testing.T) {
	s := sch("k", arrow.PrimitiveTypes.Int64)
	k := []expr.Expr{expr.Col(0, "k", s.Field(0).Type)}
	for _, jt := range []JoinType{LeftOuterJoin, LeftAntiJoin, NullAwareLeftAntiJoin, FullOuterJoin} {
		j := must(NewHashJoin(scanOf(s), scanOf(s), jt, k, k, nil))
		if err := j.AddRuntimeFilters(&RuntimeFilter{Kind: RFIn}); err == nil {
			t.Errorf("%s took a runtime filter", jt)
		}
	}
}

// TestHashKeysFastPath: the one-pass hashes of integer and date keys
// equal the key columns' general path (fixedKeyCol), which the filters
// were filled with before.
func TestHashKeysFastPath(t *testing.T) {
	mem := memory.NewGoAllocator()
	general := func(a arrow.Array) []uint64 {
		c := newKeyCol(a.DataType())
		c.bind(a)
		h := make([]uint64, a.Len())
		c.hash(h)
		return h
	}
	i64 := array.NewInt64Builder(mem)
	i64.AppendValues([]int64{0, -1, 1 << 40, 7}, nil)
	i32 := array.NewInt32Builder(mem)
	i32.AppendValues([]int32{0, -1, 1 << 30, 7}, nil)
	d32 := array.NewDate32Builder(mem)
	d32.AppendValues([]arrow.Date32{0, -1, 19000, 7}, nil)
	for _, a := range []arrow.Array{i64.NewArray(), i32.NewArray(), d32.NewArray()} {
		if got, want := hashKeys(a), general(a); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", a.DataType(), got, want)
		}
		a.Release()
	}
}

// TestRuntimeFilterBitmap: integer keys spanning few values make an exact
// bitmap instead of a bloom filter (every row whose key no build row has
// is dropped, none other); keys spread too wide still make a bloom filter,
// which never drops a match.
func TestRuntimeFilterBitmap(t *testing.T) {
	for _, c := range []struct {
		name         string
		typ          arrow.DataType
		probe, build []any
		effective    string
		want         []string
		dropped      int // exact for the bitmap, at most for the bloom
	}{
		{"int64 dense", arrow.PrimitiveTypes.Int64, []any{-3, -2, 0, 5, 6, nil, 64, 65, 1 << 40}, []any{-2, 5, nil, 64, 5},
			"bloom (as bitmap)", []string{"-2|-2", "5|5", "5|5", "64|64"}, 6},
		{"int32 below and above the range", arrow.PrimitiveTypes.Int32, []any{1, 2, 3, 100, 101, 99}, []any{2, 100},
			"bloom (as bitmap)", []string{"2|2", "100|100"}, 4},
		{"date32", arrow.FixedWidthTypes.Date32, []any{arrow.Date32(10), arrow.Date32(11), arrow.Date32(12)}, []any{arrow.Date32(11)},
			"bloom (as bitmap)", []string{"1970-01-12|1970-01-12"}, 2},
		{"int16 widened", arrow.PrimitiveTypes.Int16, []any{-7, 7}, []any{-7},
			"bloom (as bitmap)", []string{"-7|-7"}, 1},
		{"spread too wide: bloom", arrow.PrimitiveTypes.Int64, []any{0, 1, 1 << 50}, []any{0, 1 << 50},
			"bloom", []string{"0|0", "1125899906842624|1125899906842624"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := func(vs []any) [][]any {
				var out [][]any
				for _, v := range vs {
					out = append(out, []any{v})
				}
				return out
			}
			s := sch("k", c.typ)
			probe, build := scanOf(s, rows(c.probe)), scanOf(s, rows(c.build))
			k := []expr.Expr{expr.Col(0, "k", c.typ)}
			j := must(NewHashJoin(probe, build, InnerJoin, k, k, nil))
			rf := &RuntimeFilter{Kind: RFInOrBloom, MaxIn: 0, Target: "k"}
			if err := j.AddRuntimeFilters(rf); err != nil {
				t.Fatal(err)
			}
			probe.Filters = []ScanFilter{{RF: rf, Column: 0}}
			var got []string
			for _, r := range run(t, j) {
				got = append(got, strings.Join(r, "|"))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("join rows %q, want %q", got, c.want)
			}
			if e := rf.Effective(); e != c.effective {
				t.Errorf("filter took %q, want %q", e, c.effective)
			}
			d := int(rf.Filtered.Load())
			if c.effective == "bloom" && d > c.dropped || c.effective != "bloom" && d != c.dropped {
				t.Errorf("filter dropped %d rows, want %d", d, c.dropped)
			}
		})
	}
}

// TestRuntimeFilterThroughInnerJoin: a filter of an upper join applied by
// the scan under a lower inner join's probe side, which the lower join's
// probe skips in place (probeSel): the lower join yields only the rows
// the filter keeps, and the answer is the plan's.
func TestRuntimeFilterThroughInnerJoin(t *testing.T) {
	ps := sch("a", arrow.PrimitiveTypes.Int64, "b", arrow.PrimitiveTypes.Int64)
	one := sch("k", arrow.PrimitiveTypes.Int64)
	// P: a in 0..3, b = 10*i; B1 has every a; B2 has b in {10, 30, 70}.
	var prows [][]any
	for i := range 8 {
		prows = append(prows, []any{i % 4, 10 * i})
	}
	probe := scanOf(ps, prows[:4], prows[4:])
	b1 := scanOf(one, [][]any{{0}, {1}, {2}, {3}})
	b2 := scanOf(one, [][]any{{10}, {30}, {70}})
	j1 := must(NewHashJoin(probe, b1, InnerJoin, []expr.Expr{expr.Col(0, "a", arrow.PrimitiveTypes.Int64)}, []expr.Expr{expr.Col(0, "k", arrow.PrimitiveTypes.Int64)}, nil))
	j2 := must(NewHashJoin(j1, b2, InnerJoin, []expr.Expr{expr.Col(1, "b", arrow.PrimitiveTypes.Int64)}, []expr.Expr{expr.Col(0, "k", arrow.PrimitiveTypes.Int64)}, nil))
	rf := &RuntimeFilter{Kind: RFInOrBloom, MaxIn: 1024, Target: "b"}
	if err := j2.AddRuntimeFilters(rf); err != nil {
		t.Fatal(err)
	}
	probe.Filters = []ScanFilter{{RF: rf, Column: 1}}
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	prof := NewOpProfile()
	rr, err := OpenOp(WithOpProfile(context.Background(), prof), env, j2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rr.Next() {
		b := rr.RecordBatch()
		for i := range int(b.NumRows()) {
			got = append(got, fmt.Sprintf("%v|%v", b.Column(1).(*array.Int64).Value(i), b.Column(3).(*array.Int64).Value(i)))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	if want := []string{"10|10", "30|30", "70|70"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if st, _ := prof.Stats(j1); st.Rows != 3 {
		t.Errorf("the lower join yielded %d rows, want the 3 the filter keeps", st.Rows)
	}
	if d := rf.Filtered.Load(); d != 5 {
		t.Errorf("filter dropped %d rows, want 5", d)
	}
}
