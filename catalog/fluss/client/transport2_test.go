package client

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// TestIdleSweepSparesBusyConnections: a request that takes much longer
// than the idle timeout is not cut off by the idle sweeper.
func TestIdleSweepSparesBusyConnections(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		go func() {
			time.Sleep(150 * time.Millisecond)
			c.ok(req.id, &flusspb.ListDatabasesResponse{DatabaseName: []string{"slow"}})
		}()
	}, flussapi.ListDatabases)
	cfg := testConfig(srv.addr())
	cfg.IdleTimeout = 10 * time.Millisecond
	cl := newTestClient(t, cfg)
	dbs, err := cl.ListDatabases(context.Background())
	if err != nil || len(dbs) != 1 {
		t.Fatalf("%v %v", dbs, err)
	}
	if st := cl.PoolStats(); st.Opened != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestSASLRetriable: code 51 (retriable authentication failure) is retried
// with backoff on the same connection until the server accepts.
func TestSASLRetriable(t *testing.T) {
	var fails atomic.Int32
	fails.Store(2)
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		c.ok(req.id, &flusspb.ListDatabasesResponse{DatabaseName: []string{"ok"}})
	}, flussapi.ListDatabases)
	srv.user, srv.password = "u", "p"
	srv.authHook = func() int32 {
		if fails.Add(-1) >= 0 {
			return flussapi.RetriableAuthenticate
		}
		return 0
	}
	cfg := testConfig(srv.addr())
	cfg.SASL, cfg.SaslUsername, cfg.SaslPassword = true, "u", "p"
	cl := newTestClient(t, cfg)
	if _, err := cl.ListDatabases(context.Background()); err != nil {
		t.Fatal(err)
	}
	if srv.accepted.Load() != 1 {
		t.Fatalf("accepted %d connections", srv.accepted.Load())
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSecretsStayOutOfLogsAndErrors drives failing and succeeding SASL
// connections with debug logging on and checks that the password appears
// nowhere.
func TestSecretsStayOutOfLogsAndErrors(t *testing.T) {
	const secret = "TopSecret-PW-0042"
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		if req.key == flussapi.ListTables {
			c.serverFailure(flussapi.NetworkException, "bye")
			return
		}
		c.ok(req.id, &flusspb.ListDatabasesResponse{})
	}, flussapi.ListDatabases, flussapi.ListTables)
	srv.user, srv.password = "carol", secret
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var errs []string
	for _, pw := range []string{secret, secret + "-wrong"} {
		cfg := testConfig(srv.addr())
		cfg.SASL, cfg.SaslUsername, cfg.SaslPassword = true, "carol", pw
		cl := newTestClient(t, cfg, WithLogger(log))
		log.Info("client", "config", cfg)
		if _, err := cl.ListDatabases(context.Background()); err != nil {
			errs = append(errs, err.Error())
		}
		if _, err := cl.ListTables(context.Background(), "db"); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) < 2 {
		t.Fatalf("expected failures to inspect, got %v", errs)
	}
	all := logs.String() + strings.Join(errs, "\n")
	if strings.Contains(all, secret) {
		t.Fatalf("password leaked:\n%s", all)
	}
	if !strings.Contains(logs.String(), "redacted") {
		t.Fatalf("config not logged in redacted form:\n%s", logs.String())
	}
	tok := SecurityToken{Scheme: "s3", Token: []byte(`{"access_key_secret":"` + secret + `"}`)}
	if strings.Contains(tok.String(), secret) {
		t.Fatal("security token printed")
	}
}

