package server

import (
	"context"
	"reflect"

	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// Prepare implements mysqlwire.Preparer: it parses the statement and counts
// its '?' placeholders.
func (s *Session) Prepare(ctx context.Context, text string) (int, error) {
	stmt, err := sql.Parse(text)
	if err != nil {
		return 0, classify(err)
	}
	return countParams(stmt), nil
}

// Execute implements mysqlwire.Preparer: the statement runs with each
// placeholder bound to its argument as a literal.
func (s *Session) Execute(ctx context.Context, text string, args []any, w mysqlwire.ResultWriter) (err error) {
	audit, w := s.auditBegin("COM_STMT_EXECUTE", text, w)
	defer func() { s.auditEnd(audit, err) }()
	stmt, err := sql.Parse(text)
	if err != nil {
		return classify(err)
	}
	if n := countParams(stmt); n != len(args) {
		return errorf(sql.ErrSyntax, "prepared statement has %d placeholders but %d arguments were sent", n, len(args))
	}
	s.args = bindArgs(args)
	defer func() { s.args = nil }()
	defer s.track(text)()
	st := s.beginStatement(text)
	defer func() { s.endStatement(st, err) }()
	audit.began(st, stmt)
	return classify(s.runLimited(ctx, stmt, w))
}

// bindArgs turns the protocol's typed arguments into the binder's; a TIME
// argument is text, as Inlet has no TIME values to compare it with.
func bindArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case mysqlwire.Decimal:
			out[i] = bind.ParamDecimal(v)
		case mysqlwire.Date:
			out[i] = bind.ParamDate(v)
		case mysqlwire.DateTime:
			out[i] = bind.ParamDatetime(v)
		case mysqlwire.Time:
			out[i] = string(v)
		default:
			out[i] = a
		}
	}
	return out
}

// countParams finds the highest placeholder index in a syntax tree. The
// tree has many node types; walking it by reflection keeps this in step
// with the parser without a hand-kept list.
func countParams(stmt sql.Statement) int {
	n := 0
	seen := map[uintptr]bool{}
	paramType := reflect.TypeOf(&sql.Param{})
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			if v.Type() == paramType {
				n = max(n, v.Interface().(*sql.Param).Index+1)
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Map:
			// Hints hold strings only.
		}
	}
	walk(reflect.ValueOf(stmt))
	return n
}
