package minifluss

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// tconn is the tests' own tiny Fluss frame client, written from spec §1.1.
// It is deliberately independent of catalog/fluss/client.
type tconn struct {
	t  testing.TB
	nc net.Conn
	r  *bufio.Reader
	id int32
}

func dial(t testing.TB, addr string) *tconn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &tconn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (c *tconn) send(api int16, ver int16, req proto.Message) int32 {
	c.t.Helper()
	body, err := proto.MarshalOptions{AllowPartial: true}.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	id := c.id
	c.id++
	frame := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	frame = binary.BigEndian.AppendUint16(frame, uint16(api))
	frame = binary.BigEndian.AppendUint16(frame, uint16(ver))
	frame = binary.BigEndian.AppendUint32(frame, uint32(id))
	frame = append(frame, body...)
	if _, err := c.nc.Write(frame); err != nil {
		c.t.Fatal(err)
	}
	return id
}

// recv reads one response frame: type, request id (-1 for type 2) and body.
func (c *tconn) recv() (byte, int32, []byte) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	var lb [4]byte
	if _, err := ioReadFull(c.r, lb[:]); err != nil {
		c.t.Fatalf("read frame length: %v", err)
	}
	buf := make([]byte, binary.BigEndian.Uint32(lb[:]))
	if _, err := ioReadFull(c.r, buf); err != nil {
		c.t.Fatalf("read frame: %v", err)
	}
	if buf[0] == 2 {
		return 2, -1, buf[1:]
	}
	return buf[0], int32(binary.BigEndian.Uint32(buf[1:5])), buf[5:]
}

