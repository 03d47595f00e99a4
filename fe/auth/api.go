package auth

import (
	"fmt"
	"strings"
)

// Priv is a set of Doris privileges (bit flags).
type Priv uint32

// The privileges, named as Doris names them (SELECT_PRIV …). AdminPriv
// implies every other privilege; GrantPriv allows GRANT, REVOKE and user
// management.
const (
	SelectPriv Priv = 1 << iota
	LoadPriv
	AlterPriv
	CreatePriv
	DropPriv
	GrantPriv
	AdminPriv

	// AllPrivs is every privilege a GRANT can name.
	AllPrivs = SelectPriv | LoadPriv | AlterPriv | CreatePriv | DropPriv | GrantPriv | AdminPriv
)

// privNames is the order Doris lists privileges in SHOW GRANTS.
var privNames = []struct {
	p    Priv
	name string
}{
	{AdminPriv, "Admin_priv"},
	{GrantPriv, "Grant_priv"},
	{SelectPriv, "Select_priv"},
	{LoadPriv, "Load_priv"},
	{AlterPriv, "Alter_priv"},
	{CreatePriv, "Create_priv"},
	{DropPriv, "Drop_priv"},
}

// String lists the privileges the way SHOW GRANTS does: "Select_priv,Load_priv".
func (p Priv) String() string {
	var parts []string
	for _, n := range privNames {
		if p&n.p != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// ParsePriv reads one privilege name of a GRANT or REVOKE: SELECT_PRIV,
// LOAD_PRIV, ALTER_PRIV, CREATE_PRIV, DROP_PRIV, GRANT_PRIV, ADMIN_PRIV, or
// ALL (every privilege but ADMIN_PRIV), case-insensitively.
func ParsePriv(name string) (Priv, error) {
	switch strings.ToUpper(name) {
	case "SELECT_PRIV", "SELECT":
		return SelectPriv, nil
	case "LOAD_PRIV", "LOAD":
		return LoadPriv, nil
	case "ALTER_PRIV", "ALTER":
		return AlterPriv, nil
	case "CREATE_PRIV", "CREATE":
		return CreatePriv, nil
	case "DROP_PRIV", "DROP":
		return DropPriv, nil
	case "GRANT_PRIV", "GRANT":
		return GrantPriv, nil
	case "ADMIN_PRIV", "ADMIN":
		return AdminPriv, nil
	case "ALL", "ALL_PRIV":
		return AllPrivs &^ AdminPriv, nil
	}
	return 0, &Error{Num: 1105, State: "HY000", Msg: fmt.Sprintf("Unknown privilege type %s", name), kind: ErrInvalidGrant}
}

// Identity is a user as Doris spells it: 'name'@'host', where host is a
// pattern ('%' any host, '_' any one character).
type Identity struct{ User, Host string }

// String renders the identity as SHOW GRANTS does: 'u'@'%'.
func (id Identity) String() string { return fmt.Sprintf("'%s'@'%s'", id.User, id.Host) }

// Object names what a grant covers: ctl.db.tbl where each part may be "*".
// A coarser level has "*" in every part after it (ctl.*.*, ctl.db.*).
type Object struct{ Ctl, DB, Tbl string }

// String renders the object as ctl.db.tbl.
func (o Object) String() string { return o.Ctl + "." + o.DB + "." + o.Tbl }

// GrantRow is one row of SHOW GRANTS. Columns lists Doris's columns; Values
// gives the row in that order, nil for NULL (the privilege columns of a
// level without grants, and the columns Inlet has no meaning for).
type GrantRow struct {
	UserIdentity  string // 'u'@'%'
	Comment       string // ROOT / ADMIN for the built-in users
	Password      string // "Yes" or "No": whether a password is set, never the password
	Roles         string
	GlobalPrivs   string // *.*.*: "Select_priv,Load_priv"; "" = NULL
	CatalogPrivs  string // "ctl: Select_priv; ctl2: …"; "" = NULL
	DatabasePrivs string // "ctl.db: Select_priv; …"; "" = NULL
	TablePrivs    string // "ctl.db.tbl: Select_priv; …"; "" = NULL
}

// Columns are the column names of SHOW GRANTS, as Doris names them.
var Columns = []string{"UserIdentity", "Comment", "Password", "Roles", "GlobalPrivs", "CatalogPrivs",
	"DatabasePrivs", "TablePrivs", "ColPrivs", "ResourcePrivs", "WorkloadGroupPrivs"}

// Values returns the row in Columns order; nil is NULL.
func (r GrantRow) Values() []any {
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return []any{r.UserIdentity, r.Comment, r.Password, r.Roles, null(r.GlobalPrivs), null(r.CatalogPrivs),
		null(r.DatabasePrivs), null(r.TablePrivs), nil, nil, nil}
}

// Error is an authentication or authorization failure, carrying the MySQL
// error number and SQLSTATE Doris answers with. Its text never contains a
// password.
type Error struct {
	Num   uint16
	State string
	Msg   string
	kind  error
}

func (e *Error) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrAccessDenied) and the other kinds work.
func (e *Error) Is(target error) bool { return e.kind != nil && target == e.kind }

// Error kinds (errors.Is).
var (
	// ErrAccessDenied: login refused (1045).
	ErrAccessDenied = kindError("access denied")
	// ErrPrivDenied: a privilege is missing (1142, 1227, 1044 …).
	ErrPrivDenied = kindError("privilege denied")
	// ErrUserOp: CREATE/DROP USER or SET PASSWORD on a user that exists
	// or not (1396).
	ErrUserOp = kindError("user operation failed")
	// ErrInvalidGrant: a GRANT or REVOKE that cannot be done (bad object,
	// unknown privilege, unknown user, revoking what was not granted).
	ErrInvalidGrant = kindError("invalid grant")
)

type kindError string

func (k kindError) Error() string { return string(k) }

// The Store API (in store.go):
//
//	func Open(metaDir string, opts ...Option) (*Store, error)
//	func WithRootPassword(p string) Option
//	func (s *Store) Authenticate(user, host, password string) error
//	func (s *Store) NativeHash(user, host string) (stage2 []byte, ok bool)
//	func (s *Store) Check(user string, priv Priv, ctl, db, tbl string) error
//	func (s *Store) CheckFrom(user, remote string, priv Priv, ctl, db, tbl string) error
//	func (s *Store) HasAny(user string, priv Priv, ctl, db string) bool
//	func (s *Store) Has(user string, priv Priv, ctl, db, tbl string) bool
//	func (s *Store) CreateUser(id Identity, password string, ifNotExists bool) error
//	func (s *Store) DropUser(id Identity, ifExists bool) error
//	func (s *Store) SetPassword(id Identity, password string) error
//	func (s *Store) Grant(id Identity, privs Priv, on Object) error
//	func (s *Store) Revoke(id Identity, privs Priv, on Object) error
//	func (s *Store) ShowGrants(id *Identity) ([]GrantRow, error) // nil = every user
