package bind

import (
	"context"
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/fe/sql"
)

// View is a stored view: its query, with every table name qualified when
// the view was created (QualifyTables), so it means the same from any
// session and database.
type View struct {
	Catalog, Database, Name string
	// Columns rename the query's columns (nil keeps them).
	Columns []string
	Query   sql.Query
}

// ViewResolver is the optional part of a Resolver that knows views. It
// returns nil, nil when name is no view.
type ViewResolver interface {
	ResolveView(ctx context.Context, name []string) (*View, error)
}

// maxViewDepth bounds views over views (and a view that reaches itself).
const maxViewDepth = 32

// bindView binds a view reference like a derived table named alias.
func (b *Binder) bindView(v *View, alias string) (Plan, error) {
	if b.viewDepth >= maxViewDepth {
		return nil, errorf(ErrAnalysis, "view %s.%s: views nest deeper than %d (does it refer to itself?)", v.Database, v.Name, maxViewDepth)
	}
	b.viewDepth++
	savedCTEs, savedNeed := b.ctes, b.need
	b.ctes = nil // the query's WITH names are not the view's
	p, err := b.BindQuery(v.Query)
	b.ctes, b.need = savedCTEs, savedNeed
	b.viewDepth--
	if err != nil {
		return nil, fmt.Errorf("view %s.%s: %w", v.Database, v.Name, err)
	}
	if alias == "" {
		alias = v.Name
	}
	return requalify(p, alias, v.Columns)
}

// BindView binds a view's query as a reference to it would, to check a
// definition before it is stored.
func (b *Binder) BindView(v *View) (Plan, error) { return b.bindView(v, "") }

// QualifyTables rewrites, in place, every table name of q that is not a
// WITH name to [catalog, database, table]: one-part names get ctl and db,
// two-part names ctl.
func QualifyTables(q sql.Query, ctl, db string) {
	ctes := map[string]bool{}
	sql.Walk(q, func(n sql.Node) bool {
		var w *sql.With
		switch x := n.(type) {
		case *sql.Select:
			w = x.With
		case *sql.SetOp:
			w = x.With
		}
		if w != nil {
			for _, c := range w.CTEs {
				ctes[strings.ToLower(c.Name)] = true
			}
		}
		return true
	})
	sql.Walk(q, func(n sql.Node) bool {
		t, ok := n.(*sql.TableRef)
		if !ok {
			return true
		}
		switch len(t.Name) {
		case 1:
			if !ctes[strings.ToLower(t.Name[0])] {
				t.Name = sql.Name{ctl, db, t.Name[0]}
			}
		case 2:
			t.Name = sql.Name{ctl, t.Name[0], t.Name[1]}
		}
		return true
	})
}
