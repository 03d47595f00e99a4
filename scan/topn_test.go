package scan

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestRangeTop: a range's Top-N equals the first n of its rows sorted by
// Go's sort (ties in input order), across compactions; a key-ordered range
// stops once it holds n rows, and a row out of order turns the stop off.
func TestRangeTop(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "seq", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(mem memory.Allocator, ks []int64, seq0 int64) arrow.RecordBatch {
		kb, sb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		defer kb.Release()
		defer sb.Release()
		for i, k := range ks {
			kb.Append(k)
			sb.Append(seq0 + int64(i))
		}
		ka, sa := kb.NewArray(), sb.NewArray()
		defer ka.Release()
		defer sa.Release()
		return array.NewRecordBatch(schema, []arrow.Array{ka, sa}, int64(len(ks)))
	}
	cases := []struct {
		name            string
		n, rows, per    int
		desc, ascending bool // ascending: keys come sorted (a key-ordered split)
		ordered         bool // the range claims key order
		disorderAt      int  // > 0: one row out of order at this position
		wantStopAfter   int  // rows fed before the stop; 0: no stop
	}{
		{name: "small n many batches", n: 10, rows: 50000, per: 1000},
		{name: "desc", n: 7, rows: 30000, per: 999, desc: true},
		{name: "n over threshold", n: 20000, rows: 70000, per: 4096},
		{name: "n above rows", n: 500, rows: 300, per: 64},
		{name: "ordered stops", n: 10, rows: 50000, per: 1000, ascending: true, ordered: true, wantStopAfter: 1000},
		{name: "ordered stops mid batches", n: 2500, rows: 50000, per: 1000, ascending: true, ordered: true, wantStopAfter: 3000},
		{name: "disorder turns the stop off", n: 10, rows: 5000, per: 1000, ascending: true, ordered: true, disorderAt: 500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewPCG(1, uint64(c.rows)))
			keys := make([]int64, c.rows)
			for i := range keys {
				keys[i] = rng.Int64N(int64(c.rows / 3)) // ties on purpose
			}
			if c.ascending {
				slices.Sort(keys)
			}
			if c.disorderAt > 0 {
				keys[c.disorderAt] = -1
			}
			ordered := -1
			if c.ordered {
				ordered = 0
			}
			top := &rangeTop{keys: []exec.SortKey{{Expr: expr.Col(0, "k", arrow.PrimitiveTypes.Int64), Desc: c.desc, Nulls: exec.NullsLast}},
				n: int64(c.n), schema: schema, mem: mem, ordered: ordered}
			defer top.release()
			fed, stopped := 0, false
			for i := 0; i < c.rows && !stopped; i += c.per {
				end := min(i+c.per, c.rows)
				err := top.add(context.Background(), batch(mem, keys[i:end], int64(i)))
				fed = end
				if errors.Is(err, errRangeEnough) {
					stopped = true
				} else if err != nil {
					t.Fatal(err)
				}
			}
			if got := map[bool]int{true: fed, false: 0}[stopped]; got != c.wantStopAfter {
				t.Fatalf("stopped after %d rows, want %d (0: no stop)", got, c.wantStopAfter)
			}
			var got [][2]int64
			if err := top.flush(context.Background(), func(rec arrow.RecordBatch) error {
				defer rec.Release()
				k, s := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
				for i := 0; i < k.Len(); i++ {
					got = append(got, [2]int64{k.Value(i), s.Value(i)})
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			// The model: every row fed, stably sorted, the first n.
			want := make([][2]int64, fed)
			for i := range want {
				want[i] = [2]int64{keys[i], int64(i)}
			}
			slices.SortStableFunc(want, func(a, b [2]int64) int {
				if c.desc {
					return int(b[0] - a[0])
				}
				return int(a[0] - b[0])
			})
			want = want[:min(c.n, len(want))]
			if !slices.Equal(got, want) {
				t.Fatalf("top %d: got %d rows %v…, want %v…", c.n, len(got), got[:min(5, len(got))], want[:min(5, len(want))])
			}
		})
	}
}
