package bind

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/fe/sql"
)

// executorFunctions lists the scalar function names exec/expr dispatches
// on: the string case labels of the switches in its *Func functions, read
// from its source, so a function added there is checked here without
// anyone remembering to list it.
func executorFunctions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "exec", "expr", "func*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("exec/expr sources: %v", err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasSuffix(fd.Name.Name, "Func") || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok {
					return true
				}
				if id, ok := sw.Tag.(*ast.Ident); !ok || (id.Name != "name" && id.Name != "lname") {
					return true
				}
				for _, s := range sw.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							seen[v] = true
						}
					}
				}
				return true
			})
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestEveryExecutorFunctionIsReachable (issue 15 defect 5): every scalar
// function the executor has can be called from SQL. A call with no
// arguments may fail on its arity or types, but never as an unknown
// function; the aggregates the executor has bind as aggregates.
func TestEveryExecutorFunctionIsReachable(t *testing.T) {
	names := executorFunctions(t)
	if len(names) < 50 {
		t.Fatalf("found only %d executor functions: %v", len(names), names)
	}
	b := New(context.Background(), &Session{Resolver: resolver{}, Now: time.Unix(0, 0)})
	for _, name := range names {
		for _, q := range []string{"SELECT " + name + "()", "SELECT " + name + "(1)", "SELECT " + name + "('2024-01-02', 1)"} {
			stmt, err := sql.Parse(q)
			if err != nil {
				// A keyword-named function (IF, LEFT, ...) parses only
				// with its arguments; one form parsing is enough.
				continue
			}
			_, err = b.BindQuery(stmt.(sql.Query))
			if err != nil && strings.Contains(err.Error(), "unsupported: function") {
				t.Errorf("%s: %v", q, err)
			}
		}
	}
	for _, agg := range []string{"count", "sum", "min", "max", "avg", "any_value", "group_concat"} {
		stmt, err := sql.Parse("SELECT " + agg + "(x) FROM (SELECT 1 AS x) d")
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.BindQuery(stmt.(sql.Query))
		if err != nil {
			t.Errorf("%s: %v", agg, err)
			continue
		}
		if !strings.Contains(strings.Join(Explain(p), "\n"), agg+"(") {
			t.Errorf("%s is not bound as an aggregate:\n%s", agg, strings.Join(Explain(p), "\n"))
		}
	}
}
