package opt

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/sql"
)

// statTable is a table with statistics and no rows: planning never scans.
type statTable struct {
	name  string
	s     catalog.Schema
	rows  int64 // -1: no row count
	stats *catalog.TableStats
}

func (t *statTable) Name() string           { return t.name }
func (t *statTable) Schema() catalog.Schema { return t.s }
func (t *statTable) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, errors.New("planning must not scan")
}
func (t *statTable) RowCount(context.Context) (int64, error) { return t.rows, nil }
func (t *statTable) ColumnStats(context.Context) (*catalog.TableStats, error) {
	return t.stats, nil
}

// countedTable reports a row count and can keep no column statistics, as
// a Fluss or Paimon table.
type countedTable struct {
	name string
	s    catalog.Schema
	rows int64
}

func (t *countedTable) Name() string           { return t.name }
func (t *countedTable) Schema() catalog.Schema { return t.s }
func (t *countedTable) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, errors.New("planning must not scan")
}
func (t *countedTable) RowCount(context.Context) (int64, error) { return t.rows, nil }

// table makes a table of BIGINT columns; a column "name:ndv" or
// "name:ndv:lo:hi" has statistics. Without any, the table only counts
// rows (a Fluss table), unless analysable is set (an internal table never
// analysed).
func table(name string, rows int64, cols ...string) catalog.Table {
	t := statTable0(name, rows, cols...)
	if t.stats == nil {
		return &countedTable{name: t.name, s: t.s, rows: t.rows}
	}
	return t
}

