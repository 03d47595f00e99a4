package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// keyCase is one key type: a pool of values (edge cases included) that
// app appends by index; rows draw from the pool, and NULLs, repeatedly.
type keyCase struct {
	name string
	typ  arrow.DataType
	pool int
	app  func(b array.Builder, j int)
}

func ints[T any](vals ...T) (int, func(array.Builder, int)) {
	return len(vals), func(b array.Builder, j int) {
		b.(interface{ Append(T) }).Append(vals[j])
	}
}

func keyCases() []keyCase {
	nan32 := math.Float32frombits(0x7FC00001)
	strs := []string{"", "a", "\x00", "\x00\x00", "abcdefgh", "abcdefghi", "abcdefghX", "abcdefgi",
		"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyZ", "é", "NULL"}
	str := func(b array.Builder, j int) {
		switch bb := b.(type) {
		case *array.StringBuilder:
			bb.Append(strs[j])
		case *array.LargeStringBuilder:
			bb.Append(strs[j])
		case *array.BinaryBuilder:
			bb.Append([]byte(strs[j]))
		}
	}
	mk := func(name string, t arrow.DataType, n int, app func(array.Builder, int)) keyCase {
		return keyCase{name, t, n, app}
	}
	var cs []keyCase
	add := func(name string, t arrow.DataType, n int, app func(array.Builder, int)) {
		cs = append(cs, mk(name, t, n, app))
	}
	n, a := ints[int8](0, -1, 1, 127, -128, 5)
	add("int8", arrow.PrimitiveTypes.Int8, n, a)
	n, a = ints[int16](0, -1, 32767, -32768, 300)
	add("int16", arrow.PrimitiveTypes.Int16, n, a)
	n, a = ints[int32](0, -1, math.MaxInt32, math.MinInt32, 70000)
	add("int32", arrow.PrimitiveTypes.Int32, n, a)
	n, a = ints[int64](0, -1, math.MaxInt64, math.MinInt64, 1<<40, 7)
	add("int64", arrow.PrimitiveTypes.Int64, n, a)
	n, a = ints[uint8](0, 1, 255, 128)
	add("uint8", arrow.PrimitiveTypes.Uint8, n, a)
	n, a = ints[uint16](0, 65535, 1)
	add("uint16", arrow.PrimitiveTypes.Uint16, n, a)
	n, a = ints[uint32](0, math.MaxUint32, 1<<31)
	add("uint32", arrow.PrimitiveTypes.Uint32, n, a)
	n, a = ints[uint64](0, math.MaxUint64, 1<<63, 1)
	add("uint64", arrow.PrimitiveTypes.Uint64, n, a)
	n, a = ints[float32](0, float32(math.Copysign(0, -1)), float32(math.NaN()), nan32, 1.5, -1.5, float32(math.Inf(1)), float32(math.Inf(-1)))
	add("float32", arrow.PrimitiveTypes.Float32, n, a)
	n, a = ints[float64](0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7FF8000000000123),
		math.Float64frombits(0xFFF8000000000000), 1.5, 1e300, math.Inf(1), -2.5)
	add("float64", arrow.PrimitiveTypes.Float64, n, a)
	n, a = ints[bool](true, false)
	add("bool", arrow.FixedWidthTypes.Boolean, n, a)
	n, a = ints[arrow.Date32](0, 19000, -5)
	add("date32", arrow.FixedWidthTypes.Date32, n, a)
	n, a = ints[arrow.Date64](0, 86400000, -86400000)
	add("date64", arrow.FixedWidthTypes.Date64, n, a)
	n, a = ints[arrow.Timestamp](0, 1700000000000000, -1)
	add("timestamp", &arrow.TimestampType{Unit: arrow.Microsecond}, n, a)
	n, a = ints[arrow.Time32](0, 1000, 86399000)
	add("time32", arrow.FixedWidthTypes.Time32ms, n, a)
	n, a = ints[arrow.Time64](0, 5, 86399999999)
	add("time64", arrow.FixedWidthTypes.Time64us, n, a)
	n, a = ints(decimal128.FromI64(0), decimal128.FromI64(1), decimal128.FromI64(-1),
		decimal128.FromI64(12345678901234567), decimal128.FromI64(-12345678901234567), decimal128.New(1, 0))
	add("decimal", &arrow.Decimal128Type{Precision: 38, Scale: 2}, n, a)
	add("string", arrow.BinaryTypes.String, len(strs), str)
	add("large_string", arrow.BinaryTypes.LargeString, len(strs), str)
	add("binary", arrow.BinaryTypes.Binary, len(strs), str)
	fsb := []string{"abc", "ab\x00", "\x00\x00\x00", "abd"}
	add("fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 3}, len(fsb), func(b array.Builder, j int) {
		b.(*array.FixedSizeBinaryBuilder).Append([]byte(fsb[j]))
	})
	lists := [][]int64{{1, 2}, {}, {1}, {2, 1}, {12}}
	add("list", arrow.ListOf(arrow.PrimitiveTypes.Int64), len(lists), func(b array.Builder, j int) {
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for _, v := range lists[j] {
			lb.ValueBuilder().(*array.Int64Builder).Append(v)
		}
	})
	return cs
}