func TestClosedClient(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) { c.ok(req.id, &flusspb.ListDatabasesResponse{}) }, flussapi.ListDatabases)
	cl, err := New(testConfig(srv.addr()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ListDatabases(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = cl.Close()
	if _, err := cl.ListDatabases(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// TestLeaderServerGone: the cached leader's server is gone (connection
// refused); the client reloads metadata and reaches the new leader.
func TestLeaderServerGone(t *testing.T) {
	path := TablePath{"db", "t"}
	answer := func(c *srvConn, req srvReq) {
		c.ok(req.id, &flusspb.ListOffsetsResponse{BucketsResp: []*flusspb.PbListOffsetsRespForBucket{{BucketId: proto.Int32(0), Offset: proto.Int64(77)}}})
	}
	old := newFrameServer(t, answer, flussapi.ListOffsets)
	neu := newFrameServer(t, answer, flussapi.ListOffsets)
	var moved atomic.Bool
	coord := newFrameServer(t, nil, flussapi.GetMetadata)
	coord.handle = func(c *srvConn, req srvReq) {
		leader := int32(1)
		if moved.Load() {
			leader = 2
		}
		c.ok(req.id, metadataResponse(coord, map[int32]*frameServer{1: old, 2: neu}, tablePB(path, 42, map[int32]int32{0: leader})))
	}
	cl := newTestClient(t, testConfig(coord.addr()))
	ctx := context.Background()
	if o, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil || o[0] != 77 {
		t.Fatalf("%v %v", o, err)
	}
	old.close()
	moved.Store(true)
	if o, err := cl.ListOffsets(ctx, path, nil, Latest()); err != nil || o[0] != 77 {
		t.Fatalf("after the leader's server went away: %v %v", o, err)
	}
	if neu.accepted.Load() != 1 {
		t.Fatalf("new leader accepted %d connections", neu.accepted.Load())
	}
}

// TestListOffsetsOneRequestPerLeader: buckets are grouped by leader.
func TestListOffsetsOneRequestPerLeader(t *testing.T) {
	path := TablePath{"db", "t"}
	var calls [3]atomic.Int32
	tablet := func(n int) func(c *srvConn, req srvReq) {
		return func(c *srvConn, req srvReq) {
			calls[n].Add(1)
			var r flusspb.ListOffsetsRequest
			_ = proto.Unmarshal(req.body, &r)
			resp := &flusspb.ListOffsetsResponse{}
			for _, b := range r.GetBucketId() {
				resp.BucketsResp = append(resp.BucketsResp, &flusspb.PbListOffsetsRespForBucket{BucketId: proto.Int32(b), Offset: proto.Int64(int64(100*n) + int64(b))})
			}
			c.ok(req.id, resp)
		}
	}
	t1 := newFrameServer(t, tablet(1), flussapi.ListOffsets)
	t2 := newFrameServer(t, tablet(2), flussapi.ListOffsets)
	coord := newFrameServer(t, nil, flussapi.GetMetadata)
	coord.handle = func(c *srvConn, req srvReq) {
		c.ok(req.id, metadataResponse(coord, map[int32]*frameServer{1: t1, 2: t2}, tablePB(path, 42, map[int32]int32{0: 1, 1: 2, 2: 1, 3: 2})))
	}
	cl := newTestClient(t, testConfig(coord.addr()))
	offs, err := cl.ListOffsets(context.Background(), path, nil, Latest())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int64{0: 100, 1: 201, 2: 102, 3: 203}
	for b, o := range want {
		if offs[b] != o {
			t.Fatalf("offsets %v, want %v", offs, want)
		}
	}
	if calls[1].Load() != 1 || calls[2].Load() != 1 {
		t.Fatalf("requests per leader: %d, %d", calls[1].Load(), calls[2].Load())
	}
}

// TestFetchPreferRemote: PreferRemote sends read_preference = 1
// (REMOTE_FIRST); the default sends none (LOCAL_FIRST).
func TestFetchPreferRemote(t *testing.T) {
	path := TablePath{"db", "t"}
	var prefs []int32
	var mu sync.Mutex
	srv := newFrameServer(t, nil, flussapi.GetMetadata, flussapi.FetchLog)
	srv.handle = func(c *srvConn, req srvReq) {
		if req.key == flussapi.GetMetadata {
			c.ok(req.id, metadataResponse(srv, map[int32]*frameServer{1: srv}, tablePB(path, 5, map[int32]int32{0: 1})))
			return
		}
		var r flusspb.FetchLogRequest
		_ = proto.Unmarshal(req.body, &r)
		mu.Lock()
		p := int32(-1)
		if r.ReadPreference != nil {
			p = r.GetReadPreference()
		}
		prefs = append(prefs, p)
		mu.Unlock()
		c.ok(req.id, &flusspb.FetchLogResponse{TablesResp: []*flusspb.PbFetchLogRespForTable{{TableId: proto.Int64(5),
			BucketsResp: []*flusspb.PbFetchLogRespForBucket{{BucketId: proto.Int32(0), HighWatermark: proto.Int64(0)}}}}})
	}
	cl := newTestClient(t, testConfig(srv.addr()))
	b := TableBucket{Table: path, TableID: 5}
	for _, pr := range []bool{false, true} {
		if _, err := cl.FetchLog(context.Background(), FetchRequest{Bucket: b, PreferRemote: pr}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prefs) != 2 || prefs[0] != -1 || prefs[1] != 1 {
		t.Fatalf("read preferences sent: %v", prefs)
	}
}