// call sends a request and decodes a success response into resp; it returns
// the error code of an ERROR response (0 on success).
func (c *tconn) call(api int16, req, resp proto.Message) int32 {
	c.t.Helper()
	id := c.send(api, 0, req)
	typ, rid, body := c.recv()
	if rid != id {
		c.t.Fatalf("response for request %d, want %d", rid, id)
	}
	if typ != 0 {
		var e flusspb.ErrorResponse
		if err := proto.Unmarshal(body, &e); err != nil {
			c.t.Fatal(err)
		}
		return e.GetErrorCode()
	}
	if err := proto.Unmarshal(body, resp); err != nil {
		c.t.Fatalf("decode %T: %v", resp, err)
	}
	return 0
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func startCluster(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func loadHex(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(fixtures.Path(t, "fluss", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestApiVersionsPerRole(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 2})
	for _, tc := range []struct {
		addr    string
		typ     int32
		want    []int16
		mustNot []int16
	}{
		{c.BootstrapAddr(), 1, []int16{apiCreateTable, apiGetMetadata, apiListRemoteLogManifests}, []int16{apiFetchLog, apiScanKv, apiProduceLog}},
		{c.ServerAddr(1, "CLIENT"), 2, []int16{apiFetchLog, apiScanKv, apiGetMetadata}, []int16{apiCreateTable, apiListRemoteLogManifests}},
	} {
		cn := dial(t, tc.addr)
		var resp flusspb.ApiVersionsResponse
		if code := cn.call(apiVersions, &flusspb.ApiVersionsRequest{ClientSoftwareName: proto.String("t"), ClientSoftwareVersion: proto.String("0")}, &resp); code != 0 {
			t.Fatalf("%s: error %d", tc.addr, code)
		}
		if resp.GetServerType() != tc.typ {
			t.Errorf("%s: server_type %d, want %d", tc.addr, resp.GetServerType(), tc.typ)
		}
		have := map[int16]*flusspb.PbApiVersion{}
		for _, v := range resp.GetApiVersions() {
			have[int16(v.GetApiKey())] = v
		}
		for _, k := range tc.want {
			if have[k] == nil {
				t.Errorf("server type %d does not advertise %d", tc.typ, k)
			}
		}
		for _, k := range tc.mustNot {
			if have[k] != nil {
				t.Errorf("server type %d advertises %d of the other role", tc.typ, k)
			}
		}
	}
}

// A key the role does not serve gets no response; the next request's does come.
func TestUnservedKeyIsDropped(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1})
	cn := dial(t, c.BootstrapAddr())
	cn.send(apiFetchLog, 0, &flusspb.FetchLogRequest{})
	cn.send(9999, 0, &flusspb.ApiVersionsRequest{})
	id := cn.send(apiListDatabases, 0, &flusspb.ListDatabasesRequest{})
	typ, rid, _ := cn.recv()
	if typ != 0 || rid != id {
		t.Fatalf("first response: type %d id %d, want success for %d", typ, rid, id)
	}
}

func createFixtureTable(t testing.TB, c *Cluster, name string, buckets int) TableInfo {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Table("fx", name); err == nil {
		t.Fatalf("table exists")
	}
	if err := c.CreateDatabase(ctx, "fx"); err != nil && asFluss(err).Code != codeDatabaseAlreadyExist {
		t.Fatal(err)
	}
	info, err := c.CreateTable(ctx, TableSpec{Database: "fx", Name: name, Buckets: buckets, SchemaID: 9,
		Columns:    []Column{{Name: "id", Type: typemap.Int()}, {Name: "name", Type: typemap.String()}},
		Properties: map[string]string{"table.log.arrow.compression.type": "NONE"}})
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// ProduceLog accepts the Java-written Arrow batch; FetchLog returns it with a
// server-assigned base offset and commit timestamp, CRC-covered bytes untouched.
func TestProduceFetchJavaBatch(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	c := startCluster(t, Config{TabletServers: 2, Now: func() time.Time { return now }})
	info := createFixtureTable(t, c, "arrow1", 1)
	batch := loadHex(t, "arrow_v0_batch_java091.hex")
	leader, _ := c.Leader("fx", "arrow1", "", 0)
	cn := dial(t, c.ServerAddr(leader, "CLIENT"))
	for i := 0; i < 2; i++ {
		var pr flusspb.ProduceLogResponse
		if code := cn.call(apiProduceLog, &flusspb.ProduceLogRequest{Acks: proto.Int32(-1), TableId: proto.Int64(info.ID), TimeoutMs: proto.Int32(1000),
			BucketsReq: []*flusspb.PbProduceLogReqForBucket{{BucketId: proto.Int32(0), Records: batch}}}, &pr); code != 0 {
			t.Fatalf("produce: error %d", code)
		}
		b := pr.GetBucketsResp()[0]
		if b.GetErrorCode() != 0 || b.GetBaseOffset() != int64(2*i) {
			t.Fatalf("produce %d: %v", i, b)
		}
	}
	fetch := func(off int64, maxBytes int32) *flusspb.PbFetchLogRespForBucket {
		var fr flusspb.FetchLogResponse
		if code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(1 << 20),
			TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
				BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(maxBytes)}}}}}, &fr); code != 0 {
			t.Fatalf("fetch: error %d", code)
		}
		return fr.GetTablesResp()[0].GetBucketsResp()[0]
	}
	// offset 1 lies inside the first batch: the whole first batch comes back.
	r := fetch(1, 1)
	if r.GetErrorCode() != 0 || r.GetHighWatermark() != 4 || r.GetLogStartOffset() != 0 {
		t.Fatalf("fetch: %v", r)
	}
	got := r.GetRecords()
	if len(got) != len(batch) {
		t.Fatalf("fetched %d bytes, want one batch of %d", len(got), len(batch))
	}
	if base := int64(binary.LittleEndian.Uint64(got)); base != 0 {
		t.Errorf("base offset %d", base)
	}
	if ts := int64(binary.LittleEndian.Uint64(got[13:])); ts != now.UnixMilli() {
		t.Errorf("commit timestamp %d, want %d", ts, now.UnixMilli())
	}
	if string(got[21:]) != string(batch[21:]) || string(got[8:13]) != string(batch[8:13]) {
		t.Errorf("CRC-covered bytes changed")
	}
	if r := fetch(2, 1<<20); int64(binary.LittleEndian.Uint64(r.GetRecords())) != 2 || len(r.GetRecords()) != len(batch) {
		t.Errorf("second batch: %d bytes", len(r.GetRecords()))
	}
	if r := fetch(5, 1<<20); r.GetErrorCode() != codeLogOffsetOutOfRange {
		t.Errorf("fetch past HW: error %d, want 19", r.GetErrorCode())
	}
	if r := fetch(fetchFromEarliest, 1<<20); len(r.GetRecords()) != 2*len(batch) {
		t.Errorf("fetch from earliest with a big limit: %d bytes, want both batches", len(r.GetRecords()))
	}
}

