package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// clientVersions is the range of versions this client speaks per API key
// (all 0 except LOOKUP, where v1 keys use the CompactedKeyEncoder rules).
func clientVersions(k flussapi.APIKey) (min, max int16, ok bool) {
	switch k {
	case flussapi.Lookup, flussapi.PrefixLookup:
		return 0, 1, true
	case flussapi.APIVersions, flussapi.Authenticate, flussapi.ListDatabases, flussapi.DatabaseExists,
		flussapi.GetTableInfo, flussapi.ListTables, flussapi.ListPartitionInfos, flussapi.TableExists,
		flussapi.GetTableSchema, flussapi.GetMetadata, flussapi.FetchLog, flussapi.ListOffsets,
		flussapi.GetLatestKvSnapshots, flussapi.GetKvSnapshotMetadata, flussapi.GetFileSystemSecurityToken,
		flussapi.GetLakeSnapshot, flussapi.LimitScan, flussapi.GetDatabaseInfo, flussapi.GetTableStats,
		flussapi.ScanKv, flussapi.ListRemoteLogManifests, flussapi.ListKvSnapshots:
		return 0, 0, true
	}
	return 0, 0, false
}

// Software name and version sent in ApiVersions.
const (
	softwareName    = "inlet"
	softwareVersion = "0.1.0"
)

// reply is what the read loop hands to a waiting call.
type reply struct {
	f   responseFrame
	err error
}

// conn is one TCP connection to one Fluss server. Any number of calls may be
// in flight at once (pipelining); the read loop matches answers to callers by
// request id, so the server may answer in any order. A conn is shared by
// goroutines; all its methods are safe for concurrent use.
type conn struct {
	addr string
	cfg  Config
	log  *slog.Logger
	nc   net.Conn

	wmu sync.Mutex // one frame written at a time

	mu         sync.Mutex
	nextID     int32
	pending    map[int32]chan reply
	versions   map[flussapi.APIKey]int16
	serverType int32
	err        error // non-nil once the conn is dead; never reset
	leases     int   // callers holding the conn (from the pool)
	lastUsed   time.Time
	done       chan struct{}
}

// dial connects and runs the handshake: ApiVersions, then SASL if configured
// (§1.6). The returned conn is ready for any request.
func dial(ctx context.Context, addr string, cfg Config, log *slog.Logger) (*conn, error) {
	hctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(hctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fluss: connect %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("%w: connect %s: %v", ErrConnection, addr, err)
	}
	c := &conn{
		addr:       addr,
		cfg:        cfg,
		log:        log,
		nc:         nc,
		pending:    map[int32]chan reply{},
		serverType: flussapi.ServerTypeUnknown,
		lastUsed:   time.Now(),
		done:       make(chan struct{}),
	}
	go c.readLoop()
	if err := c.handshake(hctx); err != nil {
		c.fail(err)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fluss: handshake with %s: %w", addr, ctx.Err())
		}
		return nil, err
	}
	return c, nil
}

func (c *conn) handshake(ctx context.Context) error {
	var resp flusspb.ApiVersionsResponse
	req := &flusspb.ApiVersionsRequest{ClientSoftwareName: proto.String(softwareName), ClientSoftwareVersion: proto.String(softwareVersion)}
	if err := c.roundTrip(ctx, flussapi.APIVersions, 0, req, &resp); err != nil {
		return fmt.Errorf("fluss: API_VERSIONS with %s: %w", c.addr, err)
	}
	versions := map[flussapi.APIKey]int16{}
	for _, v := range resp.GetApiVersions() {
		k := flussapi.APIKey(v.GetApiKey())
		cmin, cmax, ok := clientVersions(k)
		if !ok {
			continue
		}
		use := cmax
		if int16(v.GetMaxVersion()) < use {
			use = int16(v.GetMaxVersion())
		}
		lo := cmin
		if int16(v.GetMinVersion()) > lo {
			lo = int16(v.GetMinVersion())
		}
		if lo <= use {
			versions[k] = use
		}
	}
	c.mu.Lock()
	c.versions = versions
	if resp.ServerType != nil {
		c.serverType = resp.GetServerType()
	}
	c.mu.Unlock()
	if c.cfg.SASL {
		return c.authenticate(ctx)
	}
	return nil
}

// authenticate runs SASL PLAIN (§1.5): one AuthenticateRequest with
// 0x00 user 0x00 password; an answer without error completes it. Code 51 is
// retried with backoff while the handshake deadline allows.
func (c *conn) authenticate(ctx context.Context) error {
	token := make([]byte, 0, 2+len(c.cfg.SaslUsername)+len(c.cfg.SaslPassword))
	token = append(token, 0)
	token = append(token, c.cfg.SaslUsername...)
	token = append(token, 0)
	token = append(token, c.cfg.SaslPassword...)
	backoff := 100 * time.Millisecond
	for {
		var resp flusspb.AuthenticateResponse
		req := &flusspb.AuthenticateRequest{Protocol: proto.String("PLAIN"), Token: token}
		err := c.roundTrip(ctx, flussapi.Authenticate, 0, req, &resp)
		if err == nil {
			return nil
		}
		var fe *Error
		if errors.As(err, &fe) && fe.Code == flussapi.RetriableAuthenticate {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("%w: SASL PLAIN as user %q at %s: %w", ErrAuthentication, c.cfg.SaslUsername, c.addr, err)
			case <-t.C:
			}
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		if errors.As(err, &fe) {
			return fmt.Errorf("%w: SASL PLAIN as user %q at %s: %w", ErrAuthentication, c.cfg.SaslUsername, c.addr, err)
		}
		return fmt.Errorf("fluss: AUTHENTICATE with %s: %w", c.addr, err)
	}
}

