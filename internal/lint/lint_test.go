package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// A pattern names packages relative to the module root: "fe/sql" is that
// package alone, "fe/..." is fe and everything below it, "..." is every
// package. Third-party patterns are full import paths with the same suffix.

// layer is an allow-list for the direct, non-test imports of the packages
// that pkgs matches.
type layer struct {
	pkgs string
	// ours lists the patterns of module packages the packages may import;
	// empty means none.
	ours []string
	// thirdParty, when not nil, lists the only non-standard, non-module
	// import paths allowed.
	thirdParty []string
	// stdOnly allows the standard library and nothing else.
	stdOnly bool
	why     string
}

// Common allowances (functions rather than package variables: no state).
func leaves() []string { return []string{"internal/...", "typemap"} }

func with(extra ...string) []string { return append(leaves(), extra...) }

var arrowOnly = []string{"github.com/apache/arrow-go/v18/..."}

// layers is style.md §3, one entry per line of the plan, plus the packages
// written since that the plan does not name (marked "not in §3").
func layers() []layer {
	return []layer{
		// 0. Leaves.
		{pkgs: "proto/inletpb/...", thirdParty: []string{"google.golang.org/protobuf/...", "google.golang.org/grpc/..."},
			why: "§3 layer 0: proto/inletpb imports the protobuf and gRPC runtime only"},
		{pkgs: "proto/flusspb/...", thirdParty: []string{"google.golang.org/protobuf/...", "google.golang.org/grpc/..."},
			why: "§3 layer 0: proto/flusspb imports the protobuf and gRPC runtime only"},
		{pkgs: "proto/...", why: "§3 layer 0: proto packages are leaves (proto/flussapi, not in §3, is a leaf of wire numbers)"},
		{pkgs: "fileio/...", ours: []string{"internal/..."}, why: "§3 layer 0: fileio is a leaf"},
		{pkgs: "typemap/...", thirdParty: arrowOnly, why: "§3 layer 0: typemap imports arrow only"},
		{pkgs: "fe/sql/...", stdOnly: true, why: "§3 layer 0: fe/sql imports the standard library only"},
		{pkgs: "internal/...", ours: leaves(), why: "§3 layer 0: internal/… packages are leaves"},

		// 1. Codecs and formats.
		{pkgs: "catalog/fluss/record/...", ours: with("proto/flusspb"), why: "§3 layer 1: catalog/fluss/record → proto/flusspb, typemap"},
		{pkgs: "lake/...", ours: with("lake/...", "fileio"), why: "§3 layer 1: lake/paimon (with its ORC reader lake/orc and its subpackages) → fileio, typemap"},
		{pkgs: "lake/iceberg/...", ours: with("lake/paimon", "lake/orc", "fileio"), why: "§3 layer 1 (issue 28): lake/iceberg reads metadata through iceberg-go, Parquet data files through lake/paimon's Parquet path and ORC data files through lake/orc (fileio for storage); it knows no catalog"},
		{pkgs: "lake/orc/...", ours: with("fileio"), why: "§3 layer 1: lake/orc is the format reader under lake/paimon and must not import it"},
		{pkgs: "unionread/...", ours: leaves(), why: "§3 layer 1: unionread → typemap"},

		// 2. Wire.
		{pkgs: "catalog/fluss/client/...", ours: with("catalog/fluss/client/...", "catalog/fluss/record", "proto/flusspb", "proto/flussapi", "fileio"),
			why: "§3 layer 2: catalog/fluss/client → catalog/fluss/record, proto/flusspb (and proto/flussapi), fileio, typemap"},

		// 3. Catalogs.
		{pkgs: "catalog", ours: leaves(), why: "§3 layer 3: catalog → typemap"},
		{pkgs: "catalog/colstats/...", ours: with("catalog"),
			why: "layer 3 (not in §3): ANALYZE TABLE's arithmetic (sketch, store, merge over manifest statistics) the catalogs share → catalog"},
		{pkgs: "catalog/fluss", ours: with("catalog", "catalog/colstats", "catalog/fluss/client", "catalog/fluss/record", "lake/paimon", "lake/iceberg", "fileio", "catalog/paimon/systable", "catalog/paimon/lakestats", "catalog/iceberg/systable"),
			why: "§3 layer 3: catalog/fluss → catalog, catalog/fluss/client, lake/paimon, typemap (plus fileio: the lake's warehouse is opened with the translated storage settings, catalog/fluss/record: the decoded table descriptor the client hands back, catalog/paimon/systable: tbl$snapshots of the lake half is the same Paimon metadata table the Paimon catalog serves, and catalog/paimon/lakestats: the lake half's column statistics from its manifests, as the Paimon catalog reports them; lake/iceberg: the lake half of a table tiered with datalake.format=iceberg, issue 28, and catalog/iceberg/systable: its tbl$snapshots, as the Iceberg catalog serves it; catalog/colstats: the statistics ANALYZE TABLE keeps for it)"},
		{pkgs: "catalog/iceberg/...", ours: with("catalog", "catalog/iceberg/systable", "catalog/paimon", "catalog/paimon/lakestats", "lake/iceberg", "lake/paimon", "fileio"),
			why: "§3 layer 3 (issue 28): catalog/iceberg → catalog, lake/iceberg, fileio (and catalog/paimon for its column mapping and S3 properties, so a column and a warehouse read the same through either catalog; catalog/paimon/lakestats: column statistics from manifests estimated as for Paimon; catalog/iceberg/systable: its metadata tables)"},
		{pkgs: "catalog/paimon/...", ours: with("catalog/paimon/...", "catalog", "catalog/colstats", "lake/paimon", "fileio"),
			why: "§3 layer 3: catalog/paimon → catalog, lake/paimon, fileio (and catalog/colstats: the statistics ANALYZE TABLE keeps)"},
		{pkgs: "catalog/local/...", ours: with("catalog", "catalog/colstats", "fileio"), why: "layer 3 (not in §3): the internal catalog → catalog (and catalog/colstats: ANALYZE's sketch, shared with the lake catalogs)"},
		{pkgs: "catalog/manager/...", ours: with("catalog/..."), why: "layer 3 (not in §3): the catalog manager → catalog and its implementations"},

		// 4. FE planning and BE execution.
		{pkgs: "planner/...", ours: with("planner/...", "catalog/...", "lake/paimon", "lake/iceberg", "proto/inletpb", "fileio"),
			why: "§3 layer 4: planner → layer 3, catalog/fluss/client, lake/paimon (and lake/iceberg, issue 28), proto/inletpb, typemap"},
		{pkgs: "scan/...", ours: with("scan/...", "proto/inletpb", "catalog/fluss/client", "catalog/fluss/record", "lake/paimon", "lake/iceberg", "unionread", "fileio", "exec/..."),
			why: "§3 layer 4: scan → proto/inletpb, catalog/fluss/client, lake/paimon (and lake/iceberg, issue 28), unionread, fileio, typemap (and the shared operators of exec for filter, projection, partial aggregation next to the reader; catalog/fluss/record for the table descriptor a fragment carries and the change types of the changelog)"},

		// 5. FE.
		{pkgs: "fe/bind/...", ours: with("fe/bind/...", "fe/sql", "catalog", "fe/vars", "exec/expr"),
			why: "§3 layer 5: fe/bind → fe/sql, catalog, typemap (and, not in §3, the session variables fe/vars and the bound expressions of exec/expr)"},
		{pkgs: "exec/...", ours: with("exec/...", "proto/inletpb"),
			why: "layer 4 (§3's fe/exec, moved out of fe/): the vectorized operators FE and BE share → proto/inletpb, typemap"},
		{pkgs: "dispatch/...", ours: with("dispatch/...", "proto/inletpb", "exec/..."),
			why: "layer 5 (not in §3): the FE side of FE↔BE: sends fragments to BEs over Flight, merges their streams → proto/inletpb, exec"},
		{pkgs: "fe/mysqlwire/...", ours: []string{"typemap", "exec/render", "internal/loginguard", "internal/redact"},
			thirdParty: append([]string{"vitess.io/vitess/go/..."}, arrowOnly...),
			why:        "§3 layer 5: fe/mysqlwire → vitess go/mysql, arrow, typemap, the text renderer exec/render and the standard-library leaves that guard logins and mask URI passwords (issue 25); nothing else of ours"},
		{pkgs: "fe/vars/...", ours: leaves(), why: "layer 5 (not in §3): session variables are a leaf of the FE"},
		{pkgs: "fe/auth/...", stdOnly: true, why: "layer 5 (not in §3, issue 12): users and privileges are a leaf of the FE (standard library only), used by fe/server and its HTTP handlers"},

		{pkgs: "fe/opt/...", ours: with("fe/bind", "catalog", "exec/expr"),
			why: "layer 5 (not in §3, issue 23): the logical optimizer rewrites bound plans (fe/bind) by the statistics catalog tables report, between binding and fe/physical"},

		{pkgs: "fe/physical/...", ours: with("fe/bind", "exec/...", "planner", "catalog/...", "proto/inletpb"),
			why: "layer 5 (not in §3; issue 9 moved it out of fe/server): physical planning turns a bound plan (fe/bind) into the shared operators (exec) and plans BE-read scans into fragments (planner, proto/inletpb); never fe/server or fe/mysqlwire"},

		{pkgs: "load/...", ours: with("load/...", "catalog", "fe/sql", "fe/bind", "fe/auth", "exec/..."),
			why: "layer 5 (not in §3; issue 12): Stream Load decodes HTTP bodies into batches of a table's schema (catalog), binds the columns and where headers with the FE's parser, binder and expressions (fe/sql, fe/bind, exec/expr) and checks users (fe/auth)"},

		// 6. FE glue.
		{pkgs: "fe/server/...", ours: with("fe/...", "exec/...", "planner", "catalog/...", "dispatch", "proto/inletpb", "load/..."),
			why: "§3 layer 6: fe/server → fe/…, exec, planner, catalog…, dispatch and the fragments of proto/inletpb (and, issue 12, the Stream Load handlers of load/… it serves over its catalog)"},

		{pkgs: "fe/flightsql/...", ours: with("fe/server", "fe/mysqlwire", "fe/sql", "exec/memlimit"),
			why: "layer 6 (not in §3, issue 27): the Arrow Flight SQL port runs statements through fe/server's sessions (its errors keep fe/mysqlwire's codes, fe/sql splits statements)"},
		{pkgs: "fe/webui/...", ours: with("fe/server", "fe/physical"),
			why: "layer 6 (not in §3, issue 27): the web page renders what fe/server records of its queries (profiles of fe/physical)"},

		// 7. Commands.
		{pkgs: "cmd/fe", ours: with("fe/server", "fe/flightsql", "fe/webui", "catalog/...", "fileio", "scan", "dispatch", "planner", "minifluss", "load/..."),
			why: "§3 layer 7: cmd/fe → fe/server, the catalog implementations, fileio (and the in-process BE: scan, dispatch, and its Stream Load leg's registry of BE addresses, load/streamload; and the emulator --demo starts)"},
		{pkgs: "cmd/be", ours: with("scan/...", "fileio", "load/..."), why: "§3 layer 7: cmd/be → scan (with its Flight service scan/flightsrv, and fileio for its constructors; and, issue 12, the Stream Load BE leg of load/streamload, which decodes bodies and streams the batches to the FE)"},
		{pkgs: "cmd/minifluss", ours: with("minifluss"), why: "§3 layer 7: cmd/minifluss → minifluss"},
		{pkgs: "cmd/paimon-cat", ours: with("lake/...", "fileio"), why: "layer 7 (not in §3): paimon-cat → lake/paimon, fileio"},
		{pkgs: "cmd/bench", ours: with("fe/server", "fe/flightsql", "catalog/...", "scan", "dispatch", "minifluss", "fileio", "lake/..."),
			why: "layer 7 (not in §3): the benchmark assembles what cmd/fe --demo does (emulator with its lake, in-process BE through dispatch, FE with the catalog types) and measures it through the MySQL protocol (and, issue 27, the Flight SQL port)"},
		{pkgs: "cmd/lakebench", ours: with("lake/...", "fileio", "catalog", "catalog/paimon", "fe/server", "dispatch", "scan/..."),
			why: "layer 7 (not in §3, issue 14): the lake scan benchmark writes a table with lake/paimon/writer and reads it with lake/paimon, against DuckDB (issue 23: --sql runs the same queries through an in-process FE with a paimon catalog and a BE, as cmd/bench does)"},
		{pkgs: "cmd/tpchbench", ours: with("lake/paimon", "lake/paimon/writer", "fileio", "minifluss"), why: "layer 7 (not in §3, issue 23): the TPC-H benchmark starts the fe binary and talks SQL and Stream Load to it, DuckDB beside it; --source paimon writes the lake copy with lake/paimon/writer and lists its files for DuckDB, --source fluss runs the Fluss emulator with its tiering"},
		{pkgs: "cmd/tablebench", ours: with("fe/server", "catalog/..."), why: "layer 7 (not in §3, issue 14): the internal-table scan benchmark starts an FE in-process, loads bench.t through the catalog API and queries it over MySQL, against DuckDB"},

		// Beside the stack.
		{pkgs: "minifluss/...", ours: with("minifluss/...", "proto/flusspb", "proto/flussapi", "catalog/fluss/record", "lake/paimon", "lake/paimon/writer", "lake/orc", "fileio"),
			why: "§3: minifluss → proto/flusspb (and proto/flussapi), catalog/fluss/record, lake/paimon (and its writer), lake/orc (ORC files of Iceberg tables with write.format.default=orc, which iceberg-go cannot write), fileio"},
		{pkgs: "regression/...", ours: []string{}, why: "§3: regression imports no Inlet package"},
		{pkgs: "docker/...", ours: []string{}, why: "docker holds no Go code of use"},
	}
}

