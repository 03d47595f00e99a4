package server

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// lakeStatsRows is the row count of the analysed Paimon table t: two
// partitions, two data files each.
const lakeStatsRows = 2000

// lakeStatsRow is row i of t (id, k, g, s, d, amt, p): id unique; k
// repeats 37 values and is NULL on every tenth row; g has 20 values spread
// far apart (its bounds say 19001 distinct values); s has 50 values and is
// NULL on every seventh row; d spans 100 days; amt 200 decimals; p is the
// partition.
func lakeStatsRow(i int) []any {
	var k, s any
	if i%10 != 3 {
		k = int32(i % 37)
	}
	if i%7 != 0 {
		s = fmt.Sprintf("v%02d", i%50)
	}
	p := "a"
	if i%2 == 1 {
		p = "b"
	}
	return []any{int64(i), k, int64(i%20) * 1000, s, arrow.Date32(18000 + i%100), decimal128.FromI64(int64(i%200)*125 - 5000), p}
}

// writeLakeTable writes a Paimon table db.<name> (append-only, parquet,
// partitioned by parts) into warehouse wh, one data file per element of
// files, in partition partOf(file's rows).
func writeLakeTable(t *testing.T, wh, name string, fields, parts []string, files [][][]any, partOf func(rows [][]any) []any) {
	t.Helper()
	writeLakeTableAt(t, wh, name, fields, parts, files, partOf, time.Unix(0, 0))
}

// writeLakeTableAt is writeLakeTable with the schema's creation time.
func writeLakeTableAt(t *testing.T, wh, name string, fields, parts []string, files [][][]any, partOf func(rows [][]any) []any, created time.Time) {
	t.Helper()
	ctx := context.Background()
	s := &lake.TableSchema{PartitionKeys: parts, Options: map[string]string{"bucket": "-1", "file.format": "parquet"}}
	for i, f := range fields {
		n, typ, _ := strings.Cut(f, " ")
		ty, err := lake.ParseType(typ)
		if err != nil {
			t.Fatal(err)
		}
		s.Fields = append(s.Fields, lake.DataField{ID: i, Name: n, Type: ty})
	}
	if err := writer.CreateTable(ctx, fileio.Local{}, filepath.Join(wh, "db.db", name), s, created); err != nil {
		t.Fatal(err)
	}
	appendLakeTable(t, wh, name, files, partOf)
}

