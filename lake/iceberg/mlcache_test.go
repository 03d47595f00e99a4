package iceberg

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// TestManifestListCache: a plan keeps its snapshot's manifest list (bytes
// and delete manifests) for the next plan of that snapshot, whose answer
// is the same, deletes applied; a commit after it is seen by the next
// plan at once (its snapshot names another list); the kept lists stay
// within their count and bytes.
func TestManifestListCache(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	if _, err := icebergtest.Orders(ctx, wh, "db"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wh, "db", "orders")
	// Orders' last snapshot (icebergtest): ids 20..250 but those of
	// customer c005 (id % 17 == 5) up to 200.
	want := func(to int64) []string {
		var ids []string
		for id := int64(20); id <= to; id++ {
			if id > 200 || id%17 != 5 {
				ids = append(ids, strconv.FormatInt(id, 10))
			}
		}
		slices.Sort(ids)
		return ids
	}
	read := func() ([]string, string) {
		tbl, err := OpenDir(ctx, fileio.Local{}, dir)
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, tbl, ScanOptions{}, []string{"id"}), tbl.rel.apply(tbl.tbl.CurrentSnapshot().ManifestList)
	}
	steps := []struct {
		name   string
		append int64 // rows 251..append added first (0: none)
		want   []string
	}{
		{"first plan", 0, want(250)},
		{"same snapshot, list kept", 0, want(250)},
		{"after an append", 260, want(260)},
		{"new snapshot, list kept", 0, want(260)},
	}
	for _, s := range steps {
		if s.append > 0 {
			if err := icebergtest.Append(ctx, wh, "db", "orders", 251, s.append, nil); err != nil {
				t.Fatal(err)
			}
		}
		got, list := read()
		if !slices.Equal(got, s.want) {
			t.Fatalf("%s: %d ids %v,\nwant %d ids %v", s.name, len(got), got, len(s.want), s.want)
		}
		e, ok := manifestLists.get(list)
		if !ok || len(e.deletes) == 0 {
			t.Fatalf("%s: list %s kept %v, with %d delete manifests; want kept, with the table's", s.name, list, ok, len(e.deletes))
		}
	}

	c := &mlCache{}
	for i := range mlKeep + 10 {
		c.put(strconv.Itoa(i), &mlEntry{b: make([]byte, 100)})
	}
	if n, b := c.size(); n != mlKeep || b != mlKeep*100 {
		t.Errorf("after %d small lists: %d kept, %d bytes; want %d, %d", mlKeep+10, n, b, mlKeep, mlKeep*100)
	}
	if _, ok := c.get("0"); ok {
		t.Error("the oldest list is still kept")
	}
	for i := range 10 {
		c.put("big"+strconv.Itoa(i), &mlEntry{b: make([]byte, mlMaxOne)})
	}
	if _, b := c.size(); b > mlBytes {
		t.Errorf("%d bytes kept, at most %d", b, mlBytes)
	}
	c.put("huge", &mlEntry{b: make([]byte, mlMaxOne+1)})
	if _, ok := c.get("huge"); ok {
		t.Error("a list over the one-list bound is kept")
	}
}
