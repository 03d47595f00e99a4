package exec

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// BenchmarkJoinSelective is Q17's shape: 4 M lineitem-like probe rows
// (key, three decimals) in 4096-row batches, held in memory, 200 build
// rows, one probe row in a thousand matching (about 4 pairs a batch),
// then SUM(price) GROUP BY k over the pairs; with the join's small output
// batches merged (coalesce=true) or passed on one per probe batch (false).
// ns/row-cpu is CPU time (all goroutines) per probe row.
func BenchmarkJoinSelective(b *testing.B) {
	const rows, buildRows = 4_000_000, 200
	ps, pbs := lineitemish(rows, buildRows*1000)
	bs, bbs := lineitemish(buildRows, buildRows)
	for i, x := range bbs { // build keys 0..199, one row each
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		for r := 0; r < int(x.NumRows()); r++ {
			kb.Append(int64(r))
		}
		cols := append([]arrow.Array{kb.NewArray()}, x.Columns()[1:]...)
		bbs[i] = array.NewRecordBatch(bs, cols, x.NumRows())
		cols[0].Release()
		kb.Release()
	}
	k := expr.Col(0, "k", expr.Int64T())
	probe := NewScan("", "probe", batchSource(ps, pbs))
	build := NewScan("", "build", batchSource(bs, bbs))
	j := must(NewHashJoin(probe, build, InnerJoin, []expr.Expr{k}, []expr.Expr{k}, nil))
	agg := must(NewHashAggregate(j, []expr.Expr{k}, []string{"k"},
		[]AggCall{{Func: Sum, Arg: expr.Col(1, "price", ps.Field(1).Type), Name: "s"}}, AggSingle))
	for _, par := range []int{1, 2} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("par=%d/coalesce=%v", par, on), func(b *testing.B) {
				defer func(old bool) { joinCoalesce = old }(joinCoalesce)
				joinCoalesce = on
				ctx := WithParallelism(context.Background(), par)
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					drainCtx(b, ctx, agg)
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(rows)/float64(b.N), "ns/row-cpu")
			})
		}
	}
}
