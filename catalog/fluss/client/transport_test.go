package client

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// testTableJSON is a table descriptor as Fluss writes it (spec §2.3 example).
const testTableJSON = `{"version":1,"schema":{"version":1,"columns":[{"name":"id","data_type":{"type":"BIGINT","nullable":false},"id":0},` +
	`{"name":"dt","data_type":{"type":"STRING","nullable":false},"id":1},{"name":"v","data_type":{"type":"DECIMAL","precision":20,"scale":2},"id":2}],` +
	`"primary_key":["id","dt"],"highest_field_id":2},"partition_key":["dt"],"bucket_key":["id"],"bucket_count":4,` +
	`"properties":{"table.replication.factor":"3","table.datalake.enabled":"true"},"custom_properties":{}}`

func testConfig(addrs ...string) Config {
	return Config{BootstrapServers: addrs, RequestTimeout: 5 * time.Second}
}

func newTestClient(t *testing.T, cfg Config, opts ...Option) *Client {
	t.Helper()
	c, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestRequestFrameGolden pins the request frame bytes: big-endian header and
// the protobuf body exactly as Fluss's codec expects.
func TestRequestFrameGolden(t *testing.T) {
	marshal := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := []struct {
		name    string
		key     flussapi.APIKey
		id      int32
		msg     proto.Message
		wantHex string
	}{
		{
			name: "api versions",
			key:  flussapi.APIVersions, id: 0,
			msg: &flusspb.ApiVersionsRequest{ClientSoftwareName: proto.String("inlet"), ClientSoftwareVersion: proto.String("0.1.0")},
			// len=8+14 | key 1000 | v0 | id 0 | 0a 05 "inlet" 12 05 "0.1.0"
			wantHex: "00000016" + "03e8" + "0000" + "00000000" + "0a05696e6c6574" + "1205302e312e30",
		},
		{
			name: "list offsets latest, packed buckets",
			key:  flussapi.ListOffsets, id: 7,
			msg: &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(1), TableId: proto.Int64(5), PartitionId: proto.Int64(3), BucketId: []int32{0, 2}},
			// 08 ff..ff01 (int32 -1 as 10-byte varint) | 10 01 | 18 05 | 20 03 | 2a 02 00 02
			wantHex: "0000001d" + "03fd" + "0000" + "00000007" + "08ffffffffffffffffff01" + "1001" + "1805" + "2003" + "2a020002",
		},
		{
			name: "fetch log with projection",
			key:  flussapi.FetchLog, id: 1,
			msg: &flusspb.FetchLogRequest{
				FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1024),
				TablesReq: []*flusspb.PbFetchLogReqForTable{{
					TableId: proto.Int64(9), ProjectionPushdownEnabled: proto.Bool(true), ProjectedFields: []int32{0, 3},
					BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(1), FetchOffset: proto.Int64(100), MaxFetchBytes: proto.Int32(512)}},
				}},
			},
			// 08 -1 | 10 80 08 | 1a len{ 08 09 | 10 01 | 1a 02 00 03 | 22 len{ 10 01 | 18 64 | 20 80 04 } }
			wantHex: "00000029" + "03f7" + "0000" + "00000001" + "08ffffffffffffffffff01" + "108008" +
				"1a11" + "0809" + "1001" + "1a020003" + "2207" + "1001" + "1864" + "208004",
		},
		{
			name: "limit scan, numbering starts at 2",
			key:  flussapi.LimitScan, id: 2,
			msg:     &flusspb.LimitScanRequest{TableId: proto.Int64(5), BucketId: proto.Int32(1), Limit: proto.Int32(10)},
			wantHex: "0000000e" + "0409" + "0000" + "00000002" + "1005" + "2001" + "280a",
		},
		{
			name: "scan kv open",
			key:  flussapi.ScanKv, id: 3,
			msg: &flusspb.ScanKvRequest{BucketScanReq: &flusspb.PbScanReqForBucket{TableId: proto.Int64(5), BucketId: proto.Int32(0)},
				CallSeqId: proto.Int32(0), BatchSizeBytes: proto.Int32(1024)},
			wantHex: "00000013" + "0425" + "0000" + "00000003" + "120408051800" + "1800" + "208008",
		},
		{
			name: "readable lake snapshot",
			key:  flussapi.GetLakeSnapshot, id: 4,
			msg:     &flusspb.GetLakeSnapshotRequest{TablePath: TablePath{"d", "t"}.pb(), Readable: proto.Bool(true)},
			wantHex: "00000012" + "0408" + "0000" + "00000004" + "0a060a0164120174" + "1801",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := hex.EncodeToString(appendRequestFrame(nil, tc.key, 0, tc.id, marshal(tc.msg)))
			want := strings.ReplaceAll(tc.wantHex, " ", "")
			if got != want {
				t.Fatalf("frame bytes\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestParseResponseFrame(t *testing.T) {
	errBody, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(7), ErrorMessage: proto.String("Table 'a.b' does not exist.")})
	noCode, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorMessage: proto.String("x")})
	cases := []struct {
		name    string
		in      []byte
		wantErr string
		check   func(t *testing.T, f responseFrame)
	}{
		{name: "empty", in: nil, wantErr: "no type byte"},
		{name: "unknown type", in: []byte{9, 0, 0, 0, 1}, wantErr: "unknown response type 9"},
		{name: "success without id", in: []byte{0, 0, 0}, wantErr: "has no request id"},
		{name: "success", in: []byte{0, 0, 0, 1, 2, 0xaa}, check: func(t *testing.T, f responseFrame) {
			if f.id != 258 || f.err != nil || len(f.body) != 1 || f.body[0] != 0xaa {
				t.Fatalf("got %+v", f)
			}
		}},
		{name: "error", in: append([]byte{1, 0, 0, 0, 5}, errBody...), check: func(t *testing.T, f responseFrame) {
			if f.id != 5 || f.err == nil || f.err.Code != 7 || !errors.Is(f.err, ErrTableNotExist) {
				t.Fatalf("got %+v", f)
			}
		}},
		{name: "server failure has no id", in: append([]byte{2}, errBody...), check: func(t *testing.T, f responseFrame) {
			if f.hasID || f.err == nil || f.err.Code != 7 {
				t.Fatalf("got %+v", f)
			}
		}},
		{name: "error without code", in: append([]byte{1, 0, 0, 0, 5}, noCode...), wantErr: "has no error_code"},
		{name: "error garbage body", in: []byte{1, 0, 0, 0, 5, 0xff}, wantErr: "error response body of request 5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseResponseFrame(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrProtocol) {
					t.Fatalf("err = %v, want ErrProtocol containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, f)
		})
	}
}

