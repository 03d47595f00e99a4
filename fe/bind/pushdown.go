package bind

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/sql"
)

// pushPredicates hands the simple WHERE conjuncts (column op constant) to
// the scans they concern, as hints for skipping data; the Filter above
// still applies the whole clause. Nothing is pushed when the FROM clause
// has an outer join: a hint on the nullable side could turn matched rows
// into NULL-extended ones.
func pushPredicates(from sql.TableExpr, input Plan, where sql.Expr, loc *time.Location) {
	if where == nil || hasOuterJoin(from) {
		return
	}
	// owner[i] is the scan (and its output position) behind FROM column i.
	type slot struct {
		scan *Scan
		pos  int
	}
	var owner []slot
	var walk func(p Plan)
	walk = func(p Plan) {
		switch n := p.(type) {
		case *Scan:
			for i := range n.Out {
				owner = append(owner, slot{n, i})
			}
		case *Join:
			walk(n.Left)
			if n.Kind != LeftSemiJoin && n.Kind != LeftAntiJoin && n.Kind != NullAwareAntiJoin {
				walk(n.Right)
			}
		default:
			for range p.Columns() {
				owner = append(owner, slot{})
			}
		}
	}
	walk(input)
	sc := &scope{cols: input.Columns()}
	if len(owner) != len(sc.cols) {
		return
	}
	type pred struct {
		scan *Scan
		p    catalog.Predicate
	}
	var found []pred // what add made of the conjunct (or disjunct) at hand
	add := func(cr *sql.ColumnRef, op string, vals ...any) {
		i, err := sc.resolve(cr.Parts)
		if err != nil || owner[i].scan == nil {
			return
		}
		s := owner[i].scan
		c := s.Table.Schema().Columns[s.Projection[owner[i].pos]]
		if ts, ok := c.Type.(*arrow.TimestampType); ok && ts.TimeZone != "" && loc != time.UTC {
			// A zone-aware column (TIMESTAMP_LTZ) holds instants; text
			// compared with it is wall-clock time in the session zone, and
			// the readers read a hint's text as UTC: give them UTC.
			for k, v := range vals {
				str, isStr := v.(string)
				if !isStr {
					continue
				}
				t, err := parseDatetime(str, loc)
				if err != nil {
					return // not a datetime: no hint rather than a wrong one
				}
				vals[k] = t.UTC().Format("2006-01-02 15:04:05.999999")
			}
		}
		found = append(found, pred{s, catalog.Predicate{Column: c.Name, Op: op, Values: vals}})
	}
	flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	// leaf reads one simple condition into found.
	leaf := func(c sql.Expr) {
		switch n := c.(type) {
		case *sql.BinaryExpr:
			if _, ok := flip[n.Op]; !ok {
				return
			}
			if cr, ok := n.L.(*sql.ColumnRef); ok {
				if v, ok := constant(n.R); ok {
					add(cr, n.Op, v)
				}
			} else if cr, ok := n.R.(*sql.ColumnRef); ok {
				if v, ok := constant(n.L); ok {
					add(cr, flip[n.Op], v)
				}
			}
		case *sql.InExpr:
			cr, ok := n.X.(*sql.ColumnRef)
			if !ok || n.Query != nil || len(n.List) == 0 {
				return
			}
			vals := make([]any, 0, len(n.List))
			for _, e := range n.List {
				v, ok := constant(e)
				if !ok {
					vals = nil
					break
				}
				vals = append(vals, v)
			}
			if vals != nil {
				op := "IN"
				if n.Not {
					op = "NOT IN"
				}
				add(cr, op, vals...)
			}
		case *sql.IsExpr:
			if cr, ok := n.X.(*sql.ColumnRef); ok && n.What == "NULL" {
				op := "IS NULL"
				if n.Not {
					op = "IS NOT NULL"
				}
				add(cr, op)
			}
		case *sql.Between:
			cr, ok := n.X.(*sql.ColumnRef)
			lo, ok1 := constant(n.Lo)
			hi, ok2 := constant(n.Hi)
			if ok && ok1 && ok2 && !n.Not {
				add(cr, ">=", lo)
				add(cr, "<=", hi)
			}
		}
	}
	for _, c := range conjuncts(where) {
		found = found[:0]
		if cr, vals, ok := orAsIn(c); ok {
			// a = 1 OR a = 2 OR a IN (3, 4) prunes like a IN (1, 2, 3, 4).
			add(cr, "IN", vals...)
		} else if be, ok := c.(*sql.BinaryExpr); ok && be.Op == "OR" {
			// a = 1 OR b > 5: a disjunction across columns of one scan,
			// each branch one simple condition (OrPredicates).
			var ors []catalog.Predicate
			var s *Scan
			for _, d := range disjuncts(be) {
				found = found[:0]
				leaf(d)
				if len(found) != 1 || (s != nil && found[0].scan != s) {
					ors = nil
					break
				}
				s = found[0].scan
				ors = append(ors, found[0].p)
			}
			if len(ors) > 1 {
				s.OrPredicates = append(s.OrPredicates, ors)
			}
			continue
		} else {
			leaf(c)
		}
		for _, f := range found {
			f.scan.Predicates = append(f.scan.Predicates, f.p)
		}
	}
}