// keyColumn builds rows values of c: row i takes pool[(i*7+seed) % (pool+1)]
// (5 for 7 when 7 divides pool+1),
// the extra index meaning NULL.
func keyColumn(mem memory.Allocator, c keyCase, rows, seed int) arrow.Array {
	b := array.NewBuilder(mem, c.typ)
	defer b.Release()
	stride := 7 // co-prime with pool+1, so that every value comes up
	if (c.pool+1)%7 == 0 {
		stride = 5
	}
	for i := 0; i < rows; i++ {
		j := (i*stride + seed) % (c.pool + 1)
		if j == c.pool {
			b.AppendNull()
			continue
		}
		c.app(b, j)
	}
	return b.NewArray()
}

// oracleKey formats row i of a for the reference: arrow's own text, with
// -0 as 0 and every NaN as NaN (the grouping Doris and MySQL use).
func oracleKey(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "∅" // no pool value holds it
	}
	var f float64
	switch x := a.(type) {
	case *array.Float64:
		f = x.Value(i)
	case *array.Float32:
		f = float64(x.Value(i))
	default:
		return a.ValueStr(i)
	}
	if f == 0 {
		return "0"
	}
	if f != f {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// slicedBatches cuts cols into batches of varying sizes, as slices (so
// arrays start at an offset), with v = row number appended.
func slicedBatches(mem memory.Allocator, s *arrow.Schema, cols []arrow.Array) []arrow.RecordBatch {
	rows := cols[0].Len()
	vb := array.NewInt64Builder(mem)
	for i := 0; i < rows; i++ {
		vb.Append(int64(i))
	}
	v := vb.NewArray()
	vb.Release()
	all := append(append([]arrow.Array{}, cols...), v)
	var out []arrow.RecordBatch
	for from, size := 0, 1; from < rows; from, size = from+size, size*3+1 {
		to := min(from+size, rows)
		sl := make([]arrow.Array, len(all))
		for k, a := range all {
			sl[k] = array.NewSlice(a, int64(from), int64(to))
		}
		out = append(out, array.NewRecordBatch(s, sl, int64(to-from)))
		releaseArrays(sl)
	}
	v.Release()
	return out
}

type groupRef struct{ count, sum int64 }

// checkGroupBy runs GROUP BY keys → count(*), sum(v) over cols and checks
// it against a map over formatted keys.
func checkGroupBy(t *testing.T, name string, cols []arrow.Array) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var fields []any
	var keys []expr.Expr
	var names []string
	for k, c := range cols {
		n := fmt.Sprintf("k%d", k)
		fields = append(fields, n, c.DataType())
		keys = append(keys, expr.Col(k, n, c.DataType()))
		names = append(names, n)
	}
	s := sch(append(fields, "v", expr.Int64T())...)
	batches := slicedBatches(mem, s, cols)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	want := map[string]groupRef{}
	for i := 0; i < cols[0].Len(); i++ {
		parts := make([]string, len(cols))
		for k, c := range cols {
			parts[k] = oracleKey(c, i)
		}
		r := want[strings.Join(parts, "|")]
		r.count++
		r.sum += int64(i)
		want[strings.Join(parts, "|")] = r
	}
	v := expr.Col(len(cols), "v", expr.Int64T())
	agg := must(NewHashAggregate(memScan(s, batches), keys, names,
		[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: v, Name: "s"}}, AggSingle))
	rr, err := agg.Open(context.Background(), &Env{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got := map[string]groupRef{}
	for rr.Next() {
		b := rr.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			parts := make([]string, len(cols))
			for k := range cols {
				parts[k] = oracleKey(b.Column(k), i)
			}
			key := strings.Join(parts, "|")
			if _, dup := got[key]; dup {
				t.Errorf("%s: group %q twice", name, key)
			}
			got[key] = groupRef{b.Column(len(cols)).(*array.Int64).Value(i), b.Column(len(cols) + 1).(*array.Int64).Value(i)}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d groups, want %d", name, len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: group %q = %+v (present %v), want %+v", name, k, g, ok, w)
		}
	}
}

