package auth

import (
	"bytes"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// builtin users: they always exist, hold every privilege, and log in with
// the FE's root password rule (WithRootPassword).
var builtin = map[string]bool{"root": true, "admin": true}

// internalCatalog is the catalog a database without one belongs to (the
// tables Stream Load writes), as Doris's "internal".
const internalCatalog = "internal"

// fileName is the store's file under the FE meta dir.
const fileName = "users.json"

// Option configures Open.
type Option func(*Store)

// WithRootPassword sets the password of root and admin ("" = none), the
// FE's --root-password / $INLET_ROOT_PASSWORD rule. Only its hash is kept.
func WithRootPassword(p string) Option {
	return func(s *Store) { s.rootHash = hashPassword(p) }
}

// Store holds the users and their grants. It is safe for concurrent use;
// every change is written to disk (atomically, fsynced) before it returns.
type Store struct {
	path     string
	rootHash []byte // nil = no password

	mu    sync.RWMutex
	users map[string]*user // by name: a name has one host pattern
}

type user struct {
	Host   string  `json:"host"`
	Hash   string  `json:"hash,omitempty"` // hex SHA1(SHA1(password)); "" = no password
	Grants []grant `json:"grants,omitempty"`
	// RequireSSL: the user logs in over TLS only (CREATE USER … REQUIRE SSL).
	RequireSSL bool `json:"require_ssl,omitempty"`
}

// UserOption sets an account option at CREATE USER.
type UserOption func(*user)

// RequireSSL makes the user log in over TLS only (REQUIRE SSL).
func RequireSSL() UserOption { return func(u *user) { u.RequireSSL = true } }

// RequiresSSL reports whether user, logging in from host, must use TLS.
func (s *Store) RequiresSSL(name, host string) bool {
	if builtin[name] {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[name]
	return u != nil && hostMatch(u.Host, host) && u.RequireSSL
}

type grant struct {
	Ctl   string `json:"ctl"`
	DB    string `json:"db"`
	Tbl   string `json:"tbl"`
	Privs Priv   `json:"privs"`
}

type fileFormat struct {
	Version int              `json:"version"`
	Users   map[string]*user `json:"users"`
}

// Open loads the store kept in metaDir (created if missing).
func Open(metaDir string, opts ...Option) (*Store, error) {
	if metaDir == "" {
		return nil, fmt.Errorf("auth: meta dir is empty")
	}
	if err := os.MkdirAll(metaDir, 0o700); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	s := &Store{path: filepath.Join(metaDir, fileName), users: map[string]*user{}}
	for _, o := range opts {
		o(s)
	}
	// The marker says this directory has held a users file: without it a
	// deleted file would look like a fresh start and silently drop every
	// account (as a missing catalog manifest refuses the start, so does
	// this).
	marker := filepath.Join(metaDir, markerName)
	_, merr := os.Stat(marker)
	hasMarker := merr == nil
	b, err := os.ReadFile(s.path)
	switch {
	case os.IsNotExist(err):
		if hasMarker {
			return nil, fmt.Errorf("auth: %s is missing, though this FE keeps its users there: restore it (starting without it would drop every user but root)", s.path)
		}
		if err := s.saveLocked(); err != nil {
			return nil, err
		}
		return s, writeMarker(marker)
	case err != nil:
		return nil, fmt.Errorf("auth: %w", err)
	}
	var f fileFormat
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("auth: %s: %w", s.path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("auth: %s: unknown version %d", s.path, f.Version)
	}
	for name, u := range f.Users {
		if u == nil || builtin[name] {
			return nil, fmt.Errorf("auth: %s: bad entry for user %q", s.path, name)
		}
		if u.Hash != "" {
			if h, err := hex.DecodeString(u.Hash); err != nil || len(h) != sha1.Size {
				return nil, fmt.Errorf("auth: %s: bad password hash for user %q", s.path, name)
			}
		}
		s.users[name] = u
	}
	if !hasMarker {
		if err := writeMarker(marker); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// markerName is the file that records that the users file exists.
const markerName = "users.initialized"

func writeMarker(path string) error {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}

// hashPassword is MySQL's stage-2 hash SHA1(SHA1(p)), which both verifies a
// cleartext password and a mysql_native_password scramble; nil for "".
func hashPassword(p string) []byte {
	if p == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(p))
	h2 := sha1.Sum(h1[:])
	return h2[:]
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func accessDenied(user, host string, usedPassword bool) error {
	return &Error{Num: 1045, State: "28000", kind: ErrAccessDenied,
		Msg: fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, host, yesNo(usedPassword))}
}

// NativeHash returns the stage-2 hash (SHA1(SHA1(password))) of a user who
// may log in from host: nil with ok for a user without password, ok false
// for an unknown user or a host the user's pattern does not match.
func (s *Store) NativeHash(user, host string) (stage2 []byte, ok bool) {
	if builtin[user] {
		return s.rootHash, true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[user]
	if u == nil || !hostMatch(u.Host, host) {
		return nil, false
	}
	if u.Hash == "" {
		return nil, true
	}
	h, _ := hex.DecodeString(u.Hash)
	return h, true
}

// Authenticate checks a cleartext password (HTTP Basic auth).
func (s *Store) Authenticate(user, host, password string) error {
	want, ok := s.NativeHash(user, host)
	if !ok {
		return accessDenied(user, host, password != "")
	}
	got := hashPassword(password)
	if len(want) != len(got) || subtle.ConstantTimeCompare(want, got) != 1 {
		return accessDenied(user, host, password != "")
	}
	return nil
}

// privsOn is what user holds on ctl.db.tbl ("" parts = that coarser level):
// the union of the grants whose pattern covers it.
func (s *Store) privsOn(name, ctl, db, tbl string) (Priv, string, bool) {
	if ctl == "" && db != "" {
		ctl = internalCatalog
	}
	if builtin[name] {
		return AllPrivs, "%", true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[name]
	if u == nil {
		return 0, "%", false
	}
	var p Priv
	for _, g := range u.Grants {
		if g.covers(ctl, db, tbl) {
			p |= g.Privs
		}
	}
	return p, u.Host, true
}

// covers says whether the grant's pattern includes ctl.db.tbl, where an
// empty part asks about the coarser level (so only a "*" covers it).
func (g grant) covers(ctl, db, tbl string) bool {
	part := func(pat, v string) bool { return pat == "*" || (v != "" && strings.EqualFold(pat, v)) }
	return part(g.Ctl, ctl) && part(g.DB, db) && part(g.Tbl, tbl)
}

// Has says whether user holds priv (or ADMIN_PRIV) on ctl.db.tbl.
func (s *Store) Has(user string, priv Priv, ctl, db, tbl string) bool {
	p, _, _ := s.privsOn(user, ctl, db, tbl)
	return p&AdminPriv != 0 || p&priv == priv
}

// HasAny says whether user holds priv (or ADMIN_PRIV) on ctl.db.tbl or on
// anything inside it (a database some table of which it may read, say).
func (s *Store) HasAny(user string, priv Priv, ctl, db string) bool {
	if s.Has(user, priv, ctl, db, "") {
		return true
	}
	if builtin[user] {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[user]
	if u == nil {
		return false
	}
	match := func(pat, v string) bool { return v == "" || pat == "*" || strings.EqualFold(pat, v) }
	for _, g := range u.Grants {
		if match(g.Ctl, ctl) && match(g.DB, db) && g.Privs&(priv|AdminPriv) != 0 {
			return true
		}
	}
	return false
}

// Check says whether user holds priv on ctl.db.tbl (tbl "" asks about the
// database level, db "" the catalog level, ctl "" with a db means the
// internal catalog, all "" the global level); the error is Doris's text for
// the level asked about, naming the user with its host pattern:
//
//	table:  1142 "SELECT command denied to user 'u'@'%' for table 'ctl: db: t'"
//	db:     1044 "Access denied for user 'u'@'%' to database 'db'"
//	global: 1227 "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation"
func (s *Store) Check(user string, priv Priv, ctl, db, tbl string) error {
	return s.CheckFrom(user, "", priv, ctl, db, tbl)
}

// CheckFrom is Check for a connection from remote (an IP address), which
// the error names as Doris does; "" names the user's host pattern.
func (s *Store) CheckFrom(user, remote string, priv Priv, ctl, db, tbl string) error {
	p, host, _ := s.privsOn(user, ctl, db, tbl)
	if p&AdminPriv != 0 || p&priv == priv {
		return nil
	}
	if remote != "" {
		host = remote
	}
	return denied(user, host, priv, ctl, db, tbl)
}

// commandOf is the command word of 1142: the privilege name without _PRIV.
func commandOf(priv Priv) string {
	s := strings.ToUpper(priv.String())
	return strings.ReplaceAll(s, "_PRIV", "")
}

// TableDenied is Doris's 1142 for a command that is not one privilege
// (SHOW, DESCRIBE): "SHOW command denied to user 'u'@'h' for table 'ctl: db: t'".
func TableDenied(command, user, host, ctl, db, tbl string) error {
	e := denied(user, host, SelectPriv, ctl, db, tbl).(*Error)
	e.Msg = command + strings.TrimPrefix(e.Msg, commandOf(SelectPriv))
	return e
}

func denied(user, host string, priv Priv, ctl, db, tbl string) error {
	e := &Error{Num: 1227, State: "42000", kind: ErrPrivDenied}
	switch {
	case tbl != "":
		e.Num = 1142
		// Doris's Nereids names the table "ctl: db: tbl".
		name := db + ": " + tbl
		if ctl != "" {
			name = ctl + ": " + name
		}
		e.Msg = fmt.Sprintf("%s command denied to user '%s'@'%s' for table '%s'", commandOf(priv), user, host, name)
	case db != "":
		e.Num = 1044
		e.Msg = fmt.Sprintf("Access denied for user '%s'@'%s' to database '%s'", user, host, db)
	case ctl != "":
		e.Num = 1221
		e.Msg = fmt.Sprintf("Access denied; you need (at least one of) the (%s) privilege(s) on catalog %s for this operation", priv, ctl)
	default:
		e.Msg = fmt.Sprintf("Access denied; you need (at least one of) the (%s) privilege(s) for this operation", priv)
	}
	return e
}

// SpecificDenied is Doris's ERR_SPECIFIC_ACCESS_DENIED_ERROR (1227) naming
// the privileges an operation needs, as SET GLOBAL reports it ("ADMIN").
func SpecificDenied(privs string) error {
	return &Error{Num: 1227, State: "42000", kind: ErrPrivDenied, Msg: fmt.Sprintf("Access denied; you need (at least one of) the %s privilege(s) for this operation", privs)}
}

// KillDenied is Doris's 1095 for KILL of another user's connection without
// ADMIN_PRIV.
func KillDenied(id int64) error {
	return &Error{Num: 1095, State: "HY000", kind: ErrPrivDenied, Msg: fmt.Sprintf("You are not owner of thread or query: %d", id)}
}

func userOpFailed(op string, id Identity) error {
	return &Error{Num: 1396, State: "HY000", kind: ErrUserOp, Msg: fmt.Sprintf("Operation %s failed for %s", op, id)}
}

func invalidGrant(format string, args ...any) error {
	return &Error{Num: 1105, State: "HY000", kind: ErrInvalidGrant, Msg: fmt.Sprintf(format, args...)}
}

// normHost makes "" the any-host pattern, as Doris does for 'u' without @.
func normHost(h string) string {
	if h == "" {
		return "%"
	}
	return h
}

// CreateUser adds a user. A name has one host pattern: creating 'u'@'h2'
// while 'u'@'h1' exists fails like an existing user.
func (s *Store) CreateUser(id Identity, password string, ifNotExists bool, opts ...UserOption) error {
	return s.createUser(id, hexHash(password), ifNotExists, opts...)
}

func (s *Store) createUser(id Identity, hash string, ifNotExists bool, opts ...UserOption) error {
	id.Host = normHost(id.Host)
	if id.User == "" {
		return invalidGrant("user name is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if builtin[id.User] || s.users[id.User] != nil {
		if ifNotExists {
			return nil
		}
		return userOpFailed("CREATE USER", id)
	}
	u := &user{Host: id.Host, Hash: hash}
	for _, o := range opts {
		o(u)
	}
	s.users[id.User] = u
	if err := s.saveLocked(); err != nil {
		delete(s.users, id.User)
		return err
	}
	return nil
}

// lookupLocked finds the user an identity names: same name and same host
// pattern.
func (s *Store) lookupLocked(id Identity) *user {
	u := s.users[id.User]
	if u == nil || u.Host != normHost(id.Host) {
		return nil
	}
	return u
}

// DropUser removes a user and its grants.
func (s *Store) DropUser(id Identity, ifExists bool) error {
	id.Host = normHost(id.Host)
	if builtin[id.User] {
		return &Error{Num: 1105, State: "HY000", kind: ErrUserOp, Msg: fmt.Sprintf("Can not drop user %s", id.User)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.lookupLocked(id)
	if u == nil {
		if ifExists {
			return nil
		}
		return userOpFailed("DROP USER", id)
	}
	delete(s.users, id.User)
	if err := s.saveLocked(); err != nil {
		s.users[id.User] = u
		return err
	}
	return nil
}

// AlterUser changes what ALTER USER names: the password (stage-2 hex hash,
// when hash is non-nil) and the SSL requirement (when requireSSL is
// non-nil). root's and admin's accounts come from the FE's configuration.
func (s *Store) alterUser(id Identity, hash *string, requireSSL *bool, ifExists bool) error {
	id.Host = normHost(id.Host)
	if builtin[id.User] {
		return &Error{Num: 1105, State: "HY000", kind: ErrUserOp,
			Msg: fmt.Sprintf("the account of %s is set by the FE's configuration, not by ALTER USER", id.User)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.lookupLocked(id)
	if u == nil {
		if ifExists {
			return nil
		}
		return userOpFailed("ALTER USER", id)
	}
	old := *u
	if hash != nil {
		u.Hash = *hash
	}
	if requireSSL != nil {
		u.RequireSSL = *requireSSL
	}
	if err := s.saveLocked(); err != nil {
		*u = old
		return err
	}
	return nil
}

// AlterUser changes a user's password (when password is non-nil; hashed
// means it is MySQL's '*HEX' stage-2 hash) and SSL requirement (when
// requireSSL is non-nil).
func (s *Store) AlterUser(id Identity, password *string, hashed bool, requireSSL *bool, ifExists bool) error {
	var hash *string
	if password != nil {
		h := hexHash(*password)
		if hashed {
			var err error
			if h, err = parseStage2(*password); err != nil {
				return err
			}
		}
		hash = &h
	}
	return s.alterUser(id, hash, requireSSL, ifExists)
}

// SetPassword changes a user's password ("" removes it). root's and
// admin's come from the FE's configuration and cannot be set here.
func (s *Store) SetPassword(id Identity, password string) error {
	return s.setPassword(id, hexHash(password))
}

func (s *Store) setPassword(id Identity, hash string) error {
	id.Host = normHost(id.Host)
	if builtin[id.User] {
		return &Error{Num: 1105, State: "HY000", kind: ErrUserOp,
			Msg: fmt.Sprintf("the password of %s is set by the FE's configuration ($INLET_ROOT_PASSWORD), not by SET PASSWORD", id.User)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.lookupLocked(id)
	if u == nil {
		return userOpFailed("SET PASSWORD", id)
	}
	old := u.Hash
	u.Hash = hash
	if err := s.saveLocked(); err != nil {
		u.Hash = old
		return err
	}
	return nil
}

// checkObject validates a grant's object the way Doris's TablePattern does:
// a "*" part must be followed by "*" parts only.
func checkObject(on Object) error {
	if on.Ctl == "" || on.DB == "" || on.Tbl == "" {
		return invalidGrant("incomplete grant object %s", on)
	}
	if (on.Ctl == "*" && on.DB != "*") || (on.DB == "*" && on.Tbl != "*") {
		return invalidGrant("Do not support format: %s", on)
	}
	return nil
}

// Grant adds privs on an object to a user. ADMIN_PRIV can only be granted
// on *.*.*, as in Doris.
func (s *Store) Grant(id Identity, privs Priv, on Object) error {
	return s.changeGrant(id, privs, on, true)
}

// Revoke removes privs on exactly that object from a user.
func (s *Store) Revoke(id Identity, privs Priv, on Object) error {
	return s.changeGrant(id, privs, on, false)
}

func (s *Store) changeGrant(id Identity, privs Priv, on Object, add bool) error {
	id.Host = normHost(id.Host)
	if err := checkObject(on); err != nil {
		return err
	}
	if privs == 0 || privs&^AllPrivs != 0 {
		return invalidGrant("no privilege to grant or revoke")
	}
	if privs&AdminPriv != 0 && on != (Object{"*", "*", "*"}) {
		return invalidGrant("ADMIN_PRIV privilege can only be granted or revoked on resource *.*.*")
	}
	if builtin[id.User] {
		return invalidGrant("Can not grant/revoke privileges of %s", id.User)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.lookupLocked(id)
	if u == nil {
		return &Error{Num: 1105, State: "HY000", kind: ErrInvalidGrant, Msg: fmt.Sprintf("user %s does not exist", id)}
	}
	old := append([]grant(nil), u.Grants...)
	i := -1
	for j, g := range u.Grants {
		if strings.EqualFold(g.Ctl, on.Ctl) && strings.EqualFold(g.DB, on.DB) && strings.EqualFold(g.Tbl, on.Tbl) {
			i = j
			break
		}
	}
	switch {
	case add && i < 0:
		u.Grants = append(u.Grants, grant{Ctl: on.Ctl, DB: on.DB, Tbl: on.Tbl, Privs: privs})
	case add:
		u.Grants[i].Privs |= privs
	case i < 0 || u.Grants[i].Privs&privs == 0:
		return &Error{Num: 1141, State: "42000", kind: ErrInvalidGrant,
			Msg: fmt.Sprintf("There is no such grant defined for user '%s' on host '%s'", id.User, id.Host)}
	default:
		u.Grants[i].Privs &^= privs
		if u.Grants[i].Privs == 0 {
			u.Grants = append(u.Grants[:i:i], u.Grants[i+1:]...)
		}
	}
	if err := s.saveLocked(); err != nil {
		u.Grants = old
		return err
	}
	return nil
}

// ShowGrants lists the grants of one user (id non-nil) or of every user
// (root and admin first, then by name).
func (s *Store) ShowGrants(id *Identity) ([]GrantRow, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if id != nil {
		host := normHost(id.Host)
		if builtin[id.User] {
			return []GrantRow{s.builtinRow(id.User)}, nil
		}
		u := s.users[id.User]
		if u == nil || (id.Host != "" && u.Host != host) {
			return nil, &Error{Num: 1105, State: "HY000", kind: ErrUserOp, Msg: fmt.Sprintf("User: %s does not exist", Identity{id.User, host})}
		}
		return []GrantRow{rowOf(id.User, u)}, nil
	}
	rows := []GrantRow{s.builtinRow("root"), s.builtinRow("admin")}
	names := make([]string, 0, len(s.users))
	for n := range s.users {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rows = append(rows, rowOf(n, s.users[n]))
	}
	return rows, nil
}

func (s *Store) builtinRow(name string) GrantRow {
	r := GrantRow{UserIdentity: Identity{name, "%"}.String(), Password: yesNoCap(s.rootHash != nil)}
	if name == "root" {
		r.Comment, r.Roles, r.GlobalPrivs = "ROOT", "operator", "Node_priv,Admin_priv"
	} else {
		r.Comment, r.Roles, r.GlobalPrivs = "ADMIN", "admin", "Admin_priv"
	}
	return r
}

func yesNoCap(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// rowOf renders a user's grants into Doris's columns: global (*.*.*),
// catalog (ctl.*.*), database (ctl.db.*) and table privileges, each entry
// "object: privs" and entries joined by "; ".
func rowOf(name string, u *user) GrantRow {
	r := GrantRow{UserIdentity: Identity{name, u.Host}.String(), Password: yesNoCap(u.Hash != "")}
	var cat, db, tbl []string
	gs := append([]grant(nil), u.Grants...)
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		return a.Ctl+"\x00"+a.DB+"\x00"+a.Tbl < b.Ctl+"\x00"+b.DB+"\x00"+b.Tbl
	})
	for _, g := range gs {
		switch {
		case g.Ctl == "*":
			r.GlobalPrivs = g.Privs.String()
		case g.DB == "*":
			cat = append(cat, g.Ctl+": "+g.Privs.String())
		case g.Tbl == "*":
			db = append(db, g.Ctl+"."+g.DB+": "+g.Privs.String())
		default:
			tbl = append(tbl, g.Ctl+"."+g.DB+"."+g.Tbl+": "+g.Privs.String())
		}
	}
	r.CatalogPrivs = strings.Join(cat, "; ")
	r.DatabasePrivs = strings.Join(db, "; ")
	r.TablePrivs = strings.Join(tbl, "; ")
	return r
}

// saveLocked writes the store atomically: a temporary file, fsynced,
// renamed over the old one, then the directory fsynced, so a crash leaves
// either the old or the new file.
func (s *Store) saveLocked() error {
	b, err := json.MarshalIndent(fileFormat{Version: 1, Users: s.users}, "", "  ")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	dir := filepath.Dir(s.path)
	f, err := os.CreateTemp(dir, fileName+".tmp*")
	if err != nil {
		return fmt.Errorf("auth: save users: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(bytes.TrimSpace(b))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("auth: save users to %s: %w", s.path, err)
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("auth: sync %s: %w", dir, err)
		}
	}
	return nil
}

// hostMatch matches a host against a MySQL host pattern: '%' any run of
// characters, '_' any one character, case-insensitively.
func hostMatch(pattern, host string) bool {
	p, h := strings.ToLower(pattern), strings.ToLower(host)
	// Iterative wildcard match with one backtrack point: linear in practice,
	// never exponential.
	pi, hi, star, mark := 0, 0, -1, 0
	for hi < len(h) {
		switch {
		case pi < len(p) && (p[pi] == '_' || p[pi] == h[hi]):
			pi++
			hi++
		case pi < len(p) && p[pi] == '%':
			star, mark = pi, hi
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			hi = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}
