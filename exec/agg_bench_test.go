package exec

import (
	"context"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// The GROUP BY benchmark table, held in memory so that only the aggregate
// is measured (DuckDB's side, in agg_duck_test.go, builds the same rows
// with the same definitions from range()):
//
//	k BIGINT = i % groups
//	s VARCHAR = CAST(i % groups AS VARCHAR)
//	a INT    = (i % groups) % 1000
//	b VARCHAR = CAST((i % groups) / 1000 AS VARCHAR)
//	v DOUBLE = (i % 997) * 0.5
var aggBenchSchema = sch("k", expr.Int64T(), "s", expr.StringT(), "a", expr.Int32T(), "b", expr.StringT(), "v", expr.Float64T())

// aggBenchRows builds the table's batches (benchBatch rows each).
func aggBenchRows(mem memory.Allocator, rows, groups int64) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	var buf []byte
	for done := int64(0); done < rows; done += benchBatch {
		n := min(benchBatch, rows-done)
		kb, sb, ab, bb, vb := array.NewInt64Builder(mem), array.NewStringBuilder(mem), array.NewInt32Builder(mem),
			array.NewStringBuilder(mem), array.NewFloat64Builder(mem)
		kb.Reserve(int(n))
		ab.Reserve(int(n))
		vb.Reserve(int(n))
		sb.Reserve(int(n))
		bb.Reserve(int(n))
		for i := done; i < done+n; i++ {
			k := i % groups
			kb.UnsafeAppend(k)
			buf = strconv.AppendInt(buf[:0], k, 10)
			sb.BinaryBuilder.Append(buf)
			ab.UnsafeAppend(int32(k % 1000))
			buf = strconv.AppendInt(buf[:0], k/1000, 10)
			bb.BinaryBuilder.Append(buf)
			vb.UnsafeAppend(float64(i%997) * 0.5)
		}
		cols := []arrow.Array{kb.NewArray(), sb.NewArray(), ab.NewArray(), bb.NewArray(), vb.NewArray()}
		for _, b := range []array.Builder{kb, sb, ab, bb, vb} {
			b.Release()
		}
		out = append(out, array.NewRecordBatch(aggBenchSchema, cols, n))
		releaseArrays(cols)
	}
	return out
}

// memScan hands out batches (retained) as a scan.
func memScan(s *arrow.Schema, batches []arrow.RecordBatch) *Scan {
	return NewScan("", "mem", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		i := 0
		next := func() (arrow.RecordBatch, error) {
			if i >= len(batches) {
				return nil, nil
			}
			b := batches[i]
			i++
			b.Retain()
			return b, nil
		}
		return newPullReader(ctx, s, next, nil), nil
	}))
}

// aggBenchQuery is one benchmarked query: its SQL (for DuckDB, over table
// t) and the same plan over aggBenchSchema.
type aggBenchQuery struct {
	name string
	sql  string
	plan func(in Operator) Operator
}

func aggBenchQueries() []aggBenchQuery {
	k, s := expr.Col(0, "k", expr.Int64T()), expr.Col(1, "s", expr.StringT())
	a, b := expr.Col(2, "a", expr.Int32T()), expr.Col(3, "b", expr.StringT())
	v := expr.Col(4, "v", expr.Float64T())
	sumCount := []AggCall{{Func: Sum, Arg: v, Name: "sv"}, {Func: CountStar, Name: "n"}}
	group := func(keys []expr.Expr, names []string, aggs []AggCall) func(Operator) Operator {
		return func(in Operator) Operator { return must(NewHashAggregate(in, keys, names, aggs, AggSingle)) }
	}
	return []aggBenchQuery{
		{"int-key", "SELECT k, sum(v), count(*) FROM t GROUP BY k", group([]expr.Expr{k}, []string{"k"}, sumCount)},
		{"string-key", "SELECT s, sum(v), count(*) FROM t GROUP BY s", group([]expr.Expr{s}, []string{"s"}, sumCount)},
		{"int+string-key", "SELECT a, b, sum(v), count(*) FROM t GROUP BY a, b", group([]expr.Expr{a, b}, []string{"a", "b"}, sumCount)},
		{"count-distinct", "SELECT count(DISTINCT k) FROM t", group(nil, nil, []AggCall{{Func: Count, Arg: k, Distinct: true, Name: "d"}})},
	}
}

// BenchmarkGroupBy runs aggBenchQueries over 10 M in-memory rows with 1 K
// and 1 M groups (go test ./exec -run XXX -bench BenchmarkGroupBy).
func BenchmarkGroupBy(b *testing.B) {
	const rows = 10_000_000
	for _, groups := range []int64{1000, 1_000_000} {
		batches := aggBenchRows(memory.NewGoAllocator(), rows, groups)
		scan := memScan(aggBenchSchema, batches)
		for _, q := range aggBenchQueries() {
			b.Run(q.name+"/groups="+map[int64]string{1000: "1K", 1_000_000: "1M"}[groups], func(b *testing.B) {
				op := q.plan(scan)
				want := groups
				if q.name == "count-distinct" {
					want = 1
				}
				b.ReportAllocs()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					drain(b, op, want)
				}
				reportRows(b, rows, cpu0)
			})
		}
		for _, bt := range batches {
			bt.Release()
		}
	}
}
