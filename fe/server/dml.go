package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

// DELETE and UPDATE, with Doris's rules:
//   - UPDATE only on UNIQUE KEY tables, and only of value columns: it reads
//     the matching rows with the new values (a SELECT through the planner)
//     and writes them back as one whole-row load, so the latest commit wins
//     per key. UPDATE … FROM joins the other tables into that SELECT.
//   - DELETE on a UNIQUE KEY table takes any WHERE: the matching rows
//     become tombstones for their keys in one commit. DELETE … USING joins
//     the other tables (UNIQUE KEY tables only, as in Doris).
//   - DELETE on other tables takes only a conjunction of simple predicates
//     (column op constant, IN list, IS [NOT] NULL), stored as a delete
//     predicate that hides the matching rows committed before it.

// errDeleteWhere is Doris's text for a WHERE that a delete predicate cannot
// hold.
const errDeleteWhere = "Where clause only supports compound predicate, binary predicate, is_null predicate or in predicate."

func isUniqueTable(t catalog.Table) bool {
	d, ok := t.(catalog.Described)
	return ok && strings.EqualFold(d.Spec().KeysType, "UNIQUE")
}

func (s *Session) deleteFrom(ctx context.Context, n *sql.Delete, w mysqlwire.ResultWriter) error {
	v, err := s.stmtVars(nil)
	if err != nil {
		return err
	}
	_, _, t, err := s.ResolveTable(ctx, n.Table)
	if err != nil {
		return err
	}
	if kd, ok := t.(catalog.KeyDeleter); ok && isUniqueTable(t) {
		// With USING, the target's rows that join a row of the other
		// tables under WHERE; a row joining several is one key to delete.
		q := &sql.Select{Items: []*sql.SelectItem{{Expr: &sql.Star{Qualifier: sql.Name{dmlQualifier(n.Table, n.Alias)}}}},
			From: dmlFrom(n.Table, n.Alias, n.Using), Where: n.Where, Distinct: n.Using != nil}
		_, op, err := s.plan(ctx, q, v)
		if err != nil {
			return err
		}
		env, err := s.env(v)
		if err != nil {
			return err
		}
		rr, err := op.Open(ctx, env)
		if err != nil {
			return err
		}
		defer rr.Release()
		rows, err := kd.DeleteKeys(ctx, rr)
		if err != nil {
			return err
		}
		return w.OK(mysqlwire.OKResult{AffectedRows: uint64(rows)})
	}
	if n.Using != nil {
		return errorf(errNotSupported, "DELETE ... USING is only supported on UNIQUE KEY tables")
	}
	pd, ok := t.(catalog.PredicateDeleter)
	if !ok {
		return errorf(errNotSupported, "table %s does not support DELETE", t.Name())
	}
	qual := n.Alias
	if qual == "" {
		qual = n.Table[len(n.Table)-1]
	}
	preds, err := deletePredicates(n.Where, qual, t.Schema())
	if err != nil {
		return err
	}
	if err := pd.DeleteWhere(ctx, preds); err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

// deletePredicates turns a WHERE into the conjunction of simple predicates
// a delete on a table without UNIQUE KEY can store.
func deletePredicates(where sql.Expr, qual string, schema catalog.Schema) ([]catalog.Predicate, error) {
	if where == nil {
		return nil, nil
	}
	var out []catalog.Predicate
	column := func(e sql.Expr) (string, bool) {
		cr, ok := e.(*sql.ColumnRef)
		if !ok || len(cr.Parts) == 0 {
			return "", false
		}
		if len(cr.Parts) > 1 && !strings.EqualFold(cr.Parts[len(cr.Parts)-2], qual) {
			return "", false
		}
		name := cr.Parts[len(cr.Parts)-1]
		if schema.Index(name) < 0 {
			return name, false
		}
		return name, true
	}
	flip := map[string]string{"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	var walk func(e sql.Expr) error
	walk = func(e sql.Expr) error {
		switch x := e.(type) {
		case *sql.BinaryExpr:
			if x.Op == "AND" {
				if err := walk(x.L); err != nil {
					return err
				}
				return walk(x.R)
			}
			if _, ok := flip[x.Op]; !ok {
				break
			}
			if c, ok := column(x.L); ok {
				if v, ok := literal(x.R); ok {
					out = append(out, catalog.Predicate{Column: c, Op: x.Op, Values: []any{v}})
					return nil
				}
			} else if c != "" {
				return errorf(bind.ErrUnknownColumn, "Unknown column '%s' in 'where clause'", c)
			}
			if c, ok := column(x.R); ok {
				if v, ok := literal(x.L); ok {
					out = append(out, catalog.Predicate{Column: c, Op: flip[x.Op], Values: []any{v}})
					return nil
				}
			}
		case *sql.InExpr:
			c, ok := column(x.X)
			if !ok || x.Query != nil {
				break
			}
			var vals []any
			for _, e := range x.List {
				v, ok := literal(e)
				if !ok {
					return errorf(bind.ErrAnalysis, "Child of in predicate should be value")
				}
				vals = append(vals, v)
			}
			op := "IN"
			if x.Not {
				op = "NOT IN"
			}
			out = append(out, catalog.Predicate{Column: c, Op: op, Values: vals})
			return nil
		case *sql.Between:
			// Doris rewrites BETWEEN to its two bounds before it checks a
			// delete's WHERE; NOT BETWEEN is an OR and stays refused.
			c, ok := column(x.X)
			if !ok || x.Not {
				break
			}
			lo, okLo := literal(x.Lo)
			hi, okHi := literal(x.Hi)
			if !okLo || !okHi {
				break
			}
			out = append(out, catalog.Predicate{Column: c, Op: ">=", Values: []any{lo}}, catalog.Predicate{Column: c, Op: "<=", Values: []any{hi}})
			return nil
		case *sql.IsExpr:
			c, ok := column(x.X)
			if !ok || x.What != "NULL" {
				break
			}
			op := "IS NULL"
			if x.Not {
				op = "IS NOT NULL"
			}
			out = append(out, catalog.Predicate{Column: c, Op: op})
			return nil
		}
		return errorf(bind.ErrAnalysis, "%s", errDeleteWhere)
	}
	if err := walk(where); err != nil {
		return nil, err
	}
	return out, nil
}

// literal is the value of a constant: int64, float64, bool or text.
func literal(e sql.Expr) (any, bool) {
	neg := false
	if u, ok := e.(*sql.UnaryExpr); ok && u.Op == "-" {
		neg, e = true, u.X
	}
	l, ok := e.(*sql.Literal)
	if !ok {
		return nil, false
	}
	sign := ""
	if neg {
		sign = "-"
	}
	switch l.Kind {
	case sql.LitInt:
		if v, err := strconv.ParseInt(sign+l.Value, 10, 64); err == nil {
			return v, true
		}
		return sign + l.Value, true
	case sql.LitFloat:
		v, err := strconv.ParseFloat(sign+l.Value, 64)
		return v, err == nil
	case sql.LitDecimal:
		return sign + l.Value, true
	case sql.LitBool:
		return !neg && l.Value == "TRUE", !neg
	case sql.LitString, sql.LitDate, sql.LitDatetime:
		return l.Value, !neg
	}
	return nil, false
}

func (s *Session) update(ctx context.Context, n *sql.Update, w mysqlwire.ResultWriter) error {
	v, err := s.stmtVars(nil)
	if err != nil {
		return err
	}
	_, _, t, err := s.ResolveTable(ctx, n.Table)
	if err != nil {
		return err
	}
	if !isUniqueTable(t) {
		return errorf(bind.ErrAnalysis, "Only unique table could be updated.")
	}
	if _, ok := t.(catalog.Writable); !ok {
		return errorf(errNotSupported, "table %s is read only: UPDATE is not supported", t.Name())
	}
	schema := t.Schema()
	set := map[int]sql.Expr{}
	for _, a := range n.Set {
		i := schema.Index(a.Column)
		if i < 0 {
			return errorf(bind.ErrUnknownColumn, "Unknown column '%s' in 'field list'", a.Column)
		}
		if schema.Columns[i].Key {
			return errorf(bind.ErrAnalysis, "Only value columns of unique table could be updated")
		}
		if _, dup := set[i]; dup {
			return errorf(bind.ErrAnalysis, "Column '%s' specified twice", a.Column)
		}
		e := a.Value
		if _, isDef := e.(*sql.DefaultExpr); isDef {
			if d := schema.Columns[i].Default; d != nil {
				e = &sql.Literal{Kind: sql.LitString, Value: *d}
			} else {
				e = &sql.Literal{Kind: sql.LitNull}
			}
		}
		set[i] = e
	}
	items := make([]*sql.SelectItem, len(schema.Columns))
	target := make([]int, len(schema.Columns))
	for i, c := range schema.Columns {
		target[i] = i
		if e, ok := set[i]; ok {
			items[i] = &sql.SelectItem{Expr: e, Alias: c.Name}
			continue
		}
		// Qualified: a table of FROM may have a column of the same name.
		items[i] = &sql.SelectItem{Expr: &sql.ColumnRef{Parts: []string{dmlQualifier(n.Table, n.Alias), c.Name}}}
	}
	// With FROM, each target row is written once per row of the other
	// tables it joins under WHERE, the last written winning, as in Doris
	// (which plans UPDATE ... FROM as the same INSERT ... SELECT).
	q := &sql.Select{Items: items, From: dmlFrom(n.Table, n.Alias, n.From), Where: n.Where}
	_, op, err := s.plan(ctx, q, v)
	if err != nil {
		return err
	}
	rows, err := s.appendFrom(ctx, t, op, target, v)
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{AffectedRows: uint64(rows)})
}

// dmlQualifier is the name the target of UPDATE or DELETE is referred to
// by: its alias, else its table name.
func dmlQualifier(table sql.Name, alias string) string {
	if alias != "" {
		return alias
	}
	return table[len(table)-1]
}

// dmlFrom is the FROM of the SELECT an UPDATE or DELETE reads: the target,
// joined to the tables of UPDATE ... FROM or DELETE ... USING if any.
func dmlFrom(table sql.Name, alias string, more sql.TableExpr) sql.TableExpr {
	var target sql.TableExpr = &sql.TableRef{Name: table, Alias: alias}
	if more == nil {
		return target
	}
	return &sql.Join{Kind: sql.CommaJoin, Left: target, Right: more}
}

// labelled carries INSERT ... WITH LABEL down to appendFrom, and the
// transaction id back.
type labelled struct {
	label     string
	txn       int64
	overwrite bool // INSERT OVERWRITE: the load replaces the table's rows
}

type labelKey struct{}

func loadLabel(ctx context.Context) *labelled {
	l, _ := ctx.Value(labelKey{}).(*labelled)
	return l
}

func (l *labelled) load(ctx context.Context, t catalog.Table, r array.RecordReader) (int64, error) {
	if l.overwrite {
		return l.overwriteLoad(ctx, t, r)
	}
	ld, ok := t.(catalog.Loader)
	if !ok {
		return 0, errorf(errNotSupported, "table %s does not take labelled loads: INSERT ... WITH LABEL is not supported", t.Name())
	}
	res, err := ld.Load(ctx, r, catalog.LoadOptions{Label: l.label})
	l.txn = res.TxnID
	return res.Rows, err
}

// insertLabelled is INSERT ... WITH LABEL: one load under the label, whose
// replay answers Doris's "Label [...] has already been used" error. The OK
// carries Doris's info text.
func (s *Session) insertLabelled(ctx context.Context, t catalog.Table, op exec.Operator, target []int, v *vars.Session, label string, w mysqlwire.ResultWriter) error {
	l := &labelled{label: label}
	rows, err := s.appendFrom(context.WithValue(ctx, labelKey{}, l), t, op, target, v)
	if err != nil {
		return err
	}
	info := fmt.Sprintf("{'label':'%s', 'status':'VISIBLE', 'txnId':'%d'}", strings.ReplaceAll(label, "'", "\\'"), l.txn)
	return w.OK(mysqlwire.OKResult{AffectedRows: uint64(rows), Info: info})
}
