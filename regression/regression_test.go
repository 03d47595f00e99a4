package regression

import (
	"context"
	"database/sql/driver"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the -- result rows of the suites with what the queries return (review the diff!)")

// moduleRoot walks up from the package directory to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

func suiteFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("suites", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no suites/*.sql")
	}
	return files
}

// TestSuitesParse keeps every suite file well-formed without a cluster.
func TestSuitesParse(t *testing.T) {
	for _, f := range append([]string{"setup.sql"}, suiteFiles(t)...) {
		if _, err := ParseFile(f); err != nil {
			t.Error(err)
		}
	}
}

// TestRegression starts the emulator with the Doris fixture set, a BE and
// the FE (or uses the external cluster the INLET_REGRESSION_* variables
// name), creates the catalogs of setup.sql and runs every suite.
func TestRegression(t *testing.T) {
	runRegression(t, Options{}, suiteFiles(t))
}

// icebergRefused are the fixture tables an Iceberg lake refuses, as Fluss's
// IcebergLakeCatalog does: INT partition keys, more than one bucket key
// (composite primary keys).
var icebergRefused = []string{"lake_part_int", "lake_pk_part_int", "lake_pk_comma", "lake_pk_ltz"}

// icebergSuites are the union-read, lake-only, primary-key, partition,
// nested-type, $changelog/$binlog and LIMIT-pushdown suites, run on an
// Iceberg lake too (blocks that list every fixture table need paimon-lake).
var icebergSuites = []string{"lake_only", "lake_pk", "lake_pk_merge", "log_table", "pk_table", "read_modes", "partition_types",
	"test_fluss_lake_only", "test_fluss_lake_pk", "nested_types", "nested_column_pruning", "array_functions", "test_fluss_nested_types", "test_fluss_nested_column_pruning",
	"fluss_changelog", "fluss_binlog", "limit_pushdown"}

// TestRegressionIceberg runs the union-read, lake-only, PK, partition and
// nested-type suites against the emulator tiering the same fixtures into Iceberg
// (minus the tables Iceberg refuses): the same statements must give the
// same results; blocks over the refused tables, or asserting what only a
// Paimon lake has, require paimon-lake.
func TestRegressionIceberg(t *testing.T) {
	if os.Getenv(EnvBootstrap) != "" {
		t.Skip("an external Fluss cluster tiers into its own lake")
	}
	var files []string
	for _, n := range icebergSuites {
		files = append(files, filepath.Join("suites", n+".sql"))
	}
	runRegression(t, Options{LakeFormat: "iceberg", DropTables: icebergRefused}, files)
}

func runRegression(t *testing.T, o Options, files []string) {
	if testing.Short() {
		t.Skip("-short: the regression suite starts processes")
	}
	setup, err := ParseFile("setup.sql")
	if err != nil {
		t.Fatal(err)
	}
	var suites []*Suite
	for _, f := range files {
		s, err := ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		suites = append(suites, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	root := moduleRoot(t)
	start := time.Now()
	o.ModuleRoot, o.WorkDir, o.Logf = root, t.TempDir(), t.Logf
	o.Scenarios = []string{filepath.Join(root, "minifluss", "testdata", "doris_regression.scenario"), filepath.Join("testdata", "extra.scenario")}
	env, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	t.Logf("environment ready in %v (caps %v)", time.Since(start).Round(time.Millisecond), env.Caps)

	runSuite(ctx, t, env, setup)
	for _, s := range suites {
		runSuite(ctx, t, env, s)
	}
	if t.Failed() {
		t.Logf("process logs:\n%s", env.Logs())
	}
	t.Logf("all suites in %v", time.Since(start).Round(time.Millisecond))
}

func runSuite(ctx context.Context, t *testing.T, env *Env, s *Suite) {
	name := strings.TrimSuffix(filepath.Base(s.Path), ".sql")
	t.Run(name, func(t *testing.T) {
		if miss := env.Missing(s.Requires); len(miss) > 0 {
			t.Skipf("%s needs %s", s.Path, strings.Join(miss, ", "))
		}
		start := time.Now()
		conn, err := env.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Every suite gets a session of its own, as every Doris suite does:
		// what one SETs, SWITCHes or USEs (Doris's suites leave time_zone
		// set) must not reach the next through the pool.
		defer conn.Raw(func(any) error { return driver.ErrBadConn })
		updated := map[*Result][]string{}
		for _, b := range s.Blocks {
			t.Run(b.Name, func(t *testing.T) {
				o := env.Run(ctx, conn, b)
				if o.Skip != "" {
					t.Skipf("%s:%d: %s", s.Path, b.Line, o.Skip)
				}
				if *update && b.Result != nil && o.Rows != nil {
					updated[b.Result] = UpdatedRows(b.Result, o.Rows)
				}
				for _, f := range o.Failures {
					t.Errorf("%s:%d: %s %s:\n%s\n  %s", s.Path, b.Line, b.Kind, b.Name, indent(env.Redact(env.Expand(b.SQL, b.Catalog))), f)
				}
			})
		}
		if *update && len(updated) > 0 {
			if err := os.WriteFile(s.Path, s.Rewrite(updated), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("-update: rewrote %d results of %s", len(updated), s.Path)
		}
		t.Logf("%s: %d blocks in %v", name, len(s.Blocks), time.Since(start).Round(time.Millisecond))
	})
}
