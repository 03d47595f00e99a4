package minifluss

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
)

// server is one role instance: the coordinator (id 0, coordinator=true) or a
// tablet server (id 0..n-1).
type server struct {
	c           *Cluster
	coordinator bool
	id          int32
	listeners   []*listener

	mu    sync.Mutex
	conns map[*conn]struct{}
	down  bool
}

type listener struct {
	cfg  Listener
	ln   net.Listener
	port int32
}

func (s *server) name() string {
	if s.coordinator {
		return "coordinator"
	}
	return fmt.Sprintf("tablet server %d", s.id)
}

func (s *server) serve(l *listener) {
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			return
		}
		cn := &conn{s: s, l: l, nc: nc, authed: !l.cfg.SASL}
		s.mu.Lock()
		if s.down {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.conns[cn] = struct{}{}
		s.mu.Unlock()
		s.c.wg.Add(1)
		go func() {
			defer s.c.wg.Done()
			cn.run()
		}()
	}
}

func (s *server) shutdown() {
	s.mu.Lock()
	s.down = true
	for _, l := range s.listeners {
		l.ln.Close()
	}
	for cn := range s.conns {
		cn.nc.Close()
	}
	s.mu.Unlock()
}

// dropConnections closes every open connection of this server (fault hook).
func (s *server) dropConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for cn := range s.conns {
		cn.nc.Close()
		n++
	}
	return n
}

// conn is one client connection. Frames are read in order; ApiVersions and
// Authenticate are answered inline (they gate the connection), every other
// request runs in its own goroutine so responses can come back out of order,
// as Fluss's do. Writes are serialised by wmu.
type conn struct {
	s  *server
	l  *listener
	nc net.Conn

	wmu    sync.Mutex
	authed bool // only touched by the read loop
	wg     sync.WaitGroup
}

func (cn *conn) run() {
	defer func() {
		cn.wg.Wait()
		cn.nc.Close()
		cn.s.mu.Lock()
		delete(cn.s.conns, cn)
		cn.s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(cn.nc, 64<<10)
	for {
		frame, err := readFrame(r, cn.s.c.cfg.MaxFrameBytes)
		if err != nil {
			if errors.Is(err, ErrFrame) {
				cn.s.c.cfg.Logger.Warn("minifluss: closing connection", "server", cn.s.name(), "remote", cn.nc.RemoteAddr().String(), "err", err)
				cn.writeFailure(codeCorruptMessage, err.Error())
			}
			return
		}
		h, body, err := parseRequest(frame)
		if err != nil {
			cn.writeFailure(codeCorruptMessage, err.Error())
			return
		}
		if !serves(cn.s.coordinator, h.APIKey) {
			// Fluss drops requests for keys its gateway does not serve.
			continue
		}
		// Faults are drawn here, in request order, so "the next request"
		// means the next one read.
		act := cn.s.c.faultFor(h.APIKey)
		switch {
		case h.APIKey == apiVersions || h.APIKey == apiAuthenticate:
			cn.handle(h, body, act)
		case !cn.authed:
			cn.writeError(h.RequestID, codeAuthenticate, "connection is not authenticated: send Authenticate first")
		default:
			cn.wg.Add(1)
			go func() {
				defer cn.wg.Done()
				cn.handle(h, body, act)
			}()
		}
	}
}

// handle runs one request. A panic in a handler costs only this connection.
func (cn *conn) handle(h requestHeader, body []byte, act faultAction) {
	defer func() {
		if r := recover(); r != nil {
			cn.s.c.cfg.Logger.Error("minifluss: handler panic", "api", h.APIKey, "panic", fmt.Sprint(r))
			cn.writeFailure(codeUnknownServerError, fmt.Sprintf("internal error handling api %d", h.APIKey))
			cn.nc.Close()
		}
	}()
	if act.delay > 0 {
		t := time.NewTimer(act.delay)
		select {
		case <-t.C:
		case <-cn.s.c.done:
		}
		t.Stop()
	}
	if act.drop {
		cn.nc.Close()
		return
	}
	resp, err := cn.dispatch(h, body)
	if err != nil {
		fe := asFluss(err)
		cn.writeError(h.RequestID, fe.Code, fe.Message)
		return
	}
	out, merr := proto.Marshal(resp)
	if merr != nil {
		cn.writeError(h.RequestID, codeUnknownServerError, merr.Error())
		return
	}
	cn.write(appendResponse(nil, respSuccess, h.RequestID, out))
}

func (cn *conn) write(frame []byte) {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	_, _ = cn.nc.Write(frame)
}

func (cn *conn) writeError(id int32, code int32, msg string) {
	b, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(code), ErrorMessage: proto.String(msg)})
	cn.write(appendResponse(nil, respError, id, b))
}

func (cn *conn) writeFailure(code int32, msg string) {
	b, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(code), ErrorMessage: proto.String(msg)})
	cn.write(appendResponse(nil, respServerFailure, 0, b))
}

// unmarshal decodes a request body. Like Fluss's generated parsers it
// refuses a message that lacks a required field, naming the field.
func unmarshal(body []byte, m proto.Message) error {
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(body, m); err != nil {
		return ferr(codeCorruptMessage, "cannot decode %T: %v", m, err)
	}
	if err := proto.CheckInitialized(m); err != nil {
		return ferr(codeCorruptMessage, "%T: %v", m, err)
	}
	return nil
}

// authenticate handles SASL PLAIN (spec §1.5).
func (cn *conn) authenticate(req *flusspb.AuthenticateRequest) (proto.Message, error) {
	if !cn.l.cfg.SASL {
		return nil, ferr(codeAuthenticate, "listener %s uses PLAINTEXT: authentication protocol %q does not match", cn.l.cfg.Name, req.GetProtocol())
	}
	if cn.authed {
		// The Rust client sends one more round with the empty challenge.
		return &flusspb.AuthenticateResponse{Challenge: []byte{}}, nil
	}
	if req.GetProtocol() != "PLAIN" {
		return nil, ferr(codeAuthenticate, "unsupported SASL mechanism %q: only PLAIN is enabled", req.GetProtocol())
	}
	parts := bytes.Split(req.GetToken(), []byte{0})
	if len(parts) != 3 {
		return nil, ferr(codeAuthenticate, "malformed SASL PLAIN token")
	}
	user, pass := string(parts[1]), string(parts[2])
	want, ok := cn.s.c.cfg.Users[user]
	if !ok || want != pass {
		// Never echo the password.
		return nil, ferr(codeAuthenticate, "authentication failed for user %q: invalid credentials", user)
	}
	cn.authed = true
	return &flusspb.AuthenticateResponse{Challenge: []byte{}}, nil
}

func (cn *conn) apiVersions() proto.Message {
	resp := &flusspb.ApiVersionsResponse{}
	for _, a := range servedAPIs(cn.s.coordinator) {
		resp.ApiVersions = append(resp.ApiVersions, &flusspb.PbApiVersion{ApiKey: proto.Int32(int32(a.key)), MinVersion: proto.Int32(a.min), MaxVersion: proto.Int32(a.max)})
	}
	st := int32(serverTypeTablet)
	if cn.s.coordinator {
		st = serverTypeCoordinator
	}
	resp.ServerType = &st
	return resp
}
