package exec

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/internal/keybits"
)

// TestFilterBitsOnBE: the key bitmap FilterBits hands out, sent over the
// wire (keybits.Encode, Decode) and applied as the BE applies it
// (expr.InBits), keeps exactly the probe rows the FE's own filter keeps,
// for every integer width, both kinds that make a bitmap, NULL keys on
// either side, keys at the bitmap's edges and outside it, and an empty
// build side. The wanted rows are also written out by hand.
func TestFilterBitsOnBE(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	type tc struct {
		name         string
		typ          arrow.DataType
		build, probe []any
		want         []bool
	}
	var cases []tc
	for _, w := range []struct {
		typ    arrow.DataType
		lo, hi int64
	}{
		{arrow.PrimitiveTypes.Int8, math.MinInt8, math.MaxInt8},
		{arrow.PrimitiveTypes.Int16, math.MinInt16, math.MaxInt16},
		{arrow.PrimitiveTypes.Int32, math.MinInt32, math.MaxInt32},
		{arrow.PrimitiveTypes.Int64, math.MinInt64, math.MaxInt64},
	} {
		cases = append(cases,
			tc{w.typ.String() + " edges", w.typ,
				[]any{-3, nil, 60, 63, 64, -3},
				[]any{-4, -3, -2, 59, 60, 61, 63, 64, 65, nil, w.lo, w.hi, 0},
				[]bool{false, true, false, false, true, false, true, true, false, false, false, false, false}},
			tc{w.typ.String() + " at the type's least", w.typ,
				[]any{w.lo, w.lo + 1, w.lo + 100},
				[]any{w.lo, w.lo + 1, w.lo + 2, w.lo + 100, w.hi, nil},
				[]bool{true, true, false, true, false, false}},
			tc{w.typ.String() + " at the type's greatest", w.typ,
				[]any{w.hi - 1, w.hi},
				[]any{w.hi, w.hi - 1, w.hi - 2, w.lo},
				[]bool{true, true, false, false}},
			tc{w.typ.String() + " empty build", w.typ,
				[]any{nil, nil},
				[]any{1, nil, 0},
				[]bool{false, false, false}},
		)
	}
	for _, c := range cases {
		for _, kind := range []RFKind{RFIn, RFInOrBloom, RFBloom} {
			t.Run(c.name+"/"+kind.String(), func(t *testing.T) {
				build, probe := intArray(mem, c.typ, c.build), intArray(mem, c.typ, c.probe)
				defer build.Release()
				defer probe.Release()
				env := &Env{Mem: mem}
				rf := &RuntimeFilter{Kind: kind, MaxIn: 1024, typ: c.typ}
				rf.publish(env, []arrow.Array{build}, build.Len(), build.Len())
				defer rf.release(env)
				ctx := context.WithValue(context.Background(), rfEnvKey{}, env)
				lo, words, ok := FilterBits(ctx, rf)
				if !ok {
					t.Fatalf("no bitmap (filter %s)", rf.Effective())
				}
				wire, err := keybits.Decode(keybits.Encode(words))
				if err != nil {
					t.Fatal(err)
				}
				fe := make([]bool, probe.Len())
				for i := range fe {
					fe[i] = true
				}
				rf.state(env).pass(probe, fe)
				e, err := expr.InBits(expr.Col(0, "k", c.typ), lo, wire)
				if err != nil {
					t.Fatal(err)
				}
				batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: c.typ, Nullable: true}}, nil), []arrow.Array{probe}, int64(probe.Len()))
				defer batch.Release()
				got, err := e.Eval(env, batch)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				be := make([]bool, got.Len())
				for i := range be {
					be[i] = got.(*array.Boolean).Value(i) && got.IsValid(i)
				}
				if !slices.Equal(be, fe) {
					t.Errorf("BE kept %v, FE %v", be, fe)
				}
				if !slices.Equal(fe, c.want) {
					t.Errorf("FE kept %v, want %v", fe, c.want)
				}
			})
		}
	}
}

