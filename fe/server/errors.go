package server

import (
	"context"
	"errors"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
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
	// Rows in order of precedence: the first row naming a kind of err wins.
	kinds := []struct {
		code mysqlwire.Code
		is   []error
	}{
		{mysqlwire.CodeInterrupted, []error{context.Canceled, context.DeadlineExceeded}},
		{mysqlwire.CodeEmptyQuery, []error{sql.ErrEmptyQuery}},
		{mysqlwire.CodeSyntax, []error{sql.ErrSyntax}},
		{mysqlwire.CodeOutOfRange, []error{expr.ErrOverflow}},
		{mysqlwire.CodeUnknownVariable, []error{vars.ErrUnknown}},
		{mysqlwire.CodeWrongValueForVar, []error{vars.ErrWrongValue}},
		{mysqlwire.CodeReadOnlyVariable, []error{vars.ErrReadOnly}},
		{mysqlwire.CodeUnknownColumn, []error{bind.ErrUnknownColumn}},
		{mysqlwire.CodeAmbiguousColumn, []error{bind.ErrAmbiguous}},
		{mysqlwire.CodeNoDB, []error{bind.ErrNoDatabase}},
		{mysqlwire.CodeNotSupported, []error{bind.ErrUnsupported, exec.ErrUnsupported}},
		{mysqlwire.CodeAnalysis, []error{bind.ErrAnalysis, expr.ErrType, expr.ErrArity, expr.ErrUnsupported}},
		{mysqlwire.CodeNotSupported, []error{catalog.ErrUnsupported}},
		{mysqlwire.CodeAnalysis, []error{catalog.ErrInvalidProperty, catalog.ErrUnknownType, catalog.ErrNotFound, catalog.ErrExists}},
	}
	for _, k := range kinds {
		for _, target := range k.is {
			if errors.Is(err, target) {
				return mysqlwire.WithCode(k.code, err)
			}
		}
	}
	return mysqlwire.WithCode(mysqlwire.CodeInternal, err)
}
