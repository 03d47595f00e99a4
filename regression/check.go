package regression

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ScanFields parses the n-th (1-based) "flussScan:" line of an EXPLAIN text
// into its key=value fields, in the spec's format
// "flussScan: readMode=default, unionRead=yes, ..., mode=auto[, degraded=x]".
// Fields printed elsewhere (partition=1/3, paimonNativeReadSplits=N/M) are
// taken from the occurrence nearest that line, or the first one anywhere
// when there is no flussScan line.
func ScanFields(explain string, n int) (map[string]string, bool) {
	out := map[string]string{}
	lines := strings.Split(explain, "\n")
	seen, at := 0, -1
	for i, l := range lines {
		if _, after, ok := strings.Cut(l, "flussScan:"); ok {
			seen++
			if seen == n {
				at = i
				for _, kv := range strings.Split(after, ",") {
					k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
					if ok {
						out[k] = v
					}
				}
				break
			}
		}
	}
	if at < 0 && n > 1 {
		return out, false
	}
	// Node-level counters: the occurrence nearest to the n-th flussScan
	// line between its neighbours, or the first anywhere without one.
	lo, hi := 0, len(lines)
	if at >= 0 {
		for i := at - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "flussScan:") {
				lo = i + 1
				break
			}
		}
		for i := at + 1; i < len(lines); i++ {
			if strings.Contains(lines[i], "flussScan:") {
				hi = i
				break
			}
		}
	}
	for _, f := range []string{"partition", "paimonNativeReadSplits"} {
		if _, ok := out[f]; ok {
			continue
		}
		re := regexp.MustCompile(`\b` + f + `=([^,\s]+)`)
		best := -1
		for i := lo; i < hi; i++ {
			m := re.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			if best < 0 || at >= 0 && abs(i-at) < abs(best-at) {
				best = i
				out[f] = m[1]
			}
		}
	}
	return out, at >= 0
}

// Check evaluates one assertion against an EXPLAIN text; the error says
// what was expected and what the text holds.
func (a Assertion) Check(explain string) error {
	switch a.Kind {
	case "contains":
		if !strings.Contains(explain, a.Arg) {
			return fmt.Errorf("EXPLAIN does not contain %q", a.Arg)
		}
		return nil
	case "!contains":
		if strings.Contains(explain, a.Arg) {
			return fmt.Errorf("EXPLAIN contains %q", a.Arg)
		}
		return nil
	case "matches":
		if !a.Re.MatchString(explain) {
			return fmt.Errorf("EXPLAIN does not match /%s/", a.Arg)
		}
		return nil
	}
	fields, ok := ScanFields(explain, a.Scan)
	if a.Scan > 1 && !ok {
		return fmt.Errorf("EXPLAIN has fewer than %d flussScan lines", a.Scan)
	}
	if a.Kind == "absent" {
		if v, ok := fields[a.Arg]; ok {
			return fmt.Errorf("%s=%s present, want it absent", a.Arg, v)
		}
		return nil
	}
	vals := make([]string, len(a.Operands))
	for i, o := range a.Operands {
		if o.Field == "" {
			vals[i] = o.Lit
			continue
		}
		v, ok := fields[o.Field]
		if !ok {
			if !strings.Contains(explain, "flussScan:") && o.Field != "partition" && o.Field != "paimonNativeReadSplits" {
				return fmt.Errorf("%s: EXPLAIN has no flussScan line", a.Text)
			}
			return fmt.Errorf("%s: field %s not in EXPLAIN", a.Text, o.Field)
		}
		vals[i] = v
	}
	for i, op := range a.Ops {
		ok, err := compare(vals[i], op, vals[i+1])
		if err != nil {
			return fmt.Errorf("%s: %v", a.Text, err)
		}
		if !ok {
			return fmt.Errorf("%s: got %s", a.Text, describe(a, vals))
		}
	}
	return nil
}

func describe(a Assertion, vals []string) string {
	var parts []string
	for i, o := range a.Operands {
		if o.Field != "" {
			parts = append(parts, o.Field+"="+vals[i])
		}
	}
	return strings.Join(parts, ", ")
}

func compare(l, op, r string) (bool, error) {
	li, lerr := strconv.ParseInt(l, 10, 64)
	ri, rerr := strconv.ParseInt(r, 10, 64)
	if lerr == nil && rerr == nil {
		switch op {
		case "=":
			return li == ri, nil
		case "!=":
			return li != ri, nil
		case "<":
			return li < ri, nil
		case "<=":
			return li <= ri, nil
		case ">":
			return li > ri, nil
		case ">=":
			return li >= ri, nil
		}
	}
	switch op {
	case "=":
		return l == r, nil
	case "!=":
		return l != r, nil
	}
	return false, fmt.Errorf("%q %s %q: ordering needs two integers", l, op, r)
}

// DiffRows compares expected and actual suite lines (sorted first when
// sorted is set) and describes the first differences, or returns "".
func DiffRows(want, got []string, sorted bool) string {
	if sorted {
		want, got = slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(got))
	}
	if slices.Equal(want, got) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d rows, want %d", len(got), len(want))
	shown := 0
	for i := 0; i < max(len(want), len(got)) && shown < 8; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		} else {
			w = "(none)"
		}
		if i < len(got) {
			g = got[i]
		} else {
			g = "(none)"
		}
		if w != g {
			fmt.Fprintf(&b, "\n  row %d: got  %s\n         want %s", i+1, g, w)
			shown++
		}
	}
	return b.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
