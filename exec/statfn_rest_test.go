package exec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// lastAggCases are the aggregates of statfn_rest.go and
// statfn_sequence.go over one generated key column of 0..rows-1 (as text
// k<i>, as a number, or as a time of i seconds), with their answer over
// 1000 rows derived by hand: all counts equal, so the top-1 is the value
// first seen last, k999; the weighted median of 0..999 at weight 1 lies
// halfway between the centres of 499 and 500; ceil(1000/128) = 8 values
// per histogram bucket make 125 buckets (the first, in text order, k0,
// k1, k10, k100..k104); width-1 buckets of 0..999 are
// 1000; every row meets both conditions, so (?1)(?2) matches and counts
// 500 disjoint pairs.
func lastAggCases() []struct {
	name string
	typ  arrow.DataType
	key  func(array.Builder, int)
	call AggCall
	want string // the answer over 1000 rows, or a part of it
} {
	f := expr.Col(0, "k", expr.Float64T())
	s := expr.Col(0, "k", expr.StringT())
	ts := expr.Col(0, "k", expr.DatetimeT())
	fkey := func(b array.Builder, i int) { b.(*array.Float64Builder).Append(float64(i)) }
	skey := func(b array.Builder, i int) { b.(*array.StringBuilder).Append("k" + strconv.Itoa(i)) }
	tkey := func(b array.Builder, i int) { b.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1e6)) }
	seq := func(fn AggFunc) AggCall {
		return AggCall{Func: fn, Arg: pack(expr.Str("(?1)(?2)"), ts, expr.Bool(true), expr.Bool(true)), Name: "q"}
	}
	return []struct {
		name string
		typ  arrow.DataType
		key  func(array.Builder, int)
		call AggCall
		want string
	}{
		{"topn_array", expr.StringT(), skey, AggCall{Func: TopNArray, Arg: pack(s, expr.Int(1)), Name: "t"}, `["k999"]`},
		{"topn_weighted", expr.StringT(), skey, AggCall{Func: TopNWeighted, Arg: pack(s, expr.Float(1), expr.Int(1)), Name: "t"}, `["k999"]`},
		{"count_by_enum", expr.StringT(), skey, AggCall{Func: CountByEnum, Arg: pack(s), Name: "c"}, `"notnull":1000,"null":0,"all":1000}]`},
		{"percentile_approx_weighted", expr.Float64T(), fkey, AggCall{Func: PercentileApproxWeighted, Arg: pack(f, expr.Float(1), expr.Float(0.5)), Name: "p"}, "499.5"},
		{"histogram", expr.StringT(), skey, AggCall{Func: Histogram, Arg: pack(s, expr.Int(128)), Name: "h"}, `{"num_buckets":125,"buckets":[{"lower":"k0","upper":"k104","ndv":8,"count":8,"pre_sum":0}`},
		{"linear_histogram", expr.Float64T(), fkey, AggCall{Func: LinearHistogram, Arg: pack(f, expr.Float(1), expr.Float(0)), Name: "l"}, `{"num_buckets":1000,`},
		{"sequence_match", expr.DatetimeT(), tkey, seq(SequenceMatch), "1"},
		{"sequence_count", expr.DatetimeT(), tkey, seq(SequenceCount), "500"},
	}
}

