package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// The tablebench table in memory (id BIGINT = i, k INT = i % 1000,
// v BIGINT = i % 97), so that only the executor is measured.
var globalBenchSchema = sch("id", expr.Int64T(), "k", expr.Int32T(), "v", expr.Int64T())

func globalBenchRows(mem memory.Allocator, rows int64) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for done := int64(0); done < rows; done += benchBatch {
		n := min(benchBatch, rows-done)
		ib, kb, vb := array.NewInt64Builder(mem), array.NewInt32Builder(mem), array.NewInt64Builder(mem)
		ib.Reserve(int(n))
		kb.Reserve(int(n))
		vb.Reserve(int(n))
		for i := done; i < done+n; i++ {
			ib.UnsafeAppend(i)
			kb.UnsafeAppend(int32(i % 1000))
			vb.UnsafeAppend(i % 97)
		}
		cols := []arrow.Array{ib.NewArray(), kb.NewArray(), vb.NewArray()}
		ib.Release()
		kb.Release()
		vb.Release()
		out = append(out, array.NewRecordBatch(globalBenchSchema, cols, n))
		releaseArrays(cols)
	}
	return out
}

// BenchmarkGlobalAggregate: the ungrouped tablebench queries over 10 M
// in-memory rows (go test ./exec -run XXX -bench BenchmarkGlobalAggregate);
// ns/row is wall time per input row.
func BenchmarkGlobalAggregate(b *testing.B) {
	const rows = 10_000_000
	batches := globalBenchRows(memory.NewGoAllocator(), rows)
	defer func() {
		for _, bt := range batches {
			bt.Release()
		}
	}()
	id, k, v := expr.Col(0, "id", expr.Int64T()), expr.Col(1, "k", expr.Int32T()), expr.Col(2, "v", expr.Int64T())
	lit := func(x int64) expr.Expr { return must(expr.Lit(x, expr.Int64T())) }
	kLt100 := must(expr.Cmp(expr.Lt, k, lit(100)))
	kPlusLt100 := must(expr.Cmp(expr.Lt, must(expr.Arith(expr.Add, k, lit(0))), lit(100)))
	for _, q := range []struct {
		name string
		plan func(in Operator) Operator
	}{
		{"sum(v),count(*)", func(in Operator) Operator {
			return must(NewHashAggregate(in, nil, nil, []AggCall{{Func: Sum, Arg: v, Name: "s"}, {Func: CountStar, Name: "n"}}, AggSingle))
		}},
		{"min(v),max(id),avg(v)", func(in Operator) Operator {
			return must(NewHashAggregate(in, nil, nil, []AggCall{{Func: Min, Arg: v, Name: "a"}, {Func: Max, Arg: id, Name: "b"}, {Func: Avg, Arg: v, Name: "c"}}, AggSingle))
		}},
		{"count(*),sum(id) WHERE k<100", func(in Operator) Operator {
			return must(NewHashAggregate(must(NewFilter(in, kLt100)), nil, nil, []AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: id, Name: "s"}}, AggSingle))
		}},
		{"count(*) WHERE k+0<100 (evaluated)", func(in Operator) Operator {
			return must(NewHashAggregate(must(NewFilter(in, kPlusLt100)), nil, nil, []AggCall{{Func: CountStar, Name: "n"}}, AggSingle))
		}},
	} {
		b.Run(q.name, func(b *testing.B) {
			op := q.plan(memScan(globalBenchSchema, batches))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				drain(b, op, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows)/float64(b.N), "ns/row")
		})
	}
}
