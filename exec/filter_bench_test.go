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

// wideBatches builds n batches of 64K rows of a 16-column table held in
// memory (so the benchmark measures the filter, not a generator):
//
//	c0 BIGINT   row % 1000 (the selective column)
//	c1 BIGINT   (row * 7) % 100
//	c2..c7      BIGINT   row + k
//	c8..c11     DOUBLE   row / k
//	c12..c15    STRING   'v' + (row % 997) + k
func wideBatches(n int) (*arrow.Schema, []arrow.RecordBatch) {
	mem := memory.NewGoAllocator()
	var fields []arrow.Field
	for c := 0; c < 16; c++ {
		t := expr.Int64T()
		switch {
		case c >= 12:
			t = expr.StringT()
		case c >= 8:
			t = expr.Float64T()
		}
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", c), Type: t, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	var out []arrow.RecordBatch
	for k := 0; k < n; k++ {
		b := array.NewRecordBuilder(mem, sc)
		for r := 0; r < benchBatch; r++ {
			row := int64(k*benchBatch + r)
			for c := 0; c < 16; c++ {
				switch fb := b.Field(c).(type) {
				case *array.Int64Builder:
					switch c {
					case 0:
						fb.Append(row % 1000)
					case 1:
						fb.Append(row * 7 % 100)
					default:
						fb.Append(row + int64(c))
					}
				case *array.Float64Builder:
					fb.Append(float64(row) / float64(c))
				case *array.StringBuilder:
					fb.Append(fmt.Sprintf("v%d-%d", row%997, c))
				}
			}
		}
		out = append(out, b.NewRecordBatch())
		b.Release()
	}
	return sc, out
}

// BenchmarkFilterWide: SELECT c5 FROM wide(16 columns, 2M rows) WHERE
// c0 < 100 AND c1 >= 10 (9 % of the rows pass; one column is used
// downstream), and the same with c5 + c9 and with every column.
func BenchmarkFilterWide(b *testing.B) {
	sc, batches := wideBatches(32)
	defer func() {
		for _, x := range batches {
			x.Release()
		}
	}()
	rows := int64(len(batches) * benchBatch)
	src := SourceFunc(sc, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		i := 0
		next := func() (arrow.RecordBatch, error) {
			if i == len(batches) {
				return nil, nil
			}
			i++
			batches[i-1].Retain()
			return batches[i-1], nil
		}
		return newPullReader(ctx, sc, next, nil), nil
	})
	col := func(i int) expr.Expr { return expr.Col(i, sc.Field(i).Name, sc.Field(i).Type) }
	pred := must(expr.And(must(expr.Cmp(expr.Lt, col(0), expr.Int(100))), must(expr.Cmp(expr.Ge, col(1), expr.Int(10)))))
	var all []expr.Expr
	var names []string
	for i := range sc.Fields() {
		all = append(all, col(i))
		names = append(names, sc.Field(i).Name)
	}
	for _, tc := range []struct {
		name  string
		exprs []expr.Expr
	}{
		{"one-column", []expr.Expr{col(5)}},
		{"two-columns", []expr.Expr{must(expr.Arith(expr.Add, col(5), col(9)))}},
		{"all-columns", all},
	} {
		b.Run(tc.name, func(b *testing.B) {
			scan := NewScan("", "wide", src)
			p := must(NewProject(must(NewFilter(scan, pred)), tc.exprs, names[:len(tc.exprs)]))
			var want int64 // the predicate, row by row from the column formulas
			for r := int64(0); r < rows; r++ {
				if r%1000 < 100 && r*7%100 >= 10 {
					want++
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				drain(b, p, want)
			}
			reportRows(b, rows, cpu0)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
	}
}