func TestNotLeader(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 3})
	info := createFixtureTable(t, c, "nl", 1)
	leader, _ := c.Leader("fx", "nl", "", 0)
	other := (leader + 1) % 3
	listOff := func(server int32) int32 {
		cn := dial(t, c.ServerAddr(server, "CLIENT"))
		var resp flusspb.ListOffsetsResponse
		if code := cn.call(apiListOffsets, &flusspb.ListOffsetsRequest{FollowerServerId: proto.Int32(-1), OffsetType: proto.Int32(1), TableId: proto.Int64(info.ID), BucketId: []int32{0}}, &resp); code != 0 {
			t.Fatalf("error %d", code)
		}
		return resp.GetBucketsResp()[0].GetErrorCode()
	}
	if code := listOff(other); code != codeNotLeaderOrFollower {
		t.Errorf("non-leader: code %d, want 12", code)
	}
	if code := listOff(leader); code != 0 {
		t.Errorf("leader: code %d", code)
	}
	c.NotLeaderOnce(info.ID, -1, 0)
	if code := listOff(leader); code != codeNotLeaderOrFollower {
		t.Errorf("injected: code %d, want 12", code)
	}
	if code := listOff(leader); code != 0 {
		t.Errorf("after injection: code %d", code)
	}
	if err := c.MoveLeader(context.Background(), "fx", "nl", "", 0, other); err != nil {
		t.Fatal(err)
	}
	if code := listOff(other); code != 0 {
		t.Errorf("new leader: code %d", code)
	}
	if code := listOff(leader); code != codeNotLeaderOrFollower {
		t.Errorf("old leader: code %d, want 12", code)
	}
}

func TestSASL(t *testing.T) {
	c := startCluster(t, Config{TabletServers: 1, Users: map[string]string{"alice": "s3cret"},
		Listeners: []Listener{{Name: "CLIENT"}, {Name: "SECURE", SASL: true}}})
	plainAuth := &flusspb.AuthenticateRequest{Protocol: proto.String("PLAIN"), Token: []byte("\x00alice\x00s3cret")}
	// PLAINTEXT listener: Authenticate is rejected, other requests work.
	pl := dial(t, c.ListenerAddr("CLIENT"))
	if code := pl.call(apiAuthenticate, plainAuth, &flusspb.AuthenticateResponse{}); code != codeAuthenticate {
		t.Errorf("plaintext authenticate: code %d, want 46", code)
	}
	sa := dial(t, c.ListenerAddr("SECURE"))
	if code := sa.call(apiListDatabases, &flusspb.ListDatabasesRequest{}, &flusspb.ListDatabasesResponse{}); code != codeAuthenticate {
		t.Errorf("unauthenticated request: code %d, want 46", code)
	}
	bad := &flusspb.AuthenticateRequest{Protocol: proto.String("PLAIN"), Token: []byte("\x00alice\x00wrong")}
	id := sa.send(apiAuthenticate, 0, bad)
	typ, rid, body := sa.recv()
	var e flusspb.ErrorResponse
	proto.Unmarshal(body, &e)
	if typ != 1 || rid != id || e.GetErrorCode() != codeAuthenticate || strings.Contains(e.GetErrorMessage(), "wrong") {
		t.Errorf("bad password: type %d code %d message %q", typ, e.GetErrorCode(), e.GetErrorMessage())
	}
	for i := 0; i < 2; i++ { // the second round is what the Rust client sends
		var ar flusspb.AuthenticateResponse
		if code := sa.call(apiAuthenticate, plainAuth, &ar); code != 0 || ar.Challenge == nil || len(ar.Challenge) != 0 {
			t.Fatalf("round %d: code %d challenge %v", i, code, ar.Challenge)
		}
	}
	var md flusspb.MetadataResponse
	if code := sa.call(apiGetMetadata, &flusspb.MetadataRequest{}, &md); code != 0 {
		t.Fatalf("metadata after login: %d", code)
	}
	// Metadata on the SECURE listener advertises SECURE ports.
	if got := md.GetCoordinatorServer().GetPort(); c.ListenerAddr("SECURE") != net.JoinHostPort("127.0.0.1", itoa(got)) {
		t.Errorf("coordinator port %d not the SECURE one %s", got, c.ListenerAddr("SECURE"))
	}
}

func itoa(p int32) string { return strconv.Itoa(int(p)) }
