package paimon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

func TestParseSnapshotVersions(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		id   int64
	}{
		{"0.9 no sizes", `{"version":3,"id":8,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","changelogManifestList":null,"indexManifest":"i","commitUser":"u","commitIdentifier":4,"commitKind":"COMPACT","timeMillis":1,"logOffsets":{},"totalRecordCount":10,"deltaRecordCount":-3,"changelogRecordCount":0}`, 8},
		{"1.4 no logOffsets", `{"version":3,"id":2,"schemaId":1,"baseManifestList":"a","baseManifestListSize":10,"deltaManifestList":"b","deltaManifestListSize":5,"commitUser":"__fluss_lake_tiering","commitIdentifier":9223372036854775807,"commitKind":"APPEND","timeMillis":1,"totalRecordCount":1,"deltaRecordCount":1,"properties":{"fluss-offsets":"x"},"nextRowId":0}`, 2},
		{"2.0 unknown keys", `{"version":3,"uuid":"u-1","id":3,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u","commitIdentifier":1,"commitKind":"OVERWRITE","timeMillis":1,"totalRecordCount":0,"deltaRecordCount":0,"operation":{"x":1},"writerVersion":"2.1"}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := paimon.ParseSnapshot([]byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != tc.id {
				t.Fatalf("id %d", s.ID)
			}
		})
	}
	if s, _ := paimon.ParseSnapshot([]byte(`{"id":1,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitIdentifier":9223372036854775807}`)); s == nil || s.CommitIdentifier != 9223372036854775807 {
		t.Fatal("commitIdentifier must decode exactly")
	}
	for _, bad := range []string{`{`, `{"id":1}`, `{"id":1,"baseManifestList":"../x","deltaManifestList":"b"}`} {
		if _, err := paimon.ParseSnapshot([]byte(bad)); !errors.Is(err, paimon.ErrCorrupt) {
			t.Fatalf("%s: %v", bad, err)
		}
	}
}

// LATEST and EARLIEST are hints: a stale, missing or garbled hint falls back
// to listing the snapshot directory.
func TestSnapshotHints(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1"}, mem)
	for i := 0; i < 3; i++ {
		r := paimontest.Rows(t, mem, b.Schema(), []any{i, "x", i})
		if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	latest := filepath.Join(dir, "snapshot", "LATEST")
	for _, tc := range []struct {
		name   string
		hint   string // "" = remove the file
		latest int64
	}{{"exact", "3", 3}, {"stale", "1", 3}, {"missing", "", 3}, {"garbage", "x\n", 3}, {"ahead", "9", 3}} {
		if tc.hint == "" {
			os.Remove(latest)
		} else if err := os.WriteFile(latest, []byte(tc.hint), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := tbl.LatestSnapshotID(ctx)
		if err != nil || got != tc.latest {
			t.Fatalf("%s: latest %d, %v", tc.name, got, err)
		}
	}
	os.WriteFile(filepath.Join(dir, "snapshot", "EARLIEST"), []byte("7"), 0o644)
	if got, err := tbl.EarliestSnapshotID(ctx); err != nil || got != 1 {
		t.Fatalf("earliest %d, %v", got, err)
	}
	os.Remove(filepath.Join(dir, "snapshot", "snapshot-1"))
	os.WriteFile(filepath.Join(dir, "snapshot", "EARLIEST"), []byte("2"), 0o644)
	if got, err := tbl.EarliestSnapshotID(ctx); err != nil || got != 2 {
		t.Fatalf("earliest after expiry %d, %v", got, err)
	}
	if _, err := tbl.Plan(ctx, paimon.ScanOptions{SnapshotID: 1}); !errors.Is(err, paimon.ErrNotFound) {
		t.Fatalf("expired snapshot: %v", err)
	}
	if _, err := paimon.OpenTable(ctx, fileio.Local{}, filepath.Join(dir, "nope")); !errors.Is(err, paimon.ErrNotFound) {
		t.Fatalf("missing table: %v", err)
	}
}

// Damaged files give errors that name the file, never panics.
func TestCorruptFilesNamed(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	b := pkBuilder(t, dir, map[string]string{"bucket": "1"}, mem)
	r := paimontest.Rows(t, mem, b.Schema(), []any{1, "x", 1})
	if err := b.Commit(ctx, []paimontest.File{{Rows: r}}, mem); err != nil {
		t.Fatal(err)
	}
	r.Release()
	manifests, _ := filepath.Glob(filepath.Join(dir, "manifest", "manifest-0*"))
	data, _ := filepath.Glob(filepath.Join(dir, "bucket-0", "*.parquet"))
	if len(manifests) != 1 || len(data) != 1 {
		t.Fatalf("layout: %v %v", manifests, data)
	}
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(data[0], []byte("PAR1 not really"), 0o644)
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := plan.Open(ctx, &plan.Splits[0], mem, paimon.ReadOptions{})
	if err == nil {
		for rr.Next() {
		}
		err = rr.Err()
		rr.Release()
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Base(data[0])) {
		t.Fatalf("corrupt data file: %v", err)
	}
	os.WriteFile(manifests[0], []byte("Obj\x01garbage"), 0o644)
	if _, err := tbl.Plan(ctx, paimon.ScanOptions{}); !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(manifests[0])) {
		t.Fatalf("corrupt manifest: %v", err)
	}
}

// A split shipped as bytes and opened through ReadPlan reads the same rows
// as the planning side (what an FE → BE hop does).
func TestSplitRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := fixturesDir(t) + "/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	pred := paimon.Gt("f3", 12.5)
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: pred})
	if err != nil {
		t.Fatal(err)
	}
	// The predicate travels as JSON too.
	pj, err := json.Marshal(pred)
	if err != nil {
		t.Fatal(err)
	}
	var shipped paimon.Predicate
	if err := json.Unmarshal(pj, &shipped); err != nil {
		t.Fatal(err)
	}
	rp, err := tbl.ReadPlan(ctx, plan.Schema.ID, nil, &shipped)
	if err != nil {
		t.Fatal(err)
	}
	count := func(p *paimon.Plan, s *paimon.Split) int64 {
		rr, err := p.Open(ctx, s, mem, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var n int64
		for rr.Next() {
			n += rr.RecordBatch().NumRows()
		}
		if rr.Err() != nil {
			t.Fatal(rr.Err())
		}
		return n
	}
	var total int64
	for i := range plan.Splits {
		b, err := paimon.EncodeSplit(&plan.Splits[i])
		if err != nil {
			t.Fatal(err)
		}
		s, err := paimon.DecodeSplit(b, plan.Schema.PartitionFields())
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(s.Partition) != fmt.Sprint(plan.Splits[i].Partition) || len(s.Files) != len(plan.Splits[i].Files) {
			t.Fatalf("split %d changed in transit", i)
		}
		a, b2 := count(plan, &plan.Splits[i]), count(rp, s)
		if a != b2 {
			t.Fatalf("split %d: %d rows planned side, %d after transit", i, a, b2)
		}
		total += a
	}
	if total != 6 {
		t.Fatalf("%d rows with f3 > 12.5, want 6", total)
	}
	if _, err := paimon.DecodeSplit([]byte(`{"PartitionBytes":"AAAA"}`), plan.Schema.PartitionFields()); err == nil {
		t.Fatal("bad split accepted")
	}
}
