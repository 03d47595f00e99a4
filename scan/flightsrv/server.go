package flightsrv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/internal/directticket"
	"github.com/inlet-db/inlet/internal/metrics"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// SecretHeader is the gRPC metadata key carrying the cluster secret; it is
// dispatch.SecretHeader (a test keeps them equal).
const SecretHeader = "inlet-cluster-secret"

// Executor runs fragments; *scan.Executor is the one a BE serves.
type Executor interface {
	Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error)
}

// Config configures a Server.
type Config struct {
	// Executor runs the fragments (required).
	Executor Executor
	// Secret is the cluster secret every call must carry.
	Secret string
	// Mem is the allocator fragments read with (required; cmd/be passes
	// memory.DefaultAllocator).
	Mem memory.Allocator
	// ErrorCode classifies executor errors (scan.ErrorCode); nil maps
	// cancellation to CANCELLED and the rest to INTERNAL.
	ErrorCode func(error) inletpb.ScanError_Code
	// Metrics receives the BE's counters; nil keeps a private registry.
	Metrics *metrics.Registry
	// Logger; nil discards. Fragments may hold secrets (client options,
	// storage options): they are never logged.
	Logger *slog.Logger
	// Own tells whether an address is this BE's (its listening or
	// advertised Flight address); the cluster challenge is answered only
	// for those, so a process elsewhere cannot relay challenges here. Nil
	// answers for none.
	Own func(addr string) bool
	// Concurrency is how many ranges of one fragment run at once when the
	// fragment does not say (ScanOptions.max_concurrency); default 16.
	Concurrency int
}

// Server is the BE's Flight service. It is shared by all connections.
type Server struct {
	flight.BaseFlightServer
	cfg Config
	m   serverMetrics
}

type serverMetrics struct {
	fragments, ranges, rows, bytes, errs, authFail, conns, waits, waitSecs, streams *metrics.Vec
	// Doris's BE names (be/src/util/doris_metrics.cpp, registry doris_be),
	// so dashboards made for Doris chart Inlet's BEs too.
	dorisFragments, dorisFragmentUs, dorisScanRows, dorisScanBytes *metrics.Vec
}

// New builds a server.
func New(cfg Config) (*Server, error) {
	if cfg.Executor == nil || cfg.Mem == nil {
		return nil, errors.New("flightsrv: Config needs an Executor and an allocator")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewRegistry()
	}
	if cfg.ErrorCode == nil {
		cfg.ErrorCode = defaultCode
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	r := cfg.Metrics
	s := &Server{cfg: cfg, m: serverMetrics{
		fragments: r.Counter("inlet_be_fragments_total", "Fragments received over Flight."),
		ranges:    r.Counter("inlet_be_ranges_total", "Ranges completed, by range kind.", "kind"),
		rows:      r.Counter("inlet_be_rows_total", "Rows sent to the FE, by range kind.", "kind"),
		bytes:     r.Counter("inlet_be_bytes_total", "Arrow bytes sent to the FE (IPC bodies), by range kind.", "kind"),
		errs:      r.Counter("inlet_be_errors_total", "Fragments that failed, by ScanError code.", "code"),
		authFail:  r.Counter("inlet_be_auth_failures_total", "Calls refused for a wrong or missing cluster secret."),
		conns:     r.Counter("inlet_be_fluss_connections_opened_total", "Fluss connections the BE opened (FlussJniConnectionsOpened)."),
		waits:     r.Counter("inlet_be_admission_waits_total", "Fragments whose heavy readers waited for heap admission."),
		waitSecs:  r.Counter("inlet_be_admission_wait_seconds_total", "Time heavy readers waited for heap admission (JvmHeapWaitTime)."),
		streams:   r.Gauge("inlet_be_streams", "Flight streams being served."),

		dorisFragments:  r.Counter("doris_be_fragment_requests_total", "Total fragment requests received."),
		dorisFragmentUs: r.Counter("doris_be_fragment_request_duration_us", "Time spent serving fragments, in microseconds."),
		dorisScanRows:   r.Counter("doris_be_query_scan_rows", "Rows the BE's scans returned (after the BE-side filters)."),
		dorisScanBytes:  r.Counter("doris_be_query_scan_bytes", "Bytes the BE's scans returned (Arrow IPC bodies)."),
	}}
	return s, nil
}

func defaultCode(err error) inletpb.ScanError_Code {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return inletpb.ScanError_CANCELLED
	}
	return inletpb.ScanError_INTERNAL
}

