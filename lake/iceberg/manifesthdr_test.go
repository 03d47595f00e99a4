package iceberg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
)

// TestContentPatched adds content=deletes to the header of an Impala delete
// manifest that lacks it; iceberg-go, reading the result as the manifest
// list's entry describes it, must then list the delete files the original
// holds (the three position delete files of the fixture's data directory).
// Damaged and truncated headers are passed through, never a panic.
func TestContentPatched(t *testing.T) {
	const dir = "testdata/impala/iceberg_v2_partitioned_position_deletes_orc/metadata/"
	raw, err := os.ReadFile(dir + "5b14eaa8-83cb-4f71-a473-402f345fa5b5-m0.avro")
	if err != nil {
		t.Fatal(err)
	}
	r, n, ok := contentPatched(bytes.NewReader(raw), int64(len(raw)), "deletes")
	if !ok {
		t.Fatal("not patched")
	}
	patched := make([]byte, n)
	if _, err := r.ReadAt(patched, 0); err != nil {
		t.Fatal(err)
	}
	mf := iceberg.NewManifestFile(2, "m.avro", n, 0, 1).Content(iceberg.ManifestContentDeletes).Build()
	entries, err := iceberg.ReadManifest(mf, bytes.NewReader(patched), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("%d entries, want 3", len(entries))
	}
	for _, e := range entries {
		if e.DataFile().ContentType() != iceberg.EntryContentPosDeletes {
			t.Errorf("%s: content %v", e.DataFile().FilePath(), e.DataFile().ContentType())
		}
	}
	// A header that has the key is left alone.
	if _, _, ok := contentPatched(bytes.NewReader(patched), n, "deletes"); ok {
		t.Error("patched twice")
	}
	// The unpatched original is what iceberg-go refuses.
	if _, err := iceberg.ReadManifest(mf, bytes.NewReader(raw), false); err == nil {
		t.Error("iceberg-go read the original delete manifest; the patch may be unneeded")
	}
	cases := map[string][]byte{
		"empty":           nil,
		"not avro":        []byte("PAR1 not avro at all"),
		"huge count":      append(append([]byte(nil), avroMagic...), 0xfe, 0xff, 0xff, 0xff, 0x0f),
		"bad varint":      append(append([]byte(nil), avroMagic...), bytes.Repeat([]byte{0xff}, 12)...),
		"negative length": append(append([]byte(nil), avroMagic...), 2, 1),
	}
	for i := 0; i < len(raw); i += 7 {
		cases[fmt.Sprintf("truncated at %d", i)] = raw[:i]
	}
	for name, b := range cases {
		if _, _, ok := contentPatched(bytes.NewReader(b), int64(len(b)), "deletes"); ok && len(b) < len(raw) {
			if _, _, err := parseAvroHeader(b); err != nil {
				t.Errorf("%s: patched a header that does not parse", name)
			}
		}
	}
}

// countFS counts the opens of each path.
type countFS struct {
	fileio.Local
	mu    sync.Mutex
	opens map[string]int
}

func (c *countFS) Open(ctx context.Context, name string) (fileio.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.Local.Open(ctx, name)
}

// TestPlanOpensOnce: planning a v2 snapshot with deletes reads its
// manifest list once (the delete manifests are found in it before the
// scan, which is served the same bytes), and every manifest once; the
// next plan of the snapshot reads the manifests once again, not the list
// (kept, see mlCache).
func TestPlanOpensOnce(t *testing.T) {
	ctx := context.Background()
	manifestLists.mu.Lock()
	manifestLists.m, manifestLists.order, manifestLists.bytes = nil, nil, 0
	manifestLists.mu.Unlock()
	fsys := &countFS{opens: map[string]int{}}
	tbl, err := OpenDir(ctx, fsys, "testdata/impala/iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{3, 2} { // the list, the data manifest, the delete manifest; then the manifests
		clear(fsys.opens)
		plan, err := tbl.Plan(ctx, ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Splits) != 3 {
			t.Fatalf("plan %d: %d splits", i+1, len(plan.Splits))
		}
		if len(fsys.opens) != want {
			t.Errorf("plan %d: opened %v", i+1, fsys.opens)
		}
		for p, n := range fsys.opens {
			if n != 1 {
				t.Errorf("plan %d: %s opened %d times", i+1, p, n)
			}
		}
		if i == 1 && fsys.opens[tbl.rel.apply(tbl.tbl.CurrentSnapshot().ManifestList)] != 0 {
			t.Errorf("plan 2 opened the manifest list")
		}
	}
}
