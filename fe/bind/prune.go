package bind

import (
	"strings"

	"github.com/inlet-db/inlet/fe/sql"
)

// need is the set of column names one SELECT block can reference, used to
// scan only those columns. It over-approximates: every part of every dotted
// name counts, and a star keeps all columns of the tables it covers.
type need struct {
	names map[string]bool
	// all is set by a bare *; quals holds the qualifiers of t.* stars.
	all   bool
	quals map[string]bool
	// except holds the columns of * EXCEPT(...) lists.
	except map[string]bool
}

func (n *need) keeps(qualifier, column string) bool {
	if n == nil {
		return true
	}
	c := strings.ToLower(column)
	if n.names[c] {
		return true
	}
	return (n.all || n.quals[strings.ToLower(qualifier)]) && !n.except[c]
}

func collectNeed(s *sql.Select) *need {
	n := &need{names: map[string]bool{}, quals: map[string]bool{}, except: map[string]bool{}}
	var expr func(e sql.Expr)
	expr = func(e sql.Expr) {
		if e == nil {
			return
		}
		switch x := e.(type) {
		case *sql.Subquery:
			n.nested(x.Query)
		case *sql.Exists:
			n.nested(x.Query)
		case *sql.InExpr:
			if x.Query != nil {
				n.nested(x.Query)
			}
		case *sql.Quantified:
			n.nested(x.Query)
		case *sql.ColumnRef:
			for _, p := range x.Parts {
				n.names[strings.ToLower(p)] = true
			}
		case *sql.Star:
			for _, e := range x.Except {
				n.except[strings.ToLower(e)] = true
			}
			if len(x.Qualifier) == 0 {
				n.all = true
			} else {
				n.quals[strings.ToLower(x.Qualifier[len(x.Qualifier)-1])] = true
			}
		case *sql.FuncCall:
			for _, o := range x.OrderBy {
				expr(o.Expr)
			}
			if x.Over != nil {
				for _, p := range x.Over.PartitionBy {
					expr(p)
				}
				for _, o := range x.Over.OrderBy {
					expr(o.Expr)
				}
			}
		}
		for _, c := range children(e) {
			expr(c)
		}
	}
	var from func(t sql.TableExpr)
	from = func(t sql.TableExpr) {
		if j, ok := t.(*sql.Join); ok {
			from(j.Left)
			from(j.Right)
			expr(j.On)
			for _, u := range j.Using {
				n.names[strings.ToLower(u)] = true
			}
		}
	}
	for _, it := range s.Items {
		expr(it.Expr)
	}
	from(s.From)
	expr(s.Where)
	for _, g := range s.GroupBy {
		expr(g)
	}
	expr(s.Having)
	for _, o := range s.OrderBy {
		expr(o.Expr)
	}
	return n
}

// nested adds the names a subquery of the block reads: a correlated
// subquery reads the block's columns by name. Its stars cover its own
// tables, not the block's, so they add nothing.
func (n *need) nested(q sql.Query) {
	switch x := q.(type) {
	case *sql.Select:
		inner := collectNeed(x)
		for k := range inner.names {
			n.names[k] = true
		}
	case *sql.SetOp:
		n.nested(x.Left)
		n.nested(x.Right)
	}
}