// NewGRPCServer returns a gRPC server with this service registered behind
// the secret check.
func (s *Server) NewGRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	opts = append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := s.authorize(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			// DoAction authorizes per action: the cluster challenge is
			// answered without the secret (the answer is the proof).
			// DoGet too: a client's direct ticket (directticket) is signed
			// with the secret instead of carrying it; DoGet checks either.
			if info.FullMethod == doActionMethod || info.FullMethod == doGetMethod {
				return h(srv, ss)
			}
			if err := s.authorize(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}, opts...)
	g := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(g, s)
	return g
}

// DoGet runs the fragment in the ticket and streams its batches. Every
// batch holds rows of one range and names it in its app metadata
// (inletpb.FlightMeta); when a range is complete a batch-less message says
// so with its row count; the last message carries the counters. A failure
// ends the stream with a gRPC status whose details hold an
// inletpb.ScanError.
func (s *Server) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	ctx := stream.Context()
	raw, direct := t.GetTicket(), directticket.Is(t.GetTicket())
	if direct {
		payload, expiry, err := directticket.Open(s.cfg.Secret, raw, time.Now())
		if err != nil {
			s.m.authFail.Inc()
			return status.Error(codes.Unauthenticated, "inlet BE: "+err.Error())
		}
		// The FE signed the fragment for the statement's query_timeout.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, expiry)
		defer cancel()
		raw = payload
	} else if err := s.authorize(ctx); err != nil {
		return err
	}
	// Counted once the caller is known to be the FE or one it signed for.
	s.m.fragments.Inc()
	s.m.dorisFragments.Inc()
	s.m.streams.Add(1)
	defer s.m.streams.Add(-1)
	start := time.Now()
	defer func() { s.m.dorisFragmentUs.Add(float64(time.Since(start).Microseconds())) }()
	var f inletpb.Fragment
	if err := proto.Unmarshal(raw, &f); err != nil {
		return s.fail(inletpb.ScanError_INVALID, fmt.Sprintf("flight ticket is not a fragment: %v", err))
	}
	err := s.run(ctx, &f, stream, direct)
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The FE went away (query cancelled, killed or done): nobody reads
		// the status.
		return status.FromContextError(ctxErr).Err()
	}
	var se *scanErr
	if errors.As(err, &se) {
		return s.fail(se.code, se.msg)
	}
	return s.fail(s.cfg.ErrorCode(err), err.Error())
}

// scanErr is an error whose code this package decided.
type scanErr struct {
	code inletpb.ScanError_Code
	msg  string
}

func (e *scanErr) Error() string { return e.msg }

func (s *Server) fail(code inletpb.ScanError_Code, msg string) error {
	s.m.errs.Inc(code.String())
	st := status.New(grpcCode(code), msg)
	if d, err := st.WithDetails(&inletpb.ScanError{Code: code, Message: msg}); err == nil {
		st = d
	}
	return st.Err()
}

func grpcCode(c inletpb.ScanError_Code) codes.Code {
	switch c {
	case inletpb.ScanError_CANCELLED:
		return codes.Canceled
	case inletpb.ScanError_NOT_FOUND:
		return codes.NotFound
	case inletpb.ScanError_INVALID:
		return codes.InvalidArgument
	case inletpb.ScanError_UNSUPPORTED:
		return codes.Unimplemented
	case inletpb.ScanError_RESOURCE_EXHAUSTED, inletpb.ScanError_TAIL_TOO_LARGE:
		return codes.ResourceExhausted
	case inletpb.ScanError_UNAVAILABLE:
		return codes.Unavailable
	case inletpb.ScanError_LOG_EXPIRED:
		return codes.FailedPrecondition
	}
	return codes.Internal
}

// item is what a range's reader hands the sending goroutine.
type item struct {
	rng  *inletpb.Range // nil for a fragment run whole (no ranges)
	rec  arrow.RecordBatch
	done bool
	rows int64
}

