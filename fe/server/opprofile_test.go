package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 27: the profile's operator tree shows what every operator produced
// (RowsProduced, ExecTime), measured while the statement ran. The rows are
// derived by hand from the fixture: log_part has ids 1-4 in dt 20260101
// (1, 2), 20260102 (3), 20260103 (4); log_basic has ids 1-3.
func TestOperatorRowsInProfile(t *testing.T) {
	f := startUnionFE(t)
	db := f.db("")
	// Without runtime filters the scans' rows follow from the fixture and
	// the pushed predicate alone.
	mustExec(t, db, "SET runtime_filter_mode = 'OFF'", "SET parallel_pipeline_task_num = 2")
	const q = "SELECT 'op profile', p.dt, count(*) FROM fl_auto.fluss_test.log_part p JOIN fl_auto.fluss_test.log_basic b ON p.id = b.id " +
		"WHERE p.id <> 2 GROUP BY p.dt ORDER BY p.dt"
	wantRows(t, db, q, "op profile|20260101|1", "op profile|20260102|1")
	var id string
	for _, r := range rows(t, db, `SHOW QUERY PROFILE "/"`) {
		if strings.Contains(r, "op profile") {
			id = strings.Split(r, "|")[0]
		}
	}
	if id == "" {
		t.Fatal("the query has no profile")
	}
	plan := f.fe.Server.planOf(id)
	t.Logf("%s", strings.Join(plan, "\n"))
	// node header -> its RowsProduced
	header := regexp.MustCompile(`^[\s|-]*(\d+):(\S.*)$`)
	measured := regexp.MustCompile(`RowsProduced=(\d+), Batches=\d+, ExecTime=([0-9.]+)ms, TotalTime=([0-9.]+)ms`)
	got := map[string]int64{}
	var cur string
	for _, l := range plan {
		if m := header.FindStringSubmatch(l); m != nil {
			cur = m[2]
			continue
		}
		if tb, ok := strings.CutPrefix(strings.TrimLeft(l, " |"), "TABLE: fl_auto.fluss_test."); ok && cur != "" {
			cur += "@" + tb
		}
		if m := measured.FindStringSubmatch(l); m != nil && cur != "" {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			self, _ := strconv.ParseFloat(m[2], 64)
			total, _ := strconv.ParseFloat(m[3], 64)
			if self > total {
				t.Errorf("%s: own time %vms above its total %vms", cur, self, total)
			}
			got[cur] = n
			cur = ""
		}
	}
	want := map[string]int64{
		"VPluginDrivenScanNode@log_part":  3, // id <> 2 pushed to the scan: 1, 3, 4
		"VPluginDrivenScanNode@log_basic": 3,
		"VHASH JOIN":                      2, // ids 1 and 3
		"VAGGREGATE":                      2, // two dt groups
		"VSORT":                           2,
	}
	// The BEs apply id <> 2 exactly (the fragment carries it), so the FE
	// does not test it again: no VSELECT.
	for h := range got {
		if strings.HasPrefix(h, "VSELECT") {
			t.Errorf("a VSELECT over the pushed predicate: %s", h)
		}
	}
	for node, n := range want {
		found := false
		for h, v := range got {
			if strings.HasPrefix(h, node) {
				found = true
				if v != n {
					t.Errorf("%s produced %d rows, want %d", h, v, n)
				}
			}
		}
		if !found {
			t.Errorf("no measured %s node in:\n%s", node, strings.Join(plan, "\n"))
		}
	}
}
