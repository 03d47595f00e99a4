package planner_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/planner"
)

var update = flag.Bool("update", false, "rewrite testdata expectations")

// TestPlanData runs testdata/plan: each case is
//
//	plan table=<t> [view=lake|log] [mode=<catalog mode>] [session=<v>] [setvar=<v>]
//	     [cap=<per-bucket>/<total>] [tz=true] [warehouse=wrong] [where=<col><op><value>]...
//	----
//	<partition= line and flussScan / paimonNativeReadSplits line, or error: text>
//
// session= and setvar= both arrive as Vars["fluss_union_read_mode"], which
// is how the FE hands SET and SET_VAR to the planner; an empty value means
// "follow the catalog".
func TestPlanData(t *testing.T) {
	e := testEnv(t)
	path := filepath.Join("testdata", "plan")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := strings.Split(string(b), "\n\n")
	var out strings.Builder
	for i, c := range cases {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		cmd, want, ok := strings.Cut(c, "\n----\n")
		if !ok {
			cmd, want = strings.TrimSuffix(c, "\n----"), ""
		}
		var comments []string
		lines := strings.Split(cmd, "\n")
		for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
			comments = append(comments, lines[0])
			lines = lines[1:]
		}
		cmd = strings.Join(lines, "\n")
		got := runCase(t, e, cmd)
		if !*update && strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("case %d: %s\n got:\n%s\nwant:\n%s", i, cmd, got, want)
		}
		if len(comments) > 0 {
			out.WriteString(strings.Join(comments, "\n") + "\n")
		}
		fmt.Fprintf(&out, "%s\n----\n%s\n\n", cmd, strings.TrimSpace(got))
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.TrimSpace(out.String())+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runCase(t *testing.T, e *env, cmd string) string {
	t.Helper()
	fields := strings.Fields(cmd)
	if len(fields) == 0 || fields[0] != "plan" {
		t.Fatalf("unknown command %q", cmd)
	}
	var (
		table, wh string
		view      = fluss.ReadDefault
		opts      fluss.Options
		req       = planner.Request{QueryID: "q", Limit: -1, Vars: map[string]string{}}
	)
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "table":
			table = v
		case "view":
			view = map[string]fluss.ReadMode{"lake": fluss.ReadLake, "log": fluss.ReadLog}[v]
		case "mode":
			opts.UnionMode = v
		case "session", "setvar":
			req.Vars["fluss_union_read_mode"] = v
		case "cap":
			a, b, _ := strings.Cut(v, "/")
			opts.MaxTailRows, _ = strconv.ParseInt(a, 10, 64)
			opts.MaxTotalTailRows, _ = strconv.ParseInt(b, 10, 64)
		case "tz":
			opts.MapTimestampTZ = v == "true"
		case "warehouse":
			wh = filepath.Join(e.warehouse, "..", "no-such-warehouse")
		case "where":
			req.Predicates = append(req.Predicates, parsePredicate(t, v))
		default:
			t.Fatalf("unknown argument %q", f)
		}
	}
	st := e.target(t, table, view, opts, wh)
	res, ok, err := planner.Plan(context.Background(), &testTable{st: st}, req)
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), filepath.Dir(e.warehouse), "$TMP")
	}
	if !ok {
		t.Fatalf("%s: not planned", table)
	}
	checkFragment(t, res)
	var keep []string
	for _, l := range res.Lines {
		if strings.HasPrefix(l, "partition=") || strings.HasPrefix(l, "flussScan:") || strings.HasPrefix(l, "paimonNativeReadSplits=") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// parsePredicate reads col=v, col<v, ...: 'text' is a string, null is
// NULL, anything else an integer.
func parsePredicate(t *testing.T, s string) catalog.Predicate {
	for _, op := range []string{"<=", ">=", "!=", "=", "<", ">"} {
		if i := strings.Index(s, op); i > 0 {
			raw := s[i+len(op):]
			var v any
			switch {
			case strings.HasPrefix(raw, "'"):
				v = strings.Trim(raw, "'")
			case raw == "null":
			default:
				n, err := strconv.ParseInt(raw, 10, 64)
				if err != nil {
					t.Fatalf("bad constant %q", raw)
				}
				v = n
			}
			return catalog.Predicate{Column: s[:i], Op: op, Values: []any{v}}
		}
	}
	t.Fatalf("bad predicate %q", s)
	return catalog.Predicate{}
}

// checkFragment checks what every plan must satisfy: the counts on the
// EXPLAIN line are the fragment's own ranges, ids are unique, and every
// range of one (partition, bucket) shares its affinity.
func checkFragment(t *testing.T, res *planner.Result) {
	t.Helper()
	c := res.Counts
	var lake, sup, log, pk, tail int
	ids := map[int64]bool{}
	for _, r := range res.Fragment.Ranges {
		if ids[r.Id] {
			t.Errorf("duplicate range id %d", r.Id)
		}
		ids[r.Id] = true
		switch r.Type.String() {
		case "LAKE":
			lake++
		case "LAKE_SUPPRESS":
			lake++
			sup++
			want := fmt.Sprintf("b%d", r.Tail.Bucket)
			if r.Tail.HasPartition {
				want = fmt.Sprintf("p%d/b%d", r.Tail.PartitionId, r.Tail.Bucket)
			}
			if r.Affinity != want || r.Bucket != r.Tail.Bucket {
				t.Errorf("suppressed split of bucket %d has affinity %q, tail %v", r.Bucket, r.Affinity, r.Tail)
			}
		case "LOG":
			log++
		case "PK_FULL":
			pk++
		case "PK_TAIL":
			tail++
		}
	}
	if res.Counts.ReadMode != "lake" && (lake != c.LakeSplits || sup != c.SuppressedLakeSplits || log != c.LogRanges || pk != c.PKRanges || tail != c.PKTailRanges) {
		t.Errorf("counts %+v disagree with ranges lake=%d sup=%d log=%d pk=%d tail=%d", c, lake, sup, log, pk, tail)
	}
	if len(res.Fragment.OutputSchema) == 0 {
		t.Errorf("no output schema")
	}
}
