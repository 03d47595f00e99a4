package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/opt"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

// Session is one connection's state: current catalog and database, session
// variables.
type Session struct {
	srv     *Server
	info    mysqlwire.ConnInfo
	vars    *vars.Session
	catalog string
	db      string
	// args are the arguments of the prepared statement being executed.
	args []any
	// running is the statement being run and since when the session is in
	// its current state; both guarded by srv.mu (SHOW PROCESSLIST).
	running string
	since   time.Time
	// shown* copy catalog and db for SHOW PROCESSLIST, under srv.mu.
	shownCatalog, shownDB string
	// stmt is the statement being run (query id, scans, profile); nil
	// between statements. lastQueryID names the last one that ran
	// fragments.
	stmt        *statement
	lastQueryID string
	// prevQueryID is the query id of the last statement that had a plan,
	// whether or not it ran fragments (LAST_QUERY_ID()).
	prevQueryID string
	// limited is the running statement's memory account (exec_mem_limit);
	// nil between statements.
	limited *memlimit.Allocator
}

// track records the running statement for SHOW PROCESSLIST; the returned
// function marks the session idle again.
func (s *Session) track(text string) func() {
	s.srv.mu.Lock()
	s.running, s.since = shownText(text), s.srv.now()
	s.shownCatalog, s.shownDB = s.catalog, s.db
	s.srv.mu.Unlock()
	return func() {
		s.srv.mu.Lock()
		s.running, s.since = "", s.srv.now()
		s.shownCatalog, s.shownDB = s.catalog, s.db
		s.srv.mu.Unlock()
	}
}

// Close implements mysqlwire.Session.
func (s *Session) Close() {
	s.srv.mu.Lock()
	if s.srv.sessions[s.info.ID] == s {
		delete(s.srv.sessions, s.info.ID)
	}
	s.srv.mu.Unlock()
}

// Query implements mysqlwire.Session.
func (s *Session) Query(ctx context.Context, text string, w mysqlwire.ResultWriter) (err error) {
	audit, w := s.auditBegin("COM_QUERY", text, w)
	defer func() { s.auditEnd(audit, err) }()
	stmt, err := sql.Parse(text)
	if err != nil {
		return classify(err)
	}
	defer s.track(text)()
	st := s.beginStatement(text)
	defer func() { s.endStatement(st, err) }()
	audit.began(st, stmt)
	// A SET_VAR(query_timeout=…) hint bounds this statement, as SET does
	// the session's (a bad hint is the statement's error, reported where
	// the statement reads its variables).
	secs := s.vars.Int("query_timeout")
	if hv, herr := s.stmtVars(stmtHints(stmt)); herr == nil {
		secs = hv.Int("query_timeout")
	}
	if secs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(secs)*time.Second)
		defer cancel()
	}
	err = s.runLimited(ctx, stmt, w)
	if errors.Is(err, context.DeadlineExceeded) {
		err = errorf(context.DeadlineExceeded, "Query exceeded query_timeout (%d s) and was cancelled", secs)
	}
	return classify(err)
}

// stmtHints are the SET_VAR hints of a statement that takes them.
func stmtHints(stmt sql.Statement) map[string]string {
	switch n := stmt.(type) {
	case *sql.Select:
		return n.Hints
	case *sql.Insert:
		return n.Hints
	case *sql.Explain:
		return stmtHints(n.Stmt)
	}
	return nil
}

// stmtVars returns the session values with a statement's SET_VAR hints.
func (s *Session) stmtVars(hints map[string]string) (*vars.Session, error) {
	return s.vars.WithHints(hints)
}

