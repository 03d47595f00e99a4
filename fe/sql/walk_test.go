package sql

import (
	"fmt"
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	stmt, err := Parse(`WITH c AS (SELECT k FROM u) SELECT a, sum(b) OVER (PARTITION BY d ORDER BY e ROWS 2 PRECEDING)
		FROM t JOIN c ON t.k = c.k WHERE x IN (SELECT y FROM v) AND CASE WHEN p THEN q ELSE r END
		GROUP BY g HAVING count(*) > 1 ORDER BY h LIMIT 1`)
	if err != nil {
		t.Fatal(err)
	}
	var cols, tables []string
	Walk(stmt, func(n Node) bool {
		switch n := n.(type) {
		case *ColumnRef:
			cols = append(cols, strings.Join(n.Parts, "."))
		case *TableRef:
			tables = append(tables, n.Name.String())
		}
		return true
	})
	if got, want := strings.Join(cols, " "), "k a b d e t.k c.k x y p q r g h"; got != want {
		t.Errorf("columns: got %q, want %q", got, want)
	}
	if got, want := fmt.Sprint(tables), "[u t c v]"; got != want {
		t.Errorf("tables: got %q, want %q", got, want)
	}
	// Returning false prunes: subqueries are not entered.
	var n int
	Walk(stmt, func(node Node) bool {
		if _, ok := node.(*ColumnRef); ok {
			n++
		}
		_, sub := node.(*Subquery)
		_, in := node.(*InExpr)
		return !sub && !in
	})
	if n != 12 {
		t.Errorf("pruned walk saw %d columns, want 12", n)
	}
}
