package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// TestRightSemiAntiJoinSmall: the right (build) rows some left row
// matches, or no left row does, in build order, derived by hand.
func TestRightSemiAntiJoinSmall(t *testing.T) {
	lk := []expr.Expr{expr.Col(0, "id", expr.Int64T())}
	rk := []expr.Expr{expr.Col(0, "rid", expr.Int32T())}
	// left (id, name): (1,a) (2,b) (NULL,n) | (3,c) (1,a2)
	// right (rid, v): (1,10) (3,30) (1,11) | (NULL,99) (4,40)
	// name > 'b' (c only) over the pairs: 3 meets c; 1 meets a and a2.
	nameGtB := must(expr.Cmp(expr.Gt, expr.Col(1, "name", expr.StringT()), expr.Str("b")))
	// v > 10 reads the build side only: (1,10) can match nothing.
	vGt10 := must(expr.Cmp(expr.Gt, expr.Col(3, "v", expr.Int64T()), expr.Int(10)))
	for _, c := range []struct {
		name string
		typ  JoinType
		res  expr.Expr
		want []string
	}{
		{"semi", RightSemiJoin, nil, []string{"1|10", "3|30", "1|11"}},
		{"anti", RightAntiJoin, nil, []string{"NULL|99", "4|40"}},
		{"semi residual", RightSemiJoin, nameGtB, []string{"3|30"}},
		{"anti residual", RightAntiJoin, nameGtB, []string{"1|10", "1|11", "NULL|99", "4|40"}},
		{"semi build residual", RightSemiJoin, vGt10, []string{"3|30", "1|11"}},
		{"anti build residual", RightAntiJoin, vGt10, []string{"1|10", "NULL|99", "4|40"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			left, right := joinInputs()
			var nl, nr int
			j := must(NewHashJoin(opens{left, &nl}, opens{right, &nr}, c.typ, lk, rk, c.res))
			wantRows(t, run(t, j), c.want...)
			if nl != 1 || nr != 1 {
				t.Errorf("inputs opened %d and %d times, want once each", nl, nr)
			}
			if !arrow.TypeEqual(j.Schema().Field(0).Type, expr.Int32T()) || j.Schema().NumFields() != 2 {
				t.Errorf("schema %s, want the right input's", j.Schema())
			}
			if ex := j.Explain(); !strings.Contains(ex, "join op: "+c.typ.String()) {
				t.Errorf("explain: %s", ex)
			}
			if err := j.AddRuntimeFilters(&RuntimeFilter{Kind: RFMinMax}); err != nil {
				t.Errorf("a probe row without a match counts for nothing, so a %s takes runtime filters: %v", c.typ, err)
			}
			if err := j.AddProbeSideFilters(&RuntimeFilter{Kind: RFMinMax}); err == nil {
				t.Errorf("a %s must refuse probe-side filters: they drop build rows it keeps or needs", c.typ)
			}
		})
	}
	// Empty sides: no build rows, nothing; no probe rows, none matched.
	none := scanOf(sch("id", expr.Int64T(), "name", expr.StringT()))
	noRight := scanOf(sch("rid", expr.Int32T(), "v", expr.Int64T()))
	left, right := joinInputs()
	for _, c := range []struct {
		name        string
		left, right Operator
		typ         JoinType
		want        []string
	}{
		{"semi empty probe", none, right, RightSemiJoin, nil},
		{"anti empty probe", none, right, RightAntiJoin, []string{"1|10", "3|30", "1|11", "NULL|99", "4|40"}},
		{"semi empty build", left, noRight, RightSemiJoin, nil},
		{"anti empty build", left, noRight, RightAntiJoin, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantRows(t, run(t, must(NewHashJoin(c.left, c.right, c.typ, lk, rk, nil))), c.want...)
		})
	}
	if _, err := NewHashJoin(left, right, RightSemiJoin, nil, nil, nameGtB); err == nil {
		t.Error("a keyless right semi join must be refused")
	}
}

