package regression

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// QueryTimeout bounds one statement.
const QueryTimeout = 3 * time.Minute

// Outcome is what running one block found.
type Outcome struct {
	// Rows are the query's rows as suite lines (nil when it did not run
	// or failed); -update writes them.
	Rows []string
	// Failures describe every expectation that did not hold.
	Failures []string
	// Skip, when set, says why the block did not run.
	Skip string
}

// Missing returns the capabilities in need that the environment lacks.
func (e *Env) Missing(need []string) []string {
	var out []string
	for _, c := range need {
		if !e.Caps[c] {
			out = append(out, c)
		}
	}
	return out
}

// Expand substitutes the placeholders of sql; ctl is the catalog.
func (e *Env) Expand(sql, ctl string) string {
	return placeholderRe.ReplaceAllStringFunc(sql, func(m string) string {
		name := m[2 : len(m)-1]
		if name == "ctl" {
			return ctl
		}
		return e.Vars[name]
	})
}

// Run runs one block on conn (one connection per suite, so SET, USE and
// SWITCH carry over between blocks as they do in a session).
func (e *Env) Run(ctx context.Context, conn *sql.Conn, b *Block) Outcome {
	var o Outcome
	if miss := e.Missing(b.Requires); len(miss) > 0 {
		o.Skip = "needs " + strings.Join(miss, ", ")
		return o
	}
	fail := func(format string, args ...any) {
		o.Failures = append(o.Failures, e.Redact(fmt.Sprintf(format, args...)))
	}
	q := e.Expand(b.SQL, b.Catalog)
	if b.Kind == "statement" {
		ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
		defer cancel()
		_, err := conn.ExecContext(ctx, q)
		checkErr(b, err, fail)
		return o
	}
	if b.Explain != nil {
		text, err := explain(ctx, conn, q)
		if err != nil {
			fail("EXPLAIN failed: %v", err)
		} else {
			for _, a := range b.Explain {
				if err := a.Check(text); err != nil {
					fail("line %d: %v", a.Line, err)
				}
			}
			if len(o.Failures) > 0 {
				fail("EXPLAIN was:\n%s", indent(text))
			}
		}
	}
	if b.Result == nil && b.Error == "" && len(b.SameAs) == 0 && len(b.Contains) == 0 {
		return o // an EXPLAIN-only block
	}
	rows, err := query(ctx, conn, q)
	if b.Error != "" || err != nil {
		checkErr(b, err, fail)
		return o
	}
	o.Rows = rows
	if b.Result != nil {
		if d := DiffRows(b.Result.Rows, rows, b.Result.Sorted); d != "" {
			fail("result: %s", d)
		}
	}
	if len(b.Contains) > 0 {
		var all []string
		for _, r := range rows {
			all = append(all, unescape(r))
		}
		text := strings.Join(all, "\n")
		for _, c := range b.Contains {
			if !strings.Contains(text, c) {
				fail("rows do not contain %q; rows:\n%s", c, indent(text))
			}
		}
	}
	for _, other := range b.SameAs {
		alt, err := query(ctx, conn, e.Expand(b.SQL, other))
		if err != nil {
			fail("same-as %s: %v", other, err)
			continue
		}
		if d := DiffRows(rows, alt, true); d != "" {
			fail("same-as %s: rows differ from %s (want = %s, got = %s): %s", other, b.Catalog, b.Catalog, other, d)
		}
	}
	return o
}

func checkErr(b *Block, err error, fail func(string, ...any)) {
	switch {
	case b.Error == "" && err != nil:
		fail("%v", err)
	case b.Error != "" && err == nil:
		fail("succeeded, want an error containing %q", b.Error)
	case b.Error != "" && !strings.Contains(err.Error(), b.Error):
		fail("error %q does not contain %q", err.Error(), b.Error)
	}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// explain returns the first column of EXPLAIN's rows joined by newlines,
// the way the Doris suites read plans.
func explain(ctx context.Context, conn *sql.Conn, q string) (string, error) {
	rows, err := query(ctx, conn, "EXPLAIN "+q)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range rows {
		first, _, _ := strings.Cut(r, "\t")
		b.WriteString(unescape(first))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

func unescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\N`, "NULL", `\E`, "").Replace(s)
}

// query runs q and renders its rows as suite lines.
func query(ctx context.Context, conn *sql.Conn, q string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	rs, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	out := []string{}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		out = append(out, EscapeRow(row))
	}
	return out, rs.Err()
}

// UpdatedRows is what -update writes for a result: the actual rows, sorted
// when the section is.
func UpdatedRows(r *Result, rows []string) []string {
	if r.Sorted {
		return slices.Sorted(slices.Values(rows))
	}
	return rows
}
