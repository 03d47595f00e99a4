package exec

import (
	"errors"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// TestValueAggsMemLimit: PERCENTILE, MEDIAN, PERCENTILE_APPROX,
// APPROX_COUNT_DISTINCT and TOPN keep a value or key per row, so over 1 M
// distinct values in one group (the operator charges a fixed size per
// group only) a 4 MiB limit (twice a batch's packed arguments) must end in
// the memory-limit error with nothing left charged; 1000 values pass with the hand-derived answer
// (median of 0..999 is 499.5; 1000 distinct; the 1-top of counts all 1 is
// the least key) and give everything back.
func TestValueAggsMemLimit(t *testing.T) {
	f := expr.Col(0, "k", expr.Float64T())
	s := expr.Col(0, "k", expr.StringT())
	fkey := func(b array.Builder, i int) { b.(*array.Float64Builder).Append(float64(i)) }
	skey := func(b array.Builder, i int) { b.(*array.StringBuilder).Append("k" + strconv.Itoa(i)) }
	for _, c := range []struct {
		name  string
		typ   arrow.DataType
		key   func(array.Builder, int)
		call  AggCall
		small string // the answer over 1000 rows
	}{
		{"percentile", expr.Float64T(), fkey, AggCall{Func: Percentile, Arg: pack(f, expr.Float(0.5)), Name: "p"}, "499.5"},
		{"median", expr.Float64T(), fkey, AggCall{Func: Median, Arg: f, Name: "m"}, "499.5"},
		{"percentile_approx", expr.Float64T(), fkey, AggCall{Func: PercentileApprox, Arg: pack(f, expr.Float(0.5)), Name: "a"}, "499.5"},
		{"ndv", expr.StringT(), skey, AggCall{Func: ApproxCountDistinct, Arg: s, Name: "n"}, "1000"},
		{"topn", expr.StringT(), skey, AggCall{Func: TopNAgg, Arg: pack(s, expr.Int(1)), Name: "t"}, `{"k0":1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, rows := range []int{1000, 1 << 20} {
				parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
				mem := memlimit.New(parent, 4<<20, "exec_mem_limit")
				agg := must(NewHashAggregate(genKeys(c.typ, rows, c.key), nil, nil, []AggCall{c.call}, AggSingle))
				got, err := runEnv(&Env{Mem: mem}, agg)
				if rows == 1000 {
					if err != nil || len(got) != 1 || got[0][0] != c.small {
						t.Fatalf("%d rows: %v, %v; want %s", rows, got, err, c.small)
					}
				} else if !errors.Is(err, memlimit.ErrExceeded) {
					t.Fatalf("%d rows: err = %v, want the memory limit error", rows, err)
				}
				mem.Sweep()
				if u := mem.Used(); u != 0 {
					t.Errorf("%d rows: %d bytes still charged", rows, u)
				}
				parent.AssertSize(t, 0)
			}
		})
	}
}

// TestValueAggsChargeRefund: the accumulators' own charge grows with the
// values and keys they keep (not per group) and release returns all of it,
// also after a partial state is merged in.
func TestValueAggsChargeRefund(t *testing.T) {
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	mem := memlimit.New(parent, 1<<30, "exec_mem_limit")
	fb := array.NewFloat64Builder(parent)
	sb := array.NewStringBuilder(parent)
	for i := 0; i < 5000; i++ {
		fb.Append(float64(i % 2500))
		sb.Append("v" + strconv.Itoa(i%2500))
	}
	fs, ss := fb.NewArray(), sb.NewArray()
	fb.Release()
	sb.Release()
	defer fs.Release()
	defer ss.Release()
	gids := make([]uint32, 5000)
	pa, na := &percentileAcc{f: Median}, &ndvAcc{typ: expr.StringT()}
	ta := &topNAcc{}
	accs := []interface {
		accumulator
		setMem(memory.Allocator)
		release()
	}{pa, na, ta}
	for _, a := range accs {
		a.setMem(mem)
		a.grow(1)
	}
	pa.update(gids, fs, 5000)
	na.update(gids, ss, 5000)
	nb := array.NewInt64Builder(parent)
	for range 5000 {
		nb.Append(3)
	}
	ns := nb.NewArray()
	nb.Release()
	st := must(array.NewStructArray([]arrow.Array{ss, ns}, []string{"x", "n"}))
	ns.Release()
	ta.update(gids, st, 5000)
	st.Release()
	// 5000 floats; 2500 distinct keys of at least 2 bytes each.
	if pa.charged < 5000*valBytes || na.charged < 2500*(2+setEntryBytes) || ta.charged < 2500*(2+cntEntryBytes) {
		t.Fatalf("charged %d, %d, %d: below the values held", pa.charged, na.charged, ta.charged)
	}
	// Merging a partial state (as a final aggregate does) charges its values too.
	before := pa.charged
	states := pa.states(parent, 1)
	pa.merge([]uint32{0}, states)
	releaseArrays(states)
	if pa.charged < before+5000*valBytes {
		t.Fatalf("merge charged %d more, want at least %d", pa.charged-before, 5000*valBytes)
	}
	if mem.Used() == 0 {
		t.Fatal("nothing charged to the account")
	}
	for _, a := range accs {
		a.release()
	}
	if u := mem.Used(); u != 0 {
		t.Fatalf("%d bytes still charged after release", u)
	}
}
