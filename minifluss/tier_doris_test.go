package minifluss

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

// TestDorisRegressionScenario loads the Doris fixture set with tiering and
// checks what the Doris environment waits for (lake-row-counts.sql) and what
// its union-read baselines rely on.
func TestDorisRegressionScenario(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	c := startCluster(t, Config{DatalakeFormat: "paimon", TabletServers: 1, DefaultBucketNumber: 3, Lake: LakeConfig{Warehouse: wh}})
	sc, err := LoadScenario(filepath.Join("testdata", "doris_regression.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := sc.Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d statements in %v (GOMAXPROCS %d)", sc.Len(), time.Since(start), runtime.GOMAXPROCS(0))

	// Rows of the readable lake snapshot (merged for PK tables), as
	// lake-row-counts.sql counts them.
	want := map[string]int{"lake_log": 4, "lake_cold": 3, "lake_types": 1, "lake_part": 3, "lake_pk": 3, "lake_pk_multi": 9,
		"lake_pk_part": 4, "lake_pk_cold": 3, "lake_nested": 1, "lake_part_int": 3, "lake_pk_part_int": 4, "big_log": 100000, "big_pk": 100000}
	for tbl, n := range want {
		snap, code := lakeSnapshotRPCIn(t, c, "fluss_test", tbl, true)
		if code != 0 {
			t.Fatalf("%s: readable lake snapshot: error %d", tbl, code)
		}
		rows, _ := lakeRowsIn(t, ctx, wh, "fluss_test", tbl, snap.GetSnapshotId(), 1)
		got := 0
		for _, r := range rows {
			got += len(r)
		}
		if got != n {
			t.Errorf("%s: %d lake rows, want %d", tbl, got, n)
		}
	}
	if _, code := lakeSnapshotRPCIn(t, c, "fluss_test", "lake_empty", true); code != codeLakeSnapshotNotExist {
		// Tiering commits every lake table once; an empty table's snapshot
		// holds no rows but exists.
		rows, _ := lakeRowsIn(t, ctx, wh, "fluss_test", "lake_empty", 0, 1)
		if len(rows) != 0 {
			t.Errorf("lake_empty has lake rows %v", rows)
		}
	}

	// Union reads the baselines rely on.
	logUnion := func(tbl string) []string {
		info, err := c.Table("fluss_test", tbl)
		if err != nil {
			t.Fatal(err)
		}
		snap, _ := lakeSnapshotRPCIn(t, c, "fluss_test", tbl, true)
		lake, _ := lakeRowsIn(t, ctx, wh, "fluss_test", tbl, snap.GetSnapshotId(), 1)
		var ids []string
		for _, rs := range lake {
			ids = append(ids, rs...)
		}
		for _, bs := range snap.BucketSnapshots {
			for _, r := range fetchTail(t, c, info, "", nil, bs.GetBucketId(), bs.GetLogOffset()) {
				ids = append(ids, "["+strings.Fields(strings.Trim(r.row, "[]"))[0]+"]")
			}
		}
		return ids
	}
	if ids := logUnion("lake_log"); len(ids) != 6 || sortedJoin(ids) != "[1]\n[2]\n[3]\n[4]\n[5]\n[6]" {
		t.Errorf("lake_log union: %v", ids)
	}
	big := logUnion("big_log")
	var sum int64
	for _, s := range big {
		n, _ := strconv.ParseInt(strings.Trim(s, "[]"), 10, 64)
		sum += n
	}
	if len(big) != 101000 || sum != 5100550500 {
		t.Errorf("big_log union: %d rows, id sum %d; want 101000, 5100550500", len(big), sum)
	}
	pkMerge := func(tbl string) map[string]string {
		info, err := c.Table("fluss_test", tbl)
		if err != nil {
			t.Fatal(err)
		}
		snap, _ := lakeSnapshotRPCIn(t, c, "fluss_test", tbl, true)
		lake, _ := lakeRowsIn(t, ctx, wh, "fluss_test", tbl, snap.GetSnapshotId(), 2)
		state := map[string]string{}
		for _, rs := range lake {
			for _, r := range rs {
				state[strings.Fields(strings.Trim(r, "[]"))[0]] = r
			}
		}
		for _, bs := range snap.BucketSnapshots {
			for _, lr := range fetchTail(t, c, info, "", nil, bs.GetBucketId(), bs.GetLogOffset()) {
				f := strings.Fields(strings.Trim(lr.row, "[]"))
				switch lr.ct {
				case record.Delete:
					delete(state, f[0])
				case record.UpdateBefore:
				default:
					state[f[0]] = "[" + f[0] + " " + f[1] + "]"
				}
			}
		}
		return state
	}
	vals := func(m map[string]string) string {
		var out []string
		for _, v := range m {
			out = append(out, v)
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	if got := vals(pkMerge("lake_pk")); got != "[2 lp2-lake] [3 lp3-hot] [4 lp4-hot]" {
		t.Errorf("lake_pk merged: %s", got)
	}
	multi := pkMerge("lake_pk_multi")
	if len(multi) != 9 || multi["10"] != "[10 m10-hot]" || multi["7"] != "" || multi["5"] != "[5 m5-lake]" {
		t.Errorf("lake_pk_multi merged: %s", vals(multi))
	}
	bigPK := pkMerge("big_pk")
	var pkSum int64
	for k := range bigPK {
		n, _ := strconv.ParseInt(k, 10, 64)
		pkSum += n
	}
	if len(bigPK) != 100495 || pkSum != 5049927468 {
		t.Errorf("big_pk merged: %d rows, id sum %d; want 100495, 5049927468", len(bigPK), pkSum)
	}
	// The dropped partition stays in the lake snapshot, with its name.
	snap, _ := lakeSnapshotRPCIn(t, c, "fluss_test", "lake_part", true)
	found := false
	for _, b := range snap.BucketSnapshots {
		found = found || b.GetPartitionName() == "20260102"
	}
	if pid, err := c.PartitionID("fluss_test", "lake_part", "20260102"); err == nil || !found {
		t.Errorf("lake-only partition 20260102: in Fluss (id %d, err %v), in lake snapshot %v", pid, err, found)
	}
	if rows, _ := lakeRowsIn(t, ctx, wh, "fluss_test", "lake_part", snap.GetSnapshotId(), 3); len(rows["dt=20260102/0"]) != 1 {
		t.Errorf("lake-only partition rows: %v", rows)
	}

	// cmd/paimon-cat reads what tiering wrote.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Logf("go tool not found: skipping the cmd/paimon-cat check")
		return
	}
	bin := filepath.Join(t.TempDir(), "paimon-cat")
	if out, err := exec.Command(goBin, "build", "-o", bin, "github.com/inlet-db/inlet/cmd/paimon-cat").CombinedOutput(); err != nil {
		t.Fatalf("build paimon-cat: %v\n%s", err, out)
	}
	for tbl, n := range map[string]int{"lake_pk_multi": 9, "lake_types": 1, "lake_nested": 1, "lake_part": 3, "lake_log": 4} {
		out, err := exec.Command(bin, "--warehouse", wh, "--table", "fluss_test."+tbl).CombinedOutput()
		if err != nil {
			t.Fatalf("paimon-cat %s: %v\n%s", tbl, err, out)
		}
		if lines := bytes.Count(out, []byte("\n")); lines != n {
			t.Errorf("paimon-cat %s: %d rows, want %d:\n%s", tbl, lines, n, out)
		}
		if tbl == "lake_log" && !bytes.Contains(out, []byte(`[4,"lake4","4.40"]`)) {
			t.Errorf("paimon-cat lake_log (DECIMAL(10,2) stored as INT64): %s", out)
		}
		if tbl == "lake_types" {
			t.Logf("paimon-cat lake_types: %s", out)
			for _, v := range []string{"123.4567", "char1", "string1", "2026-01-01 01:02:03.456789", "k2"} {
				if !bytes.Contains(out, []byte(v)) {
					t.Errorf("paimon-cat lake_types lacks %q: %s", v, out)
				}
			}
		}
	}
}