// reach forbids what pkgs may reach through the module's import graph.
type reach struct {
	pkgs string
	// except exempts packages that pkgs matches.
	except []string
	// exceptTestHelpers exempts test-helper packages (last element ends in
	// "test", like lake/paimon/paimontest or net/http/httptest).
	exceptTestHelpers bool
	never             []string
	// unless exempts targets that never matches.
	unless []string
	// tests also follows the package's test imports (in-package and _test).
	tests bool
	why   string
}

func reaches() []reach {
	return []reach{
		{pkgs: "catalog/fluss/record/...", never: []string{"catalog/fluss/client/...", "minifluss/...", "fe/...", "lake/..."},
			why: "catalog/fluss/record is a pure codec below the client, the emulator, the FE and the lake"},
		{pkgs: "catalog/fluss/client/...", never: []string{"minifluss/..."},
			why: "client and emulator are checked against Java-written bytes, not against each other (tests may start the emulator)"},
		{pkgs: "minifluss/...", never: []string{"catalog/fluss/client/..."}, tests: true,
			why: "minifluss never imports the client, not even in its tests"},
		{pkgs: "...", except: []string{"minifluss/...", "cmd/minifluss", "cmd/fe", "cmd/bench", "cmd/tpchbench"}, exceptTestHelpers: true, never: []string{"minifluss/..."},
			why: "no production package imports minifluss (tests, cmd/minifluss, and the commands that start a sample cluster — cmd/fe --demo, cmd/bench, cmd/tpchbench --source fluss — do)"},
		{pkgs: "lake/...", never: []string{"catalog/...", "fe/...", "minifluss/...", "planner/...", "scan/...", "cmd/..."},
			why: "lake/paimon and lake/orc know files, not catalogs or the FE"},
		{pkgs: "fe/physical/...", never: []string{"fe/server/...", "fe/mysqlwire/..."},
			why: "physical planning knows plans and operators, not connections or wire codes (EXPLAIN in fe/server reads from it)"},
		{pkgs: "scan/...", never: []string{"catalog", "catalog/fluss", "catalog/paimon/...", "catalog/local/...", "catalog/manager/...", "planner/...", "fe/..."},
			why: "a BE knows ranges, not tables"},
		{pkgs: "regression/...", never: []string{"..."}, unless: []string{"internal/fixtures"}, tests: true,
			why: "regression speaks SQL to processes started from cmd/ (its tests find fixtures through internal/fixtures)"},
	}
}

