package server

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

// TestWindowStddevSQL: the stddev/variance family under OVER through the
// MySQL protocol, over an internal table, for each kind of frame; and the
// distribution functions. p = 'x' holds o = 1, 2, 2, 3 with v = 1e9 + o
// and a NULL v (o = 4); p = 'y' one row. Values by hand: {1,2,2} has mean
// 5/3 and M2 2/3, {1,2,2,3} M2 2, {1,2} M2 1/2, {2,2,3} M2 2/3.
func TestWindowStddevSQL(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE d", "USE d",
		"CREATE TABLE w (k INT, p VARCHAR(4), o INT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3",
		`INSERT INTO w VALUES (1,'x',1,1000000001), (2,'x',2,1000000002), (3,'x',2,1000000002), (4,'x',3,1000000003),
		 (5,'x',4,NULL), (6,'y',7,1000000007)`)
	n := math.NaN()
	cases := []struct {
		over string
		want [][]float64 // var_pop(v), var_samp(v) per row in (p, o, k) order
	}{
		{"PARTITION BY p ORDER BY o", [][]float64{{0, n}, {2.0 / 9, 1.0 / 3}, {2.0 / 9, 1.0 / 3}, {0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0, n}}},
		{"PARTITION BY p ORDER BY o, k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
			[][]float64{{0, n}, {0.25, 0.5}, {2.0 / 9, 1.0 / 3}, {0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0, n}}},
		{"PARTITION BY p", [][]float64{{0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0.5, 2.0 / 3}, {0, n}}},
		// {1,2} {1,2,2} {2,2,3} {2,3} {3} | {7}
		{"PARTITION BY p ORDER BY o, k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
			[][]float64{{0.25, 0.5}, {2.0 / 9, 1.0 / 3}, {2.0 / 9, 1.0 / 3}, {0.25, 0.5}, {0, n}, {0, n}}},
		// keys in [o-1, o]: {1} {1,2,2} {1,2,2} {2,2,3} {3} | {7}
		{"PARTITION BY p ORDER BY o RANGE BETWEEN 1 PRECEDING AND CURRENT ROW",
			[][]float64{{0, n}, {2.0 / 9, 1.0 / 3}, {2.0 / 9, 1.0 / 3}, {2.0 / 9, 1.0 / 3}, {0, n}, {0, n}}},
	}
	for _, c := range cases {
		q := fmt.Sprintf("SELECT p, o, var_pop(v) OVER (%[1]s), variance_samp(v) OVER (%[1]s), stddev(v) OVER (%[1]s) FROM w ORDER BY p, o, k", c.over)
		var want [][]any
		for i, r := range c.want {
			ps := "x"
			if i == 5 {
				ps = "y"
			}
			want = append(want, []any{ps, strconv.Itoa([]int{1, 2, 2, 3, 4, 7}[i]), r[0], r[1], math.Sqrt(r[0])})
		}
		wantStats(t, rows(t, db, q), q, want...)
	}
	// The distribution functions over o in x (1, 2, 2, 3, 4) and y (7).
	wantRows(t, db, "SELECT p, o, ntile(2) OVER (PARTITION BY p ORDER BY o, k), ntile(3) OVER (PARTITION BY p ORDER BY o, k), "+
		"percent_rank() OVER (PARTITION BY p ORDER BY o), cume_dist() OVER (PARTITION BY p ORDER BY o) FROM w ORDER BY p, o, k",
		"x|1|1|1|0|0.2", "x|2|1|1|0.25|0.6", "x|2|1|2|0.25|0.6", "x|3|2|2|0.75|0.8", "x|4|2|3|1|1", "y|7|1|1|0|1")
	wantErr(t, db, "SELECT ntile(0) OVER (ORDER BY o) FROM w", 1105, "positive integer")
	wantErr(t, db, "SELECT ntile(o) OVER (ORDER BY o) FROM w", 1105, "positive integer")
	f.stop()
}

