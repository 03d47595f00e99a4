package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// Views. A view is stored as the text of its query with every table name
// qualified at CREATE time (bind.QualifyTables), so it reads the same
// tables from any session; the definitions live in <meta dir>/views.json,
// rewritten whole (temporary file, fsync, rename) on every change, so a
// crash leaves the old or the new set, never a torn one. A view belongs to
// a database of a catalog (any catalog: its query may read external
// catalogs); DROP DATABASE drops its views.

// viewDef is one stored view.
type viewDef struct {
	Catalog  string   `json:"catalog"`
	Database string   `json:"database"`
	Name     string   `json:"name"`
	Columns  []string `json:"columns,omitempty"`
	Comment  string   `json:"comment,omitempty"`
	Query    string   `json:"query"`
}

func (d viewDef) key() string { return d.Catalog + "\x00" + d.Database + "\x00" + d.Name }

// viewStore holds the views; path "" keeps them in memory only.
type viewStore struct {
	mu    sync.Mutex
	path  string
	views map[string]viewDef
}

// openViews reads dir/views.json (absent: no views); dir "" keeps views in
// memory.
func openViews(dir string) (*viewStore, error) {
	s := &viewStore{views: map[string]viewDef{}}
	if dir == "" {
		return s, nil
	}
	s.path = filepath.Join(dir, "views.json")
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	var list []viewDef
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %v", s.path, err)
	}
	for _, d := range list {
		if _, err := sql.Parse(d.Query); err != nil {
			return nil, fmt.Errorf("%s: view %s.%s: %v", s.path, d.Database, d.Name, err)
		}
		s.views[d.key()] = d
	}
	return s, nil
}

func (s *viewStore) get(ctl, db, name string) (viewDef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.views[viewDef{Catalog: ctl, Database: db, Name: name}.key()]
	return d, ok
}

// update applies change to a copy of the set and persists it; the set
// changes only when the write succeeded.
func (s *viewStore) update(change func(m map[string]viewDef) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string]viewDef, len(s.views)+1)
	for k, v := range s.views {
		next[k] = v
	}
	if err := change(next); err != nil {
		return err
	}
	if s.path != "" {
		list := make([]viewDef, 0, len(next))
		for _, v := range next {
			list = append(list, v)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].key() < list[j].key() })
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFileAtomic(s.path, b); err != nil {
			return err
		}
	}
	s.views = next
	return nil
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".views-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// dropDatabase removes the views of a database.
func (s *viewStore) dropDatabase(ctl, db string) error {
	return s.update(func(m map[string]viewDef) error {
		for k, v := range m {
			if v.Catalog == ctl && v.Database == db {
				delete(m, k)
			}
		}
		return nil
	})
}

func (s *Session) viewStore() (*viewStore, error) {
	if s.srv.views == nil {
		return nil, errorf(errNotSupported, "views are not supported by this server (no view store)")
	}
	return s.srv.views, nil
}

// lookupView finds the view a 1-3 part name names, or nil.
func (s *Session) lookupView(name []string) (*viewDef, error) {
	if s.srv.views == nil {
		return nil, nil
	}
	ctl, db, tbl, err := s.splitName(name)
	if err != nil {
		return nil, nil // the table lookup reports the name
	}
	d, ok := s.srv.views.get(ctl, db, tbl)
	if !ok {
		return nil, nil
	}
	return &d, nil
}

// ResolveView implements bind.ViewResolver.
func (s *Session) ResolveView(ctx context.Context, name []string) (*bind.View, error) {
	d, err := s.lookupView(name)
	if d == nil || err != nil {
		return nil, err
	}
	stmt, err := sql.Parse(d.Query)
	if err != nil {
		return nil, fmt.Errorf("view %s.%s: %w", d.Database, d.Name, err)
	}
	q, ok := stmt.(sql.Query)
	if !ok {
		return nil, fmt.Errorf("view %s.%s: stored definition is not a query", d.Database, d.Name)
	}
	return &bind.View{Catalog: d.Catalog, Database: d.Database, Name: d.Name, Columns: d.Columns, Query: q}, nil
}

