package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/exec/render"
)

// coalesceInputs makes a probe side of batches of 500 rows (k BIGINT, s
// VARCHAR), every seventh of 2000, with an empty batch every fifth, every 17th key NULL, and keys
// drawn from [off, off+span); and a build side (bk BIGINT, bv BIGINT) with
// keys 0..19, keys 3 and 7 twice, and one NULL key.
func coalesceInputs(off, span int64) (left, right [][][]any) {
	rng := rand.New(rand.NewSource(span + off))
	row := 0
	for g := 0; g < 30; g++ {
		var rows [][]any
		if g%5 != 4 {
			n := 500
			if g%7 == 3 {
				n = 2000 // passed on whole where most rows match
			}
			for i := 0; i < n; i++ {
				var k any = off + rng.Int63n(span)
				if row%17 == 0 {
					k = nil
				}
				rows = append(rows, []any{k, "s" + strconv.Itoa(row)})
				row++
			}
		}
		left = append(left, rows)
	}
	var b [][]any
	for k := 0; k < 20; k++ {
		b = append(b, []any{k, 100 + k})
		if k == 3 || k == 7 {
			b = append(b, []any{k, 200 + k})
		}
	}
	b = append(b, []any{nil, 999})
	return left, [][][]any{b[:9], b[9:]}
}

// nestedLoopJoin is the reference: every left row against every right row
// in order, NULL keys matching nothing.
func nestedLoopJoin(typ JoinType, left, right [][][]any) []string {
	str := func(v any) string {
		if v == nil {
			return "NULL"
		}
		return fmt.Sprint(v)
	}
	var out []string
	for _, lg := range left {
		for _, l := range lg {
			var m [][]any
			for _, rg := range right {
				for _, r := range rg {
					if l[0] != nil && r[0] != nil && fmt.Sprint(l[0]) == fmt.Sprint(r[0]) {
						m = append(m, r)
					}
				}
			}
			lp := str(l[0]) + "|" + str(l[1])
			switch typ {
			case InnerJoin, LeftOuterJoin:
				for _, r := range m {
					out = append(out, lp+"|"+str(r[0])+"|"+str(r[1]))
				}
				if len(m) == 0 && typ == LeftOuterJoin {
					out = append(out, lp+"|NULL|NULL")
				}
			case LeftSemiJoin:
				if len(m) > 0 {
					out = append(out, lp)
				}
			case LeftAntiJoin:
				if len(m) == 0 {
					out = append(out, lp)
				}
			}
		}
	}
	return out
}

