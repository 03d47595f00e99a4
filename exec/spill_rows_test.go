package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/exec/render"
	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
)

// dupRows makes n rows (k, s, v) with duplicates to remove: k = i % kmod
// (NULL every 97th row), s = i % smod as 40 digits (NULL every 89th row),
// v = i; in batches of 500. dupDuck is the same table in DuckDB.
func dupRows(n, kmod, smod int) [][][]any {
	var groups [][][]any
	var g [][]any
	for i := 0; i < n; i++ {
		var k, s any = int64(i % kmod), fmt.Sprintf("%040d", i%smod)
		if i%97 == 0 {
			k = nil
		}
		if i%89 == 0 {
			s = nil
		}
		g = append(g, []any{k, s, int64(i)})
		if len(g) == 500 {
			groups, g = append(groups, g), nil
		}
	}
	if len(g) > 0 {
		groups = append(groups, g)
	}
	return groups
}

func dupDuck(n, kmod, smod int) string {
	return fmt.Sprintf(`CREATE OR REPLACE TABLE t AS SELECT
		CASE WHEN i %% 97 = 0 THEN NULL ELSE i %% %[2]d END AS k,
		CASE WHEN i %% 89 = 0 THEN NULL ELSE lpad(CAST(i %% %[3]d AS VARCHAR), 40, '0') END AS s,
		i AS v FROM range(%[1]d) r(i)`, n, kmod, smod)
}

var (
	spillDuckOnce sync.Once
	spillDuckDB   *duckrun.DB
	spillDuckErr  error
)

// spillDuck is one DuckDB for the package's spill tests (left running:
// the runner ends with the test binary's stdin).
func spillDuck(t *testing.T) *duckrun.DB {
	t.Helper()
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	spillDuckOnce.Do(func() {
		// Start's context is the runner's whole life.
		spillDuckDB, spillDuckErr = duckrun.Start(context.Background(), 1)
	})
	if spillDuckErr != nil {
		fixtures.Unavailable(t, "DuckDB: %v", spillDuckErr)
	}
	return spillDuckDB
}

// duckRows runs q in DuckDB and renders its rows as render.String does
// (NULL as NULL).
func duckRows(t *testing.T, d *duckrun.DB, q string) [][]string {
	t.Helper()
	_, rows, err := d.Run(q)
	if err != nil {
		t.Fatalf("DuckDB: %s: %v", q, err)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			if v == nil {
				out[i][j] = "NULL"
			} else {
				out[i][j] = *v
			}
		}
	}
	return out
}

