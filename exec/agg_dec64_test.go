package exec

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/render"
)

// dec64Table builds batches of (g VARCHAR, a, b, c DECIMAL(prec,2), d
// DATE-like INT) with values from gen; every nullEvery-th value of a, b
// and c is NULL (0: none).
func dec64Table(mem memory.Allocator, typ *arrow.Decimal128Type, rows, batch, nullEvery int, gen func(col int) decimal128.Num, seed int64) (*arrow.Schema, []arrow.RecordBatch) {
	rng := rand.New(rand.NewSource(seed))
	s := sch("g", expr.StringT(), "a", typ, "b", typ, "c", typ, "d", expr.Int32T())
	var out []arrow.RecordBatch
	for done := 0; done < rows; done += batch {
		n := min(batch, rows-done)
		gb := array.NewStringBuilder(mem)
		db := array.NewInt32Builder(mem)
		decs := []*array.Decimal128Builder{array.NewDecimal128Builder(mem, typ), array.NewDecimal128Builder(mem, typ), array.NewDecimal128Builder(mem, typ)}
		for i := 0; i < n; i++ {
			switch k := rng.Intn(9); {
			case k == 0 && nullEvery > 0:
				gb.AppendNull()
			default:
				gb.Append([]string{"A", "N", "R", "long group key over eight bytes"}[k%4])
			}
			db.Append(int32(rng.Intn(100)))
			for c, d := range decs {
				if nullEvery > 0 && rng.Intn(nullEvery) == 0 {
					d.AppendNull()
					continue
				}
				d.Append(gen(c))
			}
		}
		cols := []arrow.Array{gb.NewArray(), decs[0].NewArray(), decs[1].NewArray(), decs[2].NewArray(), db.NewArray()}
		gb.Release()
		db.Release()
		for _, d := range decs {
			d.Release()
		}
		out = append(out, array.NewRecordBatch(s, cols, int64(n)))
		releaseArrays(cols)
	}
	return s, out
}

// dec64Aggs are Q1's aggregates over a, b, c, and others whose
// arguments mix +, - and * with constants on either side.
func dec64Aggs(typ *arrow.Decimal128Type) []AggCall {
	a, b, c := expr.Col(1, "a", typ), expr.Col(2, "b", typ), expr.Col(3, "c", typ)
	one := expr.Int(1)
	ar := func(op expr.ArithOp, l, r expr.Expr) expr.Expr { return must(expr.Arith(op, l, r)) }
	disc := ar(expr.Mul, a, ar(expr.Sub, one, b))
	charge := ar(expr.Mul, disc, ar(expr.Add, one, c))
	return []AggCall{
		{Func: Sum, Arg: a, Name: "sum_a"},
		{Func: Sum, Arg: disc, Name: "sum_disc"},
		{Func: Sum, Arg: charge, Name: "sum_charge"},
		{Func: Avg, Arg: a, Name: "avg_a"},
		{Func: Avg, Arg: disc, Name: "avg_disc"},
		{Func: Sum, Arg: ar(expr.Sub, ar(expr.Add, c, expr.Int(7)), ar(expr.Mul, b, c)), Name: "sum_mix"},
		{Func: Sum, Arg: ar(expr.Sub, expr.Int(3), a), Name: "sum_neg"},
		{Func: Count, Arg: disc, Name: "count_disc"},
		{Func: CountStar, Name: "n"},
	}
}