// TestJoinCoalesce checks that a hash join's output, with runs of small
// batches merged, has the nested-loop join's rows in the same order, no
// two small batches in a row, and nothing left allocated; and that a
// memory limit too small for it fails cleanly.
func TestJoinCoalesce(t *testing.T) {
	ls := sch("k", expr.Int64T(), "s", expr.StringT())
	rs := sch("bk", expr.Int64T(), "bv", expr.Int64T())
	rates := []struct {
		name      string
		off, span int64
	}{
		{"none", 1000, 1000}, // no probe key is a build key
		{"low", 0, 4000},     // one row in 200
		{"high", 0, 20},      // every non-NULL key, some twice
		{"half", 0, 40},      // one row in two
	}
	types := []JoinType{InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin}
	for _, rate := range rates {
		left, right := coalesceInputs(rate.off, rate.span)
		for _, typ := range types {
			for _, par := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/%s/par=%d", rate.name, typ, par), func(t *testing.T) {
					j := must(NewHashJoin(scanOf(ls, left...), scanOf(rs, right...), typ,
						[]expr.Expr{expr.Col(0, "k", expr.Int64T())}, []expr.Expr{expr.Col(0, "bk", expr.Int64T())}, nil))
					env, mem := newEnv(t)
					defer mem.AssertSize(t, 0)
					rr, err := j.Open(WithParallelism(context.Background(), par), env)
					if err != nil {
						t.Fatal(err)
					}
					defer rr.Release()
					var got []string
					var sizes []int64
					for rr.Next() {
						b := rr.RecordBatch()
						sizes = append(sizes, b.NumRows())
						for i := 0; i < int(b.NumRows()); i++ {
							s := ""
							for c := 0; c < int(b.NumCols()); c++ {
								if c > 0 {
									s += "|"
								}
								s += render.String(b.Column(c), i)
							}
							got = append(got, s)
						}
					}
					if err := rr.Err(); err != nil {
						t.Fatal(err)
					}
					want := nestedLoopJoin(typ, left, right)
					if len(got) != len(want) {
						t.Fatalf("%d rows, want %d", len(got), len(want))
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
						}
					}
					for i := 1; i < len(sizes); i++ {
						if sizes[i-1] < coalesceSmall && sizes[i] < coalesceSmall {
							t.Fatalf("batches %d and %d have %d and %d rows: not merged (sizes %v)", i-1, i, sizes[i-1], sizes[i], sizes)
						}
					}
				})
			}
		}
	}
	t.Run("memory limit", func(t *testing.T) {
		left, right := coalesceInputs(0, 20)
		for _, limit := range []int64{8 << 10, 64 << 20} {
			j := must(NewHashJoin(scanOf(ls, left...), scanOf(rs, right...), InnerJoin,
				[]expr.Expr{expr.Col(0, "k", expr.Int64T())}, []expr.Expr{expr.Col(0, "bk", expr.Int64T())}, nil))
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			mem := memlimit.New(parent, limit, "exec_mem_limit")
			env, _ := newEnv(t)
			env.Mem = mem
			rows, err := runEnv(env, j)
			switch {
			case limit < 1<<20 && !errors.Is(err, memlimit.ErrExceeded):
				t.Fatalf("limit %d: got %v, want the limit's error", limit, err)
			case limit >= 1<<20 && (err != nil || len(rows) != len(nestedLoopJoin(InnerJoin, left, right))):
				t.Fatalf("limit %d: %d rows, %v", limit, len(rows), err)
			}
			if mem.Used() != 0 {
				t.Fatalf("limit %d: %d bytes still charged", limit, mem.Used())
			}
			parent.AssertSize(t, 0)
		}
	})
}

// TestConcatFast compares concatFast with arrow's Concatenate on sliced
// parts, with and without NULLs, of each kind of column it copies.
func TestConcatFast(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	for _, typ := range []arrow.DataType{expr.Int32T(), expr.Int64T(), dec, expr.StringT(), arrow.FixedWidthTypes.Boolean} {
		for _, nulls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nulls=%v", typ, nulls), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				s := sch("c", typ)
				var rows [][]any
				for i := 0; i < 50; i++ {
					var v any
					switch typ.ID() {
					case arrow.STRING:
						v = strings.Repeat("x", i%4)
					case arrow.DECIMAL128:
						v = decimal128.FromI64(int64(i * 7))
					case arrow.BOOL:
						v = i%3 == 0
					default:
						v = i
					}
					if nulls && i%5 == 2 {
						v = nil
					}
					rows = append(rows, []any{v})
				}
				b := mkBatch(mem, s, rows)
				defer b.Release()
				var parts []arrow.Array
				n := 0
				for _, cut := range [][2]int64{{0, 3}, {3, 3}, {7, 20}, {21, 50}} {
					parts = append(parts, array.NewSlice(b.Column(0), cut[0], cut[1]))
					n += int(cut[1] - cut[0])
				}
				defer releaseArrays(parts)
				got := concatFast(mem, parts, n)
				if !gatherable(typ) {
					if got != nil {
						got.Release()
						t.Fatal("copied a type gatherFast does not take")
					}
					return
				}
				defer got.Release()
				want := must(array.Concatenate(parts, mem))
				defer want.Release()
				if !array.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	}
}