func match(pattern, path string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

// isStd reports whether an import path is in the standard library: as in
// cmd/go, the first element of a standard import path has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

type goPackage struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
	DepsErrors   []struct{ Err string }
	Module       *struct{ Path, Dir string }
}

// repo is the module's packages as `go list` sees them, keyed by their path
// relative to the module root.
type repo struct {
	root, module string
	pkgs         map[string]*goPackage
	names        []string // sorted keys of pkgs
}

// rel turns a module import path into its path relative to the module root
// and reports whether it belongs to the module.
func (r *repo) rel(importPath string) (string, bool) {
	if importPath == r.module {
		return ".", true
	}
	s, ok := strings.CutPrefix(importPath, r.module+"/")
	return s, ok
}

// imports returns the module packages a package imports directly, relative
// to the module root, and its other imports; with tests it adds the imports
// of its tests.
func (r *repo) imports(p *goPackage, tests bool) (ours, others []string) {
	all := slices.Clone(p.Imports)
	if tests {
		all = append(all, p.TestImports...)
		all = append(all, p.XTestImports...)
	}
	slices.Sort(all)
	for _, ip := range slices.Compact(all) {
		if s, ok := r.rel(ip); ok {
			ours = append(ours, s)
		} else {
			others = append(others, ip)
		}
	}
	return ours, others
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not inside a module")
	}
	return filepath.Dir(gomod)
}

