package server

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/manager"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/internal/redact"
)

// This file runs the account statements (CREATE/DROP USER, GRANT, REVOKE,
// SET PASSWORD, SHOW GRANTS) and enforces privileges on SQL (issue 12):
//   - scans need SELECT_PRIV on each table the binder resolves
//     (privResolver), whatever the catalog;
//   - other statements are checked by authorize before they run: INSERT
//     (and DELETE/UPDATE) need LOAD_PRIV on the target, CREATE/DROP/ALTER
//     the matching privilege on the object, CREATE CATALOG ADMIN_PRIV, user
//     management GRANT_PRIV. A statement authorize does not know is refused
//     to anyone without ADMIN_PRIV, so a new statement kind is closed until
//     it says what it needs.
// With no store configured (Config.Auth nil) everything is allowed: the
// FE then has root alone.

// authStore is the account store, nil when privileges are not enforced.
func (s *Session) authStore() *auth.Store { return s.srv.cfg.Auth }

// remoteIP is the client's address without its port, as Doris's messages
// name it.
func (s *Session) remoteIP() string {
	h, _, err := net.SplitHostPort(s.info.Remote)
	if err != nil {
		return s.info.Remote
	}
	return h
}

// requirePriv checks that the session's user holds priv on ctl.db.tbl.
func (s *Session) requirePriv(priv auth.Priv, ctl, db, tbl string) error {
	st := s.authStore()
	if st == nil {
		return nil
	}
	return st.CheckFrom(s.info.User, s.remoteIP(), priv, ctl, db, tbl)
}

// privTable is the table a privilege is granted on: system tables
// (t$lake, t$snapshots …) share the privileges of their table.
func privTable(tbl string) string {
	if i := strings.IndexByte(tbl, '$'); i > 0 {
		return tbl[:i]
	}
	return tbl
}

// privResolver resolves the tables of a query for the binder and checks
// SELECT_PRIV on each; information_schema is open to every user, as in
// Doris. Views: ResolveView (views.go) checks SELECT_PRIV on the view; the
// tables its query reads are checked too as they are bound (stricter than
// Doris, which asks for the view's privilege alone).
type privResolver struct{ s *Session }

func (r privResolver) ResolveTable(ctx context.Context, name []string) (string, string, catalog.Table, error) {
	ctl, db, t, err := r.s.ResolveTable(ctx, name)
	if err != nil {
		return ctl, db, t, err
	}
	if db == infoSchema {
		return ctl, db, t, nil
	}
	if err := r.s.requirePriv(auth.SelectPriv, ctl, db, privTable(name[len(name)-1])); err != nil {
		return "", "", nil, err
	}
	return ctl, db, t, nil
}

// resolver is the binder's table resolver: privilege-checking when a store
// is configured.
func (s *Session) resolver() bind.Resolver {
	if s.authStore() == nil {
		return s
	}
	return privResolver{s}
}