// run executes f. Each range runs as its own one-range fragment (up to
// max_concurrency at once), so every batch belongs to exactly one range:
// the executor merges the ranges of a fragment into one stream and does
// not say which range a batch came from. The executor shares tail key sets
// between the concurrent calls of one query (they carry its query id).
// A direct run (a client's direct ticket) sends a plain Flight stream:
// the schema and the batches, none of the app metadata the FE's dispatcher
// reads (range tags, range completions, counters).
func (s *Server) run(ctx context.Context, f *inletpb.Fragment, stream flight.FlightService_DoGetServer, direct bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var schema *arrow.Schema
	want := f.GetOutputSchema()
	if len(f.GetResultSchema()) > 0 {
		want = f.GetResultSchema() // a partial aggregate's state columns
	}
	if len(want) > 0 {
		sc, err := flight.DeserializeSchema(want, s.cfg.Mem)
		if err != nil {
			return &scanErr{inletpb.ScanError_INVALID, fmt.Sprintf("fragment %s: output_schema: %v", f.GetQueryId(), err)}
		}
		schema = sc
		if len(f.GetResultSchema()) == 0 {
			schema = exec.SentSchema(sc, f.GetFilterOnly()) // filter-only columns stay here
		}
	}

	items := make(chan item, 4)
	schemaCh := make(chan *arrow.Schema, 1)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		stats    = &inletpb.ScanStats{Counters: map[string]int64{}}
	)
	setErr := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	var schemaOnce sync.Once
	runOne := func(sub *inletpb.Fragment, r *inletpb.Range) {
		defer wg.Done()
		rdr, err := s.cfg.Executor.Execute(ctx, sub, s.cfg.Mem)
		if err != nil {
			setErr(err)
			return
		}
		defer rdr.Release()
		schemaOnce.Do(func() { schemaCh <- rdr.Schema() })
		var rows int64
		for rdr.Next() {
			rec := rdr.RecordBatch()
			if rec.NumRows() == 0 {
				continue
			}
			rec.Retain()
			select {
			case items <- item{rng: r, rec: rec}:
				rows += rec.NumRows()
			case <-ctx.Done():
				rec.Release()
				return
			}
		}
		if err := rdr.Err(); err != nil {
			setErr(err)
			return
		}
		st := rdr.Stats()
		mu.Lock()
		for k, v := range st.GetCounters() {
			stats.Counters[k] += v
		}
		if r == nil {
			stats.DoneRanges = append(stats.DoneRanges, st.GetDoneRanges()...)
		}
		stats.Timings = append(stats.Timings, st.GetTimings()...)
		mu.Unlock()
		if r != nil {
			select {
			case items <- item{rng: r, done: true, rows: rows}:
			case <-ctx.Done():
			}
		}
	}

	conc := int(f.GetOptions().GetMaxConcurrency())
	if conc <= 0 {
		conc = s.cfg.Concurrency
	}
	go func() {
		sem := make(chan struct{}, conc)
		if len(f.GetRanges()) == 0 {
			wg.Add(1)
			go runOne(f, nil)
		}
		for _, r := range f.GetRanges() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			sub := proto.Clone(f).(*inletpb.Fragment)
			sub.Ranges = []*inletpb.Range{r}
			wg.Add(1)
			go func() {
				defer func() { <-sem }()
				runOne(sub, r)
			}()
		}
		wg.Wait()
		close(items)
	}()
	defer func() {
		cancel()
		for it := range items {
			if it.rec != nil {
				it.rec.Release()
			}
		}
	}()

	w := &sender{stream: stream, mem: s.cfg.Mem, plain: direct}
	if schema == nil {
		select {
		case schema = <-schemaCh:
		case <-ctx.Done():
		}
		if schema == nil {
			mu.Lock()
			defer mu.Unlock()
			if firstErr != nil {
				return firstErr
			}
			return ctx.Err()
		}
	}
	if err := checkSchema(schema); err != nil {
		return &scanErr{inletpb.ScanError_UNSUPPORTED, fmt.Sprintf("fragment %s: %v", f.GetQueryId(), err)}
	}
	if err := w.schema(schema); err != nil {
		return err
	}

	limit := f.GetLimit()
	var sent int64
	for it := range items {
		kind := "NONE"
		var id int64
		if it.rng != nil {
			kind, id = it.rng.GetType().String(), it.rng.GetId()
		}
		if it.done {
			s.m.ranges.Inc(kind)
			mu.Lock()
			stats.DoneRanges = append(stats.DoneRanges, id)
			mu.Unlock()
			if err := w.meta(&inletpb.FlightMeta{RangeId: id, RangeDone: true, Rows: it.rows}); err != nil {
				return err
			}
			continue
		}
		rec := it.rec
		if limit >= 0 && sent+rec.NumRows() > limit {
			// Past the fragment's LIMIT the FE needs no more rows; the
			// range stays unfinished.
			cut := rec.NewSlice(0, limit-sent)
			rec.Release()
			rec = cut
		}
		n, err := w.batch(rec, id)
		rec.Release()
		if err != nil {
			return err
		}
		sent += rec.NumRows()
		s.m.rows.Add(float64(rec.NumRows()), kind)
		s.m.bytes.Add(float64(n), kind)
		s.m.dorisScanRows.Add(float64(rec.NumRows()))
		s.m.dorisScanBytes.Add(float64(n))
		if limit >= 0 && sent >= limit {
			cancel()
			break
		}
	}
	if limit < 0 || sent < limit {
		mu.Lock()
		err := firstErr
		mu.Unlock()
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	} else {
		// Drain (the deferred loop) so the readers' counters are in.
		for it := range items {
			if it.rec != nil {
				it.rec.Release()
			}
		}
	}
	mu.Lock()
	final := proto.Clone(stats).(*inletpb.ScanStats)
	mu.Unlock()
	s.observe(final)
	return w.meta(&inletpb.FlightMeta{Stats: final})
}

