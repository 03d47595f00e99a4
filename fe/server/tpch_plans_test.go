package server

import (
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/tpch"
)

// TestTPCHPlanShapes checks what the plans of the TPC-H queries that never
// finished (Q2, Q19) or filtered late (Q7) must contain: hash keys from
// WHERE equalities inside a correlated subquery, the join equality common
// to every OR branch as a hash key, and each input's share of an OR filtering
// that input below the joins.
func TestTPCHPlanShapes(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE tpch", "USE tpch")
	for _, tb := range tpch.Tables {
		var cols []string
		for _, c := range tb.Columns {
			cols = append(cols, c[0]+" "+c[1])
		}
		mustExec(t, db, "CREATE TABLE "+tb.Name+" ("+strings.Join(cols, ", ")+") DUPLICATE KEY("+tb.Key[0]+") DISTRIBUTED BY HASH("+tb.Key[0]+") BUCKETS 1")
	}
	plan := func(q int) string { return strings.Join(rows(t, db, "EXPLAIN "+tpch.Query(q, 1)), "\n") }
	for _, c := range []struct {
		q          int
		want, deny []string
	}{
		{2, []string{
			"equal join conjunct: (p_partkey = ps_partkey)", // the correlation
			"equal join conjunct: (ps_suppkey = s_suppkey)", // inside the subquery and outside
			"equal join conjunct: (s_nationkey = n_nationkey)",
			"equal join conjunct: (n_regionkey = r_regionkey)",
		}, []string{"VNESTED LOOP JOIN"}},
		{19, []string{
			"equal join conjunct: (l_partkey = p_partkey)",
			"predicates: (((p_brand = 'Brand#12') AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG') AND (p_size >= 1) AND (p_size <= 5)) OR",
			"predicates: (l_shipmode IN ('AIR', 'AIR REG') AND (l_shipinstruct = 'DELIVER IN PERSON') AND",
		}, []string{"VNESTED LOOP JOIN"}},
		{7, []string{
			"predicates: ((n_name = 'FRANCE') OR (n_name = 'GERMANY'))",
			"predicates: ((n_name = 'GERMANY') OR (n_name = 'FRANCE'))",
		}, []string{"VNESTED LOOP JOIN"}},
		// EXISTS (SELECT * FROM lineitem …) carries only what its WHERE reads.
		// The orders scan feeds the semi join's probe directly: a runtime
		// filter would only repeat the join's lookup, so there is none.
		{4, []string{"join op: LEFT SEMI JOIN"}, []string{"l_comment", "l_shipmode", "runtime filters"}},
		// The semi and anti joins' hash tables hold the two columns their
		// keys and residuals read (not l_receiptdate, l_commitdate that
		// only l3's filter reads, nor EXISTS's constant); the anti join
		// makes no runtime filter.
		{21, []string{"join op: LEFT SEMI JOIN", "join op: LEFT ANTI JOIN", "projections: l_orderkey, l_suppkey\n"},
			[]string{"l_comment", "l_shipmode", "projections: l_orderkey, l_suppkey, "}},
	} {
		p := plan(c.q)
		for _, w := range c.want {
			if strings.Count(p, w) == 0 {
				t.Errorf("Q%d plan lacks %q:\n%s", c.q, w, p)
			}
		}
		for _, d := range c.deny {
			if strings.Contains(p, d) {
				t.Errorf("Q%d plan has %q:\n%s", c.q, d, p)
			}
		}
	}
	// Q4: the order-date filter sits below the semi join (printed after it).
	if p := plan(4); strings.Index(p, "o_orderdate >= '1993-07-01'") < strings.Index(p, "LEFT SEMI JOIN") {
		t.Errorf("Q4: the order dates are filtered above the semi join:\n%s", p)
	}
	if p := plan(21); strings.Count(p, "projections: l_orderkey, l_suppkey\n") != 2 {
		t.Errorf("Q21: the semi and anti joins' build sides are not both narrowed:\n%s", p)
	}
	// Q2's four equalities appear twice: in the query and in its subquery.
	if p := plan(2); strings.Count(p, "equal join conjunct: (n_regionkey = r_regionkey)") != 2 {
		t.Errorf("Q2: the subquery's region join has no hash key:\n%s", p)
	}
}
