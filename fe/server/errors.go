package server

import (
	"context"
	"errors"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

// Error kinds this package detects itself. The other kinds it reports come
// from the packages that detect them (sql.ErrSyntax, bind.ErrAnalysis,
// bind.ErrNoDatabase, bind.ErrUnknownColumn, physical.ErrNotSupported,
// context.DeadlineExceeded …).
// A site makes a new error with errorf(kind, msg), or marks an error some
// catalog already worded with withKind(kind, err) once it knows which object
// was being resolved; classify alone turns kinds into wire codes.
var (
	errUnknownCatalog  = errors.New("unknown catalog")
	errCatalogExists   = errors.New("catalog already exists")
	errUnknownDB       = errors.New("unknown database")
	errDBExists        = errors.New("database already exists")
	errDBMissing       = errors.New("database to drop does not exist")
	errUnknownTable    = errors.New("unknown table")
	errTableExists     = errors.New("table already exists")
	errNotSupported    = errors.New("not supported")
	errWrongValueCount = errors.New("column count does not match value count")
)

// errorf makes an error of kind whose text is the message alone, so users see
// the same words whatever code the kind is sent with.
func errorf(kind error, format string, args ...any) error {
	return catalog.Errorf(kind, format, args...)
}

// kindOf is an error marked with one more kind; its text stays err's.
type kindOf struct {
	kind error
	err  error
}

func (e *kindOf) Error() string   { return e.err.Error() }
func (e *kindOf) Unwrap() []error { return []error{e.kind, e.err} }

// withKind marks err (nil stays nil) with kind, keeping its text and chain.
func withKind(kind error, err error) error {
	if err == nil {
		return nil
	}
	return &kindOf{kind: kind, err: err}
}

// wireKinds is the one table from error kinds to wire codes, in order of
// precedence: the first row naming a kind of an error wins. This package's
// own kinds come first because they were attached where the object was
// resolved (a catalog's "not found" becomes unknown catalog, database or
// table there), so they are more specific than the kinds they wrap.
var wireKinds = []struct {
	code mysqlwire.Code
	is   []error
}{
	{mysqlwire.CodeUnknownCatalog, []error{errUnknownCatalog}},
	{mysqlwire.CodeCatalogExists, []error{errCatalogExists}},
	{mysqlwire.CodeUnknownDB, []error{errUnknownDB}},
	{mysqlwire.CodeDBExists, []error{errDBExists}},
	{mysqlwire.CodeDBMissing, []error{errDBMissing}},
	{mysqlwire.CodeUnknownTable, []error{errUnknownTable}},
	{mysqlwire.CodeTableExists, []error{errTableExists}},
	{mysqlwire.CodeWrongValueCount, []error{errWrongValueCount}},
	{mysqlwire.CodeNotSupported, []error{errNotSupported}},
	{mysqlwire.CodeInterrupted, []error{context.Canceled, context.DeadlineExceeded}},
	{mysqlwire.CodeEmptyQuery, []error{sql.ErrEmptyQuery}},
	{mysqlwire.CodeSyntax, []error{sql.ErrSyntax}},
	{mysqlwire.CodeOutOfRange, []error{expr.ErrOverflow}},
	{mysqlwire.CodeSubqueryRows, []error{exec.ErrSubqueryRows}},
	{mysqlwire.CodeUnknownVariable, []error{vars.ErrUnknown}},
	{mysqlwire.CodeWrongValueForVar, []error{vars.ErrWrongValue}},
	{mysqlwire.CodeReadOnlyVariable, []error{vars.ErrReadOnly}},
	{mysqlwire.CodeUnknownColumn, []error{bind.ErrUnknownColumn}},
	{mysqlwire.CodeAmbiguousColumn, []error{bind.ErrAmbiguous}},
	{mysqlwire.CodeNoDB, []error{bind.ErrNoDatabase}},
	{mysqlwire.CodeNotSupported, []error{bind.ErrUnsupported, physical.ErrNotSupported, exec.ErrUnsupported}},
	{mysqlwire.CodeAnalysis, []error{bind.ErrAnalysis, expr.ErrType, expr.ErrArity, expr.ErrUnsupported}},
	{mysqlwire.CodeNotSupported, []error{catalog.ErrUnsupported}},
	{mysqlwire.CodeAnalysis, []error{catalog.ErrInvalidProperty, catalog.ErrUnknownType, catalog.ErrNotFound, catalog.ErrExists}},
}

// classify gives err its wire code from its kind (wireKinds); an error of no
// known kind is sent as an internal error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if e := authWire(err); e != nil {
		return e
	}
	for _, k := range wireKinds {
		for _, target := range k.is {
			if errors.Is(err, target) {
				return mysqlwire.WithCode(k.code, err)
			}
		}
	}
	return mysqlwire.WithCode(mysqlwire.CodeInternal, err)
}
