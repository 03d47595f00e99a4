package flightsql

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// ticketTTL is how long an unread ticket (and its kept result) lives.
const ticketTTL = 10 * time.Minute

// ticket is a statement GetFlightInfo accepted and DoGet runs (a query)
// or sends the kept result of (anything else).
type ticket struct {
	c      *conn
	text   string
	args   []any
	result *bufferWriter
	made   time.Time
}

// prepared is a prepared statement and its bound arguments.
type prepared struct {
	c      *conn
	text   string
	params int
	query  bool
	args   []any
}

// sqlServer implements flightsql.Server over the FE's sessions.
type sqlServer struct {
	flightsql.BaseServer
	s *Server

	mu       sync.Mutex
	tickets  map[string]*ticket
	prepared map[string]*prepared
}

func newSQLServer(s *Server) *sqlServer {
	q := &sqlServer{s: s, tickets: map[string]*ticket{}, prepared: map[string]*prepared{}}
	q.Alloc = s.cfg.Mem
	registerSQLInfo(&q.BaseServer)
	return q
}

func newHandle() []byte {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return b
}

// isQuery reports whether text is a query (its result streams from DoGet);
// text that does not parse is not, so its error comes from running it.
func isQuery(text string) bool {
	stmt, err := sql.Parse(text)
	if err != nil {
		return false
	}
	switch stmt.(type) {
	case *sql.Select, *sql.SetOp:
		return true
	}
	return false
}

// run runs one statement on the session (with arguments, as a prepared
// statement) under ctx, which the caller got from begin.
func (c *conn) run(ctx context.Context, text string, args []any, w mysqlwire.ResultWriter) (err error) {
	// A panic while running a statement costs that statement only, as on
	// the MySQL port (gRPC would let it end the process).
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic running a Flight SQL statement", "conn", c.id, "panic", r, "stack", string(debug.Stack()))
			err = status.Error(codes.Internal, "internal error while running the statement")
		}
	}()
	if args != nil {
		return c.sess.Execute(ctx, text, args, w)
	}
	return c.sess.Query(ctx, text, w)
}

// runKept runs a statement that is not a query now and keeps its result.
func (q *sqlServer) runKept(ctx context.Context, c *conn, text string, args []any) (*bufferWriter, error) {
	b := newBufferWriter(q.s.cfg.Mem)
	ctx, end := c.begin(ctx, nil)
	err := c.run(ctx, text, args, b)
	end()
	if err == nil {
		err = b.done()
	}
	if err != nil {
		b.release()
		return nil, grpcError(err)
	}
	return b, nil
}

// info answers GetFlightInfo for a statement: a query gets a ticket DoGet
// runs; anything else runs now and its ticket reads the kept result.
func (q *sqlServer) info(ctx context.Context, c *conn, text string, args []any, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	t := &ticket{c: c, text: text, args: args, made: time.Now()}
	info := &flight.FlightInfo{FlightDescriptor: desc, TotalRecords: -1, TotalBytes: -1}
	if isQuery(text) {
		// Announce the result's schema, as clients that build result-set
		// metadata first expect. A statement that cannot bind gets its
		// error (and audit line) from DoGet, where it runs.
		bctx, end := c.begin(ctx, nil)
		schema, _, err := c.sess.QuerySchema(bctx, text, args)
		var addrs []string
		var tickets [][]byte
		direct := false
		if err == nil {
			addrs, tickets, direct, _ = c.sess.DirectEndpoints(bctx, text, args)
		}
		end()
		if err == nil {
			info.Schema = flight.SerializeSchema(schema, q.s.cfg.Mem)
		}
		if direct {
			// BE direct: the result is what the BEs send; the client reads
			// each part from its BE with the signed ticket.
			for i, a := range addrs {
				info.Endpoint = append(info.Endpoint, &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: tickets[i]},
					Location: []*flight.Location{{Uri: "grpc+tcp://" + a}}})
			}
			return info, nil
		}
	} else {
		b, err := q.runKept(ctx, c, text, args)
		if err != nil {
			return nil, err
		}
		t.result = b
		info.Schema = flight.SerializeSchema(b.schema, q.s.cfg.Mem)
		var n int64
		for _, r := range b.recs {
			n += r.NumRows()
		}
		info.TotalRecords = n
	}
	handle := newHandle()
	q.mu.Lock()
	q.sweepLocked()
	q.tickets[string(handle)] = t
	q.mu.Unlock()
	tkt, err := flightsql.CreateStatementQueryTicket(handle)
	if err != nil {
		return nil, err
	}
	info.Endpoint = []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}}
	return info, nil
}

// sweepLocked forgets tickets nobody read.
func (q *sqlServer) sweepLocked() {
	cut := time.Now().Add(-ticketTTL)
	for h, t := range q.tickets {
		if t.made.Before(cut) {
			if t.result != nil {
				t.result.release()
			}
			delete(q.tickets, h)
		}
	}
}

