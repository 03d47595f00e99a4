package sql_test

import (
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/fe/sql"
)

func ExampleParse() {
	stmt, err := sql.Parse("SELECT /*+ SET_VAR(fluss_union_read_mode='required') */ k, count(*) FROM fluss.db.`tbl$lake` WHERE dt = '20260101' GROUP BY k")
	if err != nil {
		panic(err)
	}
	sel := stmt.(*sql.Select)
	fmt.Println(sel.Hints["fluss_union_read_mode"])
	fmt.Printf("%q\n", []string(sel.From.(*sql.TableRef).Name))
	fmt.Println(sel.Where)
	fmt.Println(stmt)
	// Output:
	// required
	// ["fluss" "db" "tbl$lake"]
	// dt = '20260101'
	// SELECT /*+ SET_VAR(fluss_union_read_mode='required') */ k, count(*) FROM fluss.db.`tbl$lake` WHERE dt = '20260101' GROUP BY k
}

func ExampleSyntaxError() {
	_, err := sql.Parse("SELECT a\nFROM t\nWHERE a = )")
	var se *sql.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Line, se.Col, se.Pos)
	}
	fmt.Println(errors.Is(err, sql.ErrSyntax))
	fmt.Println(err)
	// Output:
	// 3 11 26
	// true
	// Syntax error in line 3 near ')' (column 11): expected expression, found ')'
}

func ExampleWalk() {
	stmt, _ := sql.Parse("SELECT a, b + 1 FROM t WHERE c IN (SELECT d FROM u)")
	sql.Walk(stmt, func(n sql.Node) bool {
		if c, ok := n.(*sql.ColumnRef); ok {
			fmt.Print(c, " ")
		}
		return true
	})
	fmt.Println()
	// Output:
	// a b c d
}