// runDec64 runs the aggregate with and without the int64-lane path.
func runDec64(t *testing.T, op Operator, par int) (fast, general string, fastErr, generalErr error) {
	t.Helper()
	var used atomic.Int64
	dec64Hook = func() { used.Add(1) }
	defer func() { dec64Hook = nil }()
	do := func() (string, error) {
		env, mem := newEnv(t)
		defer mem.AssertSize(t, 0)
		ctx := WithParallelism(context.Background(), par)
		rr, err := op.Open(ctx, env)
		if err != nil {
			return "", err
		}
		defer rr.Release()
		var rows []string
		for rr.Next() {
			b := rr.RecordBatch()
			for i := 0; i < int(b.NumRows()); i++ {
				var r []string
				for c := range int(b.NumCols()) {
					r = append(r, render.String(b.Column(c), i))
				}
				rows = append(rows, strings.Join(r, "|"))
			}
		}
		return strings.Join(sortedCopy(rows), "\n"), rr.Err()
	}
	fast, fastErr = do()
	if used.Load() == 0 {
		t.Fatal("no batch folded on int64 lanes")
	}
	noDec64 = true
	defer func() { noDec64 = false }()
	general, generalErr = do()
	return
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestDec64AggMatchesGeneral checks SUM and AVG of DECIMAL expressions
// folded on int64 lanes against the general path (128-bit arrays), and
// the sums against big.Int: NULLs, values beyond int64 in some batches,
// products beyond int64 (the batch takes the general path), sums that
// overflow the int64 lane, with and without a filter below, on one and on
// two goroutines.
func TestDec64AggMatchesGeneral(t *testing.T) {
	old := aggParallelAfter
	aggParallelAfter = 2000
	defer func() { aggParallelAfter = old }()
	d15, d38 := &arrow.Decimal128Type{Precision: 15, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 2}
	var rng *rand.Rand
	cases := []struct {
		name      string
		typ       *arrow.Decimal128Type
		nullEvery int
		gen       func(col int) decimal128.Num
		wantErr   bool
	}{
		{"tpch-like", d15, 0, func(col int) decimal128.Num {
			if col == 0 {
				return decimal128.FromI64(rng.Int63n(10_000_000) + 90_000)
			}
			return decimal128.FromI64(rng.Int63n(11))
		}, false},
		{"nulls", d15, 5, func(col int) decimal128.Num { return decimal128.FromI64(rng.Int63n(2_000_000) - 1_000_000) }, false},
		{"lane overflow", d38, 7, func(col int) decimal128.Num {
			if col == 0 {
				return decimal128.FromI64(1<<62 + rng.Int63n(1000))
			}
			return decimal128.FromI64(rng.Int63n(3))
		}, false},
		{"products beyond int64", d38, 0, func(col int) decimal128.Num { return decimal128.FromI64(rng.Int63n(1<<33) + 1<<33) }, false},
		{"values beyond int64", d38, 9, func(col int) decimal128.Num {
			v := decimal128.FromI64(rng.Int63n(1000))
			if col == 0 && rng.Intn(50) == 0 {
				v = decimal128.New(5, rng.Uint64()) // about 9·10^19
			}
			return v
		}, false},
		{"overflow error", d38, 0, func(col int) decimal128.Num {
			if col == 0 && rng.Intn(3000) == 0 {
				return decimal128.FromBigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(37), nil))
			}
			return decimal128.FromI64(rng.Int63n(100))
		}, true},
	}
	for _, tc := range cases {
		for _, grouped := range []bool{true, false} {
			for _, keep := range []int{100, 90, 20} {
				for _, par := range []int{1, 2} {
					t.Run(fmt.Sprintf("%s/grouped=%v/keep=%d%%/par=%d", tc.name, grouped, keep, par), func(t *testing.T) {
						rng = rand.New(rand.NewSource(11))
						mem := memory.NewGoAllocator()
						s, batches := dec64Table(mem, tc.typ, 20_000, 1500, tc.nullEvery, tc.gen, 5)
						defer releaseBatches(batches)
						var in Operator = memScan(s, batches)
						if keep < 100 { // d < keep: about keep% of the rows, few (20%) copied, most (90%) read in place
							pred := must(expr.Cmp(expr.Lt, expr.Col(4, "d", expr.Int32T()), expr.Int(int64(keep))))
							in = must(NewFilter(in, pred))
						}
						keys, names := []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"}
						if !grouped {
							keys, names = nil, nil
						}
						op := must(NewHashAggregate(in, keys, names, dec64Aggs(tc.typ), AggSingle))
						fast, general, fastErr, generalErr := runDec64(t, op, par)
						if (fastErr != nil) != tc.wantErr || (generalErr != nil) != tc.wantErr {
							t.Fatalf("errors: fast %v, general %v, want an error: %v", fastErr, generalErr, tc.wantErr)
						}
						if tc.wantErr {
							// On two goroutines either may reach an
							// overflowing row first, and the message names
							// the expression or sum that overflowed there.
							if !errors.Is(fastErr, ErrOverflow) || !errors.Is(generalErr, ErrOverflow) ||
								(par == 1 && fastErr.Error() != generalErr.Error()) {
								t.Fatalf("fast error %q, general %q", fastErr, generalErr)
							}
							return
						}
						if fast != general {
							t.Fatalf("int64 lanes:\n%s\ngeneral:\n%s", fast, general)
						}
						if want := bigSumA(batches, keep, grouped); !strings.HasPrefix(fast, want) && !strings.Contains(fast, "\n"+want) {
							t.Fatalf("sum of a %s not in\n%s", want, fast)
						}
					})
				}
			}
		}
	}
}