func TestFrameLengthCapped(t *testing.T) {
	_, err := readFrame(strings.NewReader("\x7f\xff\xff\xff"), 1<<20)
	if err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("err = %v", err)
	}
}

func tablePB(path TablePath, id int64, buckets map[int32]int32) *flusspb.PbTableMetadata {
	m := &flusspb.PbTableMetadata{TablePath: path.pb(), TableId: proto.Int64(id), SchemaId: proto.Int32(1), TableJson: []byte("{}"),
		CreatedTime: proto.Int64(0), ModifiedTime: proto.Int64(0)}
	for b, l := range buckets {
		bm := &flusspb.PbBucketMetadata{BucketId: proto.Int32(b)}
		if l >= 0 {
			bm.LeaderId = proto.Int32(l)
		}
		m.BucketMetadata = append(m.BucketMetadata, bm)
	}
	return m
}

// TestPipelinedOutOfOrder: many requests in flight on one connection, the
// server answers them in reverse order, every caller gets its own answer.
func TestPipelinedOutOfOrder(t *testing.T) {
	const n = 32
	var mu sync.Mutex
	var held []srvReq
	srv := newFrameServer(t, nil, flussapi.GetTableInfo)
	srv.handle = func(c *srvConn, req srvReq) {
		mu.Lock()
		held = append(held, req)
		if len(held) < n {
			mu.Unlock()
			return
		}
		batch := held
		held = nil
		mu.Unlock()
		for i := len(batch) - 1; i >= 0; i-- {
			var r flusspb.GetTableInfoRequest
			if err := proto.Unmarshal(batch[i].body, &r); err != nil {
				c.fail(batch[i].id, flussapi.CorruptMessage, err.Error())
				continue
			}
			var id int64
			fmt.Sscanf(r.GetTablePath().GetTableName(), "t%d", &id)
			c.ok(batch[i].id, &flusspb.GetTableInfoResponse{TableId: proto.Int64(id), SchemaId: proto.Int32(1), TableJson: []byte(testTableJSON), CreatedTime: proto.Int64(0), ModifiedTime: proto.Int64(0)})
		}
	}
	cl := newTestClient(t, testConfig(srv.addr()))
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ti, err := cl.GetTableInfo(context.Background(), TablePath{"db", fmt.Sprintf("t%d", i)})
			if err != nil {
				errs <- err
				return
			}
			if ti.TableID != int64(i) {
				errs <- fmt.Errorf("request for t%d got table id %d", i, ti.TableID)
			}
			if d := ti.Descriptor; d == nil || len(d.Schema.Columns) != 3 || d.BucketCount() != 4 || d.PartitionKeys[0] != "dt" {
				errs <- fmt.Errorf("t%d: descriptor %+v", i, d)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := srv.accepted.Load(); got != 1 {
		t.Errorf("connections accepted = %d, want 1 (pipelined on one)", got)
	}
	if st := cl.PoolStats(); st.Opened != 1 {
		t.Errorf("pool opened %d connections, want 1", st.Opened)
	}
}

// TestTimeoutThenReuse: an unanswered request (the server drops unknown
// work silently) times out with ErrTimeout; the connection keeps serving.
func TestTimeoutThenReuse(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		if req.key == flussapi.ListTables {
			return // never answer
		}
		c.ok(req.id, &flusspb.ListDatabasesResponse{DatabaseName: []string{"a", "b"}})
	}, flussapi.ListTables, flussapi.ListDatabases)
	cfg := testConfig(srv.addr())
	cfg.RequestTimeout = 150 * time.Millisecond
	cl := newTestClient(t, cfg)
	_, err := cl.ListTables(context.Background(), "db")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if !strings.Contains(err.Error(), "LIST_TABLES") {
		t.Errorf("timeout error does not name the API: %v", err)
	}
	dbs, err := cl.ListDatabases(context.Background())
	if err != nil || len(dbs) != 2 {
		t.Fatalf("after timeout: %v %v", dbs, err)
	}
	if srv.accepted.Load() != 1 {
		t.Errorf("accepted %d connections, want the same one reused", srv.accepted.Load())
	}
}