func loadRepo(t *testing.T) *repo {
	t.Helper()
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-e",
		"-json=ImportPath,Dir,Imports,TestImports,XTestImports,Error,DepsErrors,Module", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v\n%s", root, err, stderr.Bytes())
	}
	r := &repo{root: root, pkgs: map[string]*goPackage{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(goPackage)
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Module == nil || p.Module.Dir != root {
			t.Fatalf("go list: package %s is not in the module at %s", p.ImportPath, root)
		}
		r.module = p.Module.Path
		s, ok := r.rel(p.ImportPath)
		if !ok {
			t.Fatalf("go list: package %s is outside module %s", p.ImportPath, r.module)
		}
		r.pkgs[s] = p
		r.names = append(r.names, s)
	}
	if len(r.pkgs) == 0 {
		t.Fatal("go list ./... found no packages")
	}
	slices.Sort(r.names)
	return r
}

// findings collects what a check found: errs fail the test, notes are
// logged.
type findings struct{ errs, notes []string }

func (f *findings) fail(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *findings) note(format string, args ...any) {
	f.notes = append(f.notes, fmt.Sprintf(format, args...))
}

func (f *findings) report(t *testing.T) {
	t.Helper()
	for _, n := range f.notes {
		t.Log(n)
	}
	for _, e := range f.errs {
		t.Error(e)
	}
}