func (s *Session) run(ctx context.Context, stmt sql.Statement, w mysqlwire.ResultWriter) error {
	if err := s.authorize(stmt); err != nil {
		return err
	}
	switch n := stmt.(type) {
	case *sql.Select:
		v, err := s.stmtVars(n.Hints)
		if err != nil {
			return err
		}
		return s.query(ctx, n, v, w)
	case *sql.SetOp:
		return s.query(ctx, n, s.vars, w)
	case *sql.Set:
		return s.set(ctx, n, w)
	case *sql.SetNames:
		cs := n.Charset
		if cs == "" {
			cs = "utf8mb4"
		}
		for _, k := range []string{"character_set_client", "character_set_connection", "character_set_results"} {
			if err := s.vars.Set(k, cs); err != nil {
				return err
			}
		}
		return w.OK(mysqlwire.OKResult{})
	case *sql.Use:
		return s.use(ctx, n.Catalog, n.Database, w)
	case *sql.Switch:
		if !s.srv.cfg.Catalogs.Exists(n.Catalog) {
			return unknownCatalog(n.Catalog)
		}
		s.catalog, s.db = n.Catalog, ""
		return w.OK(mysqlwire.OKResult{})
	case *sql.Show:
		return s.show(ctx, n, w)
	case *sql.Describe:
		return s.describe(ctx, n.Table, w)
	case *sql.Analyze:
		return s.analyze(ctx, n, w)
	case *sql.Explain:
		return s.explain(ctx, n, w)
	case *sql.CreateCatalog:
		return s.createCatalog(n, w)
	case *sql.AlterCatalog:
		return s.alterCatalog(n, w)
	case *sql.Refresh:
		return s.refresh(ctx, n, w)
	case *sql.Drop:
		return s.drop(ctx, n, w)
	case *sql.CreateDatabase:
		return s.createDatabase(ctx, n, w)
	case *sql.CreateTable:
		return s.createTable(ctx, n, w)
	case *sql.CreateView:
		return s.createView(ctx, n, w)
	case *sql.Insert:
		return s.insert(ctx, n, w)
	case *sql.Delete:
		return s.deleteFrom(ctx, n, w)
	case *sql.Update:
		return s.update(ctx, n, w)
	case *sql.Kill:
		return s.kill(n, w)
	case *sql.CreateUser, *sql.AlterUser, *sql.DropUser, *sql.Grant, *sql.SetPassword, *sql.ShowGrants:
		return s.account(n, w)
	case *sql.Txn:
		// Every statement commits on its own (autocommit); transaction
		// statements are accepted so MySQL clients and drivers work.
		return w.OK(mysqlwire.OKResult{})
	case *sql.SetTransaction:
		return s.setTransaction(n, w)
	}
	return notSupported(stmt)
}

// notSupported refuses a statement the parser knows and the server does not
// run, naming it by its leading keywords as the user wrote them.
func notSupported(stmt sql.Statement) error {
	if k := stmtKeywords(stmt); k != "" {
		return errorf(errNotSupported, "%s statements are not supported", k)
	}
	return errorf(errNotSupported, "this statement is not supported")
}

// stmtKeywords is the first (up to three) keywords of a statement as SQL
// prints it ("SET SESSION TRANSACTION", "KILL QUERY"): how errors name a
// kind of statement to a user.
func stmtKeywords(stmt sql.Statement) string {
	var words []string
	for _, f := range strings.Fields(stmt.String()) {
		if len(words) == 3 || strings.ToUpper(f) != f || strings.ContainsAny(f, "`'\"(),.=@0123456789") {
			break
		}
		words = append(words, f)
	}
	return strings.Join(words, " ")
}

