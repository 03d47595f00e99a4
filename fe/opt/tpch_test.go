package opt

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/internal/tpch"
)

// sf1 are TPC-H statistics at scale factor 1, from the specification
// (clause 4.2): row counts, and per column the distinct values and, for
// numbers and dates, the bounds (dates as days since 1970-01-01). Columns
// not listed have no statistics.
var sf1 = map[string]struct {
	rows int64
	cols map[string][3]int64 // ndv, lo, hi (lo = hi = 0: no bounds)
}{
	"region":   {5, map[string][3]int64{"r_regionkey": {5, 0, 4}, "r_name": {5, 0, 0}}},
	"nation":   {25, map[string][3]int64{"n_nationkey": {25, 0, 24}, "n_name": {25, 0, 0}, "n_regionkey": {5, 0, 4}}},
	"supplier": {10_000, map[string][3]int64{"s_suppkey": {10_000, 1, 10_000}, "s_nationkey": {25, 0, 24}}},
	"customer": {150_000, map[string][3]int64{"c_custkey": {150_000, 1, 150_000}, "c_nationkey": {25, 0, 24}, "c_mktsegment": {5, 0, 0}}},
	"part": {200_000, map[string][3]int64{"p_partkey": {200_000, 1, 200_000}, "p_name": {200_000, 0, 0}, "p_type": {150, 0, 0},
		"p_size": {50, 1, 50}, "p_brand": {25, 0, 0}, "p_container": {40, 0, 0}}},
	"partsupp": {800_000, map[string][3]int64{"ps_partkey": {200_000, 1, 200_000}, "ps_suppkey": {10_000, 1, 10_000}}},
	"orders": {1_500_000, map[string][3]int64{"o_orderkey": {1_500_000, 1, 6_000_000}, "o_custkey": {100_000, 1, 150_000},
		"o_orderdate": {2406, 8035, 10440}}},
	"lineitem": {6_001_215, map[string][3]int64{"l_orderkey": {1_500_000, 1, 6_000_000}, "l_partkey": {200_000, 1, 200_000},
		"l_suppkey": {10_000, 1, 10_000}, "l_shipdate": {2526, 8036, 10561}, "l_commitdate": {2466, 8065, 10591},
		"l_receiptdate": {2554, 8037, 10591}, "l_returnflag": {3, 0, 0}, "l_shipmode": {7, 0, 0}}},
}

func arrowType(t *testing.T, doris string) arrow.DataType {
	switch {
	case doris == "INT":
		return arrow.PrimitiveTypes.Int32
	case doris == "BIGINT":
		return arrow.PrimitiveTypes.Int64
	case doris == "DATE":
		return arrow.FixedWidthTypes.Date32
	case strings.HasPrefix(doris, "VARCHAR"):
		return arrow.BinaryTypes.String
	case strings.HasPrefix(doris, "DECIMAL("):
		ps := strings.Split(strings.Trim(doris[len("DECIMAL"):], "()"), ",")
		p, _ := strconv.Atoi(ps[0])
		s, _ := strconv.Atoi(ps[1])
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
	}
	t.Fatalf("type %s", doris)
	return nil
}

func tpchSF1(t *testing.T) resolver {
	r := resolver{}
	for _, tb := range tpch.Tables {
		st := sf1[tb.Name]
		tab := &statTable{name: tb.Name, rows: st.rows, stats: &catalog.TableStats{Rows: st.rows, Columns: map[string]catalog.ColumnStats{}}}
		for _, c := range tb.Columns {
			tab.s.Columns = append(tab.s.Columns, catalog.Column{Name: c[0], Type: arrowType(t, c[1])})
			if cs, ok := st.cols[c[0]]; ok {
				s := catalog.ColumnStats{Count: st.rows, NDV: cs[0]}
				if cs[1] != cs[2] {
					s.Numeric, s.Lo, s.Hi = true, float64(cs[1]), float64(cs[2])
				}
				tab.stats.Columns[c[0]] = s
			}
		}
		r[tb.Name] = tab
	}
	return r
}