// TestFilterBitsNone: filters without an exact bitmap give none.
func TestFilterBitsNone(t *testing.T) {
	mem := memory.NewGoAllocator()
	env := &Env{Mem: mem}
	ctx := context.WithValue(context.Background(), rfEnvKey{}, env)
	wide := intArray(mem, arrow.PrimitiveTypes.Int64, []any{0, int64(1) << 50})
	defer wide.Release()
	for _, c := range []struct {
		name string
		rf   *RuntimeFilter
		keys arrow.Array
	}{
		{"min_max", &RuntimeFilter{Kind: RFMinMax}, wide},
		{"bloom over a wide span", &RuntimeFilter{Kind: RFBloom}, wide},
		{"IN over too many values", &RuntimeFilter{Kind: RFIn, MaxIn: 1}, wide},
		{"not published", &RuntimeFilter{Kind: RFIn, MaxIn: 10}, nil},
	} {
		if c.keys != nil {
			c.rf.publish(env, []arrow.Array{c.keys}, c.keys.Len(), c.keys.Len())
		}
		if _, _, ok := FilterBits(ctx, c.rf); ok {
			t.Errorf("%s: a bitmap", c.name)
		}
	}
}

func intArray(mem memory.Allocator, t arrow.DataType, vs []any) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for _, v := range vs {
		var x int64
		switch y := v.(type) {
		case nil:
			b.AppendNull()
			continue
		case int:
			x = int64(y)
		case int64:
			x = y
		}
		switch bb := b.(type) {
		case *array.Int8Builder:
			bb.Append(int8(x))
		case *array.Int16Builder:
			bb.Append(int16(x))
		case *array.Int32Builder:
			bb.Append(int32(x))
		case *array.Int64Builder:
			bb.Append(x)
		}
	}
	return b.NewArray()
}

// TestFilterIntsOnBE: an IN filter of integer keys too spread for a
// bitmap lists them (sorted, distinct, no NULL), and the BE's IN over the
// list keeps exactly the probe rows the FE's filter keeps.
func TestFilterIntsOnBE(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := &Env{Mem: mem}
	ctx := context.WithValue(context.Background(), rfEnvKey{}, env)
	build := intArray(mem, arrow.PrimitiveTypes.Int64, []any{int64(1) << 40, 7, nil, -int64(1) << 40, 7})
	probe := intArray(mem, arrow.PrimitiveTypes.Int64, []any{7, 8, nil, int64(1) << 40, -int64(1) << 40, 0})
	defer build.Release()
	defer probe.Release()
	rf := &RuntimeFilter{Kind: RFIn, MaxIn: 1024, typ: arrow.PrimitiveTypes.Int64}
	rf.publish(env, []arrow.Array{build}, build.Len(), 3)
	defer rf.release(env)
	if _, _, ok := FilterBits(ctx, rf); ok {
		t.Fatal("a bitmap over a span of 2^41")
	}
	vals, ok := FilterInts(ctx, rf)
	if want := []int64{-1 << 40, 7, 1 << 40}; !ok || !slices.Equal(vals, want) {
		t.Fatalf("keys %v %v, want %v", vals, ok, want)
	}
	fe := []bool{true, true, true, true, true, true}
	rf.state(env).pass(probe, fe)
	var lits []expr.Expr
	for _, v := range vals {
		lits = append(lits, expr.MustLit(v, arrow.PrimitiveTypes.Int64))
	}
	e, err := expr.In(expr.Col(0, "k", arrow.PrimitiveTypes.Int64), lits, false)
	if err != nil {
		t.Fatal(err)
	}
	batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil), []arrow.Array{probe}, int64(probe.Len()))
	defer batch.Release()
	got, err := e.Eval(env, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	be := make([]bool, got.Len())
	for i := range be {
		be[i] = got.IsValid(i) && got.(*array.Boolean).Value(i)
	}
	want := []bool{true, false, false, true, true, false}
	if !slices.Equal(be, fe) || !slices.Equal(fe, want) {
		t.Errorf("BE kept %v, FE %v, want %v", be, fe, want)
	}
	// More keys than the list takes: none.
	many := make([]any, maxShippedIn+1)
	for i := range many {
		many[i] = int64(i) << 30
	}
	wide := intArray(mem, arrow.PrimitiveTypes.Int64, many)
	defer wide.Release()
	rf2 := &RuntimeFilter{Kind: RFIn, MaxIn: 1 << 20, typ: arrow.PrimitiveTypes.Int64}
	rf2.publish(env, []arrow.Array{wide}, wide.Len(), wide.Len())
	defer rf2.release(env)
	if vals, ok := FilterInts(ctx, rf2); ok {
		t.Errorf("%d keys listed, at most %d", len(vals), maxShippedIn)
	}
}
