package server

import (
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/tpch"
)

func TestZZScratch(t *testing.T) {
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
	for _, q := range []int{3, 4, 17, 21} {
		p := rows(t, db, "EXPLAIN "+tpch.Query(q, 1))
		var keep []string
		for _, l := range p {
			if strings.Contains(l, "runtime") || strings.Contains(l, "TABLE:") || strings.Contains(l, "JOIN") || strings.Contains(l, "conjunct") {
				keep = append(keep, l)
			}
		}
		t.Logf("Q%d\n%s", q, strings.Join(keep, "\n"))
	}
}