// setTransaction records the isolation level and access mode JDBC drivers
// set (Connection.setTransactionIsolation) in the variables they read back
// (@@tx_isolation, @@transaction_isolation): every statement runs on its own
// snapshot whatever the level says.
func (s *Session) setTransaction(n *sql.SetTransaction, w mysqlwire.ResultWriter) error {
	if n.Scope == sql.ScopeNone {
		// MySQL: without SESSION or GLOBAL it is for the next transaction
		// only, and here that is the next statement, which ignores it.
		return w.OK(mysqlwire.OKResult{})
	}
	var set [][2]string
	if n.IsolationLevel != "" {
		level := strings.ReplaceAll(n.IsolationLevel, " ", "-")
		set = append(set, [2]string{"transaction_isolation", level}, [2]string{"tx_isolation", level})
	}
	if n.ReadOnly || n.ReadWrite {
		ro := strconv.FormatBool(n.ReadOnly)
		set = append(set, [2]string{"transaction_read_only", ro}, [2]string{"tx_read_only", ro})
	}
	for _, kv := range set {
		if n.Scope == sql.ScopeGlobal {
			if err := s.vars.Registry().SetGlobal(kv[0], kv[1]); err != nil {
				return err
			}
		}
		if err := s.vars.Set(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return w.OK(mysqlwire.OKResult{})
}

func unknownCatalog(name string) error {
	return errorf(errUnknownCatalog, "Unknown catalog '%s'", name)
}

func (s *Session) use(ctx context.Context, ctl, db string, w mysqlwire.ResultWriter) error {
	// COM_INIT_DB and the handshake send "use `ctl.db`": one name with a dot.
	if ctl == "" {
		if i := strings.IndexByte(db, '.'); i > 0 {
			ctl, db = db[:i], db[i+1:]
		}
	}
	if ctl == "" {
		ctl = s.catalog
	}
	c, err := s.getCatalog(ctx, ctl)
	if err != nil {
		return err
	}
	if strings.EqualFold(db, infoSchema) {
		db = infoSchema
	} else if s.virtualMySQL(ctx, ctl, db) {
		db = mysqlSchema
	} else if _, err := s.getDatabase(ctx, c, db); err != nil {
		return err
	}
	s.catalog, s.db = ctl, db
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) getCatalog(ctx context.Context, name string) (catalog.Catalog, error) {
	if !s.srv.cfg.Catalogs.Exists(name) {
		return nil, unknownCatalog(name)
	}
	c, err := s.srv.cfg.Catalogs.Get(ctx, name)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, withKind(errUnknownCatalog, err)
		}
		return nil, err
	}
	return c, nil
}

func (s *Session) getDatabase(ctx context.Context, c catalog.Catalog, db string) (catalog.Database, error) {
	d, err := c.Database(ctx, db)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, withKind(errUnknownDB, err)
		}
		return nil, err
	}
	return d, nil
}

// splitName resolves a 1-3 part table name against the current catalog and
// database.
func (s *Session) splitName(name []string) (ctl, db, tbl string, err error) {
	switch len(name) {
	case 1:
		if s.db == "" {
			return "", "", "", errorf(bind.ErrNoDatabase, "No database selected")
		}
		return s.catalog, s.db, name[0], nil
	case 2:
		return s.catalog, name[0], name[1], nil
	case 3:
		return name[0], name[1], name[2], nil
	}
	return "", "", "", errorf(sql.ErrSyntax, "bad table name %s", strings.Join(name, "."))
}

// splitDBName resolves a 1-2 part database name.
func (s *Session) splitDBName(name []string) (ctl, db string, err error) {
	switch len(name) {
	case 0:
		if s.db == "" {
			return "", "", errorf(bind.ErrNoDatabase, "No database selected")
		}
		return s.catalog, s.db, nil
	case 1:
		return s.catalog, name[0], nil
	case 2:
		return name[0], name[1], nil
	}
	return "", "", errorf(sql.ErrSyntax, "bad database name %s", strings.Join(name, "."))
}

func (s *Session) database(ctx context.Context, ctl, db string) (catalog.Catalog, catalog.Database, error) {
	c, err := s.getCatalog(ctx, ctl)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.getDatabase(ctx, c, db)
	return c, d, err
}

// ResolveTable implements bind.Resolver.
func (s *Session) ResolveTable(ctx context.Context, name []string) (string, string, catalog.Table, error) {
	ctl, db, tbl, err := s.splitName(name)
	if err != nil {
		return "", "", nil, err
	}
	if strings.EqualFold(db, infoSchema) {
		if !s.srv.cfg.Catalogs.Exists(ctl) {
			return "", "", nil, unknownCatalog(ctl)
		}
		if t, _ := s.infoSchemaTable(ctl, tbl); t != nil {
			return ctl, infoSchema, t, nil
		}
		return "", "", nil, errorf(errUnknownTable, "Table '%s.%s' doesn't exist", infoSchema, tbl)
	}
	if s.virtualMySQL(ctx, ctl, db) {
		return "", "", nil, errorf(errUnknownTable, "Table '%s.%s' doesn't exist", mysqlSchema, tbl)
	}
	_, d, err := s.database(ctx, ctl, db)
	if err != nil {
		return "", "", nil, err
	}
	t, err := d.Table(ctx, tbl)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return "", "", nil, withKind(errUnknownTable, err)
		}
		return "", "", nil, err
	}
	return ctl, db, t, nil
}