// authorize checks what a statement needs before it runs (scans are
// checked as they are resolved, see privResolver).
func (s *Session) authorize(stmt sql.Statement) error {
	st := s.authStore()
	if st == nil {
		return nil
	}
	table := func(priv auth.Priv, name sql.Name) error {
		ctl, db, tbl, err := s.splitName(name)
		if err != nil {
			return err
		}
		return s.requirePriv(priv, ctl, db, privTable(tbl))
	}
	database := func(priv auth.Priv, name sql.Name) error {
		ctl, db, err := s.splitDBName(name)
		if err != nil {
			return err
		}
		return s.requirePriv(priv, ctl, db, "")
	}
	switch n := stmt.(type) {
	case *sql.Set:
		// SET GLOBAL changes every later session, root's too: Doris asks
		// for ADMIN_PRIV (SetVar.analyze).
		for _, a := range n.Assignments {
			if a.Scope == sql.ScopeGlobal && !st.Has(s.info.User, auth.AdminPriv, "", "", "") {
				return auth.SpecificDenied("ADMIN")
			}
		}
		return nil
	case *sql.SetTransaction:
		if n.Scope == sql.ScopeGlobal && !st.Has(s.info.User, auth.AdminPriv, "", "", "") {
			return auth.SpecificDenied("ADMIN")
		}
		return nil
	case *sql.Select, *sql.SetOp, *sql.Explain, *sql.SetNames, *sql.Switch, *sql.Txn:
		return nil
	case *sql.Refresh:
		return s.authorizeRefresh(n)
	case *sql.Kill:
		// One's own connections, or anyone's with ADMIN_PRIV.
		s.srv.mu.Lock()
		other := s.srv.sessions[uint32(n.ID)]
		s.srv.mu.Unlock()
		if other == nil || other.info.User == s.info.User || st.Has(s.info.User, auth.AdminPriv, "", "", "") {
			return nil
		}
		return auth.KillDenied(n.ID)
	case *sql.Describe:
		return s.showTable("DESCRIBE", n.Table)
	case *sql.Analyze:
		return table(auth.SelectPriv, n.Table)
	case *sql.Show:
		switch n.Kind {
		case sql.ShowCreateTable, sql.ShowCreateView, sql.ShowColumns, sql.ShowPartitions, sql.ShowColumnStats, sql.ShowTableStats:
			name := n.Name
			if n.Kind == sql.ShowColumns && len(n.From) > 0 && len(name) == 1 {
				name = append(append(sql.Name{}, n.From...), name[0])
			}
			return s.showTable("SHOW", name)
		case sql.ShowCreateCatalog:
			// Its properties are for those who hold something in it.
			if len(n.Name) == 1 && n.Name[0] != manager.InternalName && !s.holdsSome(n.Name[0], "", "") {
				return s.requirePriv(anyTablePriv, n.Name[0], "", "")
			}
			return nil
		case sql.ShowBackends, sql.ShowProc:
			// Doris: cluster nodes are shown to administrators.
			return s.requirePriv(auth.AdminPriv, "", "", "")
		}
		return nil
	case *sql.Use:
		return s.authorizeUse(n)
	case *sql.Insert:
		return table(auth.LoadPriv, n.Table)
	case *sql.Delete:
		return table(auth.LoadPriv, n.Table)
	case *sql.Update:
		return table(auth.LoadPriv, n.Table)
	case *sql.CreateView:
		return table(auth.CreatePriv, n.Name)
	case *sql.CreateTable:
		return table(auth.CreatePriv, n.Name)
	case *sql.CreateDatabase:
		return database(auth.CreatePriv, n.Name)
	case *sql.CreateCatalog:
		return s.requirePriv(auth.AdminPriv, "", "", "")
	case *sql.AlterCatalog:
		return s.requirePriv(auth.AlterPriv, n.Name, "", "")
	case *sql.Drop:
		switch n.Kind {
		case sql.ObjCatalog:
			if len(n.Name) != 1 {
				return nil // the statement reports the bad name
			}
			return s.requirePriv(auth.DropPriv, n.Name[0], "", "")
		case sql.ObjDatabase:
			return database(auth.DropPriv, n.Name)
		default:
			return table(auth.DropPriv, n.Name)
		}
	case *sql.CreateUser, *sql.DropUser, *sql.AlterUser:
		return s.requirePriv(auth.GrantPriv, "", "", "")
	case *sql.Grant:
		if privs, err := grantPrivs(n.Privs); err == nil && privs&auth.AdminPriv != 0 {
			return s.requirePriv(auth.AdminPriv, "", "", "")
		}
		return s.requirePriv(auth.GrantPriv, "", "", "")
	case *sql.SetPassword:
		if n.User != nil && n.User.Name != s.info.User {
			return s.requirePriv(auth.GrantPriv, "", "", "")
		}
		return nil
	case *sql.ShowGrants:
		if n.All || (n.User != nil && n.User.Name != s.info.User) {
			return s.requirePriv(auth.GrantPriv, "", "", "")
		}
		return nil
	}
	return s.requirePriv(auth.AdminPriv, "", "", "")
}

// authorizeUse lets a user into a database it holds some privilege in
// (Doris answers 1044 otherwise); information_schema is open to all.
func (s *Session) authorizeUse(n *sql.Use) error {
	st := s.authStore()
	ctl, db := n.Catalog, n.Database
	if ctl == "" {
		if i := strings.IndexByte(db, '.'); i > 0 {
			ctl, db = db[:i], db[i+1:]
		} else {
			ctl = s.catalog
		}
	}
	if db == "" || strings.EqualFold(db, infoSchema) || strings.EqualFold(db, mysqlSchema) || s.holdsSome(ctl, db, "") {
		return nil
	}
	return st.CheckFrom(s.info.User, s.remoteIP(), anyTablePriv, ctl, db, "")
}

// grantPrivs reads the privilege names of a GRANT or REVOKE; READ_ONLY is
// Doris's name for SELECT_PRIV alone.
func grantPrivs(names []string) (auth.Priv, error) {
	var p auth.Priv
	for _, n := range names {
		if strings.EqualFold(n, "READ_ONLY") {
			p |= auth.SelectPriv
			continue
		}
		q, err := auth.ParsePriv(n)
		if err != nil {
			return 0, err
		}
		p |= q
	}
	return p, nil
}

