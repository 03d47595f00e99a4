package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// flussLikeSource is a Source that adds its own EXPLAIN lines, as the
// Fluss planner's will.
type flussLikeSource struct{ memSource }

func (flussLikeSource) ExplainLines() []string {
	return []string{"CONNECTOR: fluss", "flussScan: readMode=default, unionRead=yes, lakeSplits=1, suppressedLakeSplits=1, logRanges=0, pkRanges=0, pkTailRanges=1, mode=auto"}
}

func TestExplainTree(t *testing.T) {
	fs := sch("k", expr.Int64T(), "v", expr.StringT())
	fluss := NewScan("VPluginDrivenScanNode(1)", "fluss.db.t", flussLikeSource{memSource{schema: fs}})
	dim := scanOf(sch("id", expr.Int64T(), "name", expr.StringT()))
	k := expr.Col(0, "k", expr.Int64T())
	f := must(NewFilter(fluss, must(expr.Cmp(expr.Gt, k, expr.Int(5)))))
	j := must(NewHashJoin(f, dim, InnerJoin, []expr.Expr{k}, []expr.Expr{expr.Col(0, "id", expr.Int64T())}, nil))
	agg := must(NewHashAggregate(j, []expr.Expr{expr.Col(3, "name", expr.StringT())}, []string{"name"},
		[]AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: k, Name: "s"}}, AggSingle))
	top := must(NewTopN(agg, []SortKey{{Expr: expr.Col(2, "s", expr.Int64T()), Desc: true}}, 0, 10))
	want := `PLAN FRAGMENT 0
  OUTPUT EXPRS:
    name
    n
    s
  PARTITION: UNPARTITIONED

  VRESULT SINK
     MYSQL_PROTOCAL

  5:VTOP-N
  |  order by: s DESC
  |  limit: 10
  |  offset: 0
  |  
  4:VAGGREGATE (update finalize)
  |  output: count(*), sum(k)
  |  group by: name
  |  
  3:VHASH JOIN
  |  join op: INNER JOIN
  |  equal join conjunct: (k = id)
  |  
  |----2:VOlapScanNode
  |       TABLE: t
  |    
  1:VSELECT
  |  predicates: (k > 5)
  |  
  0:VPluginDrivenScanNode(1)
     TABLE: fluss.db.t
     CONNECTOR: fluss
     flussScan: readMode=default, unionRead=yes, lakeSplits=1, suppressedLakeSplits=1, logRanges=0, pkRanges=0, pkTailRanges=1, mode=auto
`
	if got := ExplainTree(top); got != want {
		t.Errorf("explain:\n%s\nwant:\n%s", got, want)
	}
	// An empty scan still runs through the whole plan.
	wantRows(t, run(t, top))
}

func TestCancelAndErrors(t *testing.T) {
	s := sch("x", expr.Int64T())
	scan := scanOf(s, [][]any{{1}}, [][]any{{2}})
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	rr, err := must(NewProject(scan, []expr.Expr{expr.Col(0, "x", expr.Int64T())}, []string{"x"})).Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() {
		t.Fatal("no first batch")
	}
	cancel()
	if rr.Next() || rr.Err() != context.Canceled {
		t.Fatalf("after cancel: err %v", rr.Err())
	}
	rr.Release()

	// A source whose batches do not match its declared schema is a plan error.
	liar := NewScan("VSCAN", "liar", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		b := mkBatch(mem, sch("x", expr.StringT()), [][]any{{"oops"}})
		defer b.Release()
		return array.NewRecordReader(b.Schema(), []arrow.RecordBatch{b})
	}))
	if _, err := runEnv(env, liar); err == nil {
		t.Fatal("schema mismatch not reported")
	}
	// An unknown column index is reported, not a panic.
	bad := must(NewProject(scan, []expr.Expr{expr.Col(5, "nope", expr.Int64T())}, []string{"nope"}))
	if _, err := runEnv(env, bad); err == nil {
		t.Fatal("bad column index not reported")
	}
	// Releasing a reader before draining it frees everything.
	agg := must(NewHashAggregate(scan, []expr.Expr{expr.Col(0, "x", expr.Int64T())}, []string{"x"}, []AggCall{{Func: CountStar, Name: "n"}}, AggSingle))
	for _, op := range []Operator{agg, must(NewSort(scan, []SortKey{{Expr: expr.Col(0, "x", expr.Int64T())}})), NewLimit(scan, 0, 1)} {
		rr, err := op.Open(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		rr.Next()
		rr.Release()
	}
}