// TestGroupByKeyTypes: every key type alone, NULLs, -0/+0, NaNs, empty
// strings vs NULL, strings equal in their first 8 bytes, across sliced
// batches.
func TestGroupByKeyTypes(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testGroupByKeyTypes(t) })
}

// forEachHash runs f with the real row hashes, then with every hash
// cleared to 2 bits (long collision chains: equality decides), then with
// aggregates on two cores from the first batch (second table absorbed).
func forEachHash(t *testing.T, f func(t *testing.T)) {
	t.Run("hash", f)
	t.Run("collide", func(t *testing.T) {
		keyHashMask = 3
		defer func() { keyHashMask = ^uint64(0) }()
		f(t)
	})
	t.Run("parallel", func(t *testing.T) {
		// Two Ps even on one core: the helper goroutine must run.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
		aggParallelAfter = 0
		defer func() { aggParallelAfter = 1 << 18 }()
		f(t)
	})
}

func testGroupByKeyTypes(t *testing.T) {
	for _, c := range keyCases() {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewGoAllocator()
			col := keyColumn(mem, c, 500, 3)
			defer col.Release()
			checkGroupBy(t, c.name, []arrow.Array{col})
		})
	}
}

// TestGroupByCompositeKeys: pairs and triples of key types, each with
// NULLs, drawn with co-prime strides so that the combinations vary.
func TestGroupByCompositeKeys(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testGroupByCompositeKeys(t) })
}

func testGroupByCompositeKeys(t *testing.T) {
	cs := map[string]keyCase{}
	for _, c := range keyCases() {
		cs[c.name] = c
	}
	for _, combo := range [][]string{
		{"int32", "string"}, {"string", "float64", "bool"}, {"decimal", "date32"}, {"int64", "int64"},
		{"large_string", "binary"}, {"uint64", "list"}, {"float32", "timestamp", "fixed_size_binary"},
		{"string", "string"},
	} {
		t.Run(strings.Join(combo, ","), func(t *testing.T) {
			mem := memory.NewGoAllocator()
			var cols []arrow.Array
			for k, n := range combo {
				cols = append(cols, keyColumn(mem, cs[n], 900, k*5+1))
				if k > 0 { // decorrelate: rotate by a prime
					c := cols[k]
					s1, s2 := array.NewSlice(c, 37, int64(c.Len())), array.NewSlice(c, 0, 37)
					cat, err := array.Concatenate([]arrow.Array{s1, s2}, mem)
					if err != nil {
						t.Fatal(err)
					}
					s1.Release()
					s2.Release()
					c.Release()
					cols[k] = cat
				}
			}
			defer releaseArrays(cols)
			checkGroupBy(t, strings.Join(combo, ","), cols)
		})
	}
}

