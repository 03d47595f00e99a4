package minifluss

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"
)

// iceFiles lists the live files of snapshot snap of db.tbl, keyed so that
// the twin tables' files of one round and partition match.
func iceFiles(t *testing.T, ctx context.Context, wh, tbl string, snap int64) (map[string]iceberg.DataFile, *iceberg.Schema) {
	t.Helper()
	cat, err := hadoop.NewCatalog("check", wh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	it, err := cat.LoadTable(ctx, icetable.Identifier{"db", tbl})
	if err != nil {
		t.Fatal(err)
	}
	fio, err := it.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := it.SnapshotByID(snap).Manifests(fio)
	if err != nil {
		t.Fatal(err)
	}
	spec := it.Spec()
	out := map[string]iceberg.DataFile{}
	for _, m := range mfs {
		for e, err := range m.Entries(fio, true) {
			if err != nil {
				t.Fatal(err)
			}
			df := e.DataFile()
			var parts []string
			for _, pf := range spec.Fields() {
				parts = append(parts, fmt.Sprintf("%s=%v", pf.Name, df.Partition()[pf.FieldID]))
			}
			key := fmt.Sprintf("%v/%d/%s", df.ContentType(), e.SequenceNum(), strings.Join(parts, "/"))
			if _, dup := out[key]; dup {
				t.Fatalf("%s: two files for %s", tbl, key)
			}
			out[key] = df
		}
	}
	return out, it.Schema()
}

// checkORCMetrics compares the column metrics of the ORC twin's files
// with those iceberg-go's own Parquet writer recorded for the Parquet
// twin's files of the same round and partition (an independent writer of
// the same rows): every bound the ORC file has must equal the Parquet
// file's, and every column Java's ORC writer bounds (want: the primitive
// columns but binary, struct fields included) must have one; value and
// NULL counts of the columns both record must agree. __timestamp (each
// table's own commit time) is left out.
func checkORCMetrics(t *testing.T, ctx context.Context, wh, tbl string, pqSnap, orcSnap int64, want []string) {
	t.Helper()
	pq, schema := iceFiles(t, ctx, wh, tbl+"_pq", pqSnap)
	oc, _ := iceFiles(t, ctx, wh, tbl+"_orc", orcSnap)
	var keys []string
	for k := range pq {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ockeys []string
	for k := range oc {
		ockeys = append(ockeys, k)
	}
	sort.Strings(ockeys)
	if !slices.Equal(keys, ockeys) {
		t.Fatalf("%s: files differ\npq  %q\norc %q", tbl, keys, ockeys)
	}
	skip, _ := schema.FindFieldByName("__timestamp")
	bounded := 0
	for _, k := range keys {
		p, o := pq[k], oc[k]
		if o.FileFormat() != iceberg.OrcFile {
			t.Fatalf("%s %s: format %s", tbl, k, o.FileFormat())
		}
		for _, name := range want {
			f, ok := schema.FindFieldByName(name)
			if !ok {
				t.Fatalf("%s: no column %s", tbl, name)
			}
			if _, ok := p.ValueCounts()[f.ID]; !ok {
				continue // not in this file (an equality delete file holds the key only)
			}
			for side, m := range map[string]map[int][]byte{"lower": o.LowerBoundValues(), "upper": o.UpperBoundValues()} {
				if _, ok := m[f.ID]; !ok && p.NullValueCounts()[f.ID] < p.Count() {
					t.Errorf("%s %s: ORC file has no %s bound for %s", tbl, k, side, name)
				}
			}
		}
		for side, m := range map[string][2]map[int][]byte{"lower": {o.LowerBoundValues(), p.LowerBoundValues()},
			"upper": {o.UpperBoundValues(), p.UpperBoundValues()}} {
			for id, ob := range m[0] {
				if id == skip.ID {
					continue
				}
				pb, ok := m[1][id]
				if !ok {
					continue
				}
				bounded++
				if !bytes.Equal(ob, pb) {
					f, _ := schema.FindFieldByID(id)
					ol, _ := iceberg.LiteralFromBytes(f.Type, ob)
					pl, _ := iceberg.LiteralFromBytes(f.Type, pb)
					t.Errorf("%s %s: %s bound of %s: ORC %v, Parquet %v", tbl, k, side, f.Name, ol, pl)
				}
			}
		}
		for kind, m := range map[string][2]map[int]int64{"value": {o.ValueCounts(), p.ValueCounts()}, "null": {o.NullValueCounts(), p.NullValueCounts()}} {
			for id, oc := range m[0] {
				if pc, ok := m[1][id]; ok && oc != pc {
					f, _ := schema.FindFieldByID(id)
					t.Errorf("%s %s: %s count of %s: ORC %d, Parquet %d", tbl, k, kind, f.Name, oc, pc)
				}
			}
		}
	}
	if bounded == 0 {
		t.Fatalf("%s: no bounds compared", tbl)
	}
}
