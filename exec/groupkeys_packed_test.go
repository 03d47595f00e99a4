package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
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

// TestPackedMaxLen: k fields of a length part (bits for 0..L+1) and L
// bytes must fit 64 bits: 1·(4+56), 2·(3+24), 3·(2+16), 4..6·(2+8);
// seven columns of even one byte take 70.
func TestPackedMaxLen(t *testing.T) {
	for k, want := range map[int]uint32{1: 7, 2: 3, 3: 2, 4: 1, 5: 1, 6: 1, 7: 0} {
		if got := packedMaxLen(k); got != want {
			t.Errorf("packedMaxLen(%d) = %d, want %d", k, got, want)
		}
	}
}

// strCol builds a string column of rows values pick(i), nil for NULL.
func strCol(mem memory.Allocator, typ arrow.DataType, rows int, pick func(i int) *string) arrow.Array {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for i := range rows {
		v := pick(i)
		switch bb := b.(type) {
		case *array.StringBuilder:
			if v == nil {
				bb.AppendNull()
			} else {
				bb.Append(*v)
			}
		case *array.LargeStringBuilder:
			if v == nil {
				bb.AppendNull()
			} else {
				bb.Append(*v)
			}
		case *array.BinaryBuilder:
			if v == nil {
				bb.AppendNull()
			} else {
				bb.Append([]byte(*v))
			}
		}
	}
	return b.NewArray()
}

// TestGroupByPackedStrings: keys of one to six short string columns
// (the packed representation) against a map: values at the longest a
// field holds, empty strings apart from NULL, NUL bytes, prefixes of one
// another, many groups; and the same with a value too long for the
// fields late in the input (the groups move to the hashed table
// mid-stream) or in a column of its own type (LARGE_STRING, BINARY).
func TestGroupByPackedStrings(t *testing.T) {
	forEachHash(t, func(t *testing.T) { testGroupByPackedStrings(t) })
}

func testGroupByPackedStrings(t *testing.T) {
	type tc struct {
		name     string
		cols     int
		typ      arrow.DataType
		pool     []string // "∅" is NULL
		rows     int
		longFrom int // rows from here may draw a value one byte too long (0: never)
	}
	short := []string{"", "∅", "A", "N", "R", "\x00", "a\x00", "ab", "abc", "abcdefg", "abcdef", "\x00\x00\x00"}
	var many []string // 4096 values of up to 3 bytes
	for i := range 4096 {
		many = append(many, strconv.FormatInt(int64(i), 36))
	}
	var cases []tc
	for k := 1; k <= 6; k++ {
		l := int(packedMaxLen(k))
		var pool []string
		for _, s := range short {
			if len(s) <= l {
				pool = append(pool, s)
			}
		}
		cases = append(cases,
			tc{fmt.Sprintf("k=%d", k), k, expr.StringT(), pool, 3000, 0},
			tc{fmt.Sprintf("k=%d/long-late", k), k, expr.StringT(), pool, 3000, 2500})
	}
	cases = append(cases,
		tc{"many-groups", 1, expr.StringT(), many, 40000, 0},
		tc{"many-groups-pairs", 2, expr.StringT(), many[:300], 40000, 0},
		tc{"many-groups/long-late", 2, expr.StringT(), many[:300], 40000, 39000},
		tc{"large_string", 2, arrow.BinaryTypes.LargeString, short[:9], 3000, 0},
		tc{"binary", 1, arrow.BinaryTypes.Binary, short, 3000, 0})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewGoAllocator()
			rng := rand.New(rand.NewSource(int64(c.cols*100 + c.rows)))
			var cols []arrow.Array
			for range c.cols {
				long := strings.Repeat("x", int(packedMaxLen(c.cols))+1)
				cols = append(cols, strCol(mem, c.typ, c.rows, func(i int) *string {
					v := c.pool[rng.Intn(len(c.pool))]
					if c.longFrom > 0 && i >= c.longFrom && rng.Intn(5) == 0 {
						v = long
					}
					if v == "∅" {
						return nil
					}
					return &v
				}))
			}
			defer releaseArrays(cols)
			checkGroupBy(t, c.name, cols)
		})
	}
}

