package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/internal/clustersecret"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// SecretHeader is the gRPC metadata key (and HTTP header, see Registry)
// carrying the cluster secret FE and BE share. scan/flightsrv checks the
// same key.
const SecretHeader = "inlet-cluster-secret"

// DefaultMaxMessageBytes caps one Flight message (one batch) the FE
// accepts; gRPC's own default of 4 MiB is smaller than a wide batch.
const DefaultMaxMessageBytes = 256 << 20

// FlightOption configures a FlightBackend.
type FlightOption func(*flightConfig)

type flightConfig struct {
	maxMessage int
	dial       []grpc.DialOption
}

// WithMaxMessageBytes caps the size of one received Flight message.
func WithMaxMessageBytes(n int) FlightOption { return func(c *flightConfig) { c.maxMessage = n } }

// WithDialOptions adds gRPC dial options (TLS credentials, for one).
func WithDialOptions(o ...grpc.DialOption) FlightOption {
	return func(c *flightConfig) { c.dial = append(c.dial, o...) }
}

// FlightBackend is a BE reached over Arrow Flight: Execute is a DoGet whose
// ticket is the serialized fragment. It is shared; its connection is
// opened on first use and kept until Close.
type FlightBackend struct {
	addr, secret string
	cfg          flightConfig

	mu     sync.Mutex
	conn   *grpc.ClientConn
	client flight.FlightServiceClient
}

// NewFlightBackend returns the BE at addr (host:port). secret is the
// cluster secret; it is sent with every call and never printed.
func NewFlightBackend(addr, secret string, opts ...FlightOption) *FlightBackend {
	cfg := flightConfig{maxMessage: DefaultMaxMessageBytes}
	for _, o := range opts {
		o(&cfg)
	}
	return &FlightBackend{addr: addr, secret: secret, cfg: cfg}
}

// Name is the BE's address.
func (b *FlightBackend) Name() string { return b.addr }

// String never shows the secret.
func (b *FlightBackend) String() string { return "flight BE " + b.addr }

// Close closes the connection; later calls reopen it.
func (b *FlightBackend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil
	}
	err := b.conn.Close()
	b.conn, b.client = nil, nil
	return err
}

func (b *FlightBackend) flightClient() (flight.FlightServiceClient, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client != nil {
		return b.client, nil
	}
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(b.cfg.maxMessage)),
	}, b.cfg.dial...)
	conn, err := grpc.NewClient(b.addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: BE %s: %v", ErrInvalid, b.addr, err)
	}
	b.conn, b.client = conn, flight.NewFlightServiceClient(conn)
	return b.client, nil
}

// Execute implements Backend. It returns once the BE has sent the stream's
// schema; the stream's batches each hold rows of one range.
func (b *FlightBackend) Execute(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (exec.StatsReader, error) {
	ticket, err := proto.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("%w: query %s: encode fragment: %v", ErrInvalid, f.GetQueryId(), err)
	}
	client, err := b.flightClient()
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	sctx = metadata.AppendToOutgoingContext(sctx, SecretHeader, b.secret)
	s := &flightStream{name: b.addr, parent: ctx, cancel: cancel, batchRange: -1}
	s.refs.Store(1)
	stream, err := client.DoGet(sctx, &flight.Ticket{Ticket: ticket})
	if err != nil {
		cancel()
		return nil, s.mapErr(err)
	}
	s.src = &flightSource{s: s, stream: stream}
	rdr, err := ipc.NewReaderFromMessageReader(s.src, ipc.WithAllocator(mem))
	if err != nil {
		cancel()
		if s.src.err != nil {
			err = s.src.err
		} else if errors.Is(err, io.EOF) {
			err = errors.New("stream ended before its schema")
		}
		return nil, s.mapErr(err)
	}
	s.rdr = rdr
	return s, nil
}

// flightStream reads one DoGet stream: the batches through an ipc.Reader,
// the batch-less messages (range done, final stats) on the side.
type flightStream struct {
	name   string
	parent context.Context
	cancel context.CancelFunc
	src    *flightSource
	rdr    *ipc.Reader
	refs   atomic.Int64

	batchRange int64 // range of the current batch
	done       []*inletpb.FlightMeta
	stats      *inletpb.ScanStats
	ended      bool // the last message (with stats) arrived
	err        error
}

// flightSource is the ipc.MessageReader over the gRPC stream.
type flightSource struct {
	s      *flightStream
	stream flight.FlightService_DoGetClient
	err    error // the first non-EOF receive or decode error
}