// rsSide is one side of a generated right semi/anti case: key columns
// then v, the row number, which identifies a row in the output.
type rsSide struct {
	schema *arrow.Schema
	rows   [][]any
}

// rsKeyType makes key column c of row i of a side with n rows: dup
// repeats values (duplicates on both sides), and some rows get NULL.
type rsKeyType struct {
	name  string
	types []arrow.DataType
	val   func(c, x int) any
}

var rsKeyTypes = []rsKeyType{
	{"int64", []arrow.DataType{expr.Int64T()}, func(_, x int) any { return int64(x) }},
	{"int32", []arrow.DataType{expr.Int32T()}, func(_, x int) any { return int64(x) }},
	{"string", []arrow.DataType{expr.StringT()}, func(_, x int) any { return "key-" + strconv.Itoa(x) }},
	{"decimal", []arrow.DataType{expr.DecimalT(12, 2)}, func(_, x int) any { return decimal128.FromI64(int64(x)*100 + 5) }},
	{"int and string", []arrow.DataType{expr.Int64T(), expr.StringT()}, func(c, x int) any {
		if c == 0 {
			return int64(x % 7)
		}
		return strconv.Itoa(x / 7)
	}},
}

// rsGen makes n rows over keys x = (i*mul) % mod, a NULL key part every
// nullEvery rows (the first part on odd rows, the last on even ones).
func rsGen(kt rsKeyType, n, mul, mod, nullEvery, batch int) (rsSide, [][][]any) {
	var fields []any
	for c, typ := range kt.types {
		fields = append(fields, fmt.Sprintf("k%d", c), typ)
	}
	fields = append(fields, "v", expr.Int64T())
	s := rsSide{schema: sch(fields...)}
	var groups [][][]any
	var g [][]any
	for i := range n {
		x := (i * mul) % mod
		row := make([]any, 0, len(kt.types)+1)
		for c := range kt.types {
			row = append(row, kt.val(c, x))
		}
		if nullEvery > 0 && i%nullEvery == nullEvery-1 {
			if i%2 == 1 {
				row[0] = nil
			} else {
				row[len(kt.types)-1] = nil
			}
		}
		row = append(row, int64(i))
		s.rows = append(s.rows, row)
		if g = append(g, row); len(g) == batch {
			groups, g = append(groups, g), nil
		}
	}
	if len(g) > 0 {
		groups = append(groups, g)
	}
	return s, groups
}

// rsNaive is the join by a nested loop: the v of each build row, in
// order, that some probe row (passing probeKeep) matches on every key
// part, none NULL, with pass(probe v, build v) — or that none does.
func rsNaive(typ JoinType, probe, build rsSide, nk int, probeKeep func(v int64) bool, pass func(pv, bv int64) bool) []string {
	out := []string{}
	for _, b := range build.rows {
		hit := false
		for _, p := range probe.rows {
			pv, bv := p[nk].(int64), b[nk].(int64)
			if probeKeep != nil && !probeKeep(pv) {
				continue
			}
			eq := true
			for c := range nk {
				eq = eq && p[c] != nil && b[c] != nil && p[c] == b[c]
			}
			if eq && (pass == nil || pass(pv, bv)) {
				hit = true
				break
			}
		}
		if hit == (typ == RightSemiJoin) {
			out = append(out, strconv.FormatInt(b[nk].(int64), 10))
		}
	}
	return out
}

