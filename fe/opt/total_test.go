package opt

import (
	"strings"
	"testing"

	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/internal/tpch"
)

// TestTotalsFromGroupsQ11: Q11's total over the German suppliers'
// partsupp rows becomes the sum of the grouped aggregate's per-part sums,
// over a copy of that aggregate (which fe/physical computes once).
func TestTotalsFromGroupsQ11(t *testing.T) {
	p, _ := plan(t, tpchSF1(t), tpch.Query(11, 1))
	ex := bind.Explain(p)
	var grouped []string
	total := false
	for i, l := range ex {
		tl := strings.TrimSpace(l)
		if strings.HasPrefix(tl, "Aggregate groups=[ps_partkey]") {
			grouped = append(grouped, tl)
		}
		if strings.HasPrefix(tl, "Aggregate groups=[] aggs=[sum(sum(") && i+1 < len(ex) && strings.HasPrefix(strings.TrimSpace(ex[i+1]), "Aggregate groups=[ps_partkey]") {
			total = true
		}
	}
	if len(grouped) != 2 || grouped[0] != grouped[1] || !total {
		t.Errorf("Q11: want the total over a copy of the grouped aggregate:\n%s", strings.Join(ex, "\n"))
	}
}
