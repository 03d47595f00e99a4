package catalog

import (
	"strconv"
	"strings"
)

// Predicate is one conjunct of a query's WHERE clause on a single column of
// the scanned table, compared with constants. The engine applies the whole
// WHERE clause after the scan, so a catalog may use predicates to skip
// partitions, files or row groups that cannot match, or ignore them; it must
// never leave out a row that could match.
type Predicate struct {
	// Column is the table column's name, as in Schema().
	Column string
	// Op is one of = != < <= > >= IN "NOT IN" "IS NULL" "IS NOT NULL".
	Op string
	// Values are the constants: one for comparisons, the list for IN, none
	// for IS [NOT] NULL. Each is int64, float64, bool or string (decimal,
	// date and datetime constants arrive as their text).
	Values []any
}

// String renders the predicate as SQL, for EXPLAIN.
func (p Predicate) String() string {
	col := "`" + strings.ReplaceAll(p.Column, "`", "``") + "`"
	switch p.Op {
	case "IS NULL", "IS NOT NULL":
		return col + " " + p.Op
	case "IN", "NOT IN":
		vs := make([]string, len(p.Values))
		for i, v := range p.Values {
			vs[i] = sqlValue(v)
		}
		return col + " " + p.Op + " (" + strings.Join(vs, ", ") + ")"
	}
	if len(p.Values) == 1 {
		return col + " " + p.Op + " " + sqlValue(p.Values[0])
	}
	return col + " " + p.Op + " ?"
}

func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	}
	return "?"
}