// TestRightSemiAntiJoinAgainstNestedLoop: each key type, NULL key parts
// and duplicates on both sides, with and without a residual over both
// sides and one over the build side alone, a probe side behind a filter,
// on one goroutine and with the probe in four: the build rows kept (their
// v, in build order) are the nested loop's.
func TestRightSemiAntiJoinAgainstNestedLoop(t *testing.T) {
	for _, kt := range rsKeyTypes {
		nk := len(kt.types)
		// 900 probe rows over 0..299 (x3 each), 400 build rows over 0..599
		// stepping by 7 (values repeat past 600: duplicates), half of
		// which the probe side has.
		probe, pg := rsGen(kt, 900, 1, 300, 11, 64)
		build, bg := rsGen(kt, 400, 7, 600, 13, 1000)
		pv := expr.Col(nk, "v", expr.Int64T())
		bv := expr.Col(2*nk+1, "v", expr.Int64T())
		// probe v % 3 = 0 and build v odd
		both := must(expr.Cmp(expr.Lt, must(expr.Arith(expr.Mod, pv, expr.Int(3))), must(expr.Arith(expr.Mod, bv, expr.Int(2)))))
		buildOnly := must(expr.Cmp(expr.Gt, must(expr.Arith(expr.Mod, bv, expr.Int(5))), expr.Int(1)))
		notFifth := must(expr.Cmp(expr.Ne, must(expr.Arith(expr.Mod, expr.Col(nk, "v", expr.Int64T()), expr.Int(5))), expr.Int(0)))
		lk, rk := make([]expr.Expr, nk), make([]expr.Expr, nk)
		for c, typ := range kt.types {
			lk[c], rk[c] = expr.Col(c, fmt.Sprintf("k%d", c), typ), expr.Col(c, fmt.Sprintf("k%d", c), typ)
		}
		for _, res := range []struct {
			name string
			e    expr.Expr
			pass func(pv, bv int64) bool
		}{
			{"keys", nil, nil},
			{"residual", both, func(pv, bv int64) bool { return pv%3 < bv%2 }},
			{"build residual", buildOnly, func(_, bv int64) bool { return bv%5 > 1 }},
		} {
			for _, filtered := range []bool{false, true} {
				for _, typ := range []JoinType{RightSemiJoin, RightAntiJoin} {
					var keep func(int64) bool
					var left Operator = scanOf(probe.schema, pg...)
					if filtered {
						keep = func(v int64) bool { return v%5 != 0 }
						left = must(NewFilter(left, notFifth))
					}
					want := rsNaive(typ, probe, build, nk, keep, res.pass)
					// A runtime filter of the first key on the probe scan
					// straight under the join: the parallel probe marks
					// only the rows it keeps (probeMark's sel).
					rfs := []bool{false}
					if !filtered && kt.name != "decimal" {
						rfs = append(rfs, true)
					}
					for _, withRF := range rfs {
						for _, par := range []int{1, 4} {
							name := fmt.Sprintf("%s/%s/%s/filtered=%v/rf=%v/par=%d", kt.name, res.name, typ, filtered, withRF, par)
							t.Run(name, func(t *testing.T) {
								probeOp := left
								var rf *RuntimeFilter
								if withRF {
									sc := scanOf(probe.schema, pg...)
									rf = &RuntimeFilter{Kind: RFInOrBloom, MaxIn: 1024, Target: "k0"}
									sc.Filters = []ScanFilter{{RF: rf, Column: 0}}
									probeOp = sc
								}
								j := must(NewHashJoin(probeOp, scanOf(build.schema, bg...), typ, lk, rk, res.e))
								if rf != nil {
									if err := j.AddRuntimeFilters(rf); err != nil {
										t.Fatal(err)
									}
								}
								got := runV(t, WithParallelism(context.Background(), par), j, nk)
								if !slices.Equal(got, want) {
									t.Fatalf("got %d rows %v\nwant %d rows %v", len(got), got, len(want), want)
								}
								if rf != nil && rf.Filtered.Load() == 0 {
									t.Fatal("the runtime filter dropped no probe row")
								}
							})
						}
					}
				}
			}
		}
	}
}