// call sends req with the negotiated version of key and decodes the answer
// into resp. It waits at most cfg.RequestTimeout (or ctx, if sooner). A
// server-side failure comes back as *Error.
func (c *conn) call(ctx context.Context, key flussapi.APIKey, req, resp proto.Message) error {
	c.mu.Lock()
	v, ok := c.versions[key]
	st := c.serverType
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: server %s (%s) does not offer %s in a version this client speaks", ErrUnsupported, c.addr, serverTypeName(st), key)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	return c.roundTrip(ctx, key, v, req, resp)
}

func serverTypeName(t int32) string {
	switch t {
	case flussapi.ServerTypeCoordinator:
		return "coordinator"
	case flussapi.ServerTypeTablet:
		return "tablet server"
	}
	return "unknown server type"
}

func (c *conn) roundTrip(ctx context.Context, key flussapi.APIKey, version int16, req, resp proto.Message) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return fmt.Errorf("fluss: encode %s request: %w", key, err)
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	id := c.nextID
	c.nextID++
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.lastUsed = time.Now()
		c.mu.Unlock()
	}()

	frame := appendRequestFrame(make([]byte, 0, 12+len(body)), key, version, id, body)
	if err := c.write(ctx, frame); err != nil {
		return err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		if r.f.err != nil {
			return r.f.err
		}
		if err := unmarshal(r.f.body, resp); err != nil {
			return fmt.Errorf("%w: %s response from %s: %v", ErrProtocol, key, c.addr, err)
		}
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %s request %d to %s got no answer in time", ErrTimeout, key, id, c.addr)
		}
		return fmt.Errorf("fluss: %s to %s: %w", key, c.addr, ctx.Err())
	}
}

// write sends one whole frame. A failed or partial write leaves the stream
// unusable, so it kills the connection.
func (c *conn) write(ctx context.Context, frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(c.cfg.RequestTimeout)
	}
	_ = c.nc.SetWriteDeadline(dl)
	_, err := c.nc.Write(frame)
	if err != nil {
		err = fmt.Errorf("%w: write to %s: %v", ErrConnection, c.addr, err)
		c.fail(err)
		return err
	}
	return nil
}

func (c *conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		body, err := readFrame(br, c.cfg.MaxFrameSize)
		if err != nil {
			c.fail(fmt.Errorf("%w (from %s)", err, c.addr))
			return
		}
		f, err := parseResponseFrame(body)
		if err != nil {
			c.fail(fmt.Errorf("%w (from %s)", err, c.addr))
			return
		}
		if f.typ == flussapi.ResponseServerFailure {
			c.fail(fmt.Errorf("%w: server %s failed the connection: %w", ErrConnection, c.addr, f.err))
			return
		}
		c.mu.Lock()
		ch := c.pending[f.id]
		delete(c.pending, f.id)
		c.mu.Unlock()
		if ch == nil {
			c.log.Debug("fluss: dropping answer to abandoned request", "server", c.addr, "request_id", f.id)
			continue
		}
		ch <- reply{f: f}
	}
}

// fail marks the connection dead with err, wakes every waiting call and
// closes the socket. The first error wins.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.killLocked(err)
}

// killLocked does fail's work; c.mu must be held and c.err nil. It unlocks.
func (c *conn) killLocked(err error) {
	c.err = err
	pending := c.pending
	c.pending = map[int32]chan reply{}
	close(c.done)
	c.mu.Unlock()
	_ = c.nc.Close()
	for _, ch := range pending {
		ch <- reply{err: err}
	}
}

// alive reports whether the conn can take new requests.
func (c *conn) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

// acquire leases the conn to a caller; false if it is dead.
func (c *conn) acquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	c.leases++
	return true
}

func (c *conn) release() {
	c.mu.Lock()
	c.leases--
	c.lastUsed = time.Now()
	c.mu.Unlock()
}

// closeIfIdle closes the conn when nobody holds it and it has been unused
// for at least idle. It reports whether the conn is (now) dead.
func (c *conn) closeIfIdle(now time.Time, idle time.Duration) bool {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return true
	}
	if c.leases > 0 || len(c.pending) > 0 || now.Sub(c.lastUsed) < idle {
		c.mu.Unlock()
		return false
	}
	c.killLocked(fmt.Errorf("%w: connection to %s closed after %v idle", ErrClosed, c.addr, idle))
	return true
}
