package bind

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dorisFunction is one line of testdata/doris_functions.txt.
type dorisFunction struct {
	kind, name, status string // status: have | missing
	line               int
}

func readDorisFunctions(t *testing.T) []dorisFunction {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "doris_functions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []dorisFunction
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 3 || (fs[2] != "have" && fs[2] != "missing") {
			t.Fatalf("doris_functions.txt:%d: want \"<kind> <name> have|missing [note]\", got %q", n, line)
		}
		out = append(out, dorisFunction{kind: fs[0], name: fs[1], status: fs[2], line: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// probeForms are calls a function of each kind is tried with: a function is
// reachable when one of them binds with no error at all (so a name the
// binder only recognises to refuse does not count).
func probeForms(kind, name string) []string {
	const from = " FROM (SELECT 1 AS x, 2 AS y, 'a' AS s, '2024-01-02' AS d) q"
	switch kind {
	case "aggregate":
		var qs []string
		for _, args := range []string{"x", "s", "x, y", "x, 0.5", "x, 1, 2", "s, ','", "x, s", "3600, 'default', d, x = 1, y = 2", "x, [0.5, 0.9]", "[x, y]", "x, y, 0.5", "'(?1)(?2)', d, x = 1, y = 2"} {
			qs = append(qs, "SELECT "+name+"("+args+")"+from)
		}
		return qs
	case "window":
		var qs []string
		for _, args := range []string{"", "x", "x, 1", "x, 1, 0", "2"} {
			qs = append(qs, "SELECT "+name+"("+args+") OVER (PARTITION BY y ORDER BY x)"+from)
		}
		return qs
	}
	// Operators Doris documents as functions.
	if name == "regexp" {
		return []string{"SELECT 'abc' REGEXP '^a'"}
	}
	var qs []string
	for _, args := range []string{"", "1", "'a'", "2.5", "'2024-01-02 03:04:05'", "1, 2", "'a', 'b'", "'a', 1",
		"2.5, 1", "'2024-01-02', 1", "'2024-01-02', '2024-01-03'", "'a', 1, 'b'", "1, 2, 3", "'a', 'b', 'c'",
		"'{\"k\": [1, 2]}'", "'{\"k\": [1, 2]}', '$.k'", "'k', 1", "'a', 1, 2",
		"'2024-01-02 03:04:05', 'UTC', '+08:00'", "DAY, '2024-01-02', '2024-01-03'", "DAY, 1, '2024-01-02'",
		"'2024-01-02', INTERVAL 1 DAY", "YEAR FROM '2024-01-02'", "'b' IN 'abc'", "'2024-01-02', 'day'",
		"'2024-01-02', '%Y-%m-%d'", "'{\"k\": 1}', '$.k', 2",
		"'abc', 1, 2, 'x'", "'https://a.b/c?d=1', 'HOST'", `'a b', '"parser"="english"'`,
		// Array functions.
		"[1, 2]", "[1, 2], 1", "[1, 2], [2, 3]", "[1, 2], ','", "[1, 2], 1, 1", "[[1, 2]]", "[1, 2], '=', 1",
		"1, [1, 2]", "x -> x, [1, 2]", "(s, x) -> s + x, [1, 2], 0",
		// Map and struct functions.
		"map(1, 2)", "map(1, 2), 1", "map(1, 2), map(3, 4)", "named_struct('a', 1), 'a'"} {
		qs = append(qs, "SELECT "+name+"("+args+")")
	}
	return qs
}

// reachable reports whether a function binds from SQL, with the first
// error seen when it does not.
func reachable(kind, name string) (bool, string) {
	first := ""
	for _, q := range probeForms(kind, name) {
		p, err := bindQuery(q)
		if err == nil {
			ex := strings.ToLower(strings.Join(Explain(p), "\n"))
			if kind == "aggregate" && !strings.Contains(ex, "aggregate") {
				if first == "" {
					first = q + ": not bound as an aggregate"
				}
				continue
			}
			return true, ""
		}
		if first == "" || strings.Contains(first, "parse") {
			first = q + ": " + err.Error()
		}
	}
	return false, first
}

// TestDorisFunctionList (issue 15): testdata/doris_functions.txt lists the
// functions Doris documents (scalar string, date/time, numeric, JSON,
// conditional, bitwise, hash, system; aggregate; window) and whether Inlet
// has each. A "have" function must bind from SQL; a "missing" one must not
// (so the list is updated when one is added).
func TestDorisFunctionList(t *testing.T) {
	fns := readDorisFunctions(t)
	if len(fns) < 250 {
		t.Fatalf("only %d functions listed", len(fns))
	}
	seen := map[string]int{}
	have := 0
	for _, f := range fns {
		key := f.kind + " " + f.name
		if prev, ok := seen[key]; ok {
			t.Errorf("doris_functions.txt:%d: %s listed again (line %d)", f.line, key, prev)
		}
		seen[key] = f.line
		ok, why := reachable(f.kind, f.name)
		switch {
		case f.status == "have" && !ok:
			t.Errorf("doris_functions.txt:%d: %s %s is listed as have but does not bind: %s", f.line, f.kind, f.name, why)
		case f.status == "missing" && ok:
			t.Errorf("doris_functions.txt:%d: %s %s is listed as missing but binds: mark it have", f.line, f.kind, f.name)
		}
		if f.status == "have" {
			have++
		}
		if os.Getenv("INLET_FUNCLIST_PROBE") != "" {
			st := "missing"
			if ok {
				st = "have"
			}
			t.Logf("PROBE %s %s %s", f.kind, f.name, st)
		}
	}
	t.Logf("%d of %d Doris functions bind", have, len(fns))
}