// TestTPCHOrderSF1 checks the join orders chosen from SF 1 statistics:
// lineitem always streams (probe side) at the bottom, every build side is
// small, and Q5's customer is reached through orders (c_custkey), never
// joined to suppliers by the 25-value nation key alone (150 000 · 2 000 /
// 25 = 12 M rows, the plan that took 6 GiB).
func TestTPCHOrderSF1(t *testing.T) {
	r := tpchSF1(t)
	for _, c := range []struct {
		q    int
		want string
	}{
		// The outer block and the decorrelated min(ps_supplycost) each join
		// the few filtered parts' partsupp rows (build) to supplier: the
		// subquery's partsupp meets the distinct part keys of the outer
		// query (fe/bind's correlation domain).
		{2, "(((supplier (partsupp part)) (nation region)) ((supplier (partsupp part)) (nation region)))"},
		{3, "(lineitem (orders customer))"},
		// c_nationkey = s_nationkey = n_nationkey links customer to nation:
		// the Asian customers (30 K) build under the year's orders, which
		// build under lineitem; supplier joins last on (s_suppkey,
		// s_nationkey).
		{5, "((lineitem (orders (customer (nation region)))) supplier)"},
		{7, "((lineitem (supplier nation)) (orders (customer nation)))"},
		// One part type's lineitems build under the two years of orders,
		// customers probe them; the 25-row nation n2 joins last.
		{8, "((supplier ((customer (orders (lineitem part))) (nation region))) nation)"},
		// The green parts' lineitems first; partsupp joins on both key
		// columns as one key (not a few rows: one per lineitem row).
		{9, "(partsupp (orders ((lineitem part) (supplier nation))))"},
	} {
		p, _ := plan(t, r, tpch.Query(c.q, 1))
		if got := shape(p); got != c.want {
			t.Errorf("Q%d:\n got %s\nwant %s", c.q, got, c.want)
		}
		ex := strings.Join(bind.Explain(p), "\n")
		if strings.Contains(ex, "CROSS JOIN") {
			t.Errorf("Q%d: cross product\n%s", c.q, ex)
		}
		if c.q == 5 && !strings.Contains(ex, "c_custkey") || strings.Contains(ex, "keys=[c_nationkey] = [s_nationkey]") || strings.Contains(ex, "keys=[s_nationkey] = [c_nationkey]") {
			t.Errorf("Q%d: customer joined by nation alone\n%s", c.q, ex)
		}
	}
}

// TestSemiBuildLeftSF1: the semi and anti joins whose preserved (left)
// side is estimated the smaller hash it (BuildLeft: the executor's RIGHT
// SEMI / RIGHT ANTI JOIN): Q4's quarter of orders against 3.8 M late
// lineitems, Q21's 25 K candidate lineitems against all lineitems (EXISTS
// and NOT EXISTS), Q22's few customers against every order, Q20's
// Canadian suppliers against the partsupp rows that qualify. Q18's orders
// against the few big orders' keys and Q16's NOT IN (null-aware) stay.
func TestSemiBuildLeftSF1(t *testing.T) {
	for _, c := range []struct {
		q    int
		want []string
	}{
		{4, []string{"LEFT SEMI JOIN keys=[o_orderkey] = [l_orderkey] build=left"}},
		{21, []string{
			"LEFT ANTI JOIN keys=[l_orderkey] = [l_orderkey] residual=(l3.l_suppkey != l1.l_suppkey) build=left",
			"LEFT SEMI JOIN keys=[l_orderkey] = [l_orderkey] residual=(l2.l_suppkey != l1.l_suppkey) build=left",
		}},
		{22, []string{"LEFT ANTI JOIN keys=[c_custkey] = [o_custkey] build=left"}},
		{20, []string{"LEFT SEMI JOIN keys=[s_suppkey] = [ps_suppkey] build=left", "LEFT SEMI JOIN keys=[ps_partkey] = [p_partkey]\n"}},
		{18, []string{"LEFT SEMI JOIN keys=[o_orderkey] = [l_orderkey]\n"}},
		{16, []string{"NULL AWARE LEFT ANTI JOIN keys=[ps_suppkey] = [s_suppkey]\n"}},
	} {
		p, _ := plan(t, tpchSF1(t), tpch.Query(c.q, 1))
		ex := strings.Join(bind.Explain(p), "\n") + "\n"
		for _, w := range c.want {
			if !strings.Contains(ex, w) {
				t.Errorf("Q%d plan lacks %q:\n%s", c.q, w, ex)
			}
		}
	}
	// At SF 0.001 no side is big enough to matter: Q4's semi join hashes
	// its right side as bound.
	small := tpchSF1(t)
	for _, tb := range small {
		st := tb.(*statTable)
		st.rows /= 1000
		st.stats.Rows = st.rows
		for c, cs := range st.stats.Columns {
			cs.Count, cs.NDV = st.rows, max(cs.NDV/1000, 1)
			st.stats.Columns[c] = cs
		}
	}
	p, _ := plan(t, small, tpch.Query(4, 1))
	if ex := strings.Join(bind.Explain(p), "\n"); !strings.Contains(ex, "LEFT SEMI JOIN keys=[o_orderkey] = [l_orderkey]\n") {
		t.Errorf("Q4 at SF 0.001 builds its left side:\n%s", ex)
	}
}