// TestCountDistinctKeyTypes: count(DISTINCT x) and group_concat-free
// DISTINCT over every type, grouped by row % 3, against distinct formatted
// values per group (NULLs not counted).
func TestCountDistinctKeyTypes(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testCountDistinctKeyTypes(t) })
}

func testCountDistinctKeyTypes(t *testing.T) {
	for _, c := range keyCases() {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			col := keyColumn(mem, c, 400, 1)
			defer col.Release()
			gb := array.NewInt64Builder(mem)
			for i := 0; i < col.Len(); i++ {
				gb.Append(int64(i % 3))
			}
			g := gb.NewArray()
			gb.Release()
			defer g.Release()
			s := sch("g", expr.Int64T(), "x", c.typ, "v", expr.Int64T())
			batches := slicedBatches(mem, s, []arrow.Array{g, col})
			defer func() {
				for _, b := range batches {
					b.Release()
				}
			}()
			want := map[int64]map[string]bool{}
			for i := 0; i < col.Len(); i++ {
				if want[int64(i%3)] == nil {
					want[int64(i%3)] = map[string]bool{}
				}
				if col.IsValid(i) {
					want[int64(i%3)][oracleKey(col, i)] = true
				}
			}
			agg := must(NewHashAggregate(memScan(s, batches), []expr.Expr{expr.Col(0, "g", expr.Int64T())}, []string{"g"},
				[]AggCall{{Func: Count, Arg: expr.Col(1, "x", c.typ), Distinct: true, Name: "d"}}, AggSingle))
			rr, err := agg.Open(context.Background(), &Env{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			seen := 0
			for rr.Next() {
				b := rr.RecordBatch()
				for i := 0; i < int(b.NumRows()); i++ {
					k := b.Column(0).(*array.Int64).Value(i)
					if got, w := b.Column(1).(*array.Int64).Value(i), len(want[k]); got != int64(w) {
						t.Errorf("group %d: count(DISTINCT) = %d, want %d", k, got, w)
					}
					seen++
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if seen != 3 {
				t.Errorf("%d groups, want 3", seen)
			}
			// No GROUP BY: the distinct values of the whole column.
			all := map[string]bool{}
			for _, vs := range want {
				for v := range vs {
					all[v] = true
				}
			}
			global := must(NewHashAggregate(memScan(s, batches), nil, nil,
				[]AggCall{{Func: Count, Arg: expr.Col(1, "x", c.typ), Distinct: true, Name: "d"}}, AggSingle))
			if got := run(t, global); len(got) != 1 || got[0][0] != strconv.Itoa(len(all)) {
				t.Errorf("global count(DISTINCT) = %v, want %d", got, len(all))
			}
		})
	}
}

// TestDistinctSumAndConcat: sum(DISTINCT) keeps -0 = +0 once, NaN once;
// group_concat(DISTINCT) lists first-seen order; NULL and "" differ.
func TestDistinctSumAndConcat(t *testing.T) {
	s := sch("g", expr.StringT(), "f", expr.Float64T(), "s", expr.StringT())
	negZero := math.Copysign(0, -1)
	scan := scanOf(s,
		[][]any{{"a", 1.5, "x"}, {"a", negZero, ""}, {"a", 1.5, nil}, {"b", 2.0, "y"}},
		[][]any{{"a", 0.0, "x"}, {"a", 2.5, "z"}, {"b", nil, "y"}, {"b", 2.0, ""}, {"a", nil, ""}},
	)
	f, str := expr.Col(1, "f", expr.Float64T()), expr.Col(2, "s", expr.StringT())
	got := run(t, must(NewHashAggregate(scan, []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"},
		[]AggCall{{Func: Sum, Arg: f, Distinct: true, Name: "sf"}, {Func: Count, Arg: f, Distinct: true, Name: "cf"},
			{Func: GroupConcat, Arg: str, Distinct: true, Name: "gc"}, {Func: Count, Arg: str, Distinct: true, Name: "cs"}}, AggSingle)))
	// a: f {1.5, -0/+0, 2.5} → 4, 3; s {"x", "", "z"} in that order.
	// b: f {2} → 2, 1; s {"y", ""}.
	wantRows(t, got, "a|4|3|x,,z|3", "b|2|1|y,|2")
}

// TestHashJoinKeyTypes: an inner join of every key type with itself
// (pool values once on the build side) matches each non-NULL probe row to
// exactly the build rows of the same formatted key.
func TestHashJoinKeyTypes(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testHashJoinKeyTypes(t) })
}