func TestContextCancel(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {}, flussapi.ListTables)
	cl := newTestClient(t, testConfig(srv.addr()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cl.ListTables(ctx, "db")
		done <- err
	}()
	// Wait until the server has the request, then cancel.
	for srv.accepted.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestErrorResponseTyped(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		c.fail(req.id, flussapi.TableNotExist, "Table 'db.nope' does not exist.")
	}, flussapi.GetTableInfo)
	cl := newTestClient(t, testConfig(srv.addr()))
	_, err := cl.GetTableInfo(context.Background(), TablePath{"db", "nope"})
	var fe *Error
	if !errors.As(err, &fe) || fe.Code != flussapi.TableNotExist || !strings.Contains(fe.Message, "does not exist") {
		t.Fatalf("err = %v, want *Error code 7", err)
	}
	if !errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist) {
		t.Fatalf("kind mismatch: %v", err)
	}
	if !strings.Contains(err.Error(), "db.nope") {
		t.Errorf("error does not name the table: %v", err)
	}
}

func TestUnsupportedAPI(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) { t.Errorf("server got %v", req.key) })
	cl := newTestClient(t, testConfig(srv.addr()))
	_, err := cl.ListDatabases(context.Background())
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "LIST_DATABASES") {
		t.Fatalf("err = %v", err)
	}
}