func (src *flightSource) Message() (*ipc.Message, error) {
	s := src.s
	for {
		fd, err := src.stream.Recv()
		if err != nil {
			if err != io.EOF {
				src.err = err
			}
			return nil, err
		}
		var meta inletpb.FlightMeta
		if len(fd.AppMetadata) > 0 {
			if err := proto.Unmarshal(fd.AppMetadata, &meta); err != nil {
				src.err = fmt.Errorf("%w: BE %s: app metadata: %v", ErrProtocol, s.name, err)
				return nil, src.err
			}
		}
		if s.ended {
			src.err = fmt.Errorf("%w: BE %s sent a message after its last", ErrProtocol, s.name)
			return nil, src.err
		}
		if len(fd.DataHeader) == 0 {
			if meta.GetRangeDone() {
				s.done = append(s.done, &meta)
			}
			if meta.Stats != nil {
				s.stats = meta.Stats
				s.ended = true
			}
			continue
		}
		s.batchRange = meta.GetRangeId()
		return ipc.NewMessage(memory.NewBufferBytes(fd.DataHeader), memory.NewBufferBytes(fd.DataBody)), nil
	}
}

func (src *flightSource) Retain()  {}
func (src *flightSource) Release() {}

// mapErr turns a stream error into a BackendError (the BE reported a
// ScanError), ErrAuth, the caller's own cancellation, or a lost stream.
func (s *flightStream) mapErr(err error) error {
	if s.parent.Err() != nil {
		return s.parent.Err()
	}
	if errors.Is(err, ErrProtocol) {
		return err
	}
	if st, ok := status.FromError(err); ok {
		for _, d := range st.Details() {
			if se, ok := d.(*inletpb.ScanError); ok {
				return &BackendError{Backend: s.name, Code: se.GetCode(), Message: se.GetMessage()}
			}
		}
		if st.Code() == codes.Unauthenticated {
			return fmt.Errorf("%w: BE %s", ErrAuth, s.name)
		}
	}
	return &lostError{backend: s.name, err: err}
}

// takeDone returns the ranges reported complete since the last call.
func (s *flightStream) takeDone() []*inletpb.FlightMeta {
	d := s.done
	s.done = nil
	return d
}

func (s *flightStream) Schema() *arrow.Schema { return s.rdr.Schema() }

func (s *flightStream) Next() bool {
	if s.err != nil {
		return false
	}
	if s.rdr.Next() {
		return true
	}
	switch {
	case s.src.err != nil:
		s.err = s.mapErr(s.src.err)
	case s.rdr.Err() != nil:
		s.err = s.mapErr(s.rdr.Err())
	case !s.ended:
		s.err = s.mapErr(errors.New("stream ended before its last message"))
	}
	return false
}

func (s *flightStream) RecordBatch() arrow.RecordBatch { return s.rdr.RecordBatch() }

// Record is the deprecated name of RecordBatch.
func (s *flightStream) Record() arrow.RecordBatch { return s.rdr.RecordBatch() }

func (s *flightStream) Err() error { return s.err }

func (s *flightStream) Stats() *inletpb.ScanStats { return s.stats }

func (s *flightStream) Retain() { s.refs.Add(1) }

// Release cancels the gRPC stream, which stops the BE's readers.
func (s *flightStream) Release() {
	if s.refs.Add(-1) == 0 {
		s.cancel()
		s.rdr.Release()
	}
}

// ChallengeFlight asks the Flight server at addr to prove it holds secret
// (flightsrv.ChallengeAction); nothing secret is sent. It is the Verify of
// a Registry.
func ChallengeFlight(ctx context.Context, addr, secret string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("BE %s: %v", addr, err)
	}
	defer conn.Close()
	nonce := clustersecret.NewNonce()
	st, err := flight.NewFlightServiceClient(conn).DoAction(ctx, &flight.Action{Type: ChallengeAction, Body: []byte(nonce + "\n" + addr)})
	if err != nil {
		return fmt.Errorf("BE %s did not answer the cluster challenge: %v", addr, status.Convert(err).Message())
	}
	res, err := st.Recv()
	if err != nil {
		return fmt.Errorf("BE %s did not answer the cluster challenge: %v", addr, status.Convert(err).Message())
	}
	if !clustersecret.Check(secret, nonce, addr, string(res.GetBody())) {
		return fmt.Errorf("BE %s failed the cluster challenge", addr)
	}
	return nil
}

// ChallengeAction is flightsrv.ChallengeAction (cmd/be's test keeps them
// equal; dispatch does not import the BE's server).
const ChallengeAction = "inlet.be_challenge"