// q1Rows builds (flag, status VARCHAR, price, disc DECIMAL(15,2), day INT)
// batches, as lineitem's columns Q1 reads; every nullEvery-th key is NULL
// and, from longFrom on, one flag in seven is longer than a packed field.
func q1Rows(mem memory.Allocator, rows, batch, nullEvery, longFrom int) (*arrow.Schema, []arrow.RecordBatch) {
	dt := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	s := sch("flag", expr.StringT(), "status", expr.StringT(), "price", dt, "disc", dt, "day", expr.Int32T())
	rng := rand.New(rand.NewSource(7))
	var out []arrow.RecordBatch
	for done := 0; done < rows; done += batch {
		n := min(batch, rows-done)
		fb, sb := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
		pb, db := array.NewDecimal128Builder(mem, dt), array.NewDecimal128Builder(mem, dt)
		yb := array.NewInt32Builder(mem)
		for i := range n {
			row := done + i
			switch {
			case nullEvery > 0 && row%nullEvery == 0:
				fb.AppendNull()
			case longFrom > 0 && row >= longFrom && row%7 == 0:
				fb.Append("LONGFLAG")
			default:
				fb.Append([]string{"A", "N", "R"}[rng.Intn(3)])
			}
			if nullEvery > 0 && row%(nullEvery+1) == 0 {
				sb.AppendNull()
			} else {
				sb.Append([]string{"F", "O"}[rng.Intn(2)])
			}
			pb.Append(decimal128.FromI64(90000 + rng.Int63n(10_000_000)))
			db.Append(decimal128.FromI64(rng.Int63n(11)))
			yb.Append(int32(rng.Intn(100)))
		}
		cols := []arrow.Array{fb.NewArray(), sb.NewArray(), pb.NewArray(), db.NewArray(), yb.NewArray()}
		for _, b := range []array.Builder{fb, sb, pb, db, yb} {
			b.Release()
		}
		out = append(out, array.NewRecordBatch(s, cols, int64(n)))
		releaseArrays(cols)
	}
	return s, out
}

// q1Want is the oracle of TestGroupByPackedInPlace: per (flag, status)
// with day < keep, count(*), sum(price) and sum(price*(100-disc)) in
// unscaled units (scales 2 and 4), computed row by row in Go.
func q1Want(batches []arrow.RecordBatch, keep int32) map[string][3]int64 {
	want := map[string][3]int64{}
	for _, b := range batches {
		f, s := b.Column(0).(*array.String), b.Column(1).(*array.String)
		p, d, y := b.Column(2).(*array.Decimal128), b.Column(3).(*array.Decimal128), b.Column(4).(*array.Int32)
		for i := range int(b.NumRows()) {
			if y.Value(i) >= keep {
				continue
			}
			k := "∅"
			if f.IsValid(i) {
				k = f.Value(i)
			}
			k += "|"
			if s.IsValid(i) {
				k += s.Value(i)
			} else {
				k += "∅"
			}
			w := want[k]
			pv, dv := p.Value(i).LowBits(), d.Value(i).LowBits()
			w[0]++
			w[1] += int64(pv)
			w[2] += int64(pv) * (10000 - int64(dv)) // 100 at scale 2
			want[k] = w
		}
	}
	return want
}