// TestServerFailureReconnects: a SERVER_FAILURE frame (no request id) kills
// the connection; the next call transparently opens a new one.
func TestServerFailureReconnects(t *testing.T) {
	var calls int
	var mu sync.Mutex
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			c.serverFailure(flussapi.NetworkException, "boom")
			return
		}
		c.ok(req.id, &flusspb.ListDatabasesResponse{DatabaseName: []string{"x"}})
	}, flussapi.ListDatabases)
	cl := newTestClient(t, testConfig(srv.addr()))
	dbs, err := cl.ListDatabases(context.Background())
	if err != nil || len(dbs) != 1 {
		t.Fatalf("got %v, %v; want retry on a new connection to succeed", dbs, err)
	}
	if got := srv.accepted.Load(); got != 2 {
		t.Errorf("accepted %d connections, want 2", got)
	}
	if st := cl.PoolStats(); st.Opened != 2 || st.Closed != 1 {
		t.Errorf("stats = %+v, want opened 2 closed 1", st)
	}
}

func TestSASL(t *testing.T) {
	handler := func(c *srvConn, req srvReq) {
		c.ok(req.id, &flusspb.ListDatabasesResponse{DatabaseName: []string{"secure"}})
	}
	srv := newFrameServer(t, handler, flussapi.ListDatabases)
	srv.user, srv.password = "alice", "s3cret-pw"

	t.Run("good password", func(t *testing.T) {
		props := map[string]string{
			PropBootstrapServers: srv.addr(), PropSecurityProtocol: "SASL", PropSaslMechanism: "PLAIN",
			PropSaslUsername: "alice", PropSaslPassword: "s3cret-pw",
		}
		cfg, err := ConfigFromProperties(props)
		if err != nil {
			t.Fatal(err)
		}
		cl := newTestClient(t, cfg)
		dbs, err := cl.ListDatabases(context.Background())
		if err != nil || len(dbs) != 1 || dbs[0] != "secure" {
			t.Fatalf("got %v %v", dbs, err)
		}
	})
	t.Run("bad password", func(t *testing.T) {
		cfg := testConfig(srv.addr())
		cfg.SASL, cfg.SaslUsername, cfg.SaslPassword = true, "alice", "wrong-pw-value"
		cl := newTestClient(t, cfg)
		_, err := cl.ListDatabases(context.Background())
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("err = %v, want ErrAuthentication", err)
		}
		var fe *Error
		if !errors.As(err, &fe) || fe.Code != flussapi.AuthenticateException {
			t.Fatalf("err = %v, want *Error 46", err)
		}
		if strings.Contains(err.Error(), "wrong-pw-value") || strings.Contains(fmt.Sprint(cfg), "wrong-pw-value") {
			t.Fatalf("password leaked: %v / %v", err, cfg)
		}
		if !strings.Contains(err.Error(), `"alice"`) {
			t.Errorf("error does not name the user: %v", err)
		}
	})
	t.Run("no sasl against sasl server", func(t *testing.T) {
		cl := newTestClient(t, testConfig(srv.addr()))
		_, err := cl.ListDatabases(context.Background())
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("err = %v, want ErrAuthentication", err)
		}
	})
}

