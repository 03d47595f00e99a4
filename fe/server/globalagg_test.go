package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// appendRows loads rows (id, k, v; v NULL where nullV says) into
// internal.db.name through the table's append path.
func appendRows(t *testing.T, f *testFE, db, name string, ids []int64, kOf func(int64) int32, vOf func(int64) (int64, bool)) {
	t.Helper()
	ctx := context.Background()
	c, err := f.fe.Catalogs.Get(ctx, "internal")
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Database(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := d.Table(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	schema := tb.Schema().Arrow()
	mem := memory.NewGoAllocator()
	next := 0
	gen := func(yield func(arrow.RecordBatch, error) bool) {
		for next < len(ids) {
			m := min(1<<15, len(ids)-next)
			b := array.NewRecordBuilder(mem, schema)
			is, ks, vs := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.Int32Builder), b.Field(2).(*array.Int64Builder)
			for _, id := range ids[next : next+m] {
				is.Append(id)
				ks.Append(kOf(id))
				if v, ok := vOf(id); ok {
					vs.Append(v)
				} else {
					vs.AppendNull()
				}
			}
			rec := b.NewRecordBatch()
			b.Release()
			next += m
			ok := yield(rec, nil)
			rec.Release()
			if !ok {
				return
			}
		}
	}
	rr := array.ReaderFromIter(schema, gen)
	defer rr.Release()
	if _, err := tb.(catalog.Writable).Append(ctx, rr); err != nil {
		t.Fatal(err)
	}
}

// TestGlobalAggregateUniqueKey: aggregates without GROUP BY over a UNIQUE
// KEY table with updated and deleted keys, large enough that both cores
// fold (past exec's 256 K rows), with and without a filter, at
// parallel_pipeline_task_num 1 and 2: merge-on-read applies before the
// aggregate, and the answers are the ones derived row by row here.
func TestGlobalAggregateUniqueKey(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE g", "USE g",
		"CREATE TABLE u (id BIGINT, k INT, v BIGINT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ('replication_num' = '1')")
	const n = 400_000
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	kOf := func(id int64) int32 { return int32(id % 1000) }
	v1 := func(id int64) (int64, bool) { return id % 97, id%11 != 0 }
	appendRows(t, f, "g", "u", ids, kOf, v1)
	// Every third key is written again with another value.
	var upd []int64
	for id := int64(0); id < n; id += 3 {
		upd = append(upd, id)
	}
	v2 := func(id int64) (int64, bool) { return 1000 + id%7, true }
	appendRows(t, f, "g", "u", upd, kOf, v2)
	mustExec(t, db, "DELETE FROM u WHERE k >= 900")

	type agg struct{ c, cv, s, lo, hi int64 }
	want := func(keep func(k int32) bool) string {
		a := agg{lo: 1 << 62, hi: -1 << 62}
		for id := int64(0); id < n; id++ {
			k := kOf(id)
			if k >= 900 || !keep(k) {
				continue
			}
			v, ok := v1(id)
			if id%3 == 0 {
				v, ok = v2(id)
			}
			a.c++
			if ok {
				a.cv++
				a.s += v
				a.lo, a.hi = min(a.lo, v), max(a.hi, v)
			}
		}
		return fmt.Sprintf("%d|%d|%d|%d|%d", a.c, a.cv, a.s, a.lo, a.hi)
	}
	// What sits around the aggregate still applies: LIMIT, an empty
	// selection, HAVING.
	wantRows(t, db, "SELECT count(*), sum(v) FROM u WHERE k < 100 LIMIT 0")
	wantRows(t, db, "SELECT count(*), sum(v), min(v) FROM u WHERE k < 0 LIMIT 5", "0|NULL|NULL")
	wantRows(t, db, "SELECT count(*) FROM u WHERE k >= 900", "0")
	wantRows(t, db, "SELECT count(*) FROM u HAVING count(*) > 1000000")
	for _, par := range []int{1, 2} {
		mustExec(t, db, fmt.Sprintf("SET parallel_pipeline_task_num = %d", par))
		for _, q := range []struct {
			where string
			keep  func(int32) bool
		}{
			{"", func(int32) bool { return true }},
			{" WHERE k < 100", func(k int32) bool { return k < 100 }},
			{" WHERE k < 100 AND v > 50", nil},
		} {
			sql := "SELECT count(*), count(v), sum(v), min(v), max(v) FROM u" + q.where
			var w string
			if q.keep != nil {
				w = want(q.keep)
			} else {
				w = wantVGt50(n, kOf, v1, v2)
			}
			got := rows(t, db, sql)
			if len(got) != 1 || got[0] != w {
				t.Errorf("parallel %d: %s: got %v, want %s", par, sql, got, w)
			}
		}
	}
}

// wantVGt50 is the expected row of the k < 100 AND v > 50 query.
func wantVGt50(n int64, kOf func(int64) int32, v1, v2 func(int64) (int64, bool)) string {
	var c, s int64
	lo, hi := int64(1<<62), int64(-1<<62)
	for id := int64(0); id < n; id++ {
		k := kOf(id)
		if k >= 900 || k >= 100 {
			continue
		}
		v, ok := v1(id)
		if id%3 == 0 {
			v, ok = v2(id)
		}
		if !ok || v <= 50 {
			continue
		}
		c++
		s += v
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf("%d|%d|%d|%d|%d", c, c, s, lo, hi)
}