// orAsIn reads a disjunction whose every branch compares the same column
// for equality with constants (col = c, c = col, col IN (...)) as the list
// of those constants.
func orAsIn(e sql.Expr) (*sql.ColumnRef, []any, bool) {
	be, ok := e.(*sql.BinaryExpr)
	if !ok || be.Op != "OR" {
		return nil, nil, false
	}
	var col *sql.ColumnRef
	var vals []any
	same := func(cr *sql.ColumnRef) bool {
		if col == nil {
			col = cr
			return true
		}
		return strings.EqualFold(strings.Join(col.Parts, "."), strings.Join(cr.Parts, "."))
	}
	var walk func(e sql.Expr) bool
	walk = func(e sql.Expr) bool {
		switch n := e.(type) {
		case *sql.BinaryExpr:
			if n.Op == "OR" {
				return walk(n.L) && walk(n.R)
			}
			if n.Op != "=" {
				return false
			}
			cr, ok := n.L.(*sql.ColumnRef)
			v, okv := constant(n.R)
			if !ok {
				cr, ok = n.R.(*sql.ColumnRef)
				v, okv = constant(n.L)
			}
			if !ok || !okv || !same(cr) {
				return false
			}
			vals = append(vals, v)
			return true
		case *sql.InExpr:
			cr, ok := n.X.(*sql.ColumnRef)
			if !ok || n.Not || n.Query != nil || len(n.List) == 0 || !same(cr) {
				return false
			}
			for _, x := range n.List {
				v, ok := constant(x)
				if !ok {
					return false
				}
				vals = append(vals, v)
			}
			return true
		}
		return false
	}
	if !walk(be) || col == nil {
		return nil, nil, false
	}
	return col, vals, true
}

// constant returns the value of a non-NULL literal.
func constant(e sql.Expr) (any, bool) {
	l, ok := e.(*sql.Literal)
	if !ok {
		return nil, false
	}
	switch l.Kind {
	case sql.LitInt:
		if v, err := strconv.ParseInt(l.Value, 10, 64); err == nil {
			return v, true
		}
		return l.Value, true
	case sql.LitFloat:
		v, err := strconv.ParseFloat(l.Value, 64)
		return v, err == nil
	case sql.LitBool:
		return l.Value == "TRUE", true
	case sql.LitDecimal, sql.LitString, sql.LitDate, sql.LitDatetime:
		return l.Value, true
	}
	return nil, false
}

func hasOuterJoin(t sql.TableExpr) bool {
	j, ok := t.(*sql.Join)
	if !ok {
		return false
	}
	switch j.Kind {
	case sql.LeftJoin, sql.RightJoin, sql.FullJoin:
		return true
	}
	return hasOuterJoin(j.Left) || hasOuterJoin(j.Right)
}