func checkLayers(r *repo, ls []layer) *findings {
	f := &findings{}
	covered := map[string]bool{}
	for _, l := range ls {
		var matched []string
		for _, name := range r.names {
			if match(l.pkgs, name) {
				matched = append(matched, name)
			}
		}
		if len(matched) == 0 {
			f.note("%s: no such package yet; rule waits (%s)", l.pkgs, l.why)
			continue
		}
		for _, name := range matched {
			covered[name] = true
			ours, others := r.imports(r.pkgs[name], false)
			for _, imp := range others {
				switch {
				case l.stdOnly && !isStd(imp):
					f.fail("%s imports %s: %s", name, imp, l.why)
				case !isStd(imp) && l.thirdParty != nil && !matchAny(l.thirdParty, imp):
					f.fail("%s imports %s: %s", name, imp, l.why)
				}
			}
			for _, imp := range ours {
				if l.stdOnly || !matchAny(l.ours, imp) {
					f.fail("%s imports %s: %s", name, imp, l.why)
				}
			}
		}
	}
	for _, name := range r.names {
		if !covered[name] && name != "." {
			f.note("%s: no layering rule covers this package; add its line to style.md §3 and to layers()", name)
		}
	}
	return f
}

func TestLayering(t *testing.T) {
	checkLayers(loadRepo(t), layers()).report(t)
}

