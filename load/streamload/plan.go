package streamload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/sql"
)

// ErrPlan is a columns, where or partial_columns header that does not fit
// the table.
var ErrPlan = errors.New("invalid load plan")

// plan maps the body's source columns (all read as strings, as Doris reads
// them) to the table's columns.
type plan struct {
	src       []string
	srcSchema *arrow.Schema
	out       []outCol
	outSchema *arrow.Schema
	where     expr.Expr // over the output columns; nil = keep all
	strict    bool
	// needStr marks the source columns some expression reads (their text
	// is kept as a string column of the source batch).
	needStr []bool
}

func markRefs(e expr.Expr, into []bool) {
	if c, ok := e.(*expr.ColumnRef); ok && c.Index >= 0 && c.Index < len(into) {
		into[c.Index] = true
	}
	for _, ch := range e.Children() {
		markRefs(ch, into)
	}
}

type outCol struct {
	name     string
	typ      arrow.DataType
	e        expr.Expr // over the source batch, of the column's type
	direct   int       // source index when the column is a source column, else -1
	nullable bool
	// fast, for a direct column of a common type, parses the text straight
	// into the column's builder; e is then unused.
	fast appender
	// limit is a CHAR(n)/VARCHAR(n) column's n (bytes), 0 for no limit; a
	// row with a longer value is filtered, as Doris's sink filters it in
	// any mode. limitType names the type in the row's reason.
	limit     int
	limitType string
}

// colItem is one entry of the columns header: a source column name, or a
// derived column `name=expr`.
type colItem struct {
	name    string
	derived sql.Expr
	text    string
}

// splitTop splits s at sep outside parentheses and quotes.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func parseColumns(s string) ([]colItem, error) {
	var items []colItem
	for _, part := range splitTop(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%w: header columns: empty entry in %q", ErrPlan, s)
		}
		eq := -1
		if i := strings.IndexByte(part, '='); i > 0 && !strings.ContainsAny(part[:i], "('\"<>!") {
			eq = i
		}
		if eq < 0 {
			items = append(items, colItem{name: unquoteIdent(part), text: part})
			continue
		}
		name := unquoteIdent(strings.TrimSpace(part[:eq]))
		e, err := sql.ParseExpr(strings.TrimSpace(part[eq+1:]))
		if err != nil {
			return nil, fmt.Errorf("%w: header columns: %s: %v", ErrPlan, part, err)
		}
		items = append(items, colItem{name: name, derived: e, text: part})
	}
	return items, nil
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1]
	}
	return s
}

// newPlan binds the columns and where headers against the table.
func newPlan(ctx context.Context, p *Params, sch catalog.Schema, now time.Time) (*plan, error) {
	items, err := parseColumns(p.Columns)
	if p.Columns == "" {
		items, err = nil, nil
		for _, c := range sch.Columns {
			items = append(items, colItem{name: c.Name})
		}
	}
	if err != nil {
		return nil, err
	}
	pl := &plan{strict: p.StrictMode}
	var srcCols []bind.Column
	seen := map[string]bool{}
	for _, it := range items {
		if it.derived != nil {
			continue
		}
		k := strings.ToLower(it.name)
		if seen[k] {
			return nil, fmt.Errorf("%w: header columns: column %q is listed twice", ErrPlan, it.name)
		}
		seen[k] = true
		pl.src = append(pl.src, it.name)
		srcCols = append(srcCols, bind.Column{Name: it.name, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	if p.JSONPaths != nil && len(p.JSONPaths) != len(pl.src) {
		return nil, fmt.Errorf("%w: jsonpaths has %d paths but columns names %d source columns", ErrPlan, len(p.JSONPaths), len(pl.src))
	}
	if len(pl.src) == 0 && p.Format == CSV {
		return nil, fmt.Errorf("%w: header columns names no source column", ErrPlan)
	}
	fs := make([]arrow.Field, len(pl.src))
	for i, s := range pl.src {
		fs[i] = arrow.Field{Name: s, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	pl.srcSchema = arrow.NewSchema(fs, nil)

	b := bind.New(ctx, &bind.Session{Now: now, CurrentCatalog: "internal"})
	mapped := make([]*outCol, len(sch.Columns))
	for _, it := range items {
		ti := sch.Index(it.name)
		if it.derived == nil {
			if ti < 0 {
				continue // a source column only derived columns use
			}
			si := indexFold(pl.src, it.name)
			if mapped[ti] == nil {
				mapped[ti] = &outCol{direct: si, e: expr.Col(si, pl.src[si], arrow.BinaryTypes.String)}
			}
			continue
		}
		if ti < 0 {
			return nil, fmt.Errorf("%w: header columns: %s: table has no column %q", ErrPlan, it.text, it.name)
		}
		e, err := b.BindScalarOver(it.derived, srcCols)
		if err != nil {
			return nil, fmt.Errorf("%w: header columns: %s: %v", ErrPlan, it.text, err)
		}
		mapped[ti] = &outCol{direct: -1, e: e}
	}
	var outFields []arrow.Field
	var outBind []bind.Column
	for ti, c := range sch.Columns {
		m := mapped[ti]
		if m == nil {
			if p.PartialColumns && !c.Key {
				continue
			}
			if p.PartialColumns && c.Key {
				return nil, fmt.Errorf("%w: partial_columns: key column %q is missing from the load", ErrPlan, c.Name)
			}
			switch {
			case c.Default != nil:
				l, err := expr.Lit(*c.Default, arrow.BinaryTypes.String)
				if err != nil {
					return nil, fmt.Errorf("%w: column %q default: %v", ErrPlan, c.Name, err)
				}
				m = &outCol{direct: -1, e: l}
			case c.Nullable:
				m = &outCol{direct: -1, e: expr.Null(c.Type)}
			default:
				return nil, fmt.Errorf("%w: column %q is NOT NULL, has no default and is not in the load", ErrPlan, c.Name)
			}
		}
		if c.Unsupported {
			return nil, fmt.Errorf("%w: column %q has a type Stream Load cannot write", ErrPlan, c.Name)
		}
		m.name, m.nullable, m.typ = c.Name, c.Nullable, c.Type
		m.limit, m.limitType = c.StringLimit()
		if m.direct >= 0 {
			m.fast = fastAppender(c.Type)
		}
		if !arrow.TypeEqual(m.e.DataType(), c.Type) {
			e, err := expr.Cast(m.e, c.Type)
			if err != nil {
				return nil, fmt.Errorf("%w: column %q: %v", ErrPlan, c.Name, err)
			}
			m.e = e
		}
		pl.out = append(pl.out, *m)
		f := arrow.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
		outFields = append(outFields, f)
		outBind = append(outBind, bind.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable})
	}
	pl.needStr = make([]bool, len(pl.src))
	for _, o := range pl.out {
		if o.fast == nil {
			markRefs(o.e, pl.needStr)
		}
	}
	pl.outSchema = arrow.NewSchema(outFields, nil)
	if p.Where != "" {
		w, err := sql.ParseExpr(p.Where)
		if err != nil {
			return nil, fmt.Errorf("%w: header where: %v", ErrPlan, err)
		}
		if pl.where, err = b.BindOver(w, outBind); err != nil {
			return nil, fmt.Errorf("%w: header where: %v", ErrPlan, err)
		}
	}
	return pl, nil
}

func indexFold(names []string, n string) int {
	for i, s := range names {
		if strings.EqualFold(s, n) {
			return i
		}
	}
	return -1
}