// bindSession is what the binder sees of this session under v.
func (s *Session) bindSession(v *vars.Session) *bind.Session {
	return &bind.Session{
		Resolver:       s.resolver(),
		Var:            func(name string, global bool) (any, error) { return s.varValue(v, name, global) },
		Vars:           v.Snapshot(),
		CurrentCatalog: s.catalog,
		CurrentDB:      s.db,
		User:           s.info.User,
		ConnectionID:   int64(s.info.ID),
		Version:        s.srv.cfg.Version,
		LastQueryID:    s.prevQueryID,
		Now:            s.srv.now(),
		Args:           s.args,
		Fold:           s.foldEnv(v),
		// Statistics lookups read the catalog's kept figures, not data.
		Rows: func(p bind.Plan) (float64, bool) { return opt.EstimateRows(context.Background(), p) },
	}
}

// varValue reads a variable as SELECT @@x returns it: integers and
// booleans as numbers, the rest as text.
func (s *Session) varValue(v *vars.Session, name string, global bool) (any, error) {
	reg := v.Registry()
	def, err := reg.Def(name)
	if err != nil {
		return nil, err
	}
	var val string
	if global {
		val, err = reg.Global(name)
	} else {
		val, err = v.Get(name)
	}
	if err != nil {
		return nil, err
	}
	switch def.Kind {
	case vars.Bool:
		if val == "true" {
			return int64(1), nil
		}
		return int64(0), nil
	case vars.Int:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("variable %s holds %q", name, val)
		}
		return n, nil
	}
	return val, nil
}

func (s *Session) set(ctx context.Context, n *sql.Set, w mysqlwire.ResultWriter) error {
	b := bind.New(ctx, s.bindSession(s.vars))
	for _, a := range n.Assignments {
		if a.Scope == sql.ScopeUser {
			continue // user variables are accepted and not kept
		}
		var val string
		if a.Default {
			def, err := s.vars.Registry().Def(a.Name)
			if err != nil {
				return err
			}
			val = def.Default
		} else {
			var err error
			if val, err = s.constText(b, a.Value); err != nil {
				return fmt.Errorf("SET %s: %w", a.Name, err)
			}
		}
		var err error
		if a.Scope == sql.ScopeGlobal {
			err = s.vars.Registry().SetGlobal(a.Name, val)
			if err == nil {
				err = s.vars.Set(a.Name, val)
			}
		} else {
			err = s.vars.Set(a.Name, val)
		}
		if err != nil {
			return err
		}
	}
	return w.OK(mysqlwire.OKResult{})
}

// constText evaluates a constant expression (SET value) to text. A bare
// word (SET sql_mode = ANSI, SET autocommit = ON) is its own text.
func (s *Session) constText(b *bind.Binder, e sql.Expr) (string, error) {
	if cr, ok := e.(*sql.ColumnRef); ok && len(cr.Parts) == 1 {
		return cr.Parts[0], nil
	}
	x, err := b.BindExpr(e)
	if err != nil {
		return "", err
	}
	return s.evalConstText(x)
}

func (s *Session) kill(n *sql.Kill, w mysqlwire.ResultWriter) error {
	f := s.srv.cancel.Load()
	if k := s.srv.killConn.Load(); k != nil && !n.Query {
		f = k // KILL closes the connection, KILL QUERY only stops its statement
	}
	if f == nil {
		return errorf(errNotSupported, "KILL is not available")
	}
	if !(*f)(uint32(n.ID)) {
		return errorf(bind.ErrAnalysis, "Unknown thread id: %d", n.ID)
	}
	return w.OK(mysqlwire.OKResult{})
}

// virtualMySQL reports whether db names the empty virtual `mysql` database
// of catalog ctl: it does unless the catalog has a database of that name.
func (s *Session) virtualMySQL(ctx context.Context, ctl, db string) bool {
	if !strings.EqualFold(db, mysqlSchema) || !s.srv.cfg.Catalogs.Exists(ctl) {
		return false
	}
	c, err := s.getCatalog(ctx, ctl)
	if err != nil {
		return false
	}
	_, err = s.getDatabase(ctx, c, db)
	return err != nil
}