// TestPoolKeyedByConfigAndIdleClose: equal configs share a connection, a
// different password gets its own, and idle connections are closed.
func TestPoolKeyedByConfigAndIdleClose(t *testing.T) {
	srv := newFrameServer(t, func(c *srvConn, req srvReq) {
		c.ok(req.id, &flusspb.ListDatabasesResponse{})
	}, flussapi.ListDatabases)
	pool := NewPool(nil)
	t.Cleanup(func() { _ = pool.Close() })
	cfg := testConfig(srv.addr())
	cfg.IdleTimeout = 300 * time.Millisecond // long enough that the calls below share, short for the test
	a := newTestClient(t, cfg, WithPool(pool))
	b := newTestClient(t, cfg, WithPool(pool))
	other := cfg
	other.SaslPassword = "different" // no SASL on: still a different pool key
	c := newTestClient(t, other, WithPool(pool))
	ctx := context.Background()
	for _, cl := range []*Client{a, b, a, b} {
		if _, err := cl.ListDatabases(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := pool.Stats(); st.Opened != 1 {
		t.Fatalf("equal configs: opened %d, want 1", st.Opened)
	}
	if _, err := c.ListDatabases(ctx); err != nil {
		t.Fatal(err)
	}
	if st := pool.Stats(); st.Opened != 2 {
		t.Fatalf("different config: opened %d, want 2", st.Opened)
	}
	waitFor(t, "idle connections to close", func() bool { return pool.Stats().Open == 0 && srv.closed.Load() == 2 })
	if st := pool.Stats(); st.Closed != 2 {
		t.Fatalf("stats %+v, want 2 closed", st)
	}
	if _, err := a.ListDatabases(ctx); err != nil {
		t.Fatal(err)
	}
	if st := pool.Stats(); st.Opened != 3 || st.Open != 1 {
		t.Fatalf("after idle close: %+v, want a third connection", st)
	}
}

// TestIdleDefaultIsSixtySeconds pins the product rule.
func TestIdleDefaultIsSixtySeconds(t *testing.T) {
	if got := (Config{}).withDefaults().IdleTimeout; got != 60*time.Second {
		t.Fatalf("default idle timeout %v", got)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNotLeaderRefresh: the first leader answers NOT_LEADER_OR_FOLLOWER for
// the bucket; the client reloads metadata, finds the new leader, retries.
func TestNotLeaderRefresh(t *testing.T) {
	path := TablePath{"db", "t"}
	offsetsFrom := func(off int64, errCode int32) func(c *srvConn, req srvReq) {
		return func(c *srvConn, req srvReq) {
			var r flusspb.ListOffsetsRequest
			_ = proto.Unmarshal(req.body, &r)
			resp := &flusspb.ListOffsetsResponse{}
			for _, b := range r.GetBucketId() {
				br := &flusspb.PbListOffsetsRespForBucket{BucketId: proto.Int32(b)}
				if errCode != 0 {
					br.ErrorCode, br.ErrorMessage = proto.Int32(errCode), proto.String("not leader for bucket")
				} else {
					br.Offset = proto.Int64(off + int64(b))
				}
				resp.BucketsResp = append(resp.BucketsResp, br)
			}
			c.ok(req.id, resp)
		}
	}
	old := newFrameServer(t, offsetsFrom(0, flussapi.NotLeaderOrFollower), flussapi.ListOffsets)
	old.serverType = flussapi.ServerTypeTablet
	neu := newFrameServer(t, offsetsFrom(100, 0), flussapi.ListOffsets)
	neu.serverType = flussapi.ServerTypeTablet
	var mu sync.Mutex
	metaCalls := 0
	coord := newFrameServer(t, nil, flussapi.GetMetadata)
	coord.handle = func(c *srvConn, req srvReq) {
		mu.Lock()
		metaCalls++
		n := metaCalls
		mu.Unlock()
		leader := int32(1)
		if n > 1 {
			leader = 2 // the leader moved
		}
		c.ok(req.id, metadataResponse(coord, map[int32]*frameServer{1: old, 2: neu}, tablePB(path, 42, map[int32]int32{0: leader})))
	}
	cl := newTestClient(t, testConfig(coord.addr()))
	offs, err := cl.ListOffsets(context.Background(), path, nil, Latest())
	if err != nil {
		t.Fatal(err)
	}
	if offs[0] != 100 {
		t.Fatalf("offsets = %v, want bucket 0 → 100 from the new leader", offs)
	}
	if old.accepted.Load() == 0 {
		t.Fatal("the old leader was never asked; the test proves nothing")
	}
}

func TestNotLeaderGivesUp(t *testing.T) {
	path := TablePath{"db", "t"}
	tab := newFrameServer(t, func(c *srvConn, req srvReq) {
		c.fail(req.id, flussapi.NotLeaderOrFollower, "still not leader")
	}, flussapi.ListOffsets)
	coord := newFrameServer(t, nil, flussapi.GetMetadata)
	coord.handle = func(c *srvConn, req srvReq) {
		c.ok(req.id, metadataResponse(coord, map[int32]*frameServer{1: tab}, tablePB(path, 42, map[int32]int32{0: 1})))
	}
	cl := newTestClient(t, testConfig(coord.addr()))
	_, err := cl.ListOffsets(context.Background(), path, nil, Earliest())
	var fe *Error
	if !errors.Is(err, ErrNotLeader) || !errors.As(err, &fe) || fe.Code != 12 {
		t.Fatalf("err = %v, want NOT_LEADER after retries", err)
	}
}

func TestConfigFromProperties(t *testing.T) {
	cases := []struct {
		name    string
		props   map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "missing servers", props: map[string]string{}, wantErr: "bootstrap.servers is required"},
		{name: "bad server", props: map[string]string{PropBootstrapServers: "nohost"}, wantErr: `"nohost" is not host:port`},
		{name: "bad protocol", props: map[string]string{PropBootstrapServers: "a:1", PropSecurityProtocol: "ssl"}, wantErr: "client.security.protocol"},
		{name: "sasl without user", props: map[string]string{PropBootstrapServers: "a:1", PropSecurityProtocol: "sasl"}, wantErr: "client.security.sasl.username is required"},
		{name: "bad mechanism", props: map[string]string{PropBootstrapServers: "a:1", PropSaslMechanism: "SCRAM"}, wantErr: "only PLAIN"},
		{name: "bad timeout", props: map[string]string{PropBootstrapServers: "a:1", PropRequestTimeout: "soon"}, wantErr: "client.request-timeout"},
		{name: "full", props: map[string]string{
			PropBootstrapServers: "a:1, b:2", PropSecurityProtocol: "sasl", PropSaslUsername: "u", PropSaslPassword: "p",
			PropRequestTimeout: "5s", PropIdleTimeout: "2min", PropFetchBucketBytes: "2mb", "client.writer.acks": "all",
		}, check: func(t *testing.T, c Config) {
			if len(c.BootstrapServers) != 2 || !c.SASL || c.SaslUsername != "u" || c.RequestTimeout != 5*time.Second ||
				c.IdleTimeout != 2*time.Minute || c.FetchMaxBucketBytes != 2<<20 || c.Other["client.writer.acks"] != "all" {
				t.Fatalf("got %+v", c)
			}
			if strings.Contains(c.String(), "\"p\"") || !strings.Contains(c.String(), "redacted") {
				t.Fatalf("String leaks or hides wrongly: %s", c)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigFromProperties(tc.props)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestPoolKeyIgnoresNothing(t *testing.T) {
	base := Config{BootstrapServers: []string{"a:1"}}
	variants := []Config{
		{BootstrapServers: []string{"a:2"}},
		{BootstrapServers: []string{"a:1"}, SaslPassword: "x"},
		{BootstrapServers: []string{"a:1"}, SaslUsername: "x"},
		{BootstrapServers: []string{"a:1"}, RequestTimeout: time.Second},
		{BootstrapServers: []string{"a:1"}, Other: map[string]string{"k": "v"}},
	}
	for i, v := range variants {
		if v.key() == base.key() {
			t.Errorf("variant %d has the same pool key as the base config", i)
		}
	}
	if base.key() != (Config{BootstrapServers: []string{"a:1"}, IdleTimeout: DefaultIdleTimeout}).key() {
		t.Error("defaults should not change the key")
	}
}