// rowTexts is rows as text, sorted unless ordered.
func rowTexts(rows [][]string, ordered bool) []string {
	if !ordered {
		return sortedText(rows)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

var (
	dk = expr.Col(0, "k", expr.Int64T())
	ds = expr.Col(1, "s", expr.StringT())
	dv = expr.Col(2, "v", expr.Int64T())
)

// spillCase is an operator over t (dupRows) and the DuckDB query that
// answers it.
type spillCase struct {
	name  string
	op    func(in Operator) Operator
	duck  string
	limit []int64
	// ordered: the rows must come in DuckDB's order, not only as a
	// multiset.
	ordered bool
}

// checkSpillCases runs every case at each of its limits over rows, and
// over no rows (then without spilling): the multiset of rows must be
// DuckDB's, something must have been written at every limit over rows,
// and nothing may be left in the spill directory.
func checkSpillCases(t *testing.T, n, kmod, smod int, cases []spillCase) {
	d := spillDuck(t)
	full := lazyScan(spillSchema, dupRows(n, kmod, smod))
	empty := lazyScan(spillSchema, nil)
	for _, c := range cases {
		for _, in := range []struct {
			name string
			scan Operator
			n    int
		}{{"rows", full, n}, {"empty", empty, 0}} {
			if _, _, err := d.Run(dupDuck(in.n, kmod, smod)); err != nil {
				t.Fatal(err)
			}
			want := rowTexts(duckRows(t, d, c.duck), c.ordered)
			for _, limit := range c.limit {
				t.Run(fmt.Sprintf("%s/%s/%d", c.name, in.name, limit), func(t *testing.T) {
					got, spilled, left := runSpill(t, c.op(in.scan), limit)
					if g := rowTexts(got, c.ordered); !slices.Equal(g, want) {
						for i := range min(len(g), len(want)) {
							if g[i] != want[i] {
								t.Fatalf("%d rows, want %d; row %d:\n got %.200q\nwant %.200q", len(g), len(want), i, g[i], want[i])
							}
						}
						t.Fatalf("%d rows, want %d", len(g), len(want))
					}
					if in.n > 0 && spilled == 0 {
						t.Fatal("nothing spilled")
					}
					if len(left) > 0 {
						t.Fatalf("left behind: %v", left)
					}
				})
			}
		}
	}
}

// Aggregates whose states do not merge spill their input rows: over
// DISTINCT values with and without GROUP BY, GROUP_CONCAT and ARRAY_AGG,
// at a limit that spills once and one that splits files again; NULL
// keys and NULL values, duplicates of one value in many groups.
func TestSpillAggregateRows(t *testing.T) {
	agg := func(gb []expr.Expr, aggs ...AggCall) func(Operator) Operator {
		return func(in Operator) Operator {
			return must(NewHashAggregate(in, gb, []string{"k"}[:len(gb)], aggs, AggSingle))
		}
	}
	sizeOf := func(op Operator) Operator {
		// ARRAY_AGG's arrays as their sizes, so the rows compare as text.
		sch := op.Schema()
		return must(NewProject(op, []expr.Expr{expr.Col(0, "k", expr.Int64T()),
			must(expr.Func("size", expr.Col(1, "a", sch.Field(1).Type)))}, []string{"k", "n"}))
	}
	checkSpillCases(t, 30000, 700, 4000, []spillCase{
		{"count distinct by k", agg([]expr.Expr{dk},
			AggCall{Func: Count, Arg: ds, Distinct: true, Name: "cd"}, AggCall{Func: CountStar, Name: "n"},
			AggCall{Func: Sum, Arg: dv, Name: "sv"}, AggCall{Func: Max, Arg: ds, Distinct: true, Name: "mx"}),
			"SELECT k, count(DISTINCT s), count(*), sum(v), max(DISTINCT s) FROM t GROUP BY k", []int64{1 << 20, 256 << 10}, false},
		{"group_concat by k", agg([]expr.Expr{dk}, AggCall{Func: GroupConcat, Arg: ds, Name: "g"}),
			"SELECT k, string_agg(s, ',' ORDER BY v) FROM t GROUP BY k", []int64{1 << 20}, false},
		{"group_concat distinct by k", agg([]expr.Expr{dk}, AggCall{Func: GroupConcat, Arg: ds, Distinct: true, Name: "g"}),
			"SELECT k, string_agg(s, ',' ORDER BY v) FROM (SELECT k, s, min(v) AS v FROM t GROUP BY k, s) GROUP BY k",
			[]int64{1 << 20}, false},
		{"array_agg by k", func(in Operator) Operator {
			return sizeOf(agg([]expr.Expr{dk}, AggCall{Func: ArrayAgg, Arg: ds, Name: "a"})(in))
		}, "SELECT k, count(*) FROM t GROUP BY k", []int64{1 << 20}, false},
		{"global distinct of s", agg(nil,
			AggCall{Func: Count, Arg: ds, Distinct: true, Name: "cd"}, AggCall{Func: Min, Arg: ds, Distinct: true, Name: "mn"},
			AggCall{Func: Max, Arg: ds, Distinct: true, Name: "mx"}, AggCall{Func: CountStar, Name: "n"},
			AggCall{Func: Count, Arg: ds, Name: "cs"}, AggCall{Func: Min, Arg: dv, Name: "mv"}),
			"SELECT count(DISTINCT s), min(DISTINCT s), max(DISTINCT s), count(*), count(s), min(v) FROM t", []int64{1 << 20, 256 << 10}, false},
		{"global distinct of v", agg(nil,
			AggCall{Func: Count, Arg: dv, Distinct: true, Name: "cd"}, AggCall{Func: Sum, Arg: dv, Distinct: true, Name: "sd"},
			AggCall{Func: Sum, Arg: dk, Name: "sk"}, AggCall{Func: Count, Arg: dk, Name: "ck"}),
			"SELECT count(DISTINCT v), sum(DISTINCT v), sum(k), count(k) FROM t", []int64{1 << 20}, false},
		{"global distinct of k and s", agg(nil,
			AggCall{Func: Count, Arg: dk, Distinct: true, Name: "ck"}, AggCall{Func: Count, Arg: ds, Distinct: true, Name: "cs"},
			AggCall{Func: Sum, Arg: dk, Distinct: true, Name: "sk"}, AggCall{Func: Max, Arg: ds, Distinct: true, Name: "ms"},
			AggCall{Func: CountStar, Name: "n"},
			AggCall{Func: Sum, Arg: dv, Name: "sv"}, AggCall{Func: Count, Arg: ds, Name: "cs2"}, AggCall{Func: Min, Arg: dk, Name: "mk"}),
			"SELECT count(DISTINCT k), count(DISTINCT s), sum(DISTINCT k), max(DISTINCT s), count(*), sum(v), count(s), min(k) FROM t",
			[]int64{1 << 20}, false},
	})
}

// cancelAfterSpill reads rows and cancels its statement once the spill
// directory holds a file, then goes on yielding rows, as a scan does
// until it sees the cancel.
type cancelAfterSpill struct {
	lazySource
	dir    string
	cancel context.CancelFunc
}

func (c cancelAfterSpill) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	i := 0
	return newPullReader(ctx, c.schema, func() (arrow.RecordBatch, error) {
		if ents, _ := os.ReadDir(c.dir); len(ents) > 0 {
			c.cancel()
		}
		b := mkBatch(mem, c.schema, c.groups[i%len(c.groups)])
		i++
		return b, nil
	}, nil), nil
}

// A statement cancelled while an aggregate spills its rows ends with the
// cancel and leaves no file.
func TestSpillAggregateRowsCancel(t *testing.T) {
	for _, c := range []struct {
		name string
		op   func(Operator) Operator
	}{
		{"count distinct by k", func(in Operator) Operator {
			return must(NewHashAggregate(in, []expr.Expr{dk}, []string{"k"}, []AggCall{{Func: Count, Arg: ds, Distinct: true, Name: "c"}}, AggSingle))
		}},
		{"global count distinct", func(in Operator) Operator {
			return must(NewHashAggregate(in, nil, nil, []AggCall{{Func: Count, Arg: ds, Distinct: true, Name: "c"}}, AggSingle))
		}},
		{"group_concat by k", func(in Operator) Operator {
			return must(NewHashAggregate(in, []expr.Expr{dk}, []string{"k"}, []AggCall{{Func: GroupConcat, Arg: ds, Name: "g"}}, AggSingle))
		}},
	} {
		t.Run(c.name, func(t *testing.T) { checkSpillCancel(t, c.op) })
	}
}

// checkSpillCancel runs op over an endless input that cancels the
// statement once a spill file exists: op must end with the cancel, leave
// no file and give back all its memory.
func checkSpillCancel(t *testing.T, op func(Operator) Operator) {
	t.Helper()
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	acct := memlimit.New(parent, 1<<20, "exec_mem_limit")
	defer acct.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := cancelAfterSpill{lazySource{spillSchema, dupRows(20000, 700, 4000)}, dir, cancel}
	_, err := runEnvCtx(WithSpill(ctx, dir, nil), &Env{Mem: acct, Now: time.Now()}, op(NewScan("VOlapScanNode", "t", src)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancel", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Fatalf("left behind: %d files", len(ents))
	}
}

// SELECT DISTINCT (the Distinct operator, and UNION through it) spills as
// a hash aggregation over every column: NULLs are one value, duplicates
// in every batch.
func TestSpillDistinct(t *testing.T) {
	checkSpillCases(t, 30000, 700, 4000, []spillCase{
		{"distinct k, s", func(in Operator) Operator {
			return NewDistinct(must(NewProject(in, []expr.Expr{dk, ds}, []string{"k", "s"})))
		}, "SELECT DISTINCT k, s FROM t", []int64{1 << 20, 256 << 10}, false},
		{"union", func(in Operator) Operator { return must(NewUnion([]Operator{in, in}, true)) },
			"SELECT * FROM t UNION SELECT * FROM t", []int64{1 << 20}, false},
	})
}

// An aggregate whose state stays small against the rows it read (few
// distinct values) keeps folding in memory past its share instead of
// writing its input to disk: nothing spills, DuckDB's answer.
func TestSpillAggregateSmallStateStaysInMemory(t *testing.T) {
	d := spillDuck(t)
	const n, kmod = 200000, 50
	if _, _, err := d.Run(dupDuck(n, kmod, 4000)); err != nil {
		t.Fatal(err)
	}
	scan := lazyScan(spillSchema, dupRows(n, kmod, 4000))
	v4 := must(expr.Arith(expr.Mod, dv, expr.Int(4)))
	for _, c := range []struct {
		op       Operator
		duck     string
		inMemory bool
	}{
		{must(NewHashAggregate(scan, nil, nil, []AggCall{{Func: Count, Arg: dk, Distinct: true, Name: "c"}, {Func: CountStar, Name: "n"}}, AggSingle)),
			"SELECT count(DISTINCT k), count(*) FROM t", true},
		{must(NewHashAggregate(scan, []expr.Expr{v4}, []string{"g"}, []AggCall{{Func: Count, Arg: dk, Distinct: true, Name: "c"}, {Func: Sum, Arg: dk, Distinct: true, Name: "s"}}, AggSingle)),
			"SELECT v % 4, count(DISTINCT k), sum(DISTINCT k) FROM t GROUP BY v % 4", true},
	} {
		got, spilled, left := runSpill(t, c.op, 1<<20)
		if g, w := sortedText(got), sortedText(duckRows(t, d, c.duck)); !slices.Equal(g, w) {
			t.Fatalf("%s: got %q, want %q", c.duck, g, w)
		}
		if c.inMemory && spilled != 0 || len(left) != 0 {
			t.Fatalf("%s: spilled %d bytes, left %v", c.duck, spilled, left)
		}
	}
}

// Without an accounted limit there is nothing to spill under: with
// enable_spill the operators run as in memory, hold nothing more and
// write nothing.
func TestSpillWithoutLimitRunsInMemory(t *testing.T) {
	scan := lazyScan(spillSchema, dupRows(5000, 70, 400))
	for _, op := range []Operator{
		must(NewHashAggregate(scan, nil, nil, []AggCall{{Func: Count, Arg: dk, Distinct: true, Name: "a"}, {Func: Count, Arg: ds, Distinct: true, Name: "b"}}, AggSingle)),
		must(NewHashAggregate(scan, []expr.Expr{dk}, []string{"k"}, []AggCall{{Func: GroupConcat, Arg: ds, Name: "g"}}, AggSingle)),
		must(NewWindow(scan, []expr.Expr{dk}, []SortKey{{Expr: dv}}, []WindowCall{{Func: RowNumber, Name: "rn"}})),
	} {
		want := sortedText(run(t, op))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dir := t.TempDir()
		stats := &SpillStats{}
		rr, err := op.Open(WithSpill(context.Background(), dir, stats), &Env{Mem: mem, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for rr.Next() {
			b := rr.RecordBatch()
			for i := 0; i < int(b.NumRows()); i++ {
				row := make([]string, b.NumCols())
				for c := range row {
					row[c] = render.String(b.Column(c), i)
				}
				got = append(got, row)
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		mem.AssertSize(t, 0)
		if g := sortedText(got); !slices.Equal(g, want) || stats.Bytes.Load() != 0 {
			t.Fatalf("%s: %d rows, want %d; spilled %d bytes", op.Explain(), len(g), len(want), stats.Bytes.Load())
		}
	}
}
