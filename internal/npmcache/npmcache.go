package npmcache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Ensure returns <user cache>/<name>/<version>, first installing the
// dependencies of packageJSON there with npm when probe (a path relative to
// that directory, e.g. node_modules/mysql2/package.json) does not exist.
func Ensure(ctx context.Context, name, version string, packageJSON []byte, probe string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, name, version)
	if _, err := os.Stat(filepath.Join(dir, probe)); err == nil {
		return dir, nil
	}
	if err := install(ctx, filepath.Dir(dir), dir, name, packageJSON); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		return "", fmt.Errorf("npm install for %s finished but %s is missing", name, probe)
	}
	return dir, nil
}

func install(ctx context.Context, parent, dir, name string, packageJSON []byte) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm is not on PATH (Debian package npm)")
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "package.json"), packageJSON, 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := string(out)
		if len(msg) > 1000 {
			msg = "..." + msg[len(msg)-1000:]
		}
		return fmt.Errorf("npm install for %s: %v\n%s", name, err, msg)
	}
	if err := os.Rename(work, dir); err != nil {
		// A concurrent run may have renamed its own install into place first.
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr != nil {
			return fmt.Errorf("installing %s into %s: %w", name, dir, err)
		}
	}
	return nil
}
