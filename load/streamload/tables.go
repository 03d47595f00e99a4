package streamload

import (
	"context"
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/internal/loginguard"
)

// Error kinds of opening a load's table; the handlers answer 401, 403 and
// a failed load for them.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrForbidden    = errors.New("forbidden")
	ErrUnknownTable = errors.New("unknown table")
)

// kindErr carries a kind without changing the text (Doris's own words).
type kindErr struct {
	kind error
	err  error
}

func (e *kindErr) Error() string   { return e.err.Error() }
func (e *kindErr) Unwrap() []error { return []error{e.kind, e.err} }

func withKind(kind, err error) error { return &kindErr{kind: kind, err: err} }

// Identity is who sends a load: the Basic auth user and password and the
// client's address.
type Identity struct{ User, Password, Host string }

// Table is a table that takes Stream Loads.
type Table interface {
	Schema() catalog.Schema
	catalog.Loader
}

// Tables opens a load's table for a user: it authenticates them, checks
// LOAD_PRIV on db.tbl and finds the table. Errors are of the kinds
// ErrUnauthorized, ErrForbidden or ErrUnknownTable, or anything else for a
// failure of the lookup itself.
type Tables interface {
	Open(ctx context.Context, id Identity, db, tbl string) (Table, error)
}

// Users is what a load needs of the user store (*auth.Store).
type Users interface {
	Authenticate(user, host, password string) error
	Check(user string, priv auth.Priv, ctl, db, tbl string) error
}

// CatalogTables opens tables of the internal catalog in this process.
type CatalogTables struct {
	// Catalog returns the internal catalog.
	Catalog func(ctx context.Context) (catalog.Catalog, error)
	Users   Users
	// CatalogName is the catalog's name in privileges ("internal").
	CatalogName string
	// Guard slows password guessing over HTTP Basic auth, counted with the
	// MySQL logins when the server shares its guard; nil makes none.
	Guard *loginguard.Guard
}

// Open implements Tables.
func (c *CatalogTables) Open(ctx context.Context, id Identity, db, tbl string) (Table, error) {
	if c.Users == nil {
		return nil, withKind(ErrUnauthorized, errors.New("no user store: Stream Load is disabled"))
	}
	authn := func() error { return c.Users.Authenticate(id.User, id.Host, id.Password) }
	var err error
	if c.Guard != nil {
		err = c.Guard.Check(loginguard.HTTP, id.User, id.Host, authn)
	} else {
		err = authn()
	}
	if err != nil {
		return nil, withKind(ErrUnauthorized, err)
	}
	name := c.CatalogName
	if name == "" {
		name = "internal"
	}
	if err := c.Users.Check(id.User, auth.LoadPriv, name, db, tbl); err != nil {
		return nil, withKind(ErrForbidden, err)
	}
	cat, err := c.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	d, err := cat.Database(ctx, db)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, withKind(ErrUnknownTable, err) // the catalog's words: Unknown database 'x'
	}
	if err != nil {
		return nil, err
	}
	t, err := d.Table(ctx, tbl)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, withKind(ErrUnknownTable, err) // Table 'db.t' doesn't exist
	}
	if err != nil {
		return nil, err
	}
	lt, ok := t.(Table)
	if !ok {
		return nil, withKind(ErrUnknownTable, fmt.Errorf("table '%s.%s' does not take Stream Load", db, tbl))
	}
	return lt, nil
}