// TestLastAggsMemLimit: each of these aggregates keeps a value, a bucket
// or an event per row of a group, so over 1 M distinct values in one
// group (the operator charges a fixed size per group only) a 4 MiB limit
// must end in the memory-limit error with nothing left charged, while
// 1000 rows give the hand-derived answer and give everything back.
func TestLastAggsMemLimit(t *testing.T) {
	for _, c := range lastAggCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, rows := range []int{1000, 1 << 20} {
				parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
				mem := memlimit.New(parent, 4<<20, "exec_mem_limit")
				agg := must(NewHashAggregate(genKeys(c.typ, rows, c.key), nil, nil, []AggCall{c.call}, AggSingle))
				got, err := runEnv(&Env{Mem: mem}, agg)
				if rows == 1000 {
					if err != nil || len(got) != 1 || !strings.Contains(got[0][0], c.want) {
						t.Fatalf("%d rows: %v, %v; want %s", rows, got, err, c.want)
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

// TestLastAggsCancel: a statement cancelled while these aggregates fold
// its rows ends with the context's error and returns every byte.
func TestLastAggsCancel(t *testing.T) {
	for _, c := range lastAggCases() {
		t.Run(c.name, func(t *testing.T) {
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			mem := memlimit.New(parent, 1<<30, "exec_mem_limit")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			key := func(b array.Builder, i int) {
				if i == 50000 {
					cancel()
				}
				c.key(b, i)
			}
			agg := must(NewHashAggregate(genKeys(c.typ, 1<<20, key), nil, nil, []AggCall{c.call}, AggSingle))
			_, err := runEnvCtx(ctx, &Env{Mem: mem}, agg)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want the cancellation", err)
			}
			mem.Sweep()
			if u := mem.Used(); u != 0 {
				t.Errorf("%d bytes still charged", u)
			}
			parent.AssertSize(t, 0)
		})
	}
}

// TestLastAggsPartialFinal: per group, a partial aggregate over each input
// batch group and a final one over their states (the distributed and
// parallel plan) give what one aggregate over all rows gives, and the
// hand-derived answers: group a has x = 1, 2, 2 (2 most frequent, weight
// 5 on 1), b has 3 and a NULL.
func TestLastAggsPartialFinal(t *testing.T) {
	s := sch("g", expr.StringT(), "x", expr.Int64T(), "w", expr.Float64T(), "t", expr.DatetimeT(), "e", expr.StringT())
	day := func(sec int64) arrow.Timestamp { return arrow.Timestamp(sec * 1e6) }
	scan := scanOf(s,
		[][]any{{"a", 1, 5.0, day(0), "p"}, {"a", 2, 1.0, day(10), "q"}, {"b", 3, 1.0, day(5), nil}},
		[][]any{{"a", 2, 1.0, day(20), "q"}, {"b", nil, 2.0, day(6), "r"}},
	)
	x := expr.Col(1, "x", expr.Int64T())
	xf := must(expr.Cast(x, expr.Float64T()))
	w := expr.Col(2, "w", expr.Float64T())
	tc := expr.Col(3, "t", expr.DatetimeT())
	e := expr.Col(4, "e", expr.StringT())
	calls := []AggCall{
		{Func: TopNArray, Arg: pack(x, expr.Int(1)), Name: "ta"},
		{Func: TopNWeighted, Arg: pack(x, w, expr.Int(1)), Name: "tw"},
		{Func: CountByEnum, Arg: pack(e), Name: "ce"},
		{Func: PercentileApproxWeighted, Arg: pack(xf, w, expr.Float(0.5)), Name: "pw"},
		{Func: Histogram, Arg: pack(x, expr.Int(1)), Name: "h"},
		{Func: LinearHistogram, Arg: pack(xf, expr.Float(2), expr.Float(1)), Name: "lh"},
		{Func: SequenceMatch, Arg: pack(expr.Str("(?1)(?t>=10)(?2)"), tc, must(expr.Cmp(expr.Eq, x, expr.Int(1))), must(expr.Cmp(expr.Eq, x, expr.Int(2)))), Name: "sm"},
		{Func: SequenceCount, Arg: pack(expr.Str("(?1)"), tc, must(expr.Cmp(expr.Eq, x, expr.Int(2)))), Name: "sc"},
	}
	// a: centroids 1 (weight 5), 2 (1), 2 (1) centred at 2.5, 5.5, 6.5 of
	// 7: p 0.5 is 3.5, between 2.5 and 5.5: (1·2 + 2·1) / 3 = 4/3, in
	// float32 1.3333333730697632. b: only 3 (the NULL x is skipped).
	// Histogram with one bucket: the whole range.
	want := []string{
		`a|[2]|[1]|[{"cbe":{"q":2,"p":1},"notnull":3,"null":0,"all":3}]|1.3333333730697632|{"num_buckets":1,"buckets":[{"lower":"1","upper":"2","ndv":2,"count":3,"pre_sum":0}]}|{"num_buckets":1,"buckets":[{"lower":1.0,"upper":3.0,"count":3,"acc_count":3}]}|1|2`,
		`b|[3]|[3]|[{"cbe":{"r":1},"notnull":1,"null":1,"all":2}]|3|{"num_buckets":1,"buckets":[{"lower":"3","upper":"3","ndv":1,"count":1,"pre_sum":0}]}|{"num_buckets":1,"buckets":[{"lower":3.0,"upper":5.0,"count":1,"acc_count":1}]}|0|0`,
	}
	wantSorted(t, aggRun(t, scan, calls), want...)
	wantSorted(t, splitRun(t, scan, calls), want...)
}