// releaseAll forgets every ticket and prepared statement (Close).
func (q *sqlServer) releaseAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for h, t := range q.tickets {
		if t.result != nil {
			t.result.release()
		}
		delete(q.tickets, h)
	}
	clear(q.prepared)
}

// take removes and returns c's ticket of handle.
func (q *sqlServer) take(c *conn, handle []byte) (*ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.tickets[string(handle)]
	if t == nil || t.c != c {
		return nil, status.Error(codes.NotFound, "unknown or already read ticket")
	}
	delete(q.tickets, string(handle))
	return t, nil
}

// doGet runs a ticket's query into the stream, or sends its kept result.
func (q *sqlServer) doGet(ctx context.Context, c *conn, handle []byte, stream flight.DataStreamWriter) error {
	t, err := q.take(c, handle)
	if err != nil {
		return err
	}
	if t.result != nil {
		defer t.result.release()
		return t.result.writeTo(stream)
	}
	return q.stream(ctx, c, handle, t.text, t.args, stream)
}

func (q *sqlServer) stream(ctx context.Context, c *conn, handle []byte, text string, args []any, stream flight.DataStreamWriter) error {
	w := newStreamWriter(stream, q.s.cfg.Mem)
	ctx, end := c.begin(ctx, handle)
	err := c.run(ctx, text, args, w)
	end()
	if err != nil {
		w.text.release()
		return grpcError(err)
	}
	return w.close()
}

func (q *sqlServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	c, err := connOf(ctx)
	if err != nil {
		return nil, err
	}
	bctx, end := c.begin(ctx, nil)
	schema, ok, err := c.sess.QuerySchema(bctx, cmd.GetQuery(), nil)
	end()
	if err != nil {
		return nil, grpcError(err)
	}
	if !ok {
		return nil, status.Error(codes.InvalidArgument, "only a query has a result schema before it runs")
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, q.s.cfg.Mem)}, nil
}

func (q *sqlServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	c, err := connOf(ctx)
	if err != nil {
		return nil, err
	}
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.Unimplemented, "transactions are not supported: every statement commits on its own")
	}
	return q.info(ctx, c, cmd.GetQuery(), nil, desc)
}

func (q *sqlServer) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	c, err := connOf(ctx)
	if err != nil {
		return 0, err
	}
	b, err := q.runKept(ctx, c, cmd.GetQuery(), nil)
	if err != nil {
		return 0, err
	}
	defer b.release()
	return b.affected, nil
}

func (q *sqlServer) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	c, err := connOf(ctx)
	if err != nil {
		return res, err
	}
	text := req.GetQuery()
	n, err := c.sess.Prepare(ctx, text)
	if err != nil {
		return res, grpcError(err)
	}
	p := &prepared{c: c, text: text, params: n, query: isQuery(text)}
	res.Handle = newHandle()
	// The parameters' types are not known before binding: each is a
	// nullable field of no particular type, as Doris announces them.
	fields := make([]arrow.Field, n)
	for i := range fields {
		fields[i] = arrow.Field{Name: fmt.Sprintf("parameter_%d", i+1), Type: arrow.Null, Nullable: true}
	}
	res.ParameterSchema = arrow.NewSchema(fields, nil)
	upd := !p.query
	res.IsUpdate = &upd
	q.mu.Lock()
	q.prepared[string(res.Handle)] = p
	q.mu.Unlock()
	return res, nil
}

func (q *sqlServer) preparedOf(ctx context.Context, handle []byte) (*prepared, error) {
	c, err := connOf(ctx)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	p := q.prepared[string(handle)]
	q.mu.Unlock()
	if p == nil || p.c != c {
		return nil, status.Error(codes.NotFound, "unknown prepared statement")
	}
	return p, nil
}

func (q *sqlServer) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	if _, err := q.preparedOf(ctx, req.GetPreparedStatementHandle()); err != nil {
		return err
	}
	q.mu.Lock()
	delete(q.prepared, string(req.GetPreparedStatementHandle()))
	q.mu.Unlock()
	return nil
}

