package bind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/sql"
)

// schemaTable is a table known only by its schema: binding never reads rows,
// so these tests need nothing else.
type schemaTable struct {
	name string
	s    catalog.Schema
}

func (t *schemaTable) Name() string           { return t.name }
func (t *schemaTable) Schema() catalog.Schema { return t.s }
func (t *schemaTable) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, errors.New("binding must not scan")
}

type resolver map[string]catalog.Table

func (r resolver) ResolveTable(_ context.Context, name []string) (string, string, catalog.Table, error) {
	t, ok := r[strings.Join(name, ".")]
	if !ok {
		return "", "", nil, catalog.Errorf(catalog.ErrNotFound, "Table '%s' doesn't exist", strings.Join(name, "."))
	}
	return "ctl", "db", t, nil
}

func testResolver() resolver {
	t := &schemaTable{name: "t", s: catalog.Schema{Columns: []catalog.Column{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "tm", Type: arrow.Null, TypeName: "UNSUPPORTED", Unsupported: true, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}}}
	u := &schemaTable{name: "u", s: catalog.Schema{Columns: []catalog.Column{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}}}
	return resolver{"t": t, "u": u}
}

func bindQuery(q string) (Plan, error) {
	stmt, err := sql.Parse(q)
	if err != nil {
		return nil, err
	}
	b := New(context.Background(), &Session{Resolver: testResolver(), Now: time.Unix(0, 0),
		Var: func(name string, global bool) (any, error) {
			if name == "x" {
				return int64(7), nil
			}
			return nil, fmt.Errorf("no %s", name)
		}})
	return b.BindQuery(stmt.(sql.Query))
}

func TestBindPlans(t *testing.T) {
	cases := []struct {
		q    string
		want string // Explain lines joined by "; "
	}{
		{"SELECT b FROM t WHERE a > 1",
			"Project b;   Filter (a > 1);     Scan ctl.db.t [a, b] predicates=[`a` > 1]"},
		{"SELECT b FROM t WHERE 3 <= a AND b IN ('x', 'y') AND c BETWEEN 1.5 AND 2 AND b IS NOT NULL AND a + 1 > 2",
			"Project b;   Filter ((3 <= a) AND b IN ('x', 'y') AND (c >= 1.5) AND (c <= 2) AND b IS NOT NULL AND ((CAST(a AS bigint) + 1) > 2));     Scan ctl.db.t [a, b, c] predicates=[`a` >= 3 AND `b` IN ('x', 'y') AND `c` >= '1.5' AND `c` <= 2 AND `b` IS NOT NULL]"},
		{"SELECT t.b FROM t LEFT JOIN u ON t.a = u.a WHERE u.d IS NULL",
			"Project b;   Filter d IS NULL;     LEFT OUTER JOIN keys=[CAST(a AS bigint)] = [a];       Scan ctl.db.t [a, b];       Scan ctl.db.u [a, d]"},
		{"SELECT * EXCEPT(tm) FROM t",
			"Project a, b, c;   Scan ctl.db.t [a, b, c]"},
		{"SELECT count(*) FROM t",
			"Project count(*);   Aggregate groups=[] aggs=[count(*)];     Scan ctl.db.t [a]"},
		{"SELECT b, sum(a) FROM t GROUP BY b ORDER BY 2 DESC LIMIT 3",
			"Limit 3 offset 0;   Sort sum(a) DESC NULLS LAST;     Project b, sum(CAST(a AS bigint));       Aggregate groups=[b] aggs=[sum(CAST(a AS bigint))];         Scan ctl.db.t [a, b]"},
		{"SELECT t.b, u.d FROM t JOIN u ON t.a = u.a AND u.d > '2026-01-01'",
			"Project b, d;   INNER JOIN keys=[CAST(a AS bigint)] = [a] residual=(d > '2026-01-01');     Scan ctl.db.t [a, b];     Scan ctl.db.u [a, d]"},
		{"SELECT @@x + 1",
			"Project (7 + 1);   Values rows=1"},
	}
	for _, c := range cases {
		p, err := bindQuery(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := strings.Join(Explain(p), "; "); got != c.want {
			t.Errorf("%s:\n got: %s\nwant: %s", c.q, got, c.want)
		}
	}
}

func TestBindErrors(t *testing.T) {
	cases := []struct {
		q    string
		kind error
		msg  string
	}{
		{"SELECT * FROM t", ErrUnsupported, "column 'tm' of table t has a type this engine cannot read (UNSUPPORTED)"},
		{"SELECT tm FROM t", ErrUnsupported, "column 'tm'"},
		{"SELECT nope FROM t", ErrUnknownColumn, "Unknown column 'nope'"},
		{"SELECT a FROM t JOIN u ON t.a = u.a", ErrAmbiguous, "Column 'a' in field list is ambiguous"},
		{"SELECT b, a FROM t GROUP BY b", ErrAnalysis, "a not in aggregate's output"},
		{"SELECT t.b, t.a FROM t GROUP BY t.b", ErrAnalysis, "a not in aggregate's output"},
		{"SELECT b FROM t GROUP BY b HAVING t.a > 1", ErrAnalysis, "a not in aggregate's output"},
		{"SELECT a FROM t WHERE sum(a) > 1", ErrAnalysis, "aggregate functions are not allowed in WHERE"},
		{"SELECT * FROM nosuch", catalog.ErrNotFound, "Table 'nosuch' doesn't exist"},
		{"SELECT a FROM t ORDER BY 5", ErrUnknownColumn, "Unknown column '5' in 'order clause'"},
		{"SELECT @@y", nil, "no y"},
	}
	for _, c := range cases {
		_, err := bindQuery(c.q)
		if err == nil || (c.kind != nil && !errors.Is(err, c.kind)) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want %v containing %q", c.q, err, c.kind, c.msg)
		}
	}
}
