package mysqlwire

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
)

// TLS is terminated by the guard, below vitess, so the guard keeps
// inspecting the decrypted packets of a TLS connection (vitess would wrap
// the socket itself and hide them). The guard sets CLIENT_SSL in vitess'
// greeting, answers the client's SSLRequest with a TLS handshake, and from
// then on reads and writes through TLS. vitess never sees the SSLRequest,
// so until login completes the guard shifts packet sequence numbers by one
// in each direction (client 2 → vitess 1, vitess 2 → client 3).

const capClientSSL = 1 << 11

// isSSLRequest reports a handshake response that is only the 32-byte
// prefix asking to switch to TLS.
func isSSLRequest(p []byte) bool {
	if len(p) != 32 {
		return false
	}
	caps := binary.LittleEndian.Uint32(p)
	return caps&capClientSSL != 0 && caps&capClientProtocol41 != 0
}

// bufConn reads through the guard's buffered reader, so bytes of the TLS
// ClientHello already buffered behind the SSLRequest are not lost.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// startTLS runs the server side of the TLS handshake on the connection.
func (g *guardConn) startTLS() error {
	tc := tls.Server(&bufConn{Conn: g.Conn, r: g.r}, g.s.cfg.TLSConfig)
	if err := tc.Handshake(); err != nil {
		return err
	}
	g.tls = tc
	g.r = bufio.NewReaderSize(tc, guardReadBufferLen)
	return nil
}

// connTLS reports whether c (a connection vitess holds) is encrypted.
func connTLS(c net.Conn) bool {
	g, ok := c.(*guardConn)
	return ok && g.tls != nil
}

// Write sends vitess' bytes (and the guard's own replies): unchanged without
// TLS; with TLS configured, the greeting gets CLIENT_SSL and, on a TLS
// connection not yet logged in, sequence numbers are shifted.
func (g *guardConn) Write(p []byte) (int, error) {
	switch {
	case g.s.cfg.TLSConfig == nil:
		return g.Conn.Write(p)
	case !g.greeted:
		return g.writeGreeting(p)
	case g.tls != nil && !g.ready:
		return g.writeShifted(p)
	case g.tls != nil:
		return g.tls.Write(p)
	}
	return g.Conn.Write(p)
}

// writeGreeting collects the first packet (HandshakeV10), sets CLIENT_SSL
// in its lower capability flags and sends it.
func (g *guardConn) writeGreeting(p []byte) (int, error) {
	g.wbuf = append(g.wbuf, p...)
	if len(g.wbuf) < 4 {
		return len(p), nil
	}
	n := int(g.wbuf[0]) | int(g.wbuf[1])<<8 | int(g.wbuf[2])<<16
	if len(g.wbuf) < 4+n {
		return len(p), nil
	}
	payload := g.wbuf[4 : 4+n]
	// protocol version, NUL-terminated server version, connection id (4),
	// auth data part 1 (8), filler (1), then the lower capability bytes.
	if len(payload) > 0 && payload[0] == 10 {
		if i := bytes.IndexByte(payload[1:], 0); i >= 0 {
			if pos := 1 + i + 1 + 4 + 8 + 1; pos+2 <= len(payload) {
				payload[pos+1] |= capClientSSL >> 8
			}
		}
	}
	g.greeted = true
	buf := g.wbuf
	g.wbuf = nil
	if _, err := g.Conn.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeShifted writes packets to the TLS connection with their sequence
// number plus one, following packet boundaries across calls.
func (g *guardConn) writeShifted(p []byte) (int, error) {
	done := 0
	for len(p) > 0 {
		if g.outLeft == 0 {
			take := min(4-len(g.outHdr), len(p))
			g.outHdr = append(g.outHdr, p[:take]...)
			p, done = p[take:], done+take
			if len(g.outHdr) < 4 {
				continue
			}
			hdr := [4]byte{g.outHdr[0], g.outHdr[1], g.outHdr[2], g.outHdr[3] + 1}
			g.outHdr = g.outHdr[:0]
			g.outLeft = int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
			if _, err := g.tls.Write(hdr[:]); err != nil {
				return done, err
			}
			continue
		}
		take := min(g.outLeft, len(p))
		if _, err := g.tls.Write(p[:take]); err != nil {
			return done, err
		}
		g.outLeft -= take
		p, done = p[take:], done+take
	}
	return done, nil
}