// path returns the shortest chain of module packages from the imports of
// from (with its tests' imports if tests) to a package that target accepts,
// or nil.
func (r *repo) path(from *goPackage, tests bool, target func(string) bool) []string {
	start, _ := r.imports(from, tests)
	prev := map[string]string{}
	var queue []string
	for _, s := range start {
		prev[s] = ""
		queue = append(queue, s)
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if target(cur) {
			var chain []string
			for n := cur; n != ""; n = prev[n] {
				chain = append(chain, n)
			}
			slices.Reverse(chain)
			return chain
		}
		p, ok := r.pkgs[cur]
		if !ok {
			continue
		}
		next, _ := r.imports(p, false)
		for _, n := range next {
			if _, seen := prev[n]; !seen {
				prev[n] = cur
				queue = append(queue, n)
			}
		}
	}
	return nil
}

func isTestHelper(name string) bool {
	return strings.HasSuffix(filepath.Base(name), "test")
}

func checkReaches(r *repo, rs []reach) *findings {
	f := &findings{}
	for _, rule := range rs {
		n := 0
		for _, name := range r.names {
			if !match(rule.pkgs, name) || matchAny(rule.except, name) || (rule.exceptTestHelpers && isTestHelper(name)) {
				continue
			}
			n++
			p := r.pkgs[name]
			for _, never := range rule.never {
				forbidden := func(s string) bool {
					return match(never, s) && !matchAny(rule.unless, s) && s != name
				}
				if chain := r.path(p, false, forbidden); chain != nil {
					f.fail("%s imports %s (%s): %s", name, chain[len(chain)-1], strings.Join(append([]string{name}, chain...), " → "), rule.why)
				} else if rule.tests {
					if chain := r.path(p, true, forbidden); chain != nil {
						f.fail("tests of %s import %s (%s): %s", name, chain[len(chain)-1], strings.Join(append([]string{name + " [test]"}, chain...), " → "), rule.why)
					}
				}
			}
		}
		if n == 0 {
			f.note("%s: no such package yet; rule waits (%s)", rule.pkgs, rule.why)
		}
	}
	return f
}

func TestForbiddenReaches(t *testing.T) {
	checkReaches(loadRepo(t), reaches()).report(t)
}

