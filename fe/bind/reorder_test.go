package bind

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/sql"
)

// countedTable is a table that reports a row count, like a Fluss table.
type countedTable struct {
	schemaTable
	rows int64
}

func (t *countedTable) RowCount(context.Context) (int64, error) { return t.rows, nil }

func counted(name string, rows int64, cols ...string) *countedTable {
	var cs []catalog.Column
	for _, c := range cols {
		cs = append(cs, catalog.Column{Name: c, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	return &countedTable{schemaTable: schemaTable{name: name, s: catalog.Schema{Columns: cs}}, rows: rows}
}

func bindWith(t *testing.T, r resolver, q string) Plan {
	t.Helper()
	stmt, err := sql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), &Session{Resolver: r, Now: time.Unix(0, 0)}).BindQuery(stmt.(sql.Query))
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return p
}

// scanOrder lists the tables of a plan's scans in tree order (left first).
func scanOrder(p Plan) []string {
	var out []string
	var walk func(p Plan)
	walk = func(p Plan) {
		if s, ok := p.(*Scan); ok {
			out = append(out, s.Table.Name())
		}
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(p)
	return out
}

// TestJoinOrderAvoidsCrossProducts: the binder keeps FROM order (the order
// by cost is fe/opt's, row counts or not), except that an input with no
// equality to what is already joined waits: no cross product.
func TestJoinOrderAvoidsCrossProducts(t *testing.T) {
	r := resolver{
		"small": counted("small", 10, "k", "s"),
		"big":   counted("big", 1_000_000, "k", "m", "v"),
		"mid":   counted("mid", 1_000, "m", "w"),
	}
	p := bindWith(t, r, "SELECT * FROM mid, small, big WHERE small.k = big.k AND big.m = mid.m")
	if got := strings.Join(scanOrder(p), ","); got != "mid,big,small" {
		t.Errorf("order %s, want mid,big,small\n%s", got, strings.Join(Explain(p), "\n"))
	}
	// SELECT * keeps FROM order.
	var names []string
	for _, c := range p.Columns() {
		names = append(names, c.Qualifier+"."+c.Name)
	}
	if got := strings.Join(names, ","); got != "mid.m,mid.w,small.k,small.s,big.k,big.m,big.v" {
		t.Errorf("columns %s", got)
	}
	// Every join has its equality as a hash key: no cross product.
	plan := strings.Join(Explain(p), "\n")
	if strings.Contains(plan, "CROSS JOIN") || strings.Count(plan, "INNER JOIN keys=") != 2 {
		t.Errorf("joins without keys:\n%s", plan)
	}
	// A table without a count keeps the FROM order, except that an input
	// with no equality to what is already joined waits: no cross product.
	r["plain"] = &schemaTable{name: "plain", s: catalog.Schema{Columns: []catalog.Column{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}}}
	r["plain2"] = &schemaTable{name: "plain2", s: catalog.Schema{Columns: []catalog.Column{{Name: "j", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}}}
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM plain, small, big WHERE plain.k = small.k AND small.k = big.k", "plain,small,big"},
		{"SELECT * FROM plain, big, small WHERE plain.k = small.k AND small.k = big.k", "plain,small,big"},
		{"SELECT * FROM plain2, big, mid, plain WHERE plain2.j = plain.k AND big.m = mid.m AND mid.w = plain.k", "plain2,plain,mid,big"},
	} {
		p = bindWith(t, r, c.q)
		if got := strings.Join(scanOrder(p), ","); got != c.want {
			t.Errorf("%s: order %s, want %s", c.q, got, c.want)
		}
		if plan := strings.Join(Explain(p), "\n"); strings.Contains(plan, "CROSS JOIN") {
			t.Errorf("%s: cross product:\n%s", c.q, plan)
		}
	}
	// Outer joins keep their order.
	p = bindWith(t, r, "SELECT * FROM small LEFT JOIN big ON small.k = big.k JOIN mid ON mid.m = big.m")
	if got := strings.Join(scanOrder(p), ","); got != "small,big,mid" {
		t.Errorf("order %s, want FROM order", got)
	}
}
