package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// batchSource serves the same in-memory batches at every Open, so a
// benchmark measures the operators and not a generator.
func batchSource(s *arrow.Schema, batches []arrow.RecordBatch) Source {
	return SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		return array.NewRecordReader(s, batches)
	})
}

// lineitemish builds rows of (k BIGINT, price DECIMAL(15,2), disc
// DECIMAL(15,2), tax DECIMAL(15,2)) with TPC-H's value ranges.
func lineitemish(rows, groups int) (*arrow.Schema, []arrow.RecordBatch) {
	dt := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	s := sch("k", expr.Int64T(), "price", dt, "disc", dt, "tax", dt)
	rng := rand.New(rand.NewSource(1))
	var out []arrow.RecordBatch
	for done := 0; done < rows; {
		n := min(4096, rows-done)
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		pb := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
		db := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
		tb := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
		for i := 0; i < n; i++ {
			kb.Append(int64(rng.Intn(groups)))
			pb.Append(decimal128.FromI64(90000 + rng.Int63n(10_000_000)))
			db.Append(decimal128.FromI64(rng.Int63n(11)))
			tb.Append(decimal128.FromI64(rng.Int63n(9)))
		}
		cols := []arrow.Array{kb.NewArray(), pb.NewArray(), db.NewArray(), tb.NewArray()}
		out = append(out, array.NewRecordBatch(s, cols, int64(n)))
		releaseArrays(cols)
		kb.Release()
		pb.Release()
		db.Release()
		tb.Release()
		done += n
	}
	return s, out
}

func drainCtx(b *testing.B, ctx context.Context, op Operator) {
	b.Helper()
	rr, err := op.Open(ctx, &Env{Mem: memory.NewGoAllocator()})
	if err != nil {
		b.Fatal(err)
	}
	for rr.Next() {
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	rr.Release()
}

// BenchmarkQ1Decimal is TPC-H Q1's arithmetic: SELECT k,
// sum(price), sum(price*(1-disc)), sum(price*(1-disc)*(1+tax)), avg(disc),
// count(*) GROUP BY k over 1M rows, on one goroutine.
func BenchmarkQ1Decimal(b *testing.B) {
	s, batches := lineitemish(1<<20, 4)
	scan := NewScan("", "l", batchSource(s, batches))
	col := func(i int) expr.Expr { return expr.Col(i, s.Field(i).Name, s.Field(i).Type) }
	one := &expr.Literal{Value: decimal128.FromI64(1), Type: expr.DecimalT(1, 0)}
	ar := func(op expr.ArithOp, l, r expr.Expr) expr.Expr {
		e, err := expr.Arith(op, l, r)
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	discPrice := ar(expr.Mul, col(1), ar(expr.Sub, one, col(2)))
	charge := ar(expr.Mul, discPrice, ar(expr.Add, one, col(3)))
	agg := must(NewHashAggregate(scan, []expr.Expr{col(0)}, []string{"k"}, []AggCall{
		{Func: Sum, Arg: col(1), Name: "a"}, {Func: Sum, Arg: discPrice, Name: "b"},
		{Func: Sum, Arg: charge, Name: "c"}, {Func: Avg, Arg: col(2), Name: "d"}, {Func: CountStar, Name: "n"},
	}, AggSingle))
	ctx := WithParallelism(context.Background(), 1)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		drainCtx(b, ctx, agg)
	}
	reportRows(b, 1<<20, cpu0)
}

// BenchmarkParallelJoin: SELECT * FROM probe(1M rows) JOIN build(64K
// keys) ON k WHERE probe.v < 900, probe on one goroutine and on two.
func BenchmarkParallelJoin(b *testing.B) {
	const rows, keys = 1 << 20, 1 << 16
	ps := sch("k", expr.Int64T(), "v", expr.Int64T())
	bs := sch("bk", expr.Int64T(), "w", expr.Int64T())
	rng := rand.New(rand.NewSource(2))
	mk := func(s *arrow.Schema, n int, key func(i int) int64) []arrow.RecordBatch {
		var out []arrow.RecordBatch
		for done := 0; done < n; {
			m := min(4096, n-done)
			kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
			for i := 0; i < m; i++ {
				kb.Append(key(done + i))
				vb.Append(rng.Int63n(1000))
			}
			cols := []arrow.Array{kb.NewArray(), vb.NewArray()}
			out = append(out, array.NewRecordBatch(s, cols, int64(m)))
			releaseArrays(cols)
			kb.Release()
			vb.Release()
			done += m
		}
		return out
	}
	probe := NewScan("", "p", batchSource(ps, mk(ps, rows, func(int) int64 { return rng.Int63n(2 * keys) })))
	build := NewScan("", "b", batchSource(bs, mk(bs, keys, func(i int) int64 { return int64(i) })))
	filtered := must(NewFilter(probe, must(expr.Cmp(expr.Lt, expr.Col(1, "v", expr.Int64T()), expr.Int(900)))))
	j := must(NewHashJoin(filtered, build, InnerJoin, []expr.Expr{expr.Col(0, "k", expr.Int64T())}, []expr.Expr{expr.Col(0, "bk", expr.Int64T())}, nil))
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("par=%d", par), func(b *testing.B) {
			ctx := WithParallelism(context.Background(), par)
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				drainCtx(b, ctx, j)
			}
			reportRows(b, rows, cpu0)
		})
	}
}
