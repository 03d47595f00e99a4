package mysqlwire

import (
	"context"
	"errors"
	"fmt"

	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/inlet-db/inlet/internal/redact"
)

// Code classifies an error for the wire. The FE wraps its errors with a Code
// (WithCode); the table below turns the code into errno and SQLSTATE.
type Code int

// Error codes.
const (
	CodeInternal Code = iota
	CodeSyntax
	CodeAnalysis
	CodeUnknownDB
	CodeNoDB
	CodeUnknownTable
	CodeUnknownColumn
	CodeAmbiguousColumn
	CodeDBExists
	CodeTableExists
	CodeDBMissing
	CodeUnknownCatalog
	CodeCatalogExists
	CodeUnknownVariable
	CodeWrongValueForVar
	CodeReadOnlyVariable
	CodeNotSupported
	CodeAccessDenied
	CodeInterrupted
	CodeDivisionByZero
	CodeDataTooLong
	CodeWrongValueCount
	CodeEmptyQuery
	CodeOutOfRange
	CodeSubqueryRows
)

type wireCode struct {
	num   uint16
	state string
}

// codes is the one errno/SQLSTATE table. Doris answers most analysis and DDL
// failures with 1105/HY000 and "errCode = 2, detailMessage = ..."; errors
// MySQL clients react to (unknown database, unknown table, syntax, access)
// keep MySQL's numbers.
func codes(c Code) wireCode {
	switch c {
	case CodeSyntax:
		return wireCode{1064, "42000"}
	case CodeUnknownDB:
		return wireCode{1049, "42000"}
	case CodeNoDB:
		return wireCode{1046, "3D000"}
	case CodeUnknownTable:
		return wireCode{1146, "42S02"}
	case CodeUnknownColumn:
		return wireCode{1054, "42S22"}
	case CodeAmbiguousColumn:
		return wireCode{1052, "23000"}
	case CodeDBExists:
		return wireCode{1007, "HY000"}
	case CodeTableExists:
		return wireCode{1050, "42S01"}
	case CodeDBMissing:
		return wireCode{1008, "HY000"}
	case CodeUnknownVariable:
		return wireCode{1193, "HY000"}
	case CodeWrongValueForVar:
		return wireCode{1231, "42000"}
	case CodeReadOnlyVariable:
		return wireCode{1238, "HY000"}
	case CodeNotSupported:
		return wireCode{1235, "42000"}
	case CodeAccessDenied:
		return wireCode{1045, "28000"}
	case CodeInterrupted:
		return wireCode{1317, "70100"}
	case CodeDivisionByZero:
		return wireCode{1365, "22012"}
	case CodeDataTooLong:
		return wireCode{1406, "22001"}
	case CodeWrongValueCount:
		return wireCode{1136, "21S01"}
	case CodeEmptyQuery:
		return wireCode{1065, "42000"}
	case CodeOutOfRange:
		return wireCode{1690, "22003"}
	case CodeSubqueryRows:
		return wireCode{1242, "21000"}
	default: // CodeInternal, CodeAnalysis, CodeUnknownCatalog, CodeCatalogExists
		return wireCode{1105, "HY000"}
	}
}

// Errno returns the MySQL error number and SQLSTATE a code is sent as.
func Errno(c Code) (uint16, string) {
	w := codes(c)
	return w.num, w.state
}

// Error is an error with a wire code.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// WithCode attaches a wire code to err (nil stays nil); the outermost code
// wins.
func WithCode(code Code, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Errorf builds an error with a wire code.
func Errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// CodeOf returns the wire code of err: the outermost Error in its chain,
// CodeInterrupted for context cancellation, else CodeInternal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return CodeInterrupted
	}
	return CodeInternal
}

// ErrnoOf returns the MySQL error number err is sent to the client with
// (audit logs record it).
func ErrnoOf(err error) uint16 {
	c := codes(CodeOf(err))
	if n, ok := errnoOf(err); ok {
		c = n
	}
	return c.num
}

// detailPrefix is how Doris prefixes the text of every FE error.
const detailPrefix = "errCode = 2, detailMessage = "

// toSQLError converts err for the wire.
func toSQLError(err error) *sqlerror.SQLError {
	c := codes(CodeOf(err))
	if n, ok := errnoOf(err); ok {
		c = n
	}
	// Errors quote paths and catalog settings: a URI's password never
	// reaches the client.
	return sqlerror.NewSQLError(sqlerror.ErrorCode(c.num), c.state, detailPrefix+redact.URIPasswords(err.Error()))
}
