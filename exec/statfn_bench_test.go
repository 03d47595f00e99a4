package exec

import (
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// benchScan is 1M rows in 16 batches: g in 100 groups, x and y doubles
// near 1e9.
func benchScan() *Scan {
	s := sch("g", expr.Int64T(), "x", expr.Float64T(), "y", expr.Float64T())
	var groups [][][]any
	for b := 0; b < 16; b++ {
		rows := make([][]any, 0, 65536)
		for i := 0; i < 65536; i++ {
			k := b*65536 + i
			rows = append(rows, []any{int64(k % 100), 1e9 + float64(k%1013), 1e9 + float64(k%977)})
		}
		groups = append(groups, rows)
	}
	return scanOf(s, groups...)
}

// BenchmarkAggregateStat: go test ./exec -run '^$' -bench AggregateStat -benchtime 3x
func BenchmarkAggregateStat(b *testing.B) {
	scan := benchScan()
	g := expr.Col(0, "g", expr.Int64T())
	x, y := expr.Col(1, "x", expr.Float64T()), expr.Col(2, "y", expr.Float64T())
	for _, c := range []struct {
		name string
		call AggCall
	}{
		{"var_samp", AggCall{Func: VarSamp, Arg: x, Name: "v"}},
		{"kurt", AggCall{Func: Kurt, Arg: x, Name: "k"}},
		{"covar_samp", AggCall{Func: CovarSamp, Arg: pack(x, y), Name: "c"}},
		{"percentile", AggCall{Func: Percentile, Arg: pack(x, expr.Float(0.9)), Name: "p"}},
		{"sum", AggCall{Func: Sum, Arg: x, Name: "s"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			agg := must(NewHashAggregate(scan, []expr.Expr{g}, []string{"g"}, []AggCall{c.call}, AggSingle))
			for i := 0; i < b.N; i++ {
				if rows := run(b, agg); len(rows) != 100 {
					b.Fatalf("%d groups", len(rows))
				}
			}
		})
	}
}

// BenchmarkWindowStddev: a sliding ROWS frame of 100 rows over 1M rows in
// 100 partitions, against SUM over the same frame (the rest of the window
// operator: sort, partitions, output).
func BenchmarkWindowStddev(b *testing.B) {
	scan := benchScan()
	g := expr.Col(0, "g", expr.Int64T())
	x := expr.Col(1, "x", expr.Float64T())
	for _, f := range []WindowFunc{WinStddevSamp, WinSum} {
		b.Run(f.String(), func(b *testing.B) {
			w := must(NewWindow(scan, []expr.Expr{g}, []SortKey{{Expr: x}}, []WindowCall{{Func: f, Arg: x, Name: "s"}}))
			w.Frame, w.RowsFrom, w.RowsTo = FrameRows, -50, 49
			env, mem := newEnv(b)
			defer mem.AssertSize(b, 0)
			for i := 0; i < b.N; i++ {
				rows, err := runEnv(env, w)
				if err != nil || len(rows) != 1<<20 {
					b.Fatalf("%d rows, %v", len(rows), err)
				}
			}
		})
	}
}
