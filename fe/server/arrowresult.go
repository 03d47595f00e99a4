package server

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/auth"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/internal/loginguard"
)

// ArrowWriter is a ResultWriter that takes a query's result as the Arrow
// batches the executor yields (the Flight SQL port, fe/flightsql), so a
// result reaches such a client without being rendered to MySQL text rows.
// Statements that are not queries (SHOW, SET, DDL) still write text rows
// through the ResultWriter methods.
type ArrowWriter interface {
	mysqlwire.ResultWriter
	// Schema announces the result's columns before any batch.
	Schema(s *arrow.Schema) error
	// Batch writes one batch; it must be done with rec when it returns
	// (the executor reuses and releases it afterwards).
	Batch(rec arrow.RecordBatch) error
}

// arrowWriterOf finds the ArrowWriter under w, and the audit writer
// counting its rows (nil without an audit log).
func arrowWriterOf(w mysqlwire.ResultWriter) (ArrowWriter, *auditWriter) {
	aw, _ := w.(*auditWriter)
	if aw != nil {
		w = aw.ResultWriter
	}
	if x, ok := w.(ArrowWriter); ok {
		return x, aw
	}
	return nil, nil
}

// ResultSchema is the Arrow schema a query's batches reach an ArrowWriter
// with: the plan's columns, instants as wall-clock timestamps without a
// zone (what the MySQL port shows for them).
func ResultSchema(cols []bind.Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		t := c.Type
		if ts, ok := t.(*arrow.TimestampType); ok && ts.TimeZone != "" {
			t = &arrow.TimestampType{Unit: ts.Unit}
		}
		fields[i] = arrow.Field{Name: c.Name, Type: t, Nullable: c.Nullable}
	}
	return arrow.NewSchema(fields, nil)
}

// writeBatches streams the reader's batches to an ArrowWriter as they
// come: no per-row work, except that instants become wall-clock times in
// the session zone as writeRows shows them.
func writeBatches(cols []bind.Column, rr array.RecordReader, w ArrowWriter, audit *auditWriter, env *expr.Env) error {
	schema := ResultSchema(cols)
	if audit != nil {
		audit.columns = true
	}
	if err := w.Schema(schema); err != nil {
		return err
	}
	for rr.Next() {
		if err := memlimit.Check(env.Mem); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(cols) {
			return fmt.Errorf("result batch has %d columns, plan says %d", rec.NumCols(), len(cols))
		}
		if err := writeBatch(rec, schema, w, env); err != nil {
			return err
		}
		if audit != nil {
			audit.rows += rec.NumRows()
		}
	}
	return rr.Err()
}

// writeBatch writes rec under schema, converting instant columns.
func writeBatch(rec arrow.RecordBatch, schema *arrow.Schema, w ArrowWriter, env *expr.Env) error {
	arrs := make([]arrow.Array, rec.NumCols())
	var local []arrow.Array
	defer func() {
		for _, a := range local {
			a.Release()
		}
	}()
	for c := range arrs {
		arrs[c] = rec.Column(c)
		if ts, ok := arrs[c].DataType().(*arrow.TimestampType); ok && ts.TimeZone != "" {
			arrs[c] = wallClock(arrs[c].(*array.Timestamp), ts, env)
			local = append(local, arrs[c])
		}
	}
	out := array.NewRecordBatch(schema, arrs, rec.NumRows())
	defer out.Release()
	return w.Batch(out)
}

// Users is the user store (nil: root alone, no privilege checks), for
// other ports that log users in (Flight SQL).
func (s *Server) Users() *auth.Store { return s.cfg.Auth }

// LoginGuard is the guard every password check shares, so guesses over
// the Flight SQL port count with those over MySQL and Stream Load.
func (s *Server) LoginGuard() *loginguard.Guard { return s.loginGuard() }

// AddCancel makes KILL also try f, for connections of another port (Flight
// SQL sessions); the first function that knows the id wins. Call it before
// serving.
func (s *Server) AddCancel(f func(connID uint32) bool) {
	prev := s.cancel.Load()
	if prev == nil {
		s.SetCancel(f)
		return
	}
	p := *prev
	s.SetCancel(func(id uint32) bool { return p(id) || f(id) })
}

// QuerySchema binds a query and returns the schema its batches will reach
// an ArrowWriter with, without running it (Flight SQL announces it in
// FlightInfo); ok is false for a statement that is not a query. args are
// a prepared statement's arguments (nil for none). Privileges are checked
// as running it would check them.
func (s *Session) QuerySchema(ctx context.Context, text string, args []any) (schema *arrow.Schema, ok bool, err error) {
	stmt, err := sql.Parse(text)
	if err != nil {
		return nil, false, classify(err)
	}
	q, ok := stmt.(sql.Query)
	if !ok {
		return nil, false, nil
	}
	if err := s.authorize(stmt); err != nil {
		return nil, true, classify(err)
	}
	v, err := s.stmtVars(stmtHints(stmt))
	if err != nil {
		return nil, true, classify(err)
	}
	if args != nil {
		s.args = bindArgs(args)
		defer func() { s.args = nil }()
	}
	p, err := bind.New(ctx, s.bindSession(v)).BindQuery(q)
	if err != nil {
		return nil, true, classify(err)
	}
	if pruned := nestedPrunes(p, v); len(pruned) > 0 {
		// As plan does: the BEs return the narrowed struct types.
		bs := s.bindSession(v)
		bs.Pruned = pruned
		if p2, err := bind.New(ctx, bs).BindQuery(q); err == nil {
			p = p2
		}
	}
	return ResultSchema(p.Columns()), true, nil
}