func statTable0(name string, rows int64, cols ...string) *statTable {
	t := &statTable{name: name, rows: rows}
	for _, c := range cols {
		parts := strings.Split(c, ":")
		t.s.Columns = append(t.s.Columns, catalog.Column{Name: parts[0], Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		if len(parts) == 1 {
			continue
		}
		if t.stats == nil {
			t.stats = &catalog.TableStats{Rows: rows, Columns: map[string]catalog.ColumnStats{}}
		}
		cs := catalog.ColumnStats{Count: rows, NDV: atoi(parts[1])}
		if len(parts) == 4 {
			cs.Numeric, cs.Lo, cs.Hi = true, float64(atoi(parts[2])), float64(atoi(parts[3]))
		}
		t.stats.Columns[parts[0]] = cs
	}
	return t
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

type resolver map[string]catalog.Table

func (r resolver) ResolveTable(_ context.Context, name []string) (string, string, catalog.Table, error) {
	t, ok := r[strings.Join(name, ".")]
	if !ok {
		return "", "", nil, errors.New("no such table")
	}
	return "internal", "db", t, nil
}

func plan(t *testing.T, r resolver, q string) (bind.Plan, map[bind.Plan]float64) {
	t.Helper()
	stmt, err := sql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := bind.New(context.Background(), &bind.Session{Resolver: r, Now: time.Unix(0, 0)}).BindQuery(stmt.(sql.Query))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return Optimize(context.Background(), p)
}

// shape prints the join tree: (left right), build side on the right.
func shape(p bind.Plan) string {
	switch n := p.(type) {
	case *bind.Scan:
		return n.Table.Name()
	case *bind.Join:
		return "(" + shape(n.Left) + " " + shape(n.Right) + ")"
	}
	var parts []string
	for _, c := range p.Children() {
		parts = append(parts, shape(c))
	}
	return strings.Join(parts, " ")
}

func TestJoinOrder(t *testing.T) {
	r := resolver{
		"small": table("small", 10, "k", "s"),
		"big":   table("big", 1_000_000, "k", "m", "v"),
		"mid":   table("mid", 1_000, "m", "w"),
		"other": table("other", 5, "z"),
		// A star with a low-NDV link between two dimensions, as TPC-H Q5's
		// c_nationkey = s_nationkey.
		"fact": table("fact", 6_000_000, "f_c:150000", "f_s:10000"),
		"cust": table("cust", 150_000, "c_k:150000", "c_n:25"),
		"supp": table("supp", 10_000, "s_k:10000", "s_n:25"),
		"nat":  table("nat", 25, "n_k:25:0:24", "n_name:25"),
		"rng":  table("rng", 1_000_000, "x:1000000:1:1000000"),
		"nost": table("nost", -1, "k"),
		// Internal tables before ANALYZE: row counts, no column statistics.
		"ia": statTable0("ia", 10, "k"),
		"ib": statTable0("ib", 1_000_000, "k", "m"),
		"ic": statTable0("ic", 1_000, "m"),
	}
	for _, c := range []struct{ q, want string }{
		// Without NDVs keys are taken as unique on the larger side: small
		// filters big down to at most 10 rows first, which then build.
		{"SELECT * FROM mid, small, big WHERE small.k = big.k AND big.m = mid.m", "(mid (big small))"},
		// An input no equality reaches joins last, by a cross product.
		{"SELECT count(*) FROM small JOIN big ON small.k = big.k JOIN other ON other.z > 0 JOIN mid ON mid.m = big.m", "(other (mid (big small)))"},
		// cust ⋈ supp on a 25-value key would be 60 M rows: never. c_n =
		// s_n = n_k gives c_n = n_k, so the one nation's customers (6 K)
		// build under the fact table and supp joins last on its key and
		// the class's one equality (s_n = n_k is implied).
		{"SELECT * FROM cust, supp, fact, nat WHERE c_k = f_c AND s_k = f_s AND c_n = s_n AND s_n = n_k AND n_name = 1", "((fact (cust nat)) supp)"},
		// A range filter makes the million-row table the small side.
		{"SELECT * FROM big, rng WHERE big.k = rng.x AND rng.x < 100", "(big rng)"},
		{"SELECT * FROM rng, big WHERE big.k = rng.x AND rng.x BETWEEN 10 AND 20", "(big rng)"},
		// A table without a row count: the bound order stays.
		{"SELECT * FROM nost, small, big WHERE nost.k = small.k AND small.k = big.k", "((nost small) big)"},
		// Analysable tables without statistics: the bound order stays.
		{"SELECT * FROM ic, ia, ib WHERE ia.k = ib.k AND ib.m = ic.m", "((ic ib) ia)"},
		// An outer join is one input: its own inputs keep their sides.
		{"SELECT * FROM small LEFT JOIN big ON small.k = big.k JOIN mid ON mid.m = big.m", "(mid (small big))"},
	} {
		p, _ := plan(t, r, c.q)
		if got := shape(p); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s\n%s", c.q, got, c.want, strings.Join(bind.Explain(p), "\n"))
		}
		// No cross product where an equality links the inputs.
		if ex := strings.Join(bind.Explain(p), "\n"); strings.Contains(ex, "CROSS JOIN") && !strings.Contains(c.q, "other") {
			t.Errorf("%s: cross product\n%s", c.q, ex)
		}
	}
	// SELECT * keeps FROM order whatever the join order.
	p, _ := plan(t, r, "SELECT * FROM mid, small, big WHERE small.k = big.k AND big.m = mid.m")
	var names []string
	for _, c := range p.Columns() {
		names = append(names, c.Qualifier+"."+c.Name)
	}
	if got := strings.Join(names, ","); got != "mid.m,mid.w,small.k,small.s,big.k,big.m,big.v" {
		t.Errorf("columns %s", got)
	}
	if ex := strings.Join(bind.Explain(p), "\n"); strings.Count(ex, "INNER JOIN keys=") != 2 {
		t.Errorf("joins without keys:\n%s", ex)
	}
}

// TestEstimates checks row estimates derived by hand from the statistics.
func TestEstimates(t *testing.T) {
	r := resolver{
		"t": table("t", 1000, "a:10:1:10", "b:1000:0:999"),
		"u": table("u", 100, "a:50"),
		// Bounds without a distinct count, as a lake's file statistics
		// give them for a column that is no integer, date or decimal.
		"v": table("v", 1000, "c:0:0:100"),
	}
	for _, c := range []struct {
		q    string
		want float64
	}{
		{"SELECT * FROM v WHERE c = 3", 100},  // the default 1/10, not 1/1
		{"SELECT * FROM v WHERE c < 25", 250}, // the bounds still count
		{"SELECT * FROM t", 1000},
		{"SELECT * FROM t WHERE a = 3", 100},                  // 1/ndv
		{"SELECT * FROM t WHERE a IN (1, 2, 3)", 300},         // 3/ndv
		{"SELECT * FROM t WHERE b < 250", 250.25},             // (250-0)/(999-0)
		{"SELECT * FROM t WHERE b >= 100 AND b < 200", 100.1}, // one range
		{"SELECT * FROM t WHERE a = 11", 1},                   // outside [1, 10]
		{"SELECT * FROM t, u WHERE t.a = u.a", 2000},          // 1000·100/max(10, 50)
		{"SELECT a, count(*) FROM t GROUP BY a", 10},
		// Semi and anti joins keep the share of left keys found on the
		// right: 10 of u's 50 distinct a (t's 10 values within u's 50).
		{"SELECT * FROM u WHERE a IN (SELECT a FROM t)", 20},
		{"SELECT * FROM u WHERE NOT EXISTS (SELECT 1 FROM t WHERE t.a = u.a)", 80},
	} {
		p, rows := plan(t, r, c.q)
		// The estimate of the first node that is not a projection.
		for {
			if pr, ok := p.(*bind.Project); ok {
				p = pr.Input
				continue
			}
			break
		}
		got, ok := rows[p]
		if !ok || math.Abs(got-c.want) > 0.01 {
			t.Errorf("%s: estimate %v (%v), want %v\n%s", c.q, got, ok, c.want, strings.Join(bind.Explain(p), "\n"))
		}
	}
}

// TestTransitiveConstants: a = b AND b = 5 filters a's input by a = 5 too.
func TestTransitiveConstants(t *testing.T) {
	r := resolver{
		"t1": table("t1", 1000, "a:1000", "x"),
		"t2": table("t2", 100, "b:100"),
		"t3": table("t3", 10, "c"),
	}
	p, _ := plan(t, r, "SELECT * FROM t1, t2, t3 WHERE t1.a = t2.b AND t2.b = 5 AND t3.c = t1.x")
	ex := strings.Join(bind.Explain(p), "\n")
	if !strings.Contains(ex, "Filter (a = 5)") || !strings.Contains(ex, "Filter (b = 5)") || strings.Contains(ex, "(c = 5)") || strings.Contains(ex, "(x = 5)") {
		t.Errorf("derived filters:\n%s", ex)
	}
	// Without statistics the derived filter applies all the same.
	r["n1"], r["n2"] = table("n1", -1, "a"), table("n2", -1, "b")
	p, _ = plan(t, r, "SELECT * FROM n1 JOIN n2 ON n1.a = n2.b WHERE n1.a = 7")
	if ex := strings.Join(bind.Explain(p), "\n"); !strings.Contains(ex, "Filter (b = 7)") {
		t.Errorf("derived filters without statistics:\n%s", ex)
	}
}

// TestMatchShare checks the share of probe rows a join's build keys match,
// which decides its runtime filters: all of them for an unfiltered
// dimension, one in ten for a tenth of it.
func TestMatchShare(t *testing.T) {
	r := resolver{
		"f":   table("f", 100000, "k:1000", "x:100"),
		"dim": table("dim", 1000, "k:1000", "v:10"),
	}
	for _, c := range []struct {
		q    string
		want float64
	}{
		{"SELECT * FROM f JOIN dim ON f.k = dim.k", 1},
		{"SELECT * FROM f JOIN dim ON f.k = dim.k WHERE dim.v = 3", 0.1},
		{"SELECT * FROM f WHERE k IN (SELECT k FROM dim WHERE v = 3)", 0.1},
	} {
		stmt, err := sql.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := bind.New(context.Background(), &bind.Session{Resolver: r, Now: time.Unix(0, 0)}).BindQuery(stmt.(sql.Query))
		if err != nil {
			t.Fatal(err)
		}
		p, est := OptimizePlan(context.Background(), p)
		var j *bind.Join
		var find func(p bind.Plan)
		find = func(p bind.Plan) {
			if x, ok := p.(*bind.Join); ok && j == nil {
				j = x
			}
			for _, k := range p.Children() {
				find(k)
			}
		}
		find(p)
		if j == nil {
			t.Fatalf("%s: no join", c.q)
		}
		got, ok := est.MatchShare(j, 0)
		if !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: share %v (%v), want %v\n%s", c.q, got, ok, c.want, strings.Join(bind.Explain(p), "\n"))
		}
	}
}