// TestStddevVarianceTwoBEs: over a Fluss union read whose buckets are
// spread across two BEs, each BE runs its own partial aggregate and the FE
// merges the states; the answer must be the single-node one, here the
// closed form of TestStddevVarianceFluss, and both BEs must have worked.
func TestStddevVarianceTwoBEs(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "paimon", TabletServers: 2,
		DefaultBucketNumber: 3, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc, err := minifluss.LoadScenario(filepath.Join("..", "..", "minifluss", "testdata", "doris_regression.scenario"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Run(ctx, c); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	var calls [2]atomic.Int64
	var backends []dispatch.Backend
	for i := range calls {
		be := scan.NewExecutor(scan.Config{Name: fmt.Sprintf("be%d", i)})
		t.Cleanup(func() { be.Close() })
		backends = append(backends, dispatch.BackendFunc(fmt.Sprintf("be%d", i),
			func(ctx context.Context, f *inletpb.Fragment, m memory.Allocator) (exec.StatsReader, error) {
				if f.GetPartialAgg() != nil {
					calls[i].Add(1)
				}
				return be.Execute(ctx, f, m)
			}))
	}
	disp := dispatch.New(dispatch.Config{Backends: backends, Classify: scan.ErrorCode})
	dir := t.TempDir()
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{fluss.Type(), paimon.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	db := tf.db("")
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s', 'fluss.union_read.mode'='required')`, c.BootstrapAddr()))
	q := "SELECT grp, count(price), var_pop(price), var_samp(price), stddev(id), stddev_samp(id) FROM fl.fluss_test.big_log GROUP BY grp ORDER BY grp"
	if plan := strings.Join(rows(t, db, "EXPLAIN "+q), "\n"); !strings.Contains(plan, "partial aggregate on BE") {
		t.Fatalf("not split onto the BEs:\n%s", plan)
	}
	var want [][]any
	for r := 0; r < 7; r++ {
		m := 14428.0
		if r >= 1 && r <= 4 { // 101000 = 7·14428 + 4
			m++
		}
		vp := 49 * (m*m - 1) / 12
		want = append(want, []any{strconv.Itoa(r), strconv.Itoa(int(m)), vp, vp * m / (m - 1), math.Sqrt(vp), math.Sqrt(vp * m / (m - 1))})
	}
	wantStats(t, rows(t, db, q), q, want...)
	if calls[0].Load() == 0 || calls[1].Load() == 0 {
		t.Errorf("partial aggregates ran %d and %d times on the two BEs; want both > 0", calls[0].Load(), calls[1].Load())
	}
	// Behind a filter and a subquery: the same answer.
	q2 := "SELECT grp, count(price), var_pop(price), var_samp(price), stddev(id), stddev_samp(id) FROM (SELECT * FROM fl.fluss_test.big_log WHERE id > 0) t GROUP BY grp ORDER BY grp"
	wantStats(t, rows(t, db, q2), q2, want...)
	// The aggregates of two arguments send both columns (and constants)
	// to the BEs; price = id, so covariance is the variance, corr 1, the
	// regression line y = x, and every median the mean of the progression.
	q = "SELECT grp, covar_samp(id, price), corr(id, price), regr_slope(price, id), regr_intercept(price, id), percentile(id, 0.5), " +
		"percentile_approx(price, 0.5), avg_weighted(price, id), min_by(name, id), max_by(name, id), topn(grp, 1) FROM fl.fluss_test.big_log GROUP BY grp ORDER BY grp"
	if plan := strings.Join(rows(t, db, "EXPLAIN "+q), "\n"); !strings.Contains(plan, "partial aggregate on BE") || !strings.Contains(plan, "covar_samp(") {
		t.Fatalf("not split onto the BEs:\n%s", plan)
	}
	before := calls[0].Load() + calls[1].Load()
	want = want[:0]
	for r := 0; r < 7; r++ {
		m := 14428.0
		if r >= 1 && r <= 4 {
			m++
		}
		first := float64(r)
		if r == 0 {
			first = 7
		}
		last := first + 7*(m-1)
		var s1, s2 float64
		for id := first; id <= last; id += 7 {
			s1 += id
			s2 += id * id
		}
		vs := 49 * (m*m - 1) / 12 * m / (m - 1)
		want = append(want, []any{strconv.Itoa(r), vs, 1.0, 1.0, 0.0, (first + last) / 2, (first + last) / 2, s2 / s1,
			"n" + strconv.Itoa(int(first)), "hot" + strconv.Itoa(int(last)), fmt.Sprintf(`{"%d":%d}`, r, int(m))})
	}
	wantStats(t, rows(t, db, q), q, want...)
	if after := calls[0].Load() + calls[1].Load(); after <= before {
		t.Errorf("the two-argument aggregates did not run on the BEs")
	}
	const n = 101000.0
	q = "SELECT stddev_pop(id), variance_samp(price) FROM fl.fluss_test.big_log"
	wantStats(t, rows(t, db, q), q, []any{math.Sqrt((n*n - 1) / 12), n * (n + 1) / 12})
}
