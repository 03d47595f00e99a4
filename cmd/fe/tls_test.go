package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// --tls-cert/--tls-key turn on TLS on the MySQL port: a client that
// verifies the certificate connects, and the start line says so.
func TestTLSFlags(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fe"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "fe.pem"), filepath.Join(dir, "fe.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	c, err := parseFlags([]string{"--query-port", "0", "--http-port", "0", "--be-http-port", "-1", "--meta-dir", filepath.Join(dir, "meta"),
		"--log-level", "error", "--tls-cert", certFile, "--tls-key", keyFile})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startRun(t, c)

	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
	cfg.TLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT 'over tls'").Scan(&v); err != nil || v != "over tls" {
		t.Fatalf("query over TLS: %q, %v", v, err)
	}
	// A missing key file is refused at start.
	bad := c
	bad.tlsKey = filepath.Join(dir, "missing.key")
	if err := run(t.Context(), bad, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "--tls-cert/--tls-key") {
		t.Errorf("missing key: %v", err)
	}
}
