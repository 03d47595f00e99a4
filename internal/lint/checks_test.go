package lint

import (
	"go/token"
	"slices"
	"strings"
	"testing"
)

// The checks must fail on the violations they exist for: run them over a
// made-up module that commits each one, with the real rule table.

// fakeRepo builds a repo from "pkg: import import ..." lines; a "[test]"
// element moves the imports after it to TestImports. Imports are the
// module's own (written relative to it) unless they have a dot in their first
// element or are one of the few standard packages the cases use.
func fakeRepo(lines ...string) *repo {
	const mod = "example.com/m"
	std := []string{"fmt", "strings", "encoding/json", "path/filepath"}
	r := &repo{module: mod, pkgs: map[string]*goPackage{}}
	for _, l := range lines {
		name, imps, _ := strings.Cut(l, ":")
		p := &goPackage{ImportPath: mod + "/" + name}
		test := false
		for _, imp := range strings.Fields(imps) {
			if imp == "[test]" {
				test = true
				continue
			}
			if isStd(imp) && !slices.Contains(std, imp) {
				imp = mod + "/" + imp
			}
			if test {
				p.TestImports = append(p.TestImports, imp)
			} else {
				p.Imports = append(p.Imports, imp)
			}
		}
		r.pkgs[name] = p
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r
}

// wantFailures checks that every wanted fragment appears in some failure
// and that there are exactly as many failures as wanted.
func wantFailures(t *testing.T, f *findings, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(f.errs, func(e string) bool { return strings.Contains(e, w) }) {
			t.Errorf("no failure mentions %q; failures:\n%s", w, strings.Join(f.errs, "\n"))
		}
	}
	if len(f.errs) != len(want) {
		t.Errorf("%d failures, want %d:\n%s", len(f.errs), len(want), strings.Join(f.errs, "\n"))
	}
}

func TestCheckLayersBites(t *testing.T) {
	r := fakeRepo(
		"fe/sql: fmt strings example.com/x/lexer",
		"typemap: encoding/json github.com/apache/arrow-go/v18/arrow github.com/google/uuid",
		"catalog/fluss/record: typemap proto/flusspb lake/paimon",
		"lake/paimon: fileio typemap lake/orc",
		"lake/orc: lake/paimon",
		"fe/mysqlwire: vitess.io/vitess/go/mysql exec/render fe/server",
		"exec/render: github.com/apache/arrow-go/v18/arrow",
		"fe/server: fe/mysqlwire scan",
		"regression: [test] internal/fixtures",
		"scan: fileio",
		"fileio: github.com/aws/aws-sdk-go-v2/service/s3",
		"proto/flusspb: google.golang.org/protobuf/proto",
		"proto/flussapi: fmt",
		"internal/fixtures: path/filepath",
		"minifluss: proto/flusspb catalog/fluss/record lake/paimon/writer",
	)
	wantFailures(t, checkLayers(r, layers()),
		"fe/sql imports example.com/x/lexer",
		"typemap imports github.com/google/uuid",
		"catalog/fluss/record imports lake/paimon",
		"lake/orc imports lake/paimon",
		"fe/mysqlwire imports fe/server",
		"fe/server imports scan",
	)
}

func TestCheckReachesBites(t *testing.T) {
	r := fakeRepo(
		"minifluss: catalog/fluss/record [test] internal/flusstest",
		"internal/flusstest: catalog/fluss/client",
		"catalog/fluss/client: catalog/fluss/record [test] minifluss",
		"catalog/fluss/record: typemap",
		"typemap:",
		"planner: catalog/fluss/client internal/flusstest",
		"internal/mflike: minifluss",
		"internal/minitest: minifluss",
		"cmd/minifluss: minifluss",
		"scan: catalog/fluss/client internal/tables",
		"internal/tables: catalog",
		"catalog: typemap",
		"regression: [test] internal/fixtures catalog",
		"internal/fixtures:",
	)
	wantFailures(t, checkReaches(r, reaches()),
		// minifluss's own tests reach the client through a helper.
		"tests of minifluss import catalog/fluss/client (minifluss [test] → internal/flusstest → catalog/fluss/client)",
		// A production package imports the emulator; a test helper
		// (internal/minitest), cmd/minifluss and the client's tests may.
		"internal/mflike imports minifluss",
		"scan imports catalog (scan → internal/tables → catalog)",
		"tests of regression import catalog",
	)
}

func TestCheckCyclesBites(t *testing.T) {
	r := fakeRepo(
		"a: b",
		"b: c",
		"c: a",
		"d: [test] e",
		"e: d",
	)
	wantFailures(t, checkCycles(r),
		"import cycle: a → b → c → a",
		"import cycle: b → c → a → b",
		"import cycle: c → a → b → c",
		"import cycle in tests of d: d [test] → e → d",
	)
}

func TestCheckSourceBites(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"flag", "package p\nimport \"flag\"\nvar _ = flag.Int", []string{"imports flag"}},
		{"default allocator", "package p\nimport \"github.com/apache/arrow-go/v18/arrow/memory\"\nvar _ = memory.DefaultAllocator",
			[]string{"uses memory.DefaultAllocator"}},
		{"renamed import", "package p\nimport mem \"github.com/apache/arrow-go/v18/arrow/memory\"\nfunc f() { _ = mem.DefaultAllocator }",
			[]string{"uses mem.DefaultAllocator"}},
		{"allocator passed in", "package p\nimport \"github.com/apache/arrow-go/v18/arrow/memory\"\nfunc f(m memory.Allocator) { _ = memory.NewCheckedAllocator(m) }", nil},
		{"other DefaultAllocator", "package p\ntype x struct{ DefaultAllocator int }\nvar memory x\nvar _ = memory.DefaultAllocator", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := checkSource(token.NewFileSet(), "p.go", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			wantFailures(t, f, tc.want...)
		})
	}
}