// runV drains op under ctx and returns column c of its rows as text,
// checking that every byte it allocated was given back.
func runV(t *testing.T, ctx context.Context, op Operator, c int) []string {
	t.Helper()
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rr, err := op.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	out := []string{}
	for rr.Next() {
		b := rr.RecordBatch()
		col := b.Column(c).(*array.Int64)
		for i := range col.Len() {
			out = append(out, strconv.FormatInt(col.Value(i), 10))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A right semi or anti join whose build side spills under a small
// exec_mem_limit gives DuckDB's EXISTS / NOT EXISTS answer, and leaves no
// file; t (dupRows) is the build side, the probe side all of t.
func TestSpillRightSemiAnti(t *testing.T) {
	const n = 30000
	probe := lazyScan(spillSchema, dupRows(n, 700, 4000))
	twoV := must(expr.Arith(expr.Mul, dv, expr.Int(2)))
	join := func(typ JoinType, lk, rk expr.Expr, res expr.Expr) func(Operator) Operator {
		return func(in Operator) Operator {
			return must(NewHashJoin(probe, in, typ, []expr.Expr{lk}, []expr.Expr{rk}, res))
		}
	}
	// Pair columns: the probe's k, s, v, then the build's.
	probeVGt := must(expr.Cmp(expr.Gt, expr.Col(2, "v", expr.Int64T()), expr.Col(5, "v", expr.Int64T())))
	probeVLt := must(expr.Cmp(expr.Lt, expr.Col(2, "v", expr.Int64T()), expr.Col(5, "v", expr.Int64T())))
	checkSpillCases(t, n, 700, 4000, []spillCase{
		{"semi k = 2v", join(RightSemiJoin, twoV, dk, nil),
			"SELECT * FROM t WHERE EXISTS (SELECT 1 FROM t p WHERE p.v * 2 = t.k)", []int64{1 << 20, 256 << 10}, false},
		{"anti k = 2v", join(RightAntiJoin, twoV, dk, nil),
			"SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM t p WHERE p.v * 2 = t.k)", []int64{1 << 20, 256 << 10}, false},
		{"anti k with later v", join(RightAntiJoin, dk, dk, probeVGt),
			"SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM t p WHERE p.k = t.k AND p.v > t.v)", []int64{1 << 20}, false},
		{"semi s with earlier v", join(RightSemiJoin, ds, ds, probeVLt),
			"SELECT * FROM t WHERE EXISTS (SELECT 1 FROM t p WHERE p.s = t.s AND p.v < t.v)", []int64{1 << 20}, false},
	})
}

// The in-memory answer, spilled: as TestSpillHashJoin for the other types.
func TestSpillRightSemiAntiInMemoryAnswer(t *testing.T) {
	left := lazyScan(spillSchema, spillRows(6000, 700))
	right := lazyScan(spillSchema, spillRows(5000, 900))
	k := expr.Col(0, "k", expr.Int64T())
	res := must(expr.Cmp(expr.Gt, expr.Col(5, "v", expr.Int64T()), expr.Col(2, "v", expr.Int64T())))
	for _, typ := range []JoinType{RightSemiJoin, RightAntiJoin} {
		for _, r := range []expr.Expr{nil, res} {
			j := must(NewHashJoin(left, right, typ, []expr.Expr{k}, []expr.Expr{k}, r))
			want := sortedText(run(t, j))
			if len(want) == 0 {
				t.Fatalf("%s: no rows to compare", typ)
			}
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

// A statement cancelled while the probe side streams ends with the cancel
// (on one goroutine and with the probe in four) and gives back its
// memory; one cancelled while the build side spills leaves no file.
func TestRightSemiAntiCancel(t *testing.T) {
	for _, typ := range []JoinType{RightSemiJoin, RightAntiJoin} {
		for _, par := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/par=%d", typ, par), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				ctx, cancel := context.WithCancel(WithParallelism(context.Background(), par))
				defer cancel()
				build := scanOf(spillSchema, dupRows(2000, 700, 4000)...)
				// An endless probe side that cancels the statement at its
				// tenth batch.
				i := 0
				endless := NewScan("VOlapScanNode", "p", endlessSource{spillSchema, func(mem memory.Allocator) arrow.RecordBatch {
					if i++; i == 10 {
						cancel()
					}
					return mkBatch(mem, spillSchema, dupRows(500, 700, 4000)[0])
				}})
				j := must(NewHashJoin(endless, build, typ, []expr.Expr{dk}, []expr.Expr{dk}, nil))
				done := make(chan error, 1)
				go func() {
					_, err := runEnvCtx(ctx, &Env{Mem: mem, Now: time.Now()}, j)
					done <- err
				}()
				select {
				case err := <-done:
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("err = %v, want the cancel", err)
					}
				case <-time.After(time.Minute):
					t.Fatal("the join did not stop after the cancel")
				}
			})
		}
		t.Run(fmt.Sprintf("%s/spilling", typ), func(t *testing.T) {
			checkSpillCancel(t, func(in Operator) Operator {
				return must(NewHashJoin(lazyScan(spillSchema, dupRows(3000, 700, 4000)), in, typ,
					[]expr.Expr{dv}, []expr.Expr{dv}, nil))
			})
		})
	}
}

// endlessSource yields next's batches until the reader's context ends.
type endlessSource struct {
	schema *arrow.Schema
	next   func(memory.Allocator) arrow.RecordBatch
}

func (f endlessSource) Schema() *arrow.Schema { return f.schema }
func (f endlessSource) Open(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	return newPullReader(ctx, f.schema, func() (arrow.RecordBatch, error) { return f.next(mem), nil }, nil), nil
}

// The build side's marks and the kept rows count against exec_mem_limit:
// at each limit from one the build side does not fit to one the whole
// join does, with four probe workers, the statement either answers right
// or fails with the limit's error: no panic, no wrong answer, no leak.
func TestRightSemiMemoryLimit(t *testing.T) {
	_, bg := rsGen(rsKeyTypes[0], 200000, 1, 200000, 0, 4096)
	_, pg := rsGen(rsKeyTypes[0], 1000, 1, 1000, 0, 500)
	s := sch("k0", expr.Int64T(), "v", expr.Int64T())
	k := []expr.Expr{expr.Col(0, "k0", expr.Int64T())}
	// lazyScan: scanOf's batches, made all at Open, would be stranded by
	// a refusal among them.
	j := must(NewHashJoin(lazyScan(s, pg), lazyScan(s, bg), RightSemiJoin, k, k, nil))
	// Without a limit: the 1000 keys the probe side has.
	if got := runV(t, context.Background(), j, 1); len(got) != 1000 {
		t.Fatalf("%d rows, want 1000", len(got))
	}
	answered, refused := 0, 0
	for limit := int64(6 << 20); limit <= 16<<20; limit += 256 << 10 {
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		acct := memlimit.New(parent, limit, "exec_mem_limit")
		var rows int
		err := memlimit.Guard(func() (err error) {
			rows, err = runEnvCtx(WithParallelism(context.Background(), 4), &Env{Mem: acct, Now: time.Now()}, j)
			return err
		})
		if err != nil {
			// A refused statement's stranded buffers are swept, as the
			// server does (memlimit's package doc).
			acct.Sweep()
		}
		var ex *memlimit.Exceeded
		switch {
		case err != nil && !errors.As(err, &ex):
			t.Fatalf("limit %d: err = %v, want the limit's", limit, err)
		case err == nil && rows != 1000:
			t.Fatalf("limit %d: %d rows, want 1000", limit, rows)
		case err == nil:
			answered++
		default:
			refused++
		}
		acct.Close()
		parent.AssertSize(t, 0)
	}
	if answered == 0 || refused == 0 {
		t.Fatalf("%d answered, %d refused: the limits should straddle the join's need", answered, refused)
	}
}
