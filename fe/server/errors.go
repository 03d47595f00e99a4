package server

import (
	"context"
	"errors"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/exec"
	"github.com/inlet-db/inlet/fe/exec/expr"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

// classify gives err a wire code from its kind, unless a more specific code
// was attached where the object was resolved.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var we *mysqlwire.Error
	if errors.As(err, &we) {
		return err
	}
	code := mysqlwire.CodeInternal
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = mysqlwire.CodeInterrupted
	case errors.Is(err, sql.ErrEmptyQuery):
		code = mysqlwire.CodeEmptyQuery
	case errors.Is(err, sql.ErrSyntax):
		code = mysqlwire.CodeSyntax
	case errors.Is(err, expr.ErrOverflow):
		code = mysqlwire.CodeOutOfRange
	case errors.Is(err, vars.ErrUnknown):
		code = mysqlwire.CodeUnknownVariable
	case errors.Is(err, vars.ErrWrongValue):
		code = mysqlwire.CodeWrongValueForVar
	case errors.Is(err, vars.ErrReadOnly):
		code = mysqlwire.CodeReadOnlyVariable
	case errors.Is(err, bind.ErrUnknownColumn):
		code = mysqlwire.CodeUnknownColumn
	case errors.Is(err, bind.ErrAmbiguous):
		code = mysqlwire.CodeAmbiguousColumn
	case errors.Is(err, bind.ErrNoDatabase):
		code = mysqlwire.CodeNoDB
	case errors.Is(err, bind.ErrUnsupported), errors.Is(err, exec.ErrUnsupported):
		code = mysqlwire.CodeNotSupported
	case errors.Is(err, bind.ErrAnalysis), errors.Is(err, expr.ErrType), errors.Is(err, expr.ErrArity), errors.Is(err, expr.ErrUnsupported):
		code = mysqlwire.CodeAnalysis
	case errors.Is(err, catalog.ErrUnsupported):
		code = mysqlwire.CodeNotSupported
	case errors.Is(err, catalog.ErrInvalidProperty), errors.Is(err, catalog.ErrUnknownType):
		code = mysqlwire.CodeAnalysis
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, catalog.ErrExists):
		code = mysqlwire.CodeAnalysis
	}
	return mysqlwire.WithCode(code, err)
}