// appendLakeTable commits one snapshot to db.<name> in warehouse wh with a
// data file per element of files (see writeLakeTable).
func appendLakeTable(t *testing.T, wh, name string, files [][][]any, partOf func(rows [][]any) []any) {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	w, err := writer.Open(ctx, fileio.Local{}, filepath.Join(wh, "db.db", name), mem, writer.Options{RowGroupRows: 256})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := lake.ArrowSchema(w.Schema().Fields)
	if err != nil {
		t.Fatal(err)
	}
	c := w.NewCommit()
	for _, rows := range files {
		b := array.NewRecordBuilder(mem, sc)
		for _, r := range rows {
			for j, v := range r {
				switch x := v.(type) {
				case nil:
					b.Field(j).AppendNull()
				case int32:
					b.Field(j).(*array.Int32Builder).Append(x)
				case int64:
					b.Field(j).(*array.Int64Builder).Append(x)
				case string:
					b.Field(j).(*array.StringBuilder).Append(x)
				case arrow.Date32:
					b.Field(j).(*array.Date32Builder).Append(x)
				case decimal128.Num:
					b.Field(j).(*array.Decimal128Builder).Append(x)
				default:
					t.Fatalf("writeLakeTable: no builder for %T", v)
				}
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		var part []any
		if partOf != nil {
			part = partOf(rows)
		}
		fw, err := c.NewFile(ctx, part, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec, nil); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := fw.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// writeLakeStatsTables writes t (lakeStatsRow, four files over two
// partitions), o (1000 unique keys 0, 4, 8, …) and l (four rows per key of
// o, so its key's bounds say 3997 distinct values where 1000 are) into
// warehouse wh.
func writeLakeStatsTables(t *testing.T, wh string) {
	t.Helper()
	files := make([][][]any, 4)
	for i := range lakeStatsRows {
		r := lakeStatsRow(i)
		f := (i % 2) * 2
		if i >= lakeStatsRows/2 {
			f++
		}
		files[f] = append(files[f], r)
	}
	writeLakeTable(t, wh, "t", []string{"id BIGINT NOT NULL", "k INT", "g BIGINT", "s STRING", "d DATE", "amt DECIMAL(12, 2)", "p STRING NOT NULL"},
		[]string{"p"}, files, func(rows [][]any) []any { return []any{rows[0][6]} })
	var o, l [][]any
	for i := range 1000 {
		o = append(o, []any{int64(i * 4), int64(i)})
		for j := range 4 {
			l = append(l, []any{int64(i * 4), int64(j + i%5)})
		}
	}
	writeLakeTable(t, wh, "o", []string{"ok BIGINT NOT NULL", "ov BIGINT"}, nil, [][][]any{o}, nil)
	writeLakeTable(t, wh, "l", []string{"lk BIGINT NOT NULL", "q BIGINT"}, nil, [][][]any{l[:2000], l[2000:]}, nil)
}

// startLakeFE starts an FE with the paimon and fluss catalog types and a BE
// in this process, its meta in dir (so a second start over dir is a
// restart).
func startLakeFE(t *testing.T, dir string) *testFE {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	t.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{paimon.Type(), fluss.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(tf.stop)
	return tf
}

// colStat is one row of SHOW COLUMN STATS: count, ndv, nulls, min, max.
type colStat struct {
	count, ndv, nulls int64
	min, max          string
}

// columnStats runs SHOW COLUMN STATS name and returns its rows by column.
func columnStats(t *testing.T, db *sql.DB, name string) map[string]colStat {
	t.Helper()
	out := map[string]colStat{}
	for _, r := range rows(t, db, "SHOW COLUMN STATS "+name) {
		f := strings.Split(r, "|")
		n := func(i int) int64 {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("SHOW COLUMN STATS %s: %q: %v", name, r, err)
			}
			return v
		}
		out[f[0]] = colStat{count: n(2), ndv: n(3), nulls: n(4), min: f[7], max: f[8]}
	}
	return out
}

// checkStats compares SHOW COLUMN STATS with want; NDVs are sketches, so
// they may miss by tol (a share of the true count, at least 1).
func checkStats(t *testing.T, what string, got, want map[string]colStat, tol float64) {
	t.Helper()
	for c, w := range want {
		g, ok := got[c]
		if !ok {
			t.Errorf("%s: no statistics for column %s (got %v)", what, c, got)
			continue
		}
		slack := max(1, int64(float64(w.ndv)*tol))
		if g.count != w.count || g.nulls != w.nulls || g.min != w.min || g.max != w.max || g.ndv < w.ndv-slack || g.ndv > w.ndv+slack {
			t.Errorf("%s: column %s: got %+v, want %+v (ndv ±%d)", what, c, g, w, slack)
		}
	}
}

// explainCard is the cardinality EXPLAIN q shows on the first line of the
// operator whose header contains node.
func explainCard(t *testing.T, db *sql.DB, q, node string) string {
	t.Helper()
	plan := strings.Join(rows(t, db, "EXPLAIN "+q), "\n")
	_, rest, ok := strings.Cut(plan, node)
	if !ok {
		t.Fatalf("EXPLAIN %s: no %s in\n%s", q, node, plan)
	}
	_, rest, ok = strings.Cut(rest, "cardinality=")
	if !ok {
		t.Fatalf("EXPLAIN %s: no cardinality after %s in\n%s", q, node, plan)
	}
	card, _, _ := strings.Cut(rest, "\n")
	return card
}

// TestAnalyzePaimonTable: ANALYZE TABLE over a type=paimon catalog table
// (two partitions, four files, NULLs) computes per column the counts, NULLs
// and bounds derived by hand from the rows written, and NDVs within the
// sketch's error; SHOW COLUMN STATS shows them, the optimizer uses them (a
// GROUP BY's estimate, a semi join's runtime filter, as in TPC-H Q18), they
// survive a restart, ANALYZE of some columns keeps the others, DROP CATALOG
// drops them, and bad requests name the column or table.
func TestAnalyzePaimonTable(t *testing.T) {
	wh, meta := t.TempDir(), t.TempDir()
	writeLakeStatsTables(t, wh)
	f := startLakeFE(t, meta)
	db := f.db("")
	mustExec(t, db, fmt.Sprintf("CREATE CATALOG lk PROPERTIES ('type'='paimon', 'warehouse'='%s')", wh))

	// Hand derivation from the rows written.
	want := map[string]colStat{}
	{
		distinct := make([]map[string]bool, 7)
		nulls := make([]int64, 7)
		for i := range distinct {
			distinct[i] = map[string]bool{}
		}
		for i := range lakeStatsRows {
			for c, v := range lakeStatsRow(i) {
				if v == nil {
					nulls[c]++
					continue
				}
				distinct[c][fmt.Sprint(v)] = true
			}
		}
		names := []string{"id", "k", "g", "s", "d", "amt", "p"}
		bounds := [][2]string{{"0", "1999"}, {"0", "36"}, {"0", "19000"}, {"v00", "v49"}, {"2019-04-14", "2019-07-22"}, {"-50.00", "198.75"}, {"a", "b"}}
		for c, n := range names {
			want[n] = colStat{count: lakeStatsRows, ndv: int64(len(distinct[c])), nulls: nulls[c], min: bounds[c][0], max: bounds[c][1]}
		}
	}
	if want["k"].nulls != 200 || want["s"].nulls != 286 || want["g"].ndv != 20 || want["amt"].ndv != 200 {
		t.Fatalf("hand derivation: %+v", want)
	}

	const groupG = "SELECT g, count(*) FROM lk.db.t GROUP BY g"
	const semi = "SELECT count(*) FROM lk.db.o WHERE ok IN (SELECT lk FROM lk.db.l GROUP BY lk HAVING sum(q) > 10)"
	// Before ANALYZE: the bounds' estimate (19001 values between 0 and
	// 19000, so every row), and no runtime filter on o.
	if got := explainCard(t, db, groupG, "VAGGREGATE"); got != "2000" {
		t.Errorf("GROUP BY g before ANALYZE: cardinality %s, want 2000", got)
	}
	if plan := strings.Join(rows(t, db, "EXPLAIN "+semi), "\n"); strings.Contains(plan, "runtime filters") {
		t.Errorf("semi join before ANALYZE has a runtime filter:\n%s", plan)
	}
	// Keys i*4 with i%5 in {2,3,4} have sum(q) = 6+4*(i%5) > 10.
	wantRows(t, db, semi, "600")

	mustExec(t, db, "ANALYZE TABLE lk.db.t", "ANALYZE TABLE lk.db.l WITH SYNC")
	checkStats(t, "after ANALYZE", columnStats(t, db, "lk.db.t"), want, 0.03)
	if got := explainCard(t, db, groupG, "VAGGREGATE"); got != "20" {
		t.Errorf("GROUP BY g after ANALYZE: cardinality %s, want 20", got)
	}
	if plan := strings.Join(rows(t, db, "EXPLAIN "+semi), "\n"); !strings.Contains(plan, "runtime filters") {
		t.Errorf("semi join after ANALYZE of l has no runtime filter:\n%s", plan)
	}
	wantRows(t, db, semi, "600")

	// The scan is the statement's: over exec_mem_limit it fails alone,
	// naming the limit, and keeps the statistics it had.
	mustExec(t, db, "SET exec_mem_limit = 4096")
	wantMemLimit(t, db, "ANALYZE TABLE lk.db.t", 4096)
	mustExec(t, db, "SET exec_mem_limit = DEFAULT")
	checkStats(t, "after a failed ANALYZE", columnStats(t, db, "lk.db.t"), want, 0.03)

	// Bad requests name what is wrong.
	wantErr(t, db, "ANALYZE TABLE lk.db.t (k, nope)", 1054, "Unknown column 'nope' in 't'")
	wantErr(t, db, "ANALYZE TABLE lk.db.`t$snapshots`", 1235, "'t$snapshots'")
	wantErr(t, db, "ANALYZE TABLE lk.db.nope", 1146, "nope")

	// A restart reads them back.
	f.stop()
	f = startLakeFE(t, meta)
	db = f.db("")
	checkStats(t, "after a restart", columnStats(t, db, "lk.db.t"), want, 0.03)
	if got := explainCard(t, db, groupG, "VAGGREGATE"); got != "20" {
		t.Errorf("GROUP BY g after a restart: cardinality %s, want 20", got)
	}

	// ANALYZE of one column keeps the others'.
	mustExec(t, db, "ANALYZE TABLE lk.db.t (k)")
	checkStats(t, "after ANALYZE (k)", columnStats(t, db, "lk.db.t"), want, 0.03)

	// Rows added since: what ANALYZE counted stays, the bounds follow the
	// manifests, SHOW TABLE STATS counts the new rows, and a key's NDV
	// grows with the table in the optimizer's estimate.
	var more [][]any
	for i := range lakeStatsRows {
		r := lakeStatsRow(i)
		r[0], r[6] = int64(lakeStatsRows+i), "a"
		more = append(more, r)
	}
	appendLakeTable(t, wh, "t", [][][]any{more}, func([][]any) []any { return []any{"a"} })
	grown := want["id"]
	grown.max = "3999"
	want["id"] = grown
	checkStats(t, "after rows were added", columnStats(t, db, "lk.db.t"), want, 0.03)
	if got := rows(t, db, "SHOW TABLE STATS lk.db.t"); len(got) != 1 || !strings.HasPrefix(got[0], "2000|0|4000|") {
		t.Errorf("SHOW TABLE STATS after rows were added: %q, want updated_rows 2000 of 4000", got)
	}
	if got, _ := strconv.Atoi(explainCard(t, db, "SELECT id, count(*) FROM lk.db.t GROUP BY id", "VAGGREGATE")); got < 3800 || got > 4200 {
		t.Errorf("GROUP BY id after rows were added: cardinality %d, want about 4000", got)
	}

	// A table created again under the name (a new schema-0) is another
	// table: the old one's statistics do not describe it.
	writeLakeTableAt(t, wh, "o2", []string{"ok BIGINT NOT NULL"}, nil, [][][]any{{{int64(1)}}}, nil, time.Unix(0, 0))
	mustExec(t, db, "ANALYZE TABLE lk.db.o2")
	if got := columnStats(t, db, "lk.db.o2")["ok"].ndv; got != 1 {
		t.Fatalf("o2 after ANALYZE: NDV %d, want 1", got)
	}
	if err := os.RemoveAll(filepath.Join(wh, "db.db", "o2")); err != nil {
		t.Fatal(err)
	}
	// (Two commits: the manifests' statistics are cached by path and
	// snapshot id, which a table created again reuses.)
	writeLakeTableAt(t, wh, "o2", []string{"ok BIGINT NOT NULL"}, nil, [][][]any{{{int64(1)}}}, nil, time.Unix(100, 0))
	appendLakeTable(t, wh, "o2", [][][]any{{{int64(5)}}}, nil)
	if got := columnStats(t, db, "lk.db.o2")["ok"]; got.ndv != 2 || got.count != 2 {
		t.Errorf("o2 created again: %+v, want the manifests' count 2 and NDV 2", got)
	}

	// DROP CATALOG drops them: the same warehouse again has the
	// manifests' estimate only.
	mustExec(t, db, "DROP CATALOG lk", fmt.Sprintf("CREATE CATALOG lk PROPERTIES ('type'='paimon', 'warehouse'='%s')", wh))
	if got := columnStats(t, db, "lk.db.t")["g"].ndv; got != 4000 {
		t.Errorf("g's NDV after DROP CATALOG: %d, want the bounds' 4000", got)
	}
}

// flussStatsRow is row i of the analysed Fluss table (id, k, g, s, dt) as
// SQL: id unique, k 13 values and NULL on every tenth row, g 10 values
// 100 apart, s 20 values and NULL on every seventh row, dt two partitions.
func flussStatsRow(i int) string {
	k, s := fmt.Sprint(i%13), fmt.Sprintf("'v%02d'", i%20)
	if i%10 == 3 {
		k = "NULL"
	}
	if i%7 == 0 {
		s = "NULL"
	}
	return fmt.Sprintf("(%d, %s, %d, %s, 'd%d')", i, k, (i%10)*100, s, i%2+1)
}

// TestAnalyzeFlussUnionRead: ANALYZE TABLE over a tiered Fluss table (two
// partitions of two buckets, 200 rows in the Paimon lake and a log tail of
// 100) reads lake and log once through the union read: the counts, NULLs
// and bounds derived by hand cover all 300 rows, NDVs are within the
// sketch's error, the optimizer's estimate follows, and the $lake view and
// unknown columns are refused by name.
func TestAnalyzeFlussUnionRead(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	cl, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "paimon", TabletServers: 2,
		DefaultBucketNumber: 2, Lake: minifluss.LakeConfig{Warehouse: wh}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	run := func(src string) {
		t.Helper()
		sc, err := minifluss.ParseScenario(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Run(ctx, cl); err != nil {
			t.Fatal(err)
		}
	}
	values := func(from, to int) string {
		var vs []string
		for i := from; i < to; i++ {
			vs = append(vs, flussStatsRow(i))
		}
		return strings.Join(vs, ", ")
	}
	run(`CREATE DATABASE st;
CREATE TABLE st.ev (id BIGINT, k INT, g BIGINT, s STRING, dt STRING) PARTITIONED BY (dt)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO st.ev VALUES ` + values(0, 200) + `;`)
	if _, err := cl.TierLake(ctx, "st", "ev"); err != nil {
		t.Fatal(err)
	}
	run(`INSERT INTO st.ev VALUES ` + values(200, 300) + `;`)

	f := startLakeFE(t, t.TempDir())
	db := f.db("")
	mustExec(t, db, fmt.Sprintf("CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')", cl.BootstrapAddr()))
	wantRows(t, db, "SELECT count(*), count(k), count(s) FROM fl.st.ev", "300|270|257")
	wantRows(t, db, "SELECT count(*) FROM fl.st.`ev$lake`", "200")

	const groupG = "SELECT g, count(*) FROM fl.st.ev GROUP BY g"
	if got := explainCard(t, db, groupG, "VAGGREGATE"); got == "10" {
		t.Errorf("GROUP BY g before ANALYZE: cardinality already %s", got)
	}
	mustExec(t, db, "ANALYZE TABLE fl.st.ev")
	// By hand: k NULL on i%10 == 3 (30 rows), s on i%7 == 0 (43 rows);
	// s's 20 values all occur on rows that are not multiples of 7.
	want := map[string]colStat{
		"id": {count: 300, ndv: 300, nulls: 0, min: "0", max: "299"},
		"k":  {count: 300, ndv: 13, nulls: 30, min: "0", max: "12"},
		"g":  {count: 300, ndv: 10, nulls: 0, min: "0", max: "900"},
		"s":  {count: 300, ndv: 20, nulls: 43},
		"dt": {count: 300, ndv: 2, nulls: 0},
	}
	got := columnStats(t, db, "fl.st.ev")
	for _, c := range []string{"s", "dt"} {
		// String bounds: the lake's (unquoted) or ANALYZE's (quoted).
		w := want[c]
		w.min, w.max = got[c].min, got[c].max
		want[c] = w
		if strings.Trim(got[c].min, "'") != map[string]string{"s": "v00", "dt": "d1"}[c] ||
			strings.Trim(got[c].max, "'") != map[string]string{"s": "v19", "dt": "d2"}[c] {
			t.Errorf("column %s: bounds %s..%s", c, got[c].min, got[c].max)
		}
	}
	checkStats(t, "after ANALYZE", got, want, 0.03)
	if got := explainCard(t, db, groupG, "VAGGREGATE"); got != "10" {
		t.Errorf("GROUP BY g after ANALYZE: cardinality %s, want 10", got)
	}

	wantErr(t, db, "ANALYZE TABLE fl.st.`ev$lake`", 1235, "analyze the table 'ev' itself")
	wantErr(t, db, "ANALYZE TABLE fl.st.ev (id, nope)", 1054, "Unknown column 'nope' in 'ev'")

	// A restart reads them back.
	meta := f.dir
	f.stop()
	f = startLakeFE(t, meta)
	db = f.db("")
	mustExec(t, db, "SELECT 1")
	checkStats(t, "after a restart", columnStats(t, db, "fl.st.ev"), want, 0.03)

	// A table dropped and created again under the name is another table:
	// the old one's statistics do not describe it.
	run(`DROP TABLE st.ev;
CREATE TABLE st.ev (id BIGINT, k INT, g BIGINT, s STRING, dt STRING) PARTITIONED BY (dt) WITH ('bucket.num' = '2');
INSERT INTO st.ev VALUES (1, 1, 1, 'x', 'd1');`)
	mustExec(t, db, "REFRESH CATALOG fl")
	if got := columnStats(t, db, "fl.st.ev"); len(got) != 0 {
		t.Errorf("statistics of the dropped table describe the new one: %v", got)
	}
}