func testHashJoinKeyTypes(t *testing.T) {
	for _, c := range keyCases() {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			probe := keyColumn(mem, c, 300, 2)
			defer probe.Release()
			build := keyColumn(mem, c, 2*(c.pool+1), 0) // every value (and NULL) twice
			defer build.Release()
			s := sch("k", c.typ, "v", expr.Int64T())
			pb, bb := slicedBatches(mem, s, []arrow.Array{probe}), slicedBatches(mem, s, []arrow.Array{build})
			defer func() {
				for _, b := range append(pb, bb...) {
					b.Release()
				}
			}()
			buildKeys := map[string]int{}
			for i := 0; i < build.Len(); i++ {
				if build.IsValid(i) {
					buildKeys[oracleKey(build, i)]++
				}
			}
			want := map[string]int{}
			for i := 0; i < probe.Len(); i++ {
				if n := buildKeys[oracleKey(probe, i)]; probe.IsValid(i) && n > 0 {
					want[oracleKey(probe, i)] += n
				}
			}
			k := expr.Col(0, "k", c.typ)
			j := must(NewHashJoin(memScan(s, pb), memScan(s, bb), InnerJoin, []expr.Expr{k}, []expr.Expr{k}, nil))
			rr, err := j.Open(context.Background(), &Env{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			got := map[string]int{}
			for rr.Next() {
				b := rr.RecordBatch()
				for i := 0; i < int(b.NumRows()); i++ {
					l, r := oracleKey(b.Column(0), i), oracleKey(b.Column(2), i)
					if l != r {
						t.Errorf("pair %q = %q", l, r)
					}
					got[l]++
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("pairs per key %v, want %v", got, want)
			}
		})
	}
}

// genKeys is a scan of rows (k, v=1) whose key column is made by key(i)
// batch by batch (64 K rows).
func genKeys(typ arrow.DataType, rows int, key func(b array.Builder, i int)) *Scan {
	s := sch("k", typ, "v", expr.Int64T())
	return NewScan("", "gen", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		done := 0
		next := func() (arrow.RecordBatch, error) {
			if done >= rows {
				return nil, nil
			}
			n := min(benchBatch, rows-done)
			kb, vb := array.NewBuilder(mem, typ), array.NewInt64Builder(mem)
			defer kb.Release()
			defer vb.Release()
			for i := done; i < done+n; i++ {
				key(kb, i)
				vb.Append(1)
			}
			done += n
			cols := []arrow.Array{kb.NewArray(), vb.NewArray()}
			defer releaseArrays(cols)
			return array.NewRecordBatch(s, cols, int64(n)), nil
		}
		return newPullReader(ctx, s, next, nil), nil
	}))
}