func identOf(u sql.UserIdent) auth.Identity { return auth.Identity{User: u.Name, Host: u.Host} }

// account runs an account statement.
func (s *Session) account(stmt sql.Statement, w mysqlwire.ResultWriter) error {
	st := s.authStore()
	if st == nil {
		return errorf(errNotSupported, "users and privileges need the FE's account store (the FE was started without a meta dir)")
	}
	var err error
	switch n := stmt.(type) {
	case *sql.CreateUser:
		var opts []auth.UserOption
		if n.RequireSSL {
			opts = append(opts, auth.RequireSSL())
		}
		if n.PasswordHashed {
			err = st.CreateUserHashed(identOf(n.User), n.Password, n.IfNotExists, opts...)
		} else {
			err = st.CreateUser(identOf(n.User), n.Password, n.IfNotExists, opts...)
		}
	case *sql.AlterUser:
		var pw *string
		if n.HasPassword {
			pw = &n.Password
		}
		var req *bool
		if n.Require != "" {
			on := n.Require == "SSL"
			req = &on
		}
		err = st.AlterUser(identOf(n.User), pw, n.PasswordHashed, req, n.IfExists)
	case *sql.DropUser:
		err = st.DropUser(identOf(n.User), n.IfExists)
	case *sql.Grant:
		var privs auth.Priv
		if privs, err = grantPrivs(n.Privs); err != nil {
			break
		}
		// A two-part object (db.tbl, *.*) is in the internal catalog, as
		// Doris's TablePattern defaults it.
		on := auth.Object{Ctl: manager.InternalName, DB: n.On[0], Tbl: n.On[1]}
		if len(n.On) == 3 {
			on = auth.Object{Ctl: n.On[0], DB: n.On[1], Tbl: n.On[2]}
		}
		if n.Revoke {
			err = st.Revoke(identOf(n.User), privs, on)
		} else {
			err = st.Grant(identOf(n.User), privs, on)
		}
	case *sql.SetPassword:
		id := auth.Identity{User: s.info.User}
		if n.User != nil {
			id = identOf(*n.User)
		} else if h, ok := st.HostOf(s.info.User); ok {
			id.Host = h
		}
		if n.Hashed {
			err = st.SetPasswordHashed(id, n.Password)
		} else {
			err = st.SetPassword(id, n.Password)
		}
	case *sql.ShowGrants:
		return s.showGrants(n, w)
	default:
		return notSupported(stmt)
	}
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) showGrants(n *sql.ShowGrants, w mysqlwire.ResultWriter) error {
	st := s.authStore()
	var id *auth.Identity
	switch {
	case n.User != nil:
		v := identOf(*n.User)
		id = &v
	case !n.All:
		id = &auth.Identity{User: s.info.User}
	}
	rows, err := st.ShowGrants(id)
	if err != nil {
		return err
	}
	t := &table{names: auth.Columns}
	for _, r := range rows {
		vals := r.Values()
		out := make([]*string, len(vals))
		for i, v := range vals {
			if v != nil {
				out[i] = str(v.(string))
			}
		}
		t.add(out...)
	}
	return t.write(w)
}

// authWire sends a privilege or login failure with Doris's own error
// number (1142, 1044, 1227, 1396 …); nil when err is not one.
func authWire(err error) error {
	var e *auth.Error
	if !errors.As(err, &e) {
		return nil
	}
	return mysqlwire.WithErrno(e.Num, e.State, err)
}

// secretWords are the words after which a statement may carry a secret
// (sql.MaskSecrets decides which literal); most statements have none, and
// skip the masking lexer.
var secretWords = []string{"password", "identified", "secret", "token", "credential", "key", "jaas", "private", "pwd", "passwd"}

// shownText is a statement's text as SHOW PROCESSLIST and profiles keep
// it: secrets masked. Only statements that can carry one (CREATE USER /
// CATALOG, ALTER CATALOG, SET PASSWORD, or text starting with a comment)
// are looked at, so a large INSERT or SELECT costs nothing here. The
// password of a URI (s3://AK:PASSWORD@bucket/…) is masked in any text.
func shownText(text string) string {
	return redact.URIPasswords(shownSecrets(text))
}

