package exec

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// figureSource makes n rows (k, s, v) as dupRows does (k = i % kmod, NULL
// every 97th; s = i % smod in 40 digits, NULL every 89th; v = i), 8192 a
// batch, built when read.
type figureSource struct{ n, kmod, smod int }

func (g figureSource) Schema() *arrow.Schema { return spillSchema }
func (g figureSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	i := 0
	return newPullReader(ctx, spillSchema, func() (arrow.RecordBatch, error) {
		if i >= g.n {
			return nil, nil
		}
		b := array.NewRecordBuilder(mem, spillSchema)
		defer b.Release()
		kb, sb, vb := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.StringBuilder), b.Field(2).(*array.Int64Builder)
		for end := min(i+8192, g.n); i < end; i++ {
			if i%97 == 0 {
				kb.AppendNull()
			} else {
				kb.Append(int64(i % g.kmod))
			}
			if i%89 == 0 {
				sb.AppendNull()
			} else {
				sb.Append(fmt.Sprintf("%040d", i%g.smod))
			}
			vb.Append(int64(i))
		}
		return b.NewRecordBatch(), nil
	}, nil), nil
}

// TestSpillFigures measures each operator that spills its rows over
// INLET_SPILL_FIGURES rows (about 70 bytes each) at a 16 MiB
// exec_mem_limit against the same in memory without a limit: ms, bytes
// and files written, peak accounted memory. Only when the variable is
// set:
//
//	INLET_SPILL_FIGURES=2000000 go test ./exec -run TestSpillFigures -v -timeout 30m
func TestSpillFigures(t *testing.T) {
	env := os.Getenv("INLET_SPILL_FIGURES")
	if env == "" {
		t.Skip("set INLET_SPILL_FIGURES=<rows>")
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		t.Fatalf("INLET_SPILL_FIGURES=%q: want a row count", env)
	}
	const limit = 16 << 20
	scan := NewScan("VOlapScanNode", "t", figureSource{n: n, kmod: n / 4, smod: n / 2})
	agg := func(gb []expr.Expr, aggs ...AggCall) Operator {
		return must(NewHashAggregate(scan, gb, []string{"k"}[:len(gb)], aggs, AggSingle))
	}
	ops := []struct {
		name string
		op   Operator
	}{
		{"count(DISTINCT s)", agg(nil, AggCall{Func: Count, Arg: ds, Distinct: true, Name: "c"})},
		{"count(DISTINCT k), count(DISTINCT s)", agg(nil, AggCall{Func: Count, Arg: dk, Distinct: true, Name: "a"}, AggCall{Func: Count, Arg: ds, Distinct: true, Name: "b"})},
		{"GROUP BY k count(DISTINCT s)", agg([]expr.Expr{dk}, AggCall{Func: Count, Arg: ds, Distinct: true, Name: "c"})},
		{"GROUP BY k group_concat(s)", agg([]expr.Expr{dk}, AggCall{Func: GroupConcat, Arg: ds, Name: "g"})},
		{"row_number() OVER (PARTITION BY k ORDER BY v)", must(NewWindow(scan, []expr.Expr{dk}, []SortKey{{Expr: dv}}, []WindowCall{{Func: RowNumber, Name: "rn"}}))},
		{"v NOT IN (SELECT v)", must(NewHashJoin(scan, scan, NullAwareLeftAntiJoin, []expr.Expr{dv}, []expr.Expr{dv}, nil))},
		{"ORDER BY s LIMIT n/2", must(NewTopN(scan, []SortKey{{Expr: ds}, {Expr: dv}}, 0, int64(n/2)))},
		{"SELECT DISTINCT k, s", NewDistinct(must(NewProject(scan, []expr.Expr{dk, ds}, []string{"k", "s"})))},
	}
	t.Logf("%d rows, exec_mem_limit %d MiB; in memory: no limit, no spill", n, limit>>20)
	t.Logf("%-46s %9s %9s %11s %7s %11s %11s", "operator", "out rows", "mem ms", "spill ms", "files", "spill MB", "peak MiB")
	for _, o := range ops {
		// In memory, unlimited.
		start := time.Now()
		rowsMem, err := figureRun(context.Background(), memlimit.New(memory.NewGoAllocator(), 1<<40, "exec_mem_limit"), o.op)
		if err != nil {
			t.Fatalf("%s in memory: %v", o.name, err)
		}
		memMs := time.Since(start).Milliseconds()
		dir := t.TempDir()
		stats := &SpillStats{}
		acct := memlimit.New(memory.NewGoAllocator(), limit, "exec_mem_limit")
		start = time.Now()
		rows, err := figureRun(WithSpill(context.Background(), dir, stats), acct, o.op)
		if err != nil {
			t.Fatalf("%s spilling: %v", o.name, err)
		}
		spillMs := time.Since(start).Milliseconds()
		if rows != rowsMem {
			t.Fatalf("%s: %d rows spilling, %d in memory", o.name, rows, rowsMem)
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Fatalf("%s: %d files left", o.name, len(ents))
		}
		t.Logf("%-46s %9d %9d %11d %7d %11.1f %11.1f", o.name, rows, memMs, spillMs, stats.Files.Load(),
			float64(stats.Bytes.Load())/1e6, float64(acct.Peak())/(1<<20))
	}
}

func figureRun(ctx context.Context, acct *memlimit.Allocator, op Operator) (n int, err error) {
	defer acct.Close()
	err = memlimit.Guard(func() error {
		var err error
		n, err = runEnvCtx(ctx, &Env{Mem: acct, Now: time.Now()}, op)
		return err
	})
	return n, err
}
