package server

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayering keeps the FE packages' direct imports of Inlet packages to
// what the house plan allows (style.md §3; fe/bind also builds exec/expr
// IR, as its task says).
func TestLayering(t *testing.T) {
	const mod = "github.com/inlet-db/inlet/"
	allowed := map[string][]string{
		"catalog":         {"typemap"},
		"catalog/local":   {"catalog", "catalog/colstats", "typemap"},
		"catalog/manager": {"catalog"},
		"fe/vars":         {},
		"fe/mysqlwire":    {"exec/render"},
		"fe/bind":         {"fe/sql", "catalog", "typemap", "exec/expr", "fe/vars"},
		"fe/physical":     {"fe/bind", "exec", "exec/", "planner", "catalog", "proto/inletpb"},
		// fe/server and cmd/fe serve Stream Load (load/streamload decodes
		// bodies; the FE commits them).
		"fe/server": {"fe/", "exec", "exec/", "catalog", "catalog/", "planner", "dispatch", "proto/inletpb", "typemap", "load/"},
		"cmd/fe":    {"fe/server", "fe/flightsql", "fe/webui", "catalog", "catalog/", "fileio", "scan", "dispatch", "planner", "minifluss", "load/"},
	}
	root := filepath.Join("..", "..")
	for pkg, ok := range allowed {
		dir := filepath.Join(root, pkg)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, e := range ents {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(path, mod) {
					continue
				}
				rel := strings.TrimPrefix(path, mod)
				if strings.HasPrefix(rel, "internal/") {
					continue // leaves every layer may import (internal/lint checks them)
				}
				fine := false
				for _, a := range ok {
					if rel == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a)) {
						fine = true
					}
				}
				if !fine {
					t.Errorf("%s/%s imports %s, which its layer may not", pkg, name, rel)
				}
			}
		}
	}
}
