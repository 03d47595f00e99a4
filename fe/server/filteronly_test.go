package server

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/inlet-db/inlet/fileio"
	lake "github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// foRow is one row of the filter-only test tables: id, d (days since the
// epoch), s, n, v, q (a DECIMAL(12, 2) in hundredths); nil for NULL.
type foRow struct {
	id, d, v, q int
	s, n        any
}

// foRows are rows from..to of table a and c: d spans 2020-01-01 + 0..59
// days, s five values and NULL, n 0..8 and NULL, so that every filter
// keeps some rows and drops others, NULLs included.
func foRows(from, to int) []foRow {
	var out []foRow
	for i := from; i < to; i++ {
		r := foRow{id: i, d: 18262 + i%60, v: 3 * i, q: (i%50)*100 + 25}
		if i%13 != 0 {
			r.s = fmt.Sprintf("x%d", i%5)
		}
		if i%7 != 0 {
			r.n = i % 9
		}
		out = append(out, r)
	}
	return out
}

// writeFilterOnlyTables writes, in warehouse wh:
//   - db.a: an append table of three Parquet files (rows 0..299 with a
//     deletion vector on every tenth row from the fifth, 300..599,
//     600..899), 50-row row groups, dictionary-encoded strings;
//   - db.c: rows 0..199 compressed with Brotli, which the page decoder
//     does not take (the pqarrow fallback reads it);
//   - db.p: a primary-key table whose two level-0 files overlap (a merge
//     read): ids 0..99 with s 'old' and v = id, then the even ids again
//     with s 'new' and v = 1000 + id.
//
// It returns the rows of a and c a reader must see (a without the deleted
// rows).
func writeFilterOnlyTables(t *testing.T, wh string) (a, c []foRow) {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	fields := func(spec ...string) []lake.DataField {
		var out []lake.DataField
		for i, f := range spec {
			n, typ, _ := strings.Cut(f, " ")
			ty, err := lake.ParseType(typ)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, lake.DataField{ID: i, Name: n, Type: ty})
		}
		return out
	}
	cols := fields("id BIGINT", "d DATE", "s STRING", "n INT", "v BIGINT", "q DECIMAL(12, 2)")
	values := func(rs []foRow) [][]any {
		var out [][]any
		for _, r := range rs {
			out = append(out, []any{r.id, r.d, r.s, r.n, r.v, r.q})
		}
		return out
	}
	build := func(name string, cols []lake.DataField, pk []string, opts map[string]string, popts []parquet.WriterProperty) *paimontest.Builder {
		b, err := paimontest.NewBuilder(ctx, fileio.Local{}, filepath.Join(wh, "db.db", name), cols, nil, pk, opts)
		if err != nil {
			t.Fatal(err)
		}
		b.RowGroupRows = 50
		b.ParquetOptions = popts
		return b
	}

	ab := build("a", cols, nil, map[string]string{"bucket": "-1", "deletion-vectors.enabled": "true"}, nil)
	var files []paimontest.File
	for f := 0; f < 3; f++ {
		rs := foRows(300*f, 300*(f+1))
		file := paimontest.File{Rows: paimontest.Rows(t, mem, ab.Schema(), values(rs)...)}
		for p, r := range rs {
			if f == 0 && p%10 == 4 {
				file.Deleted = append(file.Deleted, uint32(p))
				continue
			}
			a = append(a, r)
		}
		files = append(files, file)
	}
	if err := ab.Commit(ctx, files, mem); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		f.Rows.Release()
	}

	cb := build("c", cols, nil, map[string]string{"bucket": "-1"}, []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Brotli)})
	c = foRows(0, 200)
	rec := paimontest.Rows(t, mem, cb.Schema(), values(c)...)
	if err := cb.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
		t.Fatal(err)
	}
	rec.Release()

	pb := build("p", fields("id BIGINT NOT NULL", "s STRING", "v BIGINT"), []string{"id"}, map[string]string{"bucket": "1"}, nil)
	var old, upd [][]any
	for i := 0; i < 100; i++ {
		old = append(old, []any{i, "old", i})
		if i%2 == 0 {
			upd = append(upd, []any{i, "new", 1000 + i})
		}
	}
	for _, rs := range [][][]any{old, upd} {
		rec := paimontest.Rows(t, mem, pb.Schema(), rs...)
		if err := pb.Commit(ctx, []paimontest.File{{Rows: rec}}, mem); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	return a, c
}

