package npmcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsure: an installed version is found without npm; a missing one
// without npm on PATH fails naming the package to install, and leaves
// nothing half-installed behind.
func TestEnsure(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("PATH", t.TempDir())
	probe := filepath.Join("node_modules", "x", "package.json")
	dir := filepath.Join(cache, "inlet-test", "1.0.0")
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, probe), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Ensure(context.Background(), "inlet-test", "1.0.0", []byte("{}"), probe)
	if err != nil || got != dir {
		t.Fatalf("Ensure of an installed version = %q, %v; want %q", got, err, dir)
	}
	_, err = Ensure(context.Background(), "inlet-test", "2.0.0", []byte("{}"), probe)
	if err == nil || !strings.Contains(err.Error(), "npm is not on PATH") {
		t.Fatalf("Ensure without npm: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "inlet-test", "2.0.0")); !os.IsNotExist(err) {
		t.Errorf("a failed install left %s behind (%v)", filepath.Join(cache, "inlet-test", "2.0.0"), err)
	}
}