// TestGroupByPackedInPlace: Q1's shape, a Filter keeping most rows under
// an aggregate grouped by two one-byte strings with DECIMAL sums on int64
// lanes, groups the selected rows in the whole batch (no copy of the key
// columns; packedSelHook counts the batches) and gives the oracle's
// groups: NULL keys, a key too long for the fields arriving mid-stream
// (that batch and the rest take the copying path), an empty input, one
// goroutine (no selBatch) and two, and under a memory limit too small for
// it.
func TestGroupByPackedInPlace(t *testing.T) {
	dt := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	for _, c := range []struct {
		name                   string
		rows, nullEvery, long  int
		keep                   int32
		inPlace, partlyInPlace bool
	}{
		{"dense", 50_000, 0, 0, 80, true, false},
		{"null-keys", 50_000, 11, 0, 80, true, false},
		{"long-key-late", 50_000, 13, 30_000, 80, false, true},
		{"sparse", 50_000, 0, 0, 20, false, false}, // under half selected: copied
		{"empty-filter", 50_000, 0, 0, 0, false, false},
		{"empty-input", 0, 0, 0, 80, false, false},
	} {
		for _, par := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/par=%d", c.name, par), func(t *testing.T) {
				old := aggParallelAfter
				aggParallelAfter = 5000
				defer func() { aggParallelAfter = old }()
				parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer parent.AssertSize(t, 0)
				s, batches := q1Rows(parent, c.rows, 2048, c.nullEvery, c.long)
				defer releaseBatches(batches)
				want := q1Want(batches, c.keep)
				col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
				pred := must(expr.Cmp(expr.Lt, col(4), expr.Int(int64(c.keep))))
				hundred := &expr.Literal{Value: decimal128.FromI64(100), Type: expr.DecimalT(3, 0)}
				disc := must(expr.Arith(expr.Mul, col(2), must(expr.Arith(expr.Sub, hundred, col(3)))))
				agg := must(NewHashAggregate(must(NewFilter(memScan(s, batches), pred)),
					[]expr.Expr{col(0), col(1)}, []string{"flag", "status"},
					[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: col(2), Name: "p"}, {Func: Sum, Arg: disc, Name: "d"}}, AggSingle))
				var inPlace int
				packedSelHook = func() { inPlace++ }
				defer func() { packedSelHook = nil }()
				ctx := WithParallelism(context.Background(), par)
				rr, err := agg.Open(ctx, &Env{Mem: memlimit.New(parent, 64<<20, "exec_mem_limit")})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string][3]int64{}
				for rr.Next() {
					b := rr.RecordBatch()
					for i := range int(b.NumRows()) {
						k := oracleKey(b.Column(0), i) + "|" + oracleKey(b.Column(1), i)
						if _, dup := got[k]; dup {
							t.Errorf("group %q twice", k)
						}
						p := b.Column(3).(*array.Decimal128).Value(i)
						d := b.Column(4).(*array.Decimal128).Value(i)
						got[k] = [3]int64{b.Column(2).(*array.Int64).Value(i), int64(p.LowBits()), int64(d.LowBits())}
					}
				}
				if err := rr.Err(); err != nil {
					t.Fatal(err)
				}
				rr.Release()
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("groups\n%v\nwant\n%v", got, want)
				}
				batchesIn := (c.rows + 2047) / 2048
				switch {
				case par == 1 && inPlace != 0:
					// One goroutine runs the Filter as an operator of
					// its own, which copies the rows it keeps.
					t.Errorf("%d batches grouped in place on one goroutine", inPlace)
				case par == 1:
				case c.inPlace && inPlace != batchesIn:
					t.Errorf("%d of %d batches grouped in place", inPlace, batchesIn)
				case c.partlyInPlace && (inPlace == 0 || inPlace >= batchesIn):
					t.Errorf("%d of %d batches grouped in place, want some", inPlace, batchesIn)
				case !c.inPlace && !c.partlyInPlace && inPlace != 0:
					t.Errorf("%d batches grouped in place, want none", inPlace)
				}
			})
		}
	}
	t.Run("memlimit", func(t *testing.T) {
		// 1 M groups of up to four bytes stay packed and fail at 2 MiB
		// with nothing left charged.
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer parent.AssertSize(t, 0)
		mem := memlimit.New(parent, 2<<20, "exec_mem_limit")
		key := func(b array.Builder, i int) { b.(*array.StringBuilder).Append(strconv.FormatInt(int64(i), 36)) }
		k := expr.Col(0, "k", expr.StringT())
		agg := must(NewHashAggregate(genKeys(expr.StringT(), 1<<20, key), []expr.Expr{k}, []string{"k"},
			[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: must(expr.Cast(expr.Col(1, "v", expr.Int64T()), dt)), Name: "s"}}, AggSingle))
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

// BenchmarkQ1Strings is TPC-H Q1's shape over 1 M rows: a Filter keeping
// 98% under an aggregate grouped by two one-byte strings with DECIMAL
// sums of products, on two goroutines (the Filter pipelined, selBatch).
// rows/cpu-s compares builds on a loaded machine.
func BenchmarkQ1Strings(b *testing.B) {
	mem := memory.NewGoAllocator()
	s, batches := q1Rows(mem, 1<<20, 4096, 0, 0)
	defer releaseBatches(batches)
	col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	one := &expr.Literal{Value: decimal128.FromI64(1), Type: expr.DecimalT(1, 0)}
	pred := must(expr.Cmp(expr.Lt, col(4), expr.Int(98)))
	discPrice := must(expr.Arith(expr.Mul, col(2), must(expr.Arith(expr.Sub, one, col(3)))))
	charge := must(expr.Arith(expr.Mul, discPrice, must(expr.Arith(expr.Add, one, col(3)))))
	agg := must(NewHashAggregate(must(NewFilter(NewScan("", "l", batchSource(s, batches)), pred)),
		[]expr.Expr{col(0), col(1)}, []string{"flag", "status"},
		[]AggCall{{Func: Sum, Arg: col(2), Name: "a"}, {Func: Sum, Arg: discPrice, Name: "b"},
			{Func: Sum, Arg: charge, Name: "c"}, {Func: Avg, Arg: col(3), Name: "d"}, {Func: CountStar, Name: "n"}}, AggSingle))
	ctx := WithParallelism(context.Background(), 2)
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		drainCtx(b, ctx, agg)
	}
	reportRows(b, 1<<20, cpu0)
}

// TestSpillAggregatePackedKeys: groups of two short string keys (packed)
// spill past a small exec_mem_limit and come out as in memory, the NULL
// groups included, with no file left behind.
func TestSpillAggregatePackedKeys(t *testing.T) {
	s := sch("a", expr.StringT(), "b", expr.StringT(), "v", expr.Int64T())
	var groups [][][]any
	var g [][]any
	for i := range 60000 {
		var a, b any = strconv.FormatInt(int64(i%20000), 36), strconv.Itoa(i % 7)
		if i%97 == 0 {
			a = nil
		}
		if i%89 == 0 {
			b = nil
		}
		g = append(g, []any{a, b, int64(i)})
		if len(g) == 500 {
			groups, g = append(groups, g), nil
		}
	}
	col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	agg := must(NewHashAggregate(lazyScan(s, groups), []expr.Expr{col(0), col(1)}, []string{"a", "b"},
		[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: col(2), Name: "sv"}, {Func: Max, Arg: col(2), Name: "mx"}}, AggSingle))
	want := sortedText(run(t, agg))
	if len(want) < 20000 {
		t.Fatalf("%d groups in memory, want at least 20000", len(want))
	}
	for _, limit := range []int64{2 << 20, 1 << 20} {
		got, spilled, left := runSpill(t, agg, limit)
		if spilled == 0 {
			t.Fatalf("limit %d: nothing spilled", limit)
		}
		if g := sortedText(got); !slices.Equal(g, want) {
			t.Fatalf("limit %d: %d groups, want %d", limit, len(g), len(want))
		}
		if len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
	}
}
