package slt

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	flagPath = flag.String("slt.path", "testdata/corpus",
		"comma-separated sqllogictest files or directories (searched for *.test); a checkout of the corpus's test/ runs it whole")
	flagFE       = flag.String("slt.fe", "", "host:port of a running FE to use instead of building and starting cmd/fe")
	flagReport   = flag.Bool("slt.report", false, "report pass rates without failing on mismatches (an FE crash still fails)")
	flagFailures = flag.Int("slt.failures", 5, "failures printed per file")
	flagTimeout  = flag.Duration("slt.timeout", 30*time.Second, "time limit of one record")
	flagSkips    = flag.String("slt.skiplist", "skiplist.txt", "skip list (see SkipList)")
	flagSlow     = flag.Duration("slt.slow", 0, "log the records that take longer than this")
)

// corpusFiles expands the -slt.path arguments into (path, rel) pairs; rel is
// the path under the argument directory (or under a "test/" component for a
// file), so the committed subset and a checkout name files alike.
func corpusFiles(t *testing.T) (paths, rels []string) {
	t.Helper()
	for _, arg := range strings.Split(*flagPath, ",") {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() {
			paths, rels = append(paths, arg), append(rels, relName(arg, filepath.Base(arg)))
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".test") {
				return nil
			}
			rel, err := filepath.Rel(arg, p)
			if err != nil {
				return err
			}
			paths, rels = append(paths, p), append(rels, relName(p, filepath.ToSlash(rel)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) == 0 {
		t.Fatalf("no *.test files under %s", *flagPath)
	}
	return paths, rels
}

// relName names a file as the corpus does (the path under its test/ or
// under testdata/corpus/), else by fallback.
func relName(p, fallback string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fallback
	}
	abs = filepath.ToSlash(abs)
	for _, mark := range []string{"/testdata/corpus/", "/test/"} {
		if i := strings.LastIndex(abs, mark); i >= 0 {
			return abs[i+len(mark):]
		}
	}
	return fallback
}

// TestCorpus runs the sqllogictest files against an FE it starts (or the
// one -slt.fe names). It fails on any record that differs from the file and
// is not in the skip list, and on an FE crash. Per-directory pass rates go
// to the log:
//
//	go test ./regression/slt -run TestCorpus -v                      # the committed subset
//	go test ./regression/slt -run TestCorpus -v -timeout 0 -slt.report -slt.path /tmp/slt/test
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the corpus starts an FE")
	}
	paths, rels := corpusFiles(t)
	skips, err := LoadSkipList(*flagSkips)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var alive func() error
	logs := func() string { return "" }
	addr := *flagFE
	if addr == "" {
		p, a := startFE(t, ctx)
		addr, alive, logs = a, p.alive, p.tail
	}
	r := &Runner{
		DB: openDB(t, addr, logs), Engine: "mysql", Skips: skips, QueryTimeout: *flagTimeout, Alive: alive, Slow: *flagSlow,
		Setup: []string{fmt.Sprintf("SET query_timeout = %d", int(flagTimeout.Seconds())+1)},
	}
	var results []FileResult
	start := time.Now()
	for i, p := range paths {
		fs := time.Now()
		res := r.RunFile(ctx, p, rels[i])
		results = append(results, res)
		t.Logf("%s: %d passed, %d failed, %d skipped (list), %d not for mysql, %v",
			res.File, res.Passed, res.Failed, res.Skipped, res.NotForEngine, time.Since(fs).Round(time.Millisecond))
		if res.Err != nil {
			t.Errorf("%s: %v", res.File, res.Err)
		}
		for j, f := range res.Failures {
			if j >= *flagFailures {
				t.Logf("  … %d more failures in %s", len(res.Failures)-j, res.File)
				break
			}
			if *flagReport {
				t.Logf("%s", f)
			} else {
				t.Errorf("%s", f)
			}
		}
		for _, sl := range res.Slow {
			t.Logf("slow: %s", sl)
		}
		if res.Crash != nil {
			t.Fatalf("%v", res.Crash)
		}
	}
	sums := Summarize(results)
	var all Summary
	for _, s := range sums {
		t.Logf("%-32s files %3d  passed %7d  failed %6d  skipped %6d  rate %.2f%%", s.Dir, s.Files, s.Passed, s.Failed, s.Skipped, 100*s.Rate())
		all.Files += s.Files
		all.Passed += s.Passed
		all.Failed += s.Failed
		all.Skipped += s.Skipped
	}
	t.Logf("%-32s files %3d  passed %7d  failed %6d  skipped %6d  rate %.2f%%  in %v", "TOTAL", all.Files, all.Passed, all.Failed, all.Skipped, 100*all.Rate(), time.Since(start).Round(time.Second))
	var hit []string
	for line, n := range skips.Hits {
		hit = append(hit, fmt.Sprintf("skiplist.txt:%d skipped %d", line, n))
	}
	sort.Strings(hit)
	for _, h := range hit {
		t.Log(h)
	}
}