// args reads bound parameters: the first row of what the client sent.
func readArgs(p *prepared, r flight.MessageReader) ([]any, error) {
	var args []any
	for r.Next() {
		rec := r.RecordBatch()
		if args != nil || rec.NumRows() == 0 {
			continue
		}
		if int(rec.NumCols()) != p.params {
			return nil, status.Errorf(codes.InvalidArgument, "prepared statement has %d placeholders but %d parameters were sent", p.params, rec.NumCols())
		}
		args = make([]any, rec.NumCols())
		for i := range args {
			v, err := argValue(rec.Column(i), 0)
			if err != nil {
				return nil, status.Errorf(codes.InvalidArgument, "parameter %d: %v", i+1, err)
			}
			args[i] = v
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	return args, nil
}

// argValue is one parameter as the MySQL port's prepared statements take
// it (mysqlwire.Preparer): nil, int64, uint64, float64, string or the
// typed Decimal, Date and DateTime.
func argValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return int64(1), nil
		}
		return int64(0), nil
	case *array.Int8:
		return int64(x.Value(i)), nil
	case *array.Int16:
		return int64(x.Value(i)), nil
	case *array.Int32:
		return int64(x.Value(i)), nil
	case *array.Int64:
		return x.Value(i), nil
	case *array.Uint8:
		return int64(x.Value(i)), nil
	case *array.Uint16:
		return int64(x.Value(i)), nil
	case *array.Uint32:
		return int64(x.Value(i)), nil
	case *array.Uint64:
		return x.Value(i), nil
	case *array.Float32:
		return float64(x.Value(i)), nil
	case *array.Float64:
		return x.Value(i), nil
	case *array.String:
		return x.Value(i), nil
	case *array.LargeString:
		return x.Value(i), nil
	case *array.Binary:
		return string(x.Value(i)), nil
	case *array.Decimal128:
		t := x.DataType().(*arrow.Decimal128Type)
		return mysqlwire.Decimal(decimal128.Num(x.Value(i)).ToString(t.Scale)), nil
	case *array.Date32:
		return mysqlwire.Date(x.Value(i).ToTime().Format("2006-01-02")), nil
	case *array.Timestamp:
		t := x.DataType().(*arrow.TimestampType)
		return mysqlwire.DateTime(x.Value(i).ToTime(t.Unit).Format("2006-01-02 15:04:05.999999")), nil
	}
	return nil, fmt.Errorf("type %s is not supported", a.DataType())
}

func (q *sqlServer) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, r flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	p, err := q.preparedOf(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	args, err := readArgs(p, r)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	p.args = args
	q.mu.Unlock()
	return cmd.GetPreparedStatementHandle(), nil
}

func (q *sqlServer) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, r flight.MessageReader) (int64, error) {
	p, err := q.preparedOf(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	args, err := readArgs(p, r)
	if err != nil {
		return 0, err
	}
	if args == nil {
		args = p.boundArgs(q)
	}
	b, err := q.runKept(ctx, p.c, p.text, nonNil(args))
	if err != nil {
		return 0, err
	}
	defer b.release()
	return b.affected, nil
}

func (p *prepared) boundArgs(q *sqlServer) []any {
	q.mu.Lock()
	defer q.mu.Unlock()
	return p.args
}

// nonNil makes a prepared statement without arguments still run as one.
func nonNil(args []any) []any {
	if args == nil {
		return []any{}
	}
	return args
}

func (q *sqlServer) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := q.preparedOf(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return q.info(ctx, p.c, p.text, nonNil(p.boundArgs(q)), desc)
}

func (q *sqlServer) CancelFlightInfo(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	st, err := q.cancel(ctx, req)
	return flight.CancelFlightInfoResult{Status: st}, err
}

func (q *sqlServer) cancel(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelStatus, error) {
	c, err := connOf(ctx)
	if err != nil {
		return flight.CancelStatusNotCancellable, err
	}
	info := req.GetInfo()
	if info == nil || len(info.Endpoint) == 0 || info.Endpoint[0].GetTicket() == nil {
		return flight.CancelStatusNotCancellable, status.Error(codes.InvalidArgument, "no ticket to cancel")
	}
	t, err := flightsql.GetStatementQueryTicket(info.Endpoint[0].GetTicket())
	if err != nil {
		return flight.CancelStatusNotCancellable, status.Error(codes.InvalidArgument, "not a statement ticket")
	}
	h := t.GetStatementHandle()
	if c.stop(h) {
		return flight.CancelStatusCancelled, nil
	}
	// Not started yet: forget the ticket, so it never runs.
	if t, err := q.take(c, h); err == nil {
		if t.result != nil {
			t.result.release()
		}
		return flight.CancelStatusCancelled, nil
	}
	return flight.CancelStatusNotCancellable, nil
}

// service is the Flight service: flightsql's, except that DoGet of a
// statement runs it right into the stream (flightsql's own DoGet takes a
// channel of batches, which would let the executor run ahead of the client).
type service struct {
	flight.FlightServer
	s *Server
}

func (v *service) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var a anypb.Any
	if err := proto.Unmarshal(t.GetTicket(), &a); err == nil {
		if msg, err := a.UnmarshalNew(); err == nil {
			if tq, ok := msg.(*pb.TicketStatementQuery); ok {
				c, err := connOf(stream.Context())
				if err != nil {
					return err
				}
				return v.s.sql.doGet(stream.Context(), c, tq.GetStatementHandle(), stream)
			}
		}
	}
	return v.FlightServer.DoGet(t, stream)
}