// observe adds a fragment's counters to the BE's metrics.
func (s *Server) observe(st *inletpb.ScanStats) {
	c := st.GetCounters()
	s.m.conns.Add(float64(c["FlussJniConnectionsOpened"]))
	if w := c["JvmHeapWaitTime"]; w > 0 {
		s.m.waits.Inc()
		s.m.waitSecs.Add(time.Duration(w).Seconds())
	}
}

func checkSchema(s *arrow.Schema) error {
	for _, f := range s.Fields() {
		if hasDictionary(f.Type) {
			return fmt.Errorf("column %s: dictionary-encoded columns are not sent over Flight", f.Name)
		}
	}
	return nil
}

func hasDictionary(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.DictionaryType:
		return true
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if hasDictionary(f.Type) {
				return true
			}
		}
	}
	return false
}

// sender writes FlightData messages: IPC payloads built per message, so a
// metadata-only message can go between batches.
type sender struct {
	stream flight.FlightService_DoGetServer
	mem    memory.Allocator
	body   bytes.Buffer
	plain  bool // no app metadata: a client reads the stream
}

func (w *sender) schema(s *arrow.Schema) error {
	p := ipc.GetSchemaPayload(s, w.mem)
	defer p.Release()
	_, err := w.send(&p, nil)
	return err
}

// batch sends rec tagged with its range and returns the body size.
func (w *sender) batch(rec arrow.RecordBatch, rangeID int64) (int, error) {
	p, err := ipc.GetRecordBatchPayload(rec, ipc.WithAllocator(w.mem))
	if err != nil {
		return 0, fmt.Errorf("encode batch of range %d: %w", rangeID, err)
	}
	defer p.Release()
	if w.plain {
		return w.send(&p, nil)
	}
	meta, err := proto.Marshal(&inletpb.FlightMeta{RangeId: rangeID})
	if err != nil {
		return 0, err
	}
	return w.send(&p, meta)
}

func (w *sender) send(p *ipc.Payload, appMeta []byte) (int, error) {
	m := p.Meta()
	defer m.Release()
	w.body.Reset()
	if err := p.SerializeBody(&w.body); err != nil {
		return 0, err
	}
	// grpc-go marshals the message inside Send, so reusing body after it
	// returns is safe.
	n := w.body.Len()
	return n, w.stream.Send(&flight.FlightData{DataHeader: m.Bytes(), DataBody: w.body.Bytes(), AppMetadata: appMeta})
}

func (w *sender) meta(m *inletpb.FlightMeta) error {
	if w.plain {
		return nil
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	return w.stream.Send(&flight.FlightData{AppMetadata: b})
}
