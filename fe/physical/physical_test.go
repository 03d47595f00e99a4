package physical_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/fixtures"
	lakepaimon "github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
	"github.com/inlet-db/inlet/scan"
)

// lake resolves one-part names to the Java-written Paimon fixture tables
// (database and table share a name there).
type lake struct{ c catalog.Catalog }

func (l lake) ResolveTable(ctx context.Context, name []string) (string, string, catalog.Table, error) {
	n := name[len(name)-1]
	d, err := l.c.Database(ctx, n)
	if err != nil {
		return "", "", nil, err
	}
	t, err := d.Table(ctx, n)
	return "pc", n, t, err
}

func openLake(t *testing.T) lake {
	t.Helper()
	c, err := paimon.Open(context.Background(), map[string]string{"type": "paimon", "warehouse": fixtures.Path(t, "paimon", "parquet")}, catalog.Env{Name: "pc"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return lake{c}
}

func bindQuery(t *testing.T, r bind.Resolver, q string) bind.Plan {
	t.Helper()
	stmt, err := sql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := bind.New(context.Background(), &bind.Session{Resolver: r, Now: time.Unix(0, 0)}).BindQuery(stmt.(sql.Query))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return p
}

// TestPlannedOncePerStatement: every scan the planner reads gets exactly
// one profile slot, named by the node EXPLAIN prints, whatever path built
// it (plain scan, pushed LIMIT, pushed aggregate, both sides of a join);
// plans without such a scan leave none.
func TestPlannedOncePerStatement(t *testing.T) {
	l := openLake(t)
	cases := []struct {
		q     string
		scans int
	}{
		{"SELECT 1", 0},
		{"SELECT * FROM append_09", 1},
		{"SELECT * FROM append_09 LIMIT 2", 1},
		{"SELECT count(*) FROM append_09", 1},
		{"SELECT count(*) FROM append_09 a JOIN append_09 b ON a.f1 = b.f1", 2},
		{"SELECT * FROM append_09 UNION ALL SELECT * FROM append_09 UNION ALL SELECT * FROM append_09", 3},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range cases {
		st := physical.NewStatement()
		op, err := physical.Build(context.Background(), bindQuery(t, l, c.q), physical.Config{Mem: mem, Statement: st})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		scans := st.Scans()
		if len(scans) != c.scans {
			t.Errorf("%s: %d scan slots, want %d", c.q, len(scans), c.scans)
		}
		tree := exec.ExplainTree(op)
		for _, sc := range scans {
			if sc.Table != "pc.append_09.append_09" || sc.Node == "" || sc.Counters != nil {
				t.Errorf("%s: slot %+v", c.q, sc)
			}
			if !strings.Contains(tree, sc.Node) {
				t.Errorf("%s: node %s not in EXPLAIN:\n%s", c.q, sc.Node, tree)
			}
		}
	}
}

// TestErrorKinds: what this package cannot run carries ErrNotSupported
// (fe/server maps it to the wire code) with a message naming the thing.
func TestErrorKinds(t *testing.T) {
	l := openLake(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// The binder plans such a RIGHT JOIN as a swapped LEFT JOIN; a bound
	// plan that still has one is refused.
	rightNonEqui := func(p bind.Plan) bind.Plan {
		var walk func(p bind.Plan)
		walk = func(p bind.Plan) {
			if j, ok := p.(*bind.Join); ok && j.Residual != nil {
				j.Kind = bind.RightJoin
			}
			for _, c := range p.Children() {
				walk(c)
			}
		}
		walk(p)
		return p
	}
	cases := []struct {
		q    string
		edit func(bind.Plan) bind.Plan
		msg  string
	}{
		{"SELECT * FROM append_09 x JOIN append_09 y ON x.f1 < y.f1", rightNonEqui, "RIGHT JOIN with a non-equality ON condition; write it as a LEFT JOIN"},
	}
	for _, c := range cases {
		_, err := physical.Build(context.Background(), c.edit(bindQuery(t, l, c.q)), physical.Config{Mem: mem})
		if !errors.Is(err, physical.ErrNotSupported) || err.Error() != c.msg {
			t.Errorf("%s: got %v, want ErrNotSupported %q", c.q, err, c.msg)
		}
	}
	// No Runner: planning works (EXPLAIN), running names the table.
	op, err := physical.Build(context.Background(), bindQuery(t, l, "SELECT * FROM append_09"), physical.Config{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.Open(context.Background(), &expr.Env{Mem: mem})
	if !errors.Is(err, physical.ErrNotSupported) || !strings.Contains(err.Error(), "no BE is available to read pc.append_09.append_09") {
		t.Errorf("open without a Runner: %v", err)
	}
}

// TestCountersRecorded runs scans through a real in-process BE: the rows
// the FE receives are the rows the BE counted, recorded once per scan.
func TestCountersRecorded(t *testing.T) {
	l := openLake(t)
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tbl := range []string{"append_09", "pk_09"} {
		st := physical.NewStatement()
		q := "SELECT * FROM " + tbl + " UNION ALL SELECT * FROM " + tbl
		op, err := physical.Build(context.Background(), bindQuery(t, l, q), physical.Config{Mem: mem, Runner: disp, Statement: st})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := op.Open(context.Background(), &expr.Env{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		var rows int64
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		scans := st.Scans()
		if len(scans) != 2 {
			t.Fatalf("%s: %d scans", tbl, len(scans))
		}
		var counted int64
		for _, sc := range scans {
			if sc.Counters == nil {
				t.Fatalf("%s: scan %s has no counters", tbl, sc.Node)
			}
			counted += sc.Counters["FlussLakeRowsReturned"]
		}
		if rows == 0 || counted != rows || scans[0].Counters["FlussLakeRowsReturned"] != scans[1].Counters["FlussLakeRowsReturned"] {
			t.Errorf("%s: FE got %d rows, BEs counted %d (%v / %v)", tbl, rows, counted, scans[0].Counters, scans[1].Counters)
		}
	}
}

// TestRuntimeFilterRangeOnBE: the build side's min/max reaches the probe
// scan's BE as a filter, so the BE sends only the probe rows in range (the
// FE's copy of the filter sees those alone and drops none); the join's
// answer is the same with runtime filters off.
func TestRuntimeFilterRangeOnBE(t *testing.T) {
	l := openLake(t)
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	run := func(q string, rf physical.RFConfig) (rows []string, filters []physical.RFProfile) {
		t.Helper()
		st := physical.NewStatement()
		op, err := physical.Build(context.Background(), bindQuery(t, l, q), physical.Config{Mem: mem, Runner: disp, Statement: st, RuntimeFilters: rf})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := op.Open(context.Background(), &expr.Env{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			b := rr.RecordBatch()
			for i := 0; i < int(b.NumRows()); i++ {
				var cells []string
				for c := 0; c < int(b.NumCols()); c++ {
					cells = append(cells, b.Column(c).ValueStr(i))
				}
				rows = append(rows, strings.Join(cells, "|"))
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		return rows, st.RuntimeFilters()
	}
	all, _ := run("SELECT f2 FROM append_09", physical.RFConfig{})
	slices.Sort(all)
	lo := all[0]
	want := 0
	for _, v := range all {
		if v == lo {
			want++
		}
	}
	if want == len(all) {
		t.Fatalf("every f2 is %s: nothing to filter", lo)
	}
	q := "SELECT a.f2 FROM append_09 a JOIN append_09 b ON a.f2 = b.f2 WHERE b.f2 = " + lo + " AND b.f1 = 10"
	off, _ := run(q, physical.RFConfig{})
	on, rfs := run(q, physical.RFConfig{Types: []exec.RFKind{exec.RFMinMax}, MaxIn: 1024})
	if !slices.Equal(on, off) || len(on) == 0 {
		t.Errorf("answers differ: %v with runtime filters, %v without", on, off)
	}
	if len(rfs) != 1 || rfs[0].Input != int64(want) || rfs[0].Filtered != 0 {
		t.Errorf("the FE's filter saw %+v, want %d rows in (of %d) and none dropped", rfs, want, len(all))
	}
}

// TestRuntimeFilterBitsOnBE: an IN filter of integer keys, published as an
// exact key bitmap before the probe scan's fragment goes out, reaches the
// BE and the lake reader (IN_BITS), so the BE sends exactly the probe rows
// whose key is a build key, not every row between the least and greatest
// (the FE's copy of the filter then sees those alone and drops none); the
// join's answer is the same with runtime filters off. Table t: k = 0..999
// (BIGINT), g = k % 10, s = 'x' for k in {3, 50, 51, 700} (the build
// side) and 'y' elsewhere; by hand, 4 probe rows join, 698 lie in 3..700.
func TestRuntimeFilterBitsOnBE(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	wh := t.TempDir()
	bl, err := paimontest.NewBuilder(ctx, fileio.Local{}, filepath.Join(wh, "t.db", "t"), []lakepaimon.DataField{
		{ID: 0, Name: "k", Type: lakepaimon.DataType{Root: lakepaimon.BigInt, Nullable: true}},
		{ID: 1, Name: "g", Type: lakepaimon.DataType{Root: lakepaimon.Int, Nullable: true}},
		{ID: 2, Name: "s", Type: lakepaimon.DataType{Root: lakepaimon.VarChar, Precision: math.MaxInt32, Nullable: true}},
	}, nil, nil, map[string]string{"bucket": "-1"})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for k := 0; k < 1000; k++ {
		s := "y"
		if k == 3 || k == 50 || k == 51 || k == 700 {
			s = "x"
		}
		rows = append(rows, []any{k, k % 10, s})
	}
	rows = append(rows, []any{nil, 0, "y"}) // a NULL key joins nothing
	// Keys too spread for a bitmap: the BE gets them as a list.
	rows = append(rows, []any{5_000_000, 0, "z"}, []any{9_000_000, 0, "z"}, []any{1 << 40, 0, "z"})
	rec := paimontest.Rows(t, mem, bl.Schema(), rows...)
	if err := bl.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	c, err := paimon.Open(ctx, map[string]string{"type": "paimon", "warehouse": wh}, catalog.Env{Name: "pc"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l := lake{c}
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	run := func(q string, rf physical.RFConfig) (rows []string, filters []physical.RFProfile, sent int64) {
		t.Helper()
		st := physical.NewStatement()
		op, err := physical.Build(ctx, bindQuery(t, l, q), physical.Config{Mem: mem, Runner: disp, Statement: st, RuntimeFilters: rf})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := op.Open(ctx, &expr.Env{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			b := rr.RecordBatch()
			for i := 0; i < int(b.NumRows()); i++ {
				var cells []string
				for c := 0; c < int(b.NumCols()); c++ {
					cells = append(cells, b.Column(c).ValueStr(i))
				}
				rows = append(rows, strings.Join(cells, "|"))
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		slices.Sort(rows)
		for _, sc := range st.Scans() {
			sent += sc.Counters["FlussLakeRowsReturned"]
		}
		return rows, st.RuntimeFilters(), sent
	}
	const all = 1004
	for _, c := range []struct {
		s         string
		want      []string
		effective string
		sent      int64 // the lake rows the BE sends: the build side's and the probe side's
	}{
		{"x", []string{"3|3", "50|0", "51|1", "700|0"}, "in", 4 + 4},
		{"z", []string{"1099511627776|0", "5000000|0", "9000000|0"}, "in", 3 + 3},
	} {
		q := "SELECT a.k, a.g FROM t a JOIN t b ON a.k = b.k WHERE b.s = '" + c.s + "'"
		off, _, offSent := run(q, physical.RFConfig{})
		on, rfs, onSent := run(q, physical.RFConfig{Types: []exec.RFKind{exec.RFIn}, MaxIn: 1024})
		if !slices.Equal(off, c.want) || !slices.Equal(on, c.want) {
			t.Errorf("%s: answers %v with runtime filters, %v without, want %v", c.s, on, off, c.want)
		}
		if len(rfs) != 1 || rfs[0].Effective != c.effective || rfs[0].Input != int64(len(c.want)) || rfs[0].Filtered != 0 {
			t.Errorf("%s: the FE's filter saw %+v, want %d rows in and none dropped", c.s, rfs, len(c.want))
		}
		if onSent != c.sent || offSent != int64(len(c.want))+all {
			t.Errorf("%s: the BE sent %d lake rows with the filter (want %d), %d without (want %d)", c.s, onSent, c.sent, offSent, int64(len(c.want))+all)
		}
	}
}