func checkCycles(r *repo) *findings {
	f := &findings{}
	for _, name := range r.names {
		p := r.pkgs[name]
		var errs []string
		if p.Error != nil {
			errs = append(errs, p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			errs = append(errs, e.Err)
		}
		for _, e := range errs {
			if strings.Contains(e, "import cycle") {
				f.fail("%s: go list: %s", name, e)
			} else {
				f.note("%s: go list: %s (not a layering matter)", name, e)
			}
		}
		// A cycle through the package itself, closed by its imports or by
		// the imports of its in-package tests (an external _test package
		// may import its package).
		self := func(s string) bool { return s == name }
		if chain := r.path(p, false, self); chain != nil {
			f.fail("import cycle: %s", strings.Join(append([]string{name}, chain...), " → "))
			continue
		}
		if chain := r.path(&goPackage{Imports: p.TestImports}, false, self); chain != nil {
			f.fail("import cycle in tests of %s: %s", name, strings.Join(append([]string{name + " [test]"}, chain...), " → "))
		}
	}
	return f
}

func TestNoImportCycles(t *testing.T) {
	checkCycles(loadRepo(t)).report(t)
}

// goFile is a Go source file of the module, outside testdata, hidden and
// underscore directories and nested modules.
type goFile struct {
	path string // relative to the module root, slash-separated
	dir  string
	test bool
}

func goFiles(t *testing.T, root string) []goFile {
	t.Helper()
	var files []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files = append(files, goFile{path: rel, dir: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(name, "_test.go")})
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return files
}

func TestPackageDocs(t *testing.T) {
	root := moduleRoot(t)
	// docFile: a doc.go with a comment above its package clause; doc: a
	// package comment (attached to the clause) in a non-test file;
	// handWritten: a non-test file without the "Code generated" header.
	// Generated packages (proto/*pb) get no hand-written file inside them
	// (style.md §2.2 habit 12): the package above documents them.
	type dirState struct{ docFile, doc, nonTest, testDoc, handWritten bool }
	dirs := map[string]*dirState{}
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		st := dirs[f.dir]
		if st == nil {
			st = &dirState{}
			dirs[f.dir] = st
		}
		af, err := parser.ParseFile(fset, filepath.Join(root, f.path), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Logf("%s: %v (left to the compiler)", f.path, err)
			continue
		}
		has := af.Doc != nil && strings.TrimSpace(af.Doc.Text()) != ""
		switch {
		case f.test:
			st.testDoc = st.testDoc || has
		default:
			st.nonTest = true
			st.doc = st.doc || has
			st.handWritten = st.handWritten || !ast.IsGenerated(af)
			if path.Base(f.path) == "doc.go" {
				st.docFile = slices.ContainsFunc(af.Comments, func(c *ast.CommentGroup) bool {
					return c.Pos() < af.Package && strings.TrimSpace(c.Text()) != ""
				})
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		st := dirs[dir]
		switch {
		case st.doc || (!st.nonTest && st.testDoc):
		case st.nonTest && !st.handWritten:
			t.Logf("%s: generated code only; documented by the package above it", dir)
		case st.docFile:
			// The text is there, but a blank line parts it from the package
			// clause, so go doc does not show it.
			t.Logf("%s/doc.go: the comment is detached from the package clause (blank line); go doc shows nothing", dir)
		default:
			t.Errorf("%s: package has no package comment; add a doc.go saying what it is for and what must stay true", dir)
		}
	}
}

func isArrowMemory(path string) bool {
	return (strings.HasPrefix(path, "github.com/apache/arrow-go/") || strings.HasPrefix(path, "github.com/apache/arrow/go/")) &&
		strings.HasSuffix(path, "/arrow/memory")
}

// checkSource reports a non-test file outside cmd/ that imports flag or
// names memory.DefaultAllocator.
func checkSource(fset *token.FileSet, name string, src any) (*findings, error) {
	f := &findings{}
	af, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return f, err
	}
	var memNames []string
	for _, imp := range af.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		switch {
		case path == "flag":
			f.fail("%s imports flag: only cmd/ reads flags (style.md §2.2 habit 5)", fset.Position(imp.Pos()))
		case isArrowMemory(path):
			local := "memory"
			if imp.Name != nil {
				local = imp.Name.Name
			}
			memNames = append(memNames, local)
		}
	}
	if len(memNames) == 0 {
		return f, nil
	}
	ast.Inspect(af, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "DefaultAllocator" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(memNames, x.Name) {
			f.fail("%s uses %s.DefaultAllocator: allocators are passed in; only cmd/ picks the default (style.md §2.2 habits 5 and 7)",
				fset.Position(sel.Pos()), x.Name)
		}
		return true
	})
	return f, nil
}

func TestNoFlagsOrDefaultAllocatorOutsideCmd(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	for _, gf := range goFiles(t, root) {
		if gf.test || gf.path == "cmd" || strings.HasPrefix(gf.path, "cmd/") {
			continue
		}
		f, err := checkSource(fset, filepath.Join(root, gf.path), nil)
		if err != nil {
			t.Logf("%s: %v (left to the compiler)", gf.path, err)
			continue
		}
		f.report(t)
	}
}

func TestTrackedFiles(t *testing.T) {
	root := moduleRoot(t)
	// Under CI=true a missing git fails instead of skipping.
	git := fixtures.Tool(t, "git", "git")
	cmd := exec.Command(git, "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		fixtures.Unavailable(t, "%s is not a git checkout (git ls-files: %v)", root, err)
	}
	const maxSize = 5 << 20
	for name := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		// sqllogictest corpus files are text named *.test; anything else
		// so named is a go test binary.
		if strings.HasSuffix(name, ".test") && !strings.HasPrefix(name, "regression/slt/testdata/") {
			t.Errorf("%s is tracked by git: a test binary; git rm --cached it (.gitignore has *.test)", name)
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue // removed in the work tree; git status shows it
		}
		if fi.Mode().IsRegular() && fi.Size() > maxSize {
			t.Errorf("%s is tracked by git and is %s: files over %s belong outside the repository or are made by a checked-in program",
				name, mb(fi.Size()), mb(maxSize))
		}
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
