package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// TestCountFromManifests: count(*) over a Paimon table whose splits read
// raw is answered from the manifests' row counts (deletion vectors'
// cardinalities subtracted) with no file read, and EXPLAIN says so; a
// primary-key table whose level-0 files must be merged, and any WHERE,
// still read the rows. Counts are derived by hand from the rows written.
func TestCountFromManifests(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	wh := t.TempDir()
	typ := func(s string) paimon.DataType {
		dt, err := paimon.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	fields := []paimon.DataField{{ID: 0, Name: "id", Type: typ("BIGINT NOT NULL")}, {ID: 1, Name: "v", Type: typ("DOUBLE")}}
	commit := func(b *paimontest.Builder, files ...paimontest.File) {
		for _, f := range files {
			if err := b.Commit(ctx, []paimontest.File{f}, mem); err != nil {
				t.Fatal(err)
			}
			f.Rows.Release()
		}
	}

	// Append table: 3 + 2 rows, one of the first file's deleted by a
	// deletion vector: 4 rows.
	ab, err := paimontest.NewBuilder(ctx, fileio.Local{}, filepath.Join(wh, "bench.db", "a"), fields, nil, nil,
		map[string]string{"bucket": "-1", "deletion-vectors.enabled": "true"})
	if err != nil {
		t.Fatal(err)
	}
	as := ab.Schema()
	commit(ab,
		paimontest.File{Bucket: 0, Rows: paimontest.Rows(t, mem, as, []any{1, 1.0}, []any{2, 2.0}, []any{3, 3.0}), Deleted: []uint32{1}},
		paimontest.File{Bucket: 0, Rows: paimontest.Rows(t, mem, as, []any{4, 4.0}, []any{5, nil})})

	// Primary-key table of overlapping level-0 files (14 physical rows):
	// after the merge, bucket 0 keeps 1, 2, 3 and 5 (4 is deleted) and
	// bucket 1 keeps 11 and 12 (10's last record is -U): 6 rows.
	pb, err := paimontest.NewBuilder(ctx, fileio.Local{}, filepath.Join(wh, "bench.db", "pk"), fields, nil, []string{"id"}, map[string]string{"bucket": "2"})
	if err != nil {
		t.Fatal(err)
	}
	ps := pb.Schema()
	ins, ub, ua, del := paimon.KindInsert, paimon.KindUpdateBefore, paimon.KindUpdateAfter, paimon.KindDelete
	commit(pb,
		paimontest.File{Bucket: 0, Rows: paimontest.Rows(t, mem, ps, []any{1, 1.0}, []any{2, 2.0}, []any{3, 3.0}, []any{4, nil})},
		paimontest.File{Bucket: 1, Rows: paimontest.Rows(t, mem, ps, []any{10, 10.0}, []any{11, 11.0})},
		paimontest.File{Bucket: 0, Rows: paimontest.Rows(t, mem, ps, []any{2, 2.5}, []any{3, 3.0}, []any{5, 5.25}), Kinds: []int8{ua, del, ins}},
		paimontest.File{Bucket: 1, Rows: paimontest.Rows(t, mem, ps, []any{10, 10.0}, []any{12, 12.0}), Kinds: []int8{ub, ins}},
		paimontest.File{Bucket: 0, Rows: paimontest.Rows(t, mem, ps, []any{1, 0.75}, []any{3, 30.0}, []any{4, 4.0}), Kinds: []int8{ua, ins, del}},
	)

	s, err := startSQL(ctx, filepath.Join(wh, "bench.db", "a"), 2, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	one := func(q string) string {
		t.Helper()
		var out []string
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return strings.Join(out, "\n")
	}
	for _, c := range []struct {
		q, want string
		pushed  bool
	}{
		{"SELECT count(*) FROM lake.bench.a", "4", true},
		{"SELECT count(*) FROM lake.bench.a WHERE id > 1", "3", false},
		{"SELECT count(v) FROM lake.bench.a", "3", false},
		{"SELECT count(*) FROM lake.bench.pk", "6", false},
	} {
		if got := one(c.q); got != c.want {
			t.Errorf("%s = %s, want %s", c.q, got, c.want)
		}
		plan := one("EXPLAIN " + c.q)
		if pushed := strings.Contains(plan, "pushdown agg=COUNT"); pushed != c.pushed {
			t.Errorf("EXPLAIN %s: count pushdown %t, want %t:\n%s", c.q, pushed, c.pushed, plan)
		}
	}
}
