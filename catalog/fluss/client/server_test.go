package client

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// frameServer is a small real TCP server speaking the Fluss frame format, for
// transport-level tests (framing, pipelining, timeouts, SASL, idle close,
// leader moves). It answers ApiVersions and Authenticate itself and hands
// every other request to handle. It is not an emulator of Fluss semantics.
type frameServer struct {
	t          testing.TB
	ln         net.Listener
	serverType int32
	apis       []flussapi.APIKey // advertised in ApiVersions (besides 1000/1038)
	// SASL: when user is non-empty, requests other than ApiVersions and
	// Authenticate need a successful PLAIN exchange with user/password first.
	user, password string
	// authHook, when set, may answer an Authenticate with an error code.
	authHook func() int32

	handle func(s *srvConn, req srvReq)

	accepted atomic.Int32
	closed   atomic.Int32 // connections whose client side went away
	mu       sync.Mutex
	conns    []*srvConn
	wg       sync.WaitGroup
}

type srvReq struct {
	key     flussapi.APIKey
	version int16
	id      int32
	body    []byte
}

type srvConn struct {
	nc     net.Conn
	wmu    sync.Mutex
	authed bool
}

func (c *srvConn) writeFrame(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(b)))
	_, _ = c.nc.Write(append(l[:], b...))
}

func (c *srvConn) ok(id int32, m proto.Message) {
	body, err := proto.Marshal(m)
	if err != nil {
		panic(err)
	}
	b := []byte{0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(id))
	c.writeFrame(append(b, body...))
}

func (c *srvConn) fail(id int32, code int32, msg string) {
	body, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(code), ErrorMessage: proto.String(msg)})
	b := []byte{1, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(id))
	c.writeFrame(append(b, body...))
}

func (c *srvConn) serverFailure(code int32, msg string) {
	body, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(code), ErrorMessage: proto.String(msg)})
	c.writeFrame(append([]byte{2}, body...))
	_ = c.nc.Close()
}

func newFrameServer(t testing.TB, handle func(s *srvConn, req srvReq), apis ...flussapi.APIKey) *frameServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &frameServer{t: t, ln: ln, serverType: flussapi.ServerTypeCoordinator, apis: apis, handle: handle}
	s.wg.Add(1)
	go s.acceptLoop()
	t.Cleanup(s.close)
	return s
}

func (s *frameServer) addr() string { return s.ln.Addr().String() }

func (s *frameServer) port() int32 {
	_, p, _ := net.SplitHostPort(s.addr())
	n, _ := strconv.Atoi(p)
	return int32(n)
}

func (s *frameServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *frameServer) acceptLoop() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepted.Add(1)
		c := &srvConn{nc: nc}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *frameServer) serve(c *srvConn) {
	defer s.wg.Done()
	defer s.closed.Add(1)
	for {
		var l [4]byte
		if _, err := io.ReadFull(c.nc, l[:]); err != nil {
			return
		}
		b := make([]byte, binary.BigEndian.Uint32(l[:]))
		if _, err := io.ReadFull(c.nc, b); err != nil {
			return
		}
		req := srvReq{
			key:     flussapi.APIKey(binary.BigEndian.Uint16(b[0:])),
			version: int16(binary.BigEndian.Uint16(b[2:])),
			id:      int32(binary.BigEndian.Uint32(b[4:])),
			body:    b[8:],
		}
		switch req.key {
		case flussapi.APIVersions:
			resp := &flusspb.ApiVersionsResponse{ServerType: proto.Int32(s.serverType)}
			for _, k := range append([]flussapi.APIKey{flussapi.APIVersions, flussapi.Authenticate}, s.apis...) {
				resp.ApiVersions = append(resp.ApiVersions, &flusspb.PbApiVersion{ApiKey: proto.Int32(int32(k)), MinVersion: proto.Int32(0), MaxVersion: proto.Int32(0)})
			}
			c.ok(req.id, resp)
		case flussapi.Authenticate:
			var ar flusspb.AuthenticateRequest
			if err := proto.Unmarshal(req.body, &ar); err != nil || ar.GetProtocol() != "PLAIN" {
				c.fail(req.id, flussapi.AuthenticateException, "bad authenticate request")
				continue
			}
			if s.authHook != nil {
				if code := s.authHook(); code != 0 {
					c.fail(req.id, code, "try again")
					continue
				}
			}
			want := append(append(append([]byte{0}, s.user...), 0), s.password...)
			if s.user == "" || !bytes.Equal(ar.GetToken(), want) {
				c.fail(req.id, flussapi.AuthenticateException, "Authentication failed: Invalid username or password")
				continue
			}
			c.authed = true
			c.ok(req.id, &flusspb.AuthenticateResponse{Challenge: []byte{}})
		default:
			if s.user != "" && !c.authed {
				c.fail(req.id, flussapi.AuthenticateException, "not authenticated")
				continue
			}
			s.handle(c, req)
		}
	}
}

// metadataFor answers GET_METADATA naming this server as coordinator and the
// given tablet servers.
func metadataResponse(coord *frameServer, tablets map[int32]*frameServer, tables ...*flusspb.PbTableMetadata) *flusspb.MetadataResponse {
	r := &flusspb.MetadataResponse{TableMetadata: tables}
	if coord != nil {
		r.CoordinatorServer = &flusspb.PbServerNode{NodeId: proto.Int32(0), Host: proto.String("127.0.0.1"), Port: proto.Int32(coord.port())}
	}
	for id, s := range tablets {
		r.TabletServers = append(r.TabletServers, &flusspb.PbServerNode{NodeId: proto.Int32(id), Host: proto.String("127.0.0.1"), Port: proto.Int32(s.port())})
	}
	return r
}
