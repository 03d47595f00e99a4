package testcert

import (
	"crypto/tls"
	"net"
	"testing"
)

// A client with ClientConfig completes a handshake with a server using
// Pair, and the PEM files load back as the same key pair.
func TestHandshakeAndFiles(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{c.Pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		s, err := l.Accept()
		if err == nil {
			s.(*tls.Conn).Handshake()
			s.Close()
		}
	}()
	conn, err := tls.Dial("tcp", l.Addr().String(), c.ClientConfig())
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	conn.Close()
	if err := c.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil || string(pair.Certificate[0]) != string(c.Pair.Certificate[0]) {
		t.Fatalf("PEM files: %v", err)
	}
	var _ net.Conn = conn
}
