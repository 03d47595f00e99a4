package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
)

// Nested column pruning (enable_prune_nested_column): a struct column that
// a query reads only through struct_element chains is scanned as a struct
// of those fields alone. The FE binds once, asks NestedPrunes which
// columns can be narrowed, and binds again with Session.Pruned set, so the
// field accesses bind against the narrow type.

// PruneKey names one column of one table reference for Session.Pruned.
func PruneKey(ctl, db, table, alias, column string) string {
	return strings.ToLower(strings.Join([]string{ctl, db, table, alias, column}, "\x00"))
}

// NestedPrunes returns the narrowed types of the struct columns of p's scan
// that p reads only through field accesses, keyed by PruneKey. It looks at
// plans that read one table through projections, filters, sorts and
// limits; anything else (joins, aggregates, windows, set operations) is
// left unpruned, which is always correct.
func NestedPrunes(p Plan) map[string]arrow.DataType {
	var chain []Plan
	for {
		switch n := p.(type) {
		case *Project:
			chain = append(chain, n)
			p = n.Input
			continue
		case *Filter:
			chain = append(chain, n)
			p = n.Input
			continue
		case *Sort:
			chain = append(chain, n)
			p = n.Input
			continue
		case *Limit:
			chain = append(chain, n)
			p = n.Input
			continue
		case *Scan:
			return prunesOf(n, chain)
		}
		return nil
	}
}

// prunesOf reads the field paths of the scan's columns from the nodes
// that see them: those between the scan and the first projection.
func prunesOf(s *Scan, chain []Plan) map[string]arrow.DataType {
	// The nodes above the lowest projection see its outputs, not the
	// scan's columns; without a projection every column is output whole.
	low := -1
	for i := len(chain) - 1; i >= 0; i-- {
		if _, ok := chain[i].(*Project); ok {
			low = i
			break
		}
	}
	if low < 0 {
		return nil
	}
	paths := map[int][][]string{}
	for i := len(chain) - 1; i >= low; i-- {
		switch n := chain[i].(type) {
		case *Project:
			for _, e := range n.Exprs {
				fieldPaths(e, paths)
			}
		case *Filter:
			fieldPaths(n.Cond, paths)
		case *Sort:
			for _, k := range n.Keys {
				fieldPaths(k.Expr, paths)
			}
		}
	}
	var out map[string]arrow.DataType
	for j, c := range s.Out {
		ps, used := paths[j]
		if _, ok := c.Type.(*arrow.StructType); !ok || !used {
			continue
		}
		t := expr.PruneType(c.Type, ps)
		if arrow.TypeEqual(t, c.Type) {
			continue
		}
		if out == nil {
			out = map[string]arrow.DataType{}
		}
		out[PruneKey(s.Catalog, s.Database, s.Table.Name(), c.Qualifier, c.Name)] = t
	}
	return out
}

// fieldPaths records, per input column, the field paths e reads it by; a
// bare reference is the empty path (the whole value).
func fieldPaths(e expr.Expr, paths map[int][][]string) {
	if e == nil {
		return
	}
	if idx, path, ok := access(e); ok {
		paths[idx] = append(paths[idx], path)
		return
	}
	for _, c := range e.Children() {
		fieldPaths(c, paths)
	}
}

func access(e expr.Expr) (int, []string, bool) {
	if c, ok := e.(*expr.ColumnRef); ok {
		return c.Index, nil, true
	}
	if arg, name, ok := expr.StructField(e); ok {
		if i, p, ok := access(arg); ok {
			return i, append(p, name), true
		}
	}
	return 0, nil, false
}
