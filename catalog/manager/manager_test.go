package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/local"
)

// A catalog type backed by the local storage engine, so the manager is
// exercised with a real catalog and real files.
func testRegistry(t testing.TB) *catalog.Registry {
	r, err := catalog.NewRegistry(catalog.Type{
		Name: "localdir",
		Validate: func(p map[string]string) error {
			_, err := catalog.NewProps(p).Int("batch", 1, 1, 100)
			return err
		},
		Open: func(ctx context.Context, p map[string]string, env catalog.Env) (catalog.Catalog, error) {
			return local.Open(env.DataDir, memory.NewGoAllocator(), local.Options{})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func open(t testing.TB, dir string) *Manager {
	t.Helper()
	internal, err := local.Open(filepath.Join(dir, "internal"), memory.NewGoAllocator(), local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(dir, internal, testRegistry(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestCatalogLifecycleSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	m := open(t, dir)
	if err := m.Create("c1", "first", map[string]string{"type": "LocalDir", "s3.secret-key": "sk-123"}, false); err != nil {
		t.Fatal(err)
	}
	if err := m.Create("c1", "", map[string]string{"type": "localdir"}, false); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("duplicate: %v", err)
	}
	if err := m.Create("c1", "", map[string]string{"type": "localdir"}, true); err != nil {
		t.Fatalf("if not exists: %v", err)
	}
	if err := m.Create("c2", "", map[string]string{"type": "hive"}, false); !errors.Is(err, catalog.ErrUnknownType) {
		t.Fatalf("unknown type: %v", err)
	}
	if err := m.Create("c2", "", map[string]string{"type": "localdir", "batch": "0"}, false); !errors.Is(err, catalog.ErrInvalidProperty) {
		t.Fatalf("invalid property: %v", err)
	}
	if err := m.SetProperties("c1", map[string]string{"batch": "5"}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetProperties("c1", map[string]string{"type": "other"}); err == nil {
		t.Fatal("type change accepted")
	}
	if err := m.Rename("c1", "c9"); err != nil {
		t.Fatal(err)
	}
	if err := m.ModifyComment("c9", "renamed"); err != nil {
		t.Fatal(err)
	}
	c, err := m.Get(context.Background(), "c9")
	if err != nil || c.Type() != "internal" {
		t.Fatalf("Get = %v, %v", c, err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, metaFile))
	if st, _ := os.Stat(filepath.Join(dir, metaFile)); st.Mode().Perm() != 0o600 {
		t.Errorf("meta file mode %v", st.Mode().Perm())
	}

	m2 := open(t, dir)
	list := m2.List()
	if len(list) != 2 || list[0].Name != "internal" || list[0].ID != 0 || list[1].Name != "c9" {
		t.Fatalf("after restart: %+v", list)
	}
	got := list[1]
	if got.Comment != "renamed" || got.Type != "localdir" || got.Properties["batch"] != "5" || got.Properties["s3.secret-key"] != catalog.MaskedValue {
		t.Fatalf("after restart: %+v", got)
	}
	if !strings.Contains(string(raw), "sk-123") {
		t.Errorf("secret must persist (0600 file) to reconnect")
	}
	if err := m2.Drop("c9", false); err != nil {
		t.Fatal(err)
	}
	if err := m2.Drop("c9", false); !errors.Is(err, catalog.ErrNotFound) || err.Error() != "Unknown catalog 'c9'" {
		t.Fatalf("drop missing: %v", err)
	}
	if err := m2.Drop("c9", true); err != nil {
		t.Fatal(err)
	}
	if err := m2.Drop("internal", true); !errors.Is(err, catalog.ErrUnsupported) {
		t.Fatalf("drop internal: %v", err)
	}
	if len(open(t, dir).List()) != 1 {
		t.Fatal("drop did not persist")
	}
}
