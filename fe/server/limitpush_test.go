package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/minifluss"
)

// The LIMIT tables: lp.big_pk is a primary-key table of lpRows keys whose
// first lpRows are tiered into the lake (a union read: LAKE_SUPPRESS splits
// plus PK_TAIL ranges) and whose tail rewrites the keys k <= lpTail
// (name 'u<k>') and deletes k in (lpTail, lpTail+10]; lp.big_log is a log
// table of the same rows read from Fluss alone. grp = k mod 1000, so
// grp = 7 selects one row in a thousand, spread over every bucket and file.
const (
	lpRows = 60000
	lpTail = 2000
)

func lpScenario(rows int) string {
	return fmt.Sprintf(`CREATE DATABASE lp;
CREATE TABLE lp.big_pk (k INT NOT NULL, grp INT, name STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('bucket.num' = '4', 'table.datalake.enabled' = 'true');
CREATE TABLE lp.big_log (k INT, grp INT, name STRING) WITH ('bucket.num' = '4');
GENERATE INTO lp.big_pk FROM 1 TO %[1]d VALUES (ID, ID MOD 1000, 'n{id}');
GENERATE INTO lp.big_log FROM 1 TO %[1]d VALUES (ID, ID MOD 1000, 'n{id}');
TIER;
FREEZE TIERING;
GENERATE INTO lp.big_pk FROM 1 TO %[2]d VALUES (ID, ID MOD 1000, 'u{id}');
%[3]s`, rows, lpTail, lpDeleted())
}

func lpDeleted() string {
	var ks []string
	for k := lpTail + 1; k <= lpTail+10; k++ {
		ks = append(ks, "DELETE FROM lp.big_pk WHERE k = "+strconv.Itoa(k))
	}
	return strings.Join(ks, ";\n")
}

// lpModel is the table's content by key, from the scenario's definition.
func lpModel(rows int, pk bool) map[int]string {
	m := make(map[int]string, rows)
	for k := 1; k <= rows; k++ {
		name := "n" + strconv.Itoa(k)
		if pk && k <= lpTail {
			name = "u" + strconv.Itoa(k)
		}
		if pk && k > lpTail && k <= lpTail+10 {
			continue
		}
		m[k] = fmt.Sprintf("%d|%d|%s", k, k%1000, name)
	}
	return m
}

func startLimitFE(t *testing.T, rows int) *unionFE {
	t.Helper()
	sc, err := minifluss.ParseScenario(lpScenario(rows))
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFE(t, sc)
	mustExec(t, f.db(""), fmt.Sprintf(`CREATE CATALOG lp PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, f.cluster.BootstrapAddr()))
	return f
}

var _ = context.Background
var _ = slices.Sort[[]string]

func TestLimitExperiment(t *testing.T) {
	f := startLimitFE(t, lpRows)
	db := f.db("")
	for _, q := range []string{
		"SELECT * FROM lp.lp.big_pk LIMIT 10",
		"SELECT * FROM lp.lp.big_pk WHERE grp = 7 LIMIT 10",
		"SELECT * FROM lp.lp.big_pk ORDER BY k LIMIT 10",
		"SELECT * FROM lp.lp.big_log WHERE grp = 7 LIMIT 10",
		"SELECT * FROM lp.lp.big_pk WHERE grp = 7",
		"SELECT * FROM lp.lp.big_pk WHERE grp = 7 ORDER BY k DESC LIMIT 3",
		"SELECT k, name FROM lp.lp.big_log WHERE grp >= 990 ORDER BY grp, k DESC LIMIT 5",
	} {
		r := rows(t, db, q)
		c := profileCounters(t, db, "FlussLakeRowsReturned", "FlussLogRowsReturned", "FlussLogBytesFetched", "FlussLakeRangeNum", "FlussLakeSuppressRangeNum")
		t.Logf("%s: %d rows %v %v", q, len(r), c, r)
		for _, l := range rows(t, db, "EXPLAIN "+q) {
			t.Log(l)
		}
	}
}