// TestGroupByManyGroups: 1 M groups of integer keys in a wide range (hash
// table), a range that starts narrow (direct array) and turns wide
// mid-stream, 256 K keys growing downward (direct array re-based), and
// 1 M string groups. Every group must come out once with its count.
func TestGroupByManyGroups(t *testing.T) {
	type keyFn = func(j int) int64
	intKey := func(groups int, f keyFn) func(array.Builder, int) {
		return func(b array.Builder, i int) {
			if i%groups == 5 {
				b.AppendNull()
				return
			}
			b.(*array.Int64Builder).Append(f(i % groups))
		}
	}
	const m = 1 << 20
	wide := func(j int) int64 { return int64(j) * 0x9E3779B1 }
	turning := func(j int) int64 {
		if j > m/2 {
			return int64(j) << 30
		}
		return int64(j)
	}
	down := func(j int) int64 { return -int64(j) }
	fmtInt := func(f keyFn) func(int) string { return func(j int) string { return strconv.FormatInt(f(j), 10) } }
	cases := []struct {
		name   string
		groups int
		typ    arrow.DataType
		key    func(array.Builder, int)
		fmt    func(j int) string // the key of group j as oracleKey prints it
	}{
		{"wide", m, expr.Int64T(), intKey(m, wide), fmtInt(wide)},
		{"narrow-then-wide", m, expr.Int64T(), intKey(m, turning), fmtInt(turning)},
		{"downward", m / 4, expr.Int64T(), intKey(m/4, down), fmtInt(down)},
		{"strings", m, expr.StringT(), func(b array.Builder, i int) {
			if i%m == 5 {
				b.AppendNull()
				return
			}
			b.(*array.StringBuilder).Append("key-" + strconv.Itoa(i%m))
		}, func(j int) string { return "key-" + strconv.Itoa(j) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			groups := c.groups
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rows := groups + groups/2 // half the groups see two rows
			agg := must(NewHashAggregate(genKeys(c.typ, rows, c.key), []expr.Expr{expr.Col(0, "k", c.typ)}, []string{"k"},
				[]AggCall{{Func: CountStar, Name: "n"}}, AggSingle))
			rr, err := agg.Open(context.Background(), &Env{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			got := make(map[string]int64, groups)
			for rr.Next() {
				b := rr.RecordBatch()
				for i := 0; i < int(b.NumRows()); i++ {
					k := oracleKey(b.Column(0), i)
					if _, dup := got[k]; dup {
						t.Fatalf("group %q twice", k)
					}
					got[k] = b.Column(1).(*array.Int64).Value(i)
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != groups {
				t.Fatalf("%d groups, want %d", len(got), groups)
			}
			for j := 0; j < groups; j++ {
				k := c.fmt(j)
				if j == 5 {
					k = "∅"
				}
				want := int64(1)
				if j < groups/2 {
					want = 2
				}
				if got[k] != want {
					t.Fatalf("group %q: count %d, want %d", k, got[k], want)
				}
			}
		})
	}
}

// TestGroupByMemLimit: the table's growth is charged to the statement, so
// 1 M groups under a small limit end in the memory-limit error (nothing
// left charged), for the integer, direct and hashed paths and DISTINCT.
func TestGroupByMemLimit(t *testing.T) {
	const rows = 1 << 20
	wide := func(b array.Builder, i int) { b.(*array.Int64Builder).Append(int64(i) * 0x9E3779B1) }
	narrow := func(b array.Builder, i int) { b.(*array.Int64Builder).Append(int64(i)) }
	str := func(b array.Builder, i int) { b.(*array.StringBuilder).Append("k" + strconv.Itoa(i)) }
	for _, c := range []struct {
		name     string
		typ      arrow.DataType
		key      func(array.Builder, int)
		distinct bool
	}{
		{"wide-int", expr.Int64T(), wide, false}, {"narrow-int", expr.Int64T(), narrow, false},
		{"string", expr.StringT(), str, false}, {"distinct", expr.StringT(), str, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer parent.AssertSize(t, 0)
			mem := memlimit.New(parent, 2<<20, "exec_mem_limit")
			k := expr.Col(0, "k", c.typ)
			keys, names := []expr.Expr{k}, []string{"k"}
			calls := []AggCall{{Func: CountStar, Name: "n"}}
			if c.distinct {
				keys, names = nil, nil
				calls = []AggCall{{Func: Count, Arg: k, Distinct: true, Name: "n"}}
			}
			agg := must(NewHashAggregate(genKeys(c.typ, rows, c.key), keys, names, calls, AggSingle))
			_, err := runEnv(&Env{Mem: mem}, agg)
			if !errors.Is(err, memlimit.ErrExceeded) {
				t.Fatalf("err = %v, want the memory limit error", err)
			}
			mem.Sweep()
			if u := mem.Used(); u != 0 {
				t.Errorf("%d bytes still charged", u)
			}
		})
	}
}

// TestMinMaxTyped: MIN/MAX keep each column's own type and order (uint64
// above the int64 range, float32, dates, strings by bytes), skip NULLs,
// and give NULL to a group with none; also through partial/final.
func TestMinMaxTyped(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testMinMaxTyped(t) })
}

func testMinMaxTyped(t *testing.T) {
	s := sch("g", expr.StringT(), "i8", arrow.PrimitiveTypes.Int8, "u64", arrow.PrimitiveTypes.Uint64,
		"f32", arrow.PrimitiveTypes.Float32, "d", arrow.FixedWidthTypes.Date32, "s", expr.StringT())
	mem := memory.NewGoAllocator()
	col := func(t arrow.DataType, vals ...any) arrow.Array {
		b := array.NewBuilder(mem, t)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
				continue
			}
			switch bb := b.(type) {
			case *array.StringBuilder:
				bb.Append(v.(string))
			case *array.Int8Builder:
				bb.Append(int8(v.(int)))
			case *array.Uint64Builder:
				bb.Append(v.(uint64))
			case *array.Float32Builder:
				bb.Append(float32(v.(float64)))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(v.(int)))
			}
		}
		return b.NewArray()
	}
	cols := []arrow.Array{
		col(expr.StringT(), "a", "a", "b", "a", "c"),
		col(arrow.PrimitiveTypes.Int8, -128, 127, nil, 5, nil),
		col(arrow.PrimitiveTypes.Uint64, uint64(1), uint64(math.MaxUint64), uint64(7), nil, nil),
		col(arrow.PrimitiveTypes.Float32, -1.5, 2.25, nil, -3.0, nil),
		col(arrow.FixedWidthTypes.Date32, 19000, -3, 5, nil, nil),
		col(expr.StringT(), "b", "ab", "", "abc", nil),
	}
	defer releaseArrays(cols)
	batches := slicedBatches(mem, sch("g", expr.StringT(), "i8", arrow.PrimitiveTypes.Int8, "u64", arrow.PrimitiveTypes.Uint64,
		"f32", arrow.PrimitiveTypes.Float32, "d", arrow.FixedWidthTypes.Date32, "s", expr.StringT(), "v", expr.Int64T()), cols)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var calls []AggCall
	for c := 1; c < s.NumFields(); c++ {
		f := s.Field(c)
		calls = append(calls, AggCall{Func: Min, Arg: expr.Col(c, f.Name, f.Type), Name: "min_" + f.Name},
			AggCall{Func: Max, Arg: expr.Col(c, f.Name, f.Type), Name: "max_" + f.Name})
	}
	scan := memScan(batches[0].Schema(), batches)
	single := must(NewHashAggregate(scan, []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"}, calls, AggSingle))
	partial := must(NewHashAggregate(scan, []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"}, calls, AggPartial))
	want := []string{
		"a|-128|127|1|18446744073709551615|-3|2.25|1969-12-29|2022-01-08|ab|b",
		"b|NULL|NULL|7|7|NULL|NULL|1970-01-06|1970-01-06||",
		"c|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
	}
	wantRows(t, run(t, single), want...)
	wantRows(t, run(t, must(partial.FinalFor(partial))), want...)
}