// TestDec64LaneRoom: values of 50 to 51 bits take, 1500 rows a batch,
// about half the room of the lanes folded without an overflow check, so
// the lanes settle every other batch; each group's sum passes the int64
// range several times over. The sums must equal big.Int's and the
// general path's, filtered in place or not, on one and two goroutines.
func TestDec64LaneRoom(t *testing.T) {
	d38 := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	for _, keep := range []int{100, 90} {
		for _, par := range []int{1, 2} {
			t.Run(fmt.Sprintf("keep=%d%%/par=%d", keep, par), func(t *testing.T) {
				rng := rand.New(rand.NewSource(3))
				mem := memory.NewGoAllocator()
				s, batches := dec64Table(mem, d38, 120_000, 1500, 0, func(col int) decimal128.Num {
					return decimal128.FromI64(1<<50 + rng.Int63n(1<<50))
				}, 9)
				defer releaseBatches(batches)
				var in Operator = memScan(s, batches)
				if keep < 100 {
					in = must(NewFilter(in, must(expr.Cmp(expr.Lt, expr.Col(4, "d", expr.Int32T()), expr.Int(int64(keep))))))
				}
				col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
				op := must(NewHashAggregate(in, []expr.Expr{col(0)}, []string{"g"},
					[]AggCall{{Func: Sum, Arg: col(1), Name: "a"}, {Func: Avg, Arg: col(2), Name: "b"}, {Func: CountStar, Name: "n"}}, AggSingle))
				fast, general, fastErr, generalErr := runDec64(t, op, par)
				if fastErr != nil || generalErr != nil {
					t.Fatalf("errors: fast %v, general %v", fastErr, generalErr)
				}
				if fast != general {
					t.Fatalf("int64 lanes:\n%s\ngeneral:\n%s", fast, general)
				}
				if want := bigSumA(batches, keep, true); !strings.HasPrefix(fast, want) && !strings.Contains(fast, "\n"+want) {
					t.Fatalf("sum of a %s not in\n%s", want, fast)
				}
			})
		}
	}
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// bigSumA is SUM(a) of group "A" (of every row when not grouped) over
// the rows where d < keep, in big.Int, as the result renders it: "A|<sum>|" or
// "<sum>|".
func bigSumA(batches []arrow.RecordBatch, keep int, grouped bool) string {
	sum, seen := new(big.Int), false
	for _, b := range batches {
		g := b.Column(0).(*array.String)
		a := b.Column(1).(*array.Decimal128)
		d := b.Column(4).(*array.Int32)
		for i := 0; i < int(b.NumRows()); i++ {
			if (grouped && (g.IsNull(i) || g.Value(i) != "A")) || a.IsNull(i) || d.Value(i) >= int32(keep) {
				continue
			}
			sum.Add(sum, a.Value(i).BigInt())
			seen = true
		}
	}
	prefix := ""
	if grouped {
		prefix = "A|"
	}
	if !seen {
		return prefix + "NULL|"
	}
	return prefix + decimal128.FromBigInt(sum).ToString(2) + "|"
}