func shownSecrets(text string) string {
	head := strings.TrimLeft(text, " \t\r\n(")
	if len(head) > 6 {
		head = head[:6]
	}
	switch {
	case strings.HasPrefix(head, "/*"), strings.HasPrefix(head, "--"), strings.HasPrefix(head, "#"):
	case len(head) >= 3 && strings.EqualFold(head[:3], "SET"):
	case len(head) >= 5 && strings.EqualFold(head[:5], "ALTER"):
	case len(head) >= 6 && strings.EqualFold(head[:6], "CREATE"):
	default:
		return text
	}
	l := strings.ToLower(text)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return sql.MaskSecrets(text)
		}
	}
	return text
}

// anyTablePriv are the privileges that make a table or database visible.
const anyTablePriv = auth.SelectPriv | auth.LoadPriv | auth.AlterPriv | auth.CreatePriv | auth.DropPriv

// holdsSome says whether the user holds any privilege on ctl.db.tbl, or
// with tbl "" on db or any table in it.
func (s *Session) holdsSome(ctl, db, tbl string) bool {
	st := s.authStore()
	if st == nil {
		return true
	}
	for p := auth.SelectPriv; p <= auth.DropPriv; p <<= 1 {
		if anyTablePriv&p == 0 {
			continue
		}
		if tbl == "" && st.HasAny(s.info.User, p, ctl, db) || tbl != "" && st.Has(s.info.User, p, ctl, db, tbl) {
			return true
		}
	}
	return false
}

// hideUnprivileged drops from SHOW DATABASES, SHOW TABLES and SHOW TABLE
// STATUS the objects the user holds no privilege on, and from SHOW
// PROCESSLIST other users' connections, as Doris does.
func (s *Session) hideUnprivileged(n *sql.Show, t *table) {
	if s.authStore() == nil {
		return
	}
	var keep func(name string) bool
	col := 0 // the column keep looks at
	switch n.Kind {
	case sql.ShowProcesslist:
		// Others' connections are for ADMIN_PRIV holders only.
		if s.authStore().Has(s.info.User, auth.AdminPriv, "", "", "") {
			return
		}
		col, keep = 1, func(user string) bool { return user == s.info.User }
	case sql.ShowDatabases:
		ctl := s.catalog
		if len(n.From) == 1 {
			ctl = n.From[0]
		}
		keep = func(db string) bool {
			return strings.EqualFold(db, infoSchema) || strings.EqualFold(db, mysqlSchema) || s.holdsSome(ctl, db, "")
		}
	case sql.ShowTables, sql.ShowTableStatus:
		ctl, db, err := s.splitDBName(n.From)
		if err != nil || strings.EqualFold(db, infoSchema) {
			return
		}
		keep = func(tbl string) bool { return s.holdsSome(ctl, db, privTable(tbl)) }
	default:
		return
	}
	kept := t.rows[:0]
	for _, r := range t.rows {
		if len(r) > col && r[col] != nil && keep(*r[col]) {
			kept = append(kept, r)
		}
	}
	t.rows = kept
}

// showTable checks that the user may see a table's definition (DESCRIBE,
// SHOW CREATE TABLE, SHOW COLUMNS, SHOW PARTITIONS): any privilege on it.
func (s *Session) showTable(command string, name sql.Name) error {
	if s.authStore() == nil {
		return nil
	}
	ctl, db, tbl, err := s.splitName(name)
	if err != nil || strings.EqualFold(db, infoSchema) {
		return nil // the statement reports a bad name itself
	}
	if s.holdsSome(ctl, db, privTable(tbl)) {
		return nil
	}
	return auth.TableDenied(command, s.info.User, s.remoteIP(), ctl, db, privTable(tbl))
}

// authorizeRefresh lets a user refresh the metadata of a catalog, database
// or table it holds some privilege in.
func (s *Session) authorizeRefresh(n *sql.Refresh) error {
	var ctl, db, tbl string
	var err error
	switch n.Kind {
	case sql.ObjCatalog:
		if len(n.Name) != 1 {
			return nil // the statement reports the bad name
		}
		ctl = n.Name[0]
	case sql.ObjDatabase:
		ctl, db, err = s.splitDBName(n.Name)
	default:
		ctl, db, tbl, err = s.splitName(n.Name)
		tbl = privTable(tbl)
	}
	if err != nil || s.holdsSome(ctl, db, tbl) {
		return nil
	}
	if tbl != "" {
		return auth.TableDenied("REFRESH", s.info.User, s.remoteIP(), ctl, db, tbl)
	}
	return s.authStore().CheckFrom(s.info.User, s.remoteIP(), anyTablePriv, ctl, db, tbl)
}