// TestLakeFilterOnlyColumns: over a Paimon catalog, a WHERE on columns the
// query does not return gives the rows a hand evaluation of the same rows
// gives (deleted rows left out, NULLs never passing a comparison) on every
// filter path: a staged AND with a dictionary-answered string, IS NULL, a
// NOT IN the lake predicate does not hold (the BE filters), a conjunct only
// the FE can test, the pqarrow fallback, and a primary-key merge read,
// whose filter must see the merged row (the newer version of an even id
// hides its older one). EXPLAIN shows the pushed predicates, no FE filter
// for the conjuncts the BEs apply exactly, and the filter-only columns
// apart from the returned ones.
func TestLakeFilterOnlyColumns(t *testing.T) {
	wh := t.TempDir()
	aRows, cRows := writeFilterOnlyTables(t, wh)
	f := startLakeFE(t, t.TempDir())
	db := f.db("")
	mustExec(t, db, fmt.Sprintf("CREATE CATALOG lk PROPERTIES ('type'='paimon', 'warehouse'='%s')", wh))

	day := func(s string) int {
		var y, m, d int
		fmt.Sscanf(s, "%d-%d-%d", &y, &m, &d)
		if y != 2020 || m < 1 || m > 2 {
			t.Fatalf("day %s out of the test's range", s)
		}
		return 18262 + (m-1)*31 + d - 1
	}
	is := func(v any, want ...int) bool {
		for _, w := range want {
			if v != nil && v.(int) == w {
				return true
			}
		}
		return false
	}
	str := func(v any) string { return fmt.Sprint(v) }
	type query struct {
		sql string
		// want selects and renders the expected rows (nil: row dropped).
		want func(r foRow) []string
		rows []foRow
		// plan must contain each of these; deny none of those.
		plan, deny []string
	}
	aggOf := func(rs []foRow, keep func(foRow) bool) []string {
		n, sum := 0, 0
		for _, r := range rs {
			if keep(r) {
				n, sum = n+1, sum+r.v
			}
		}
		return []string{fmt.Sprintf("%d|%d", n, sum)}
	}
	for _, q := range []query{
		{sql: "SELECT id, v FROM lk.db.a WHERE d >= '2020-01-10' AND d < '2020-02-01' AND s = 'x3'",
			want: func(r foRow) []string {
				if r.d >= day("2020-01-10") && r.d < day("2020-02-01") && str(r.s) == "x3" {
					return []string{fmt.Sprintf("%d|%d", r.id, r.v)}
				}
				return nil
			}, rows: aRows,
			plan: []string{"PREDICATES: `d` >= '2020-01-10' AND `d` < '2020-02-01' AND `s` = 'x3'", "output columns: id, v",
				"filter-only columns (read and filtered on the BEs, not returned): d, s"},
			deny: []string{"VSELECT"}},
		{sql: "SELECT id FROM lk.db.a WHERE n IS NULL AND s IN ('x1', 'x4')",
			want: func(r foRow) []string {
				if r.n == nil && (str(r.s) == "x1" || str(r.s) == "x4") {
					return []string{fmt.Sprint(r.id)}
				}
				return nil
			}, rows: aRows, plan: []string{"filter-only columns (read and filtered on the BEs, not returned): s, n"}, deny: []string{"VSELECT"}},
		{sql: "SELECT id, s FROM lk.db.a WHERE s = 'x1' AND n <= 2",
			want: func(r foRow) []string {
				if str(r.s) == "x1" && is(r.n, 0, 1, 2) {
					return []string{fmt.Sprintf("%d|%s", r.id, r.s)}
				}
				return nil
			}, rows: aRows, plan: []string{"output columns: id, s", "not returned): n"}},
		// NOT IN stays out of the lake predicate: the BE filters n itself.
		{sql: "SELECT id FROM lk.db.a WHERE n NOT IN (1, 2) AND d = '2020-01-03'",
			want: func(r foRow) []string {
				if r.n != nil && !is(r.n, 1, 2) && r.d == day("2020-01-03") {
					return []string{fmt.Sprint(r.id)}
				}
				return nil
			}, rows: aRows, plan: []string{"not returned): d, n"}, deny: []string{"VSELECT"}},
		// v % 2 = 0 only the FE tests: v comes back, d does not.
		{sql: "SELECT id FROM lk.db.a WHERE d < '2020-01-05' AND v % 2 = 0",
			want: func(r foRow) []string {
				if r.d < day("2020-01-05") && r.v%2 == 0 {
					return []string{fmt.Sprint(r.id)}
				}
				return nil
			}, rows: aRows, plan: []string{"VSELECT", "output columns: id, v", "not returned): d"}, deny: []string{"(d <"}},
		// A decimal column compared at its scale: exact on the BEs too.
		{sql: "SELECT id, v FROM lk.db.a WHERE q < 24 AND q >= 10.25 AND d <= '2020-01-08'",
			want: func(r foRow) []string {
				if r.q < 2400 && r.q >= 1025 && r.d <= day("2020-01-08") {
					return []string{fmt.Sprintf("%d|%d", r.id, r.v)}
				}
				return nil
			}, rows: aRows, plan: []string{"not returned): d, q"}, deny: []string{"VSELECT"}},
		{sql: "SELECT id FROM lk.db.c WHERE d >= '2020-02-20' AND s <> 'x0' AND n > 4",
			want: func(r foRow) []string {
				if r.d >= day("2020-02-20") && r.s != nil && str(r.s) != "x0" && is(r.n, 5, 6, 7, 8) {
					return []string{fmt.Sprint(r.id)}
				}
				return nil
			}, rows: cRows, plan: []string{"not returned): d, s, n"}},
	} {
		var want []string
		for _, r := range q.rows {
			want = append(want, q.want(r)...)
		}
		if len(want) == 0 || len(want) == len(q.rows) {
			t.Fatalf("%s: the hand evaluation keeps %d of %d rows: a test that cannot fail", q.sql, len(want), len(q.rows))
		}
		got := rows(t, db, q.sql)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows, want %d\n got: %q\nwant: %q", q.sql, len(got), len(want), got, want)
		}
		plan := strings.Join(rows(t, db, "EXPLAIN "+q.sql), "\n")
		for _, w := range q.plan {
			if !strings.Contains(plan, w) {
				t.Errorf("EXPLAIN %s lacks %q:\n%s", q.sql, w, plan)
			}
		}
		for _, d := range q.deny {
			if strings.Contains(plan, d) {
				t.Errorf("EXPLAIN %s has %q:\n%s", q.sql, d, plan)
			}
		}
	}

	// Aggregates over filter-only columns: the count and the sum by hand.
	wantRows(t, db, "SELECT count(*), sum(v) FROM lk.db.a WHERE n > 5 AND s <> 'x2'",
		aggOf(aRows, func(r foRow) bool { return is(r.n, 6, 7, 8) && r.s != nil && str(r.s) != "x2" })...)
	n := 0
	for _, r := range aRows {
		if r.d == day("2020-01-07") {
			n++
		}
	}
	wantRows(t, db, "SELECT count(*) FROM lk.db.a WHERE d = '2020-01-07'", fmt.Sprint(n))

	// The merge read filters the merged rows: the 50 odd ids keep 'old',
	// the even ones read 'new' (their 'old' version is gone).
	var odd, even []string
	for i := 0; i < 100; i++ {
		if i%2 == 1 {
			odd = append(odd, fmt.Sprintf("%d|%d", i, i))
		} else {
			even = append(even, fmt.Sprintf("%d|%d", i, 1000+i))
		}
	}
	sort.Strings(odd)
	sort.Strings(even)
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"SELECT id, v FROM lk.db.p WHERE s = 'old'", odd},
		{"SELECT id, v FROM lk.db.p WHERE s = 'new'", even},
	} {
		got := rows(t, db, c.sql)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got: %q\nwant: %q", c.sql, got, c.want)
		}
	}
	if plan := strings.Join(rows(t, db, "EXPLAIN SELECT id, v FROM lk.db.p WHERE s = 'old'"), "\n"); !strings.Contains(plan, "paimonNativeReadSplits=0/1") {
		t.Errorf("the primary-key table is not read by a merge:\n%s", plan)
	}
}
