package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/exec/render"
)

// spillRows makes n rows (k, s, v): k repeats every mod rows and is NULL
// every 97th row, s is a 40-byte string of the row number, v the row
// number; in batches of 500.
func spillRows(n, mod int) [][][]any {
	var groups [][][]any
	var g [][]any
	for i := 0; i < n; i++ {
		var k any = int64(i % mod)
		if i%97 == 0 {
			k = nil
		}
		g = append(g, []any{k, fmt.Sprintf("%040d", i), int64(i)})
		if len(g) == 500 {
			groups, g = append(groups, g), nil
		}
	}
	if len(g) > 0 {
		groups = append(groups, g)
	}
	return groups
}

// lazySource builds each batch when it is read, as a scan does, so only
// what the operators hold counts against the limit.
type lazySource struct {
	schema *arrow.Schema
	groups [][][]any
}

func (l lazySource) Schema() *arrow.Schema { return l.schema }
func (l lazySource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	i := 0
	return newPullReader(ctx, l.schema, func() (arrow.RecordBatch, error) {
		if i == len(l.groups) {
			return nil, nil
		}
		i++
		return mkBatch(mem, l.schema, l.groups[i-1]), nil
	}, nil), nil
}

func lazyScan(s *arrow.Schema, groups [][][]any) *Scan {
	return NewScan("VOlapScanNode", "t", lazySource{schema: s, groups: groups})
}

var spillSchema = sch("k", expr.Int64T(), "s", expr.StringT(), "v", expr.Int64T())

// runSpill drains op under an account of limit bytes with spilling to a
// fresh directory, and returns the rows, how much was spilled and what is
// left in the directory.
func runSpill(t *testing.T, op Operator, limit int64) ([][]string, int64, []string) {
	t.Helper()
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	acct := memlimit.New(parent, limit, "exec_mem_limit")
	defer acct.Close()
	dir := t.TempDir()
	stats := &SpillStats{}
	ctx := WithSpill(context.Background(), dir, stats)
	env := &Env{Mem: acct, Now: time.Now()}
	var rr arrayReader
	err := memlimit.Guard(func() (err error) {
		rr, err = op.Open(ctx, env)
		return err
	})
	if err != nil {
		acct.Sweep()
		t.Fatal(err)
	}
	var rows [][]string
	for rr.Next() {
		b := rr.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = render.String(b.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	err = rr.Err()
	rr.Release()
	if err != nil {
		acct.Sweep()
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	t.Logf("spilled %d bytes in %d files", stats.Bytes.Load(), stats.Files.Load())
	return rows, stats.Bytes.Load(), left
}

type arrayReader = interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

func sortedText(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	slices.Sort(out)
	return out
}

// Every join type the grace join takes gives the in-memory answer (as a
// multiset) at a limit that spills once and at one that makes partitions
// spill again, and leaves no file.
func TestSpillHashJoin(t *testing.T) {
	left := lazyScan(spillSchema, spillRows(6000, 700))
	right := lazyScan(spillSchema, spillRows(5000, 900))
	k := expr.Col(0, "k", expr.Int64T())
	res := must(expr.Cmp(expr.Gt, expr.Col(5, "v", expr.Int64T()), expr.Col(2, "v", expr.Int64T())))
	for _, typ := range []JoinType{InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin, FullOuterJoin} {
		for _, r := range []expr.Expr{nil, res} {
			j := must(NewHashJoin(left, right, typ, []expr.Expr{k}, []expr.Expr{k}, r))
			want := sortedText(run(t, j))
			for _, limit := range []int64{1 << 20, 96 << 10} {
				t.Run(fmt.Sprintf("%s/residual=%v/%d", typ, r != nil, limit), func(t *testing.T) {
					got, spilled, left := runSpill(t, j, limit)
					if spilled == 0 {
						t.Fatal("nothing spilled")
					}
					if g := sortedText(got); !slices.Equal(g, want) {
						t.Fatalf("%d rows, want %d", len(g), len(want))
					}
					if len(left) > 0 {
						t.Fatalf("left behind: %v", left)
					}
				})
			}
		}
	}
}

// The partitioned aggregation gives the in-memory groups, NULL group
// included.
func TestSpillAggregate(t *testing.T) {
	scan := lazyScan(spillSchema, spillRows(30000, 9000))
	k := expr.Col(0, "k", expr.Int64T())
	s := expr.Col(1, "s", expr.StringT())
	v := expr.Col(2, "v", expr.Int64T())
	aggs := []AggCall{{Func: CountStar, Name: "n"}, {Func: Sum, Arg: v, Name: "sv"}, {Func: Min, Arg: s, Name: "mn"},
		{Func: Max, Arg: s, Name: "mx"}, {Func: Avg, Arg: v, Name: "av"}, {Func: Count, Arg: k, Name: "ck"}}
	for _, gb := range [][]expr.Expr{{k}, {k, must(expr.Cmp(expr.Gt, v, expr.Int(15000)))}} {
		names := []string{"k", "big"}[:len(gb)]
		agg := must(NewHashAggregate(scan, gb, names, aggs, AggSingle))
		want := sortedText(run(t, agg))
		for _, limit := range []int64{2 << 20, 1 << 20} {
			got, spilled, left := runSpill(t, agg, limit)
			if spilled == 0 {
				t.Fatalf("%d keys, limit %d: nothing spilled", len(gb), limit)
			}
			if g := sortedText(got); !slices.Equal(g, want) {
				t.Fatalf("%d keys, limit %d: %d groups, want %d", len(gb), limit, len(g), len(want))
			}
			if len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		}
	}
}

// The external merge sort keeps the in-memory order exactly: stable among
// equal keys (v tells them apart), NULLs where the key puts them, through
// several merge passes.
func TestSpillSort(t *testing.T) {
	scan := lazyScan(spillSchema, spillRows(40000, 300))
	k := expr.Col(0, "k", expr.Int64T())
	s := expr.Col(1, "s", expr.StringT())
	for _, keys := range [][]SortKey{
		{{Expr: k}},
		{{Expr: k, Desc: true}},
		{{Expr: k, Nulls: NullsLast}, {Expr: s, Desc: true}},
	} {
		srt := must(NewSort(scan, keys))
		want := fmtRows(run(t, srt))
		for _, limit := range []int64{4 << 20, 1 << 20} {
			got, spilled, left := runSpill(t, srt, limit)
			if spilled == 0 {
				t.Fatalf("%s, limit %d: nothing spilled", sortKeyList(keys), limit)
			}
			if fmtRows(got) != want {
				t.Fatalf("%s, limit %d: order differs (%d rows)", sortKeyList(keys), limit, len(got))
			}
			if len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		}
	}
}

// A spill file that cannot be made fails the query with an error naming
// it.
func TestSpillErrorNamesFile(t *testing.T) {
	scan := lazyScan(spillSchema, spillRows(40000, 300))
	srt := must(NewSort(scan, []SortKey{{Expr: expr.Col(0, "k", expr.Int64T())}}))
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	acct := memlimit.New(parent, 1<<20, "exec_mem_limit")
	defer acct.Close()
	dir := filepath.Join(t.TempDir(), "gone")
	_, err := runEnvCtx(WithSpill(context.Background(), dir, nil), &Env{Mem: acct, Now: time.Now()}, srt)
	if !errors.Is(err, ErrSpill) || !strings.Contains(err.Error(), filepath.Join(dir, "sort-run-")) {
		t.Fatalf("err = %v", err)
	}
}

func runEnvCtx(ctx context.Context, env *Env, op Operator) (int, error) {
	rr, err := op.Open(ctx, env)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	return n, rr.Err()
}
