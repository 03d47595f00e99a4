package clustersecret

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadOrCreate(t *testing.T) {
	t.Setenv(EnvVar, "")
	dir := filepath.Join(t.TempDir(), "meta")
	s1, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(Path(dir))
	if err != nil || st.Mode().Perm() != 0o600 || len(s1) != 64 {
		t.Fatalf("secret file %v %v, %d characters", st, err, len(s1))
	}
	if s2, err := LoadOrCreate(dir); err != nil || s2 != s1 {
		t.Fatalf("second start: %v, same secret %v", err, s2 == s1)
	}
	// A secret others can read is refused, naming the fix.
	if err := os.Chmod(Path(dir), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreate(dir); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable secret: %v", err)
	}
	t.Setenv(EnvVar, "from-env")
	if s, err := LoadOrCreate(dir); err != nil || s != "from-env" {
		t.Fatalf("$%s: %q %v", EnvVar, s, err)
	}
}

// A BE answers only for its own address: a process on another address
// relaying the FE's challenge to it gets nothing the FE accepts.
func TestChallenge(t *testing.T) {
	var own string
	be := httptest.NewServer(Handler("s3cret", func(a string) bool { return a == own }))
	defer be.Close()
	own = strings.TrimPrefix(be.URL, "http://")
	ctx := context.Background()
	if err := Challenge(ctx, own, "s3cret"); err != nil {
		t.Fatalf("own address: %v", err)
	}
	if err := Challenge(ctx, own, "other"); err == nil {
		t.Error("a BE with another secret passed")
	}
	relay := httptest.NewServer(be.Config.Handler) // answers as if it were the BE
	defer relay.Close()
	if err := Challenge(ctx, strings.TrimPrefix(relay.URL, "http://"), "s3cret"); err == nil {
		t.Error("a relay passed the challenge")
	}
}
