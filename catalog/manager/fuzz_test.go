package manager

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseMeta: catalogs.json decoding never panics, and what it accepts
// has unique names and ids.
func FuzzParseMeta(f *testing.F) {
	dir := f.TempDir()
	m := open(f, dir)
	m.Create("c1", "x", map[string]string{"type": "localdir", "a.password": "p"}, false)
	m.Create("c2", "", map[string]string{"type": "localdir"}, false)
	seed, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"version":1,"next_id":2,"catalogs":[{"id":1,"name":"a"},{"id":1,"name":"b"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		md, err := parseMeta("fuzz", b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range md.Catalogs {
			if seen[e.Name] || e.Name == InternalName || e.Props == nil {
				t.Fatalf("accepted bad entry %+v", e)
			}
			seen[e.Name] = true
		}
	})
}