// ResolveView implements bind.ViewResolver with SELECT_PRIV on the view.
func (r privResolver) ResolveView(ctx context.Context, name []string) (*bind.View, error) {
	v, err := r.s.ResolveView(ctx, name)
	if v == nil || err != nil {
		return v, err
	}
	if err := r.s.requirePriv(auth.SelectPriv, v.Catalog, v.Database, v.Name); err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Session) createView(ctx context.Context, n *sql.CreateView, w mysqlwire.ResultWriter) error {
	store, err := s.viewStore()
	if err != nil {
		return err
	}
	ctl, db, name, err := s.splitName(n.Name)
	if err != nil {
		return err
	}
	_, d, err := s.database(ctx, ctl, db)
	if err != nil {
		return err
	}
	if _, err := d.Table(ctx, name); err == nil {
		return errorf(errTableExists, "Table '%s' already exists", name)
	} else if !errors.Is(err, catalog.ErrNotFound) {
		return err
	}
	// Unqualified names mean the current database now, and forever.
	curCtl, curDB := s.catalog, s.db
	if curDB == "" {
		curCtl, curDB = ctl, db
	}
	bind.QualifyTables(n.Query, curCtl, curDB)
	def := viewDef{Catalog: ctl, Database: db, Name: name, Columns: n.Columns, Comment: n.Comment, Query: n.Query.String()}
	// The definition must bind, and its column names must be distinct.
	p, err := bind.New(ctx, s.bindSession(s.vars)).BindView(&bind.View{Catalog: ctl, Database: db, Name: name, Columns: n.Columns, Query: n.Query})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, c := range p.Columns() {
		k := strings.ToLower(c.Name)
		if seen[k] {
			return errorf(bind.ErrAnalysis, "Duplicate column name '%s' in view %s", c.Name, name)
		}
		seen[k] = true
	}
	err = store.update(func(m map[string]viewDef) error {
		if _, exists := m[def.key()]; exists {
			if n.IfNotExists {
				return nil
			}
			if !n.OrReplace {
				return errorf(errTableExists, "Table '%s' already exists", name)
			}
		}
		m[def.key()] = def
		return nil
	})
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) dropView(n *sql.Drop, w mysqlwire.ResultWriter) error {
	store, err := s.viewStore()
	if err != nil {
		return err
	}
	ctl, db, name, err := s.splitName(n.Name)
	if err != nil {
		return err
	}
	err = store.update(func(m map[string]viewDef) error {
		k := viewDef{Catalog: ctl, Database: db, Name: name}.key()
		if _, ok := m[k]; !ok {
			if n.IfExists {
				return nil
			}
			return errorf(errUnknownTable, "Unknown view '%s.%s'", db, name)
		}
		delete(m, k)
		return nil
	})
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) showCreateView(n sql.Name, w mysqlwire.ResultWriter) error {
	d, err := s.lookupView(n)
	if err != nil {
		return err
	}
	if d == nil {
		_, db, name, err := s.splitName(n)
		if err != nil {
			return err
		}
		return errorf(errUnknownTable, "Unknown view '%s.%s'", db, name)
	}
	text := "CREATE VIEW " + sql.Name{d.Name}.String()
	if len(d.Columns) > 0 {
		q := make([]string, len(d.Columns))
		for i, c := range d.Columns {
			q[i] = sql.Name{c}.String()
		}
		text += " (" + strings.Join(q, ", ") + ")"
	}
	if d.Comment != "" {
		text += " COMMENT " + quoteSQLString(d.Comment)
	}
	text += " AS " + d.Query
	t := &table{names: []string{"View", "Create View", "character_set_client", "collation_connection"}}
	t.addStrings(d.Name, text, "utf8mb4", "utf8mb4_0900_bin")
	return t.write(w)
}

func quoteSQLString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// viewNames lists the views of a database, sorted.
func (s *Session) viewNames(ctl, db string) []string {
	if s.srv.views == nil {
		return nil
	}
	s.srv.views.mu.Lock()
	defer s.srv.views.mu.Unlock()
	var out []string
	for _, v := range s.srv.views.views {
		if v.Catalog == ctl && v.Database == db {
			out = append(out, v.Name)
		}
	}
	sort.Strings(out)
	return out
}

// withViews merges table and view names into (name, Table_type) pairs,
// sorted by name.
func withViews(tables, views []string) [][2]string {
	out := make([][2]string, 0, len(tables)+len(views))
	for _, t := range tables {
		out = append(out, [2]string{t, "BASE TABLE"})
	}
	for _, v := range views {
		out = append(out, [2]string{v, "VIEW"})
	}
	if len(views) > 0 {
		sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	}
	return out
}

// describeView is DESC of a view: its columns as the query gives them; nil
// when name is no view.
func (s *Session) describeView(ctx context.Context, name sql.Name, full bool) (*table, error) {
	v, err := s.ResolveView(ctx, name)
	if v == nil || err != nil {
		return nil, err
	}
	p, err := bind.New(ctx, s.bindSession(s.vars)).BindView(v)
	if err != nil {
		return nil, err
	}
	t := &table{names: []string{"Field", "Type", "Null", "Key", "Default", "Extra"}}
	if full {
		t.names = append(t.names, "Comment")
	}
	for _, c := range p.Columns() {
		null := "No"
		if c.Nullable {
			null = "Yes"
		}
		row := []*string{str(c.Name), str(expr.TypeName(c.Type)), str(null), str("false"), nil, str("")}
		if full {
			row = append(row, str(""))
		}
		t.add(row...)
	}
	return t, nil
}
