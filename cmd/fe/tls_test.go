package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/testcert"
)

// --tls-cert/--tls-key turn on TLS on the MySQL port: a client that
// verifies the certificate connects, and the start line says so.
func TestTLSFlags(t *testing.T) {
	dir := t.TempDir()
	cert, err := testcert.New()
	if err == nil {
		err = cert.Write(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := cert.CertFile, cert.KeyFile
	c, err := parseFlags([]string{"--query-port", "0", "--http-port", "0", "--be-http-port", "-1", "--meta-dir", filepath.Join(dir, "meta"),
		"--log-level", "error", "--tls-cert", certFile, "--tls-key", keyFile})
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startRun(t, c)

	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
	cfg.TLS = cert.ClientConfig()
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
