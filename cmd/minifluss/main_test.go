package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoaderAppliesScenarioOnce(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join("..", "..", "minifluss", "testdata", "demo.sql")
	args := []string{"--data-dir", dir, "--scenario", scen, "--tablet-servers", "2", "--exit-after-load", "--sasl-users", "alice:pw"}
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	marks, _ := filepath.Glob(filepath.Join(dir, "scenario-*.applied"))
	if len(marks) != 1 {
		t.Fatalf("marker files: %v", marks)
	}
	// a second start with the same scenario keeps the data (INSERTs would
	// otherwise duplicate rows; CREATE TABLE would fail)
	if err := run(args); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "meta.json")); err != nil {
		t.Fatal(err)
	}
}

func TestLoaderFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--data-dir"},
		{[]string{"--data-dir", t.TempDir(), "--sasl-users", "nopassword", "--exit-after-load"}, "user:password"},
		{[]string{"--data-dir", t.TempDir(), "--scenario", "/does/not/exist", "--exit-after-load"}, "exist"},
	} {
		err := run(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.sql")
	os.WriteFile(bad, []byte("CREATE DATABASE d;\nINSERT INTO d.missing VALUES (1);\n"), 0o644)
	err := run([]string{"--data-dir", t.TempDir(), "--scenario", bad, "--exit-after-load"})
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("failing scenario: %v", err)
	}
}

// The loader with a lake: the Doris regression scenario tiers its lake_*
// tables into the warehouse given by flag, as real Paimon tables.
func TestLoaderWithLakeWarehouse(t *testing.T) {
	dir, wh := t.TempDir(), t.TempDir()
	scen := filepath.Join("..", "..", "minifluss", "testdata", "doris_regression.scenario")
	args := []string{"--data-dir", dir, "--scenario", scen, "--tablet-servers", "1", "--default-bucket-number", "3",
		"--exit-after-load", "--lake-warehouse", wh, "--lake-option", "metastore=filesystem"}
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	snaps, _ := filepath.Glob(filepath.Join(wh, "*.db", "lake_log", "snapshot", "snapshot-*"))
	if len(snaps) == 0 {
		t.Fatalf("no lake snapshot of lake_log under %s", wh)
	}
}

func TestLoaderLakeFlagsNeedWarehouse(t *testing.T) {
	err := run([]string{"--data-dir", t.TempDir(), "--lake-periodic", "--exit-after-load"})
	if err == nil || !strings.Contains(err.Error(), "--lake-warehouse") {
		t.Fatalf("err = %v", err)
	}
}
