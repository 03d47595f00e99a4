package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/internal/testcert"
)

// testCert makes a self-signed certificate for 127.0.0.1 and writes it and
// its key as PEM files into dir.
func testCert(t *testing.T, dir string) (tls.Certificate, *x509.CertPool, string, string) {
	t.Helper()
	c, err := testcert.New()
	if err == nil {
		err = c.Write(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.Pair, c.Pool, c.CertFile, c.KeyFile
}

// tlsDB opens one session as user over TLS (pool verifies the FE) or, with
// a nil pool, in clear text.
func tlsDB(t *testing.T, addr, user, pass string, pool *x509.CertPool) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, pass, "tcp", addr
	cfg.InterpolateParams = true
	if pool != nil {
		cfg.TLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}

// TLS on the MySQL port: go-sql-driver verifies the FE's certificate and
// runs text and prepared statements (large results too) over TLS; a user
// created REQUIRE SSL is refused in clear text with MySQL's 1045 and
// accepted over TLS; plain clients still work for other users.
func TestTLSAndRequireSSL(t *testing.T) {
	dir := t.TempDir()
	pair, pool, certFile, _ := testCert(t, t.TempDir())
	var handshakes atomic.Int64
	tcfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12,
		VerifyConnection: func(tls.ConnectionState) error { handshakes.Add(1); return nil }}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem, TLSConfig: tcfg})
	if err != nil {
		t.Fatal(err)
	}
	f := &testFE{t: t, dir: dir, fe: fe, mem: mem}
	t.Cleanup(f.stop)
	addr := fe.Addr().String()

	root := tlsDB(t, addr, "root", "", pool)
	wantRows(t, root, "SELECT 1 + 1", "2")
	if handshakes.Load() == 0 {
		t.Fatal("no TLS handshake took place")
	}
	mustExec(t, root,
		"CREATE USER 'sec'@'%' IDENTIFIED BY 'pw1' REQUIRE SSL",
		"CREATE USER 'plain'@'%' IDENTIFIED BY 'pw2' REQUIRE NONE",
		"CREATE DATABASE d",
		"CREATE TABLE d.t (k INT, s VARCHAR(200000)) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.t VALUES (1, repeat('x', 150000)), (2, 'b')",
		"GRANT SELECT_PRIV ON internal.d.* TO 'sec'@'%'")
	// A result larger than a TLS record, and prepared statements over TLS.
	wantRows(t, root, "SELECT k, length(s) FROM d.t ORDER BY k", "1|150000", "2|1")
	prepCfg := mysql.NewConfig()
	prepCfg.User, prepCfg.Net, prepCfg.Addr = "root", "tcp", addr
	prepCfg.TLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	pc, err := mysql.NewConnector(prepCfg)
	if err != nil {
		t.Fatal(err)
	}
	prep := sql.OpenDB(pc)
	defer prep.Close()
	var n int
	if err := prep.QueryRow("SELECT length(s) FROM d.t WHERE k = ?", 1).Scan(&n); err != nil || n != 150000 {
		t.Fatalf("prepared over TLS: %d, %v", n, err)
	}

	// REQUIRE SSL: clear text is refused as MySQL refuses it, TLS works.
	_, err = tlsDB(t, addr, "sec", "pw1", nil).Exec("SELECT 1")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1045 || !strings.Contains(me.Message, "Access denied for user 'sec'") {
		t.Fatalf("REQUIRE SSL user in clear text: %v", err)
	}
	wantRows(t, tlsDB(t, addr, "sec", "pw1", pool), "SELECT count(*) FROM d.t", "2")
	// A wrong password over TLS is still refused; other users log in either way.
	if _, err := tlsDB(t, addr, "sec", "nope", pool).Exec("SELECT 1"); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("wrong password over TLS: %v", err)
	}
	wantRows(t, tlsDB(t, addr, "plain", "pw2", nil), "SELECT 7", "7")
	wantRows(t, tlsDB(t, addr, "plain", "pw2", pool), "SELECT 8", "8")

	// ALTER USER sets and lifts the requirement, and changes the password.
	mustExec(t, root, "ALTER USER 'plain'@'%' REQUIRE SSL")
	if _, err := tlsDB(t, addr, "plain", "pw2", nil).Exec("SELECT 1"); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("after ALTER USER … REQUIRE SSL, clear text: %v", err)
	}
	wantRows(t, tlsDB(t, addr, "plain", "pw2", pool), "SELECT 9", "9")
	mustExec(t, root, "ALTER USER 'plain'@'%' IDENTIFIED BY 'pw3' REQUIRE NONE")
	wantRows(t, tlsDB(t, addr, "plain", "pw3", nil), "SELECT 10", "10")
	wantErr(t, root, "ALTER USER 'nobody'@'%' REQUIRE SSL", 1396, "ALTER USER")
	mustExec(t, root, "ALTER USER IF EXISTS 'nobody'@'%' REQUIRE SSL")
	wantErr(t, root, "ALTER USER 'plain'@'%' REQUIRE X509", 1064, "only REQUIRE SSL and REQUIRE NONE")

	// The requirement survives a restart (it is kept with the account).
	f.stop()
	fe, err = Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem, TLSConfig: tcfg})
	if err != nil {
		t.Fatal(err)
	}
	f.fe = fe
	if _, err := tlsDB(t, fe.Addr().String(), "sec", "pw1", nil).Exec("SELECT 1"); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("after restart, REQUIRE SSL user in clear text: %v", err)
	}

	// The mariadb CLI: --ssl with the CA verifies and works; the REQUIRE
	// SSL user without it gets ERROR 1045.
	bin := fixtures.Tool(t, "mariadb", "mariadb-client")
	_, port, _ := net.SplitHostPort(fe.Addr().String())
	cli := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, append([]string{"-h127.0.0.1", "-P" + port, "--batch"}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := cli("-usec", "-ppw1", "--ssl", "--ssl-ca="+certFile, "--ssl-verify-server-cert", "-e", "SELECT count(*) AS n FROM d.t")
	if err != nil || !strings.Contains(out, "n\n2\n") {
		t.Errorf("mariadb --ssl: %v\n%s", err, out)
	}
	out, err = cli("-usec", "-ppw1", "--skip-ssl", "-e", "SELECT 1")
	if err == nil || !strings.Contains(out, "ERROR 1045") {
		t.Errorf("mariadb --skip-ssl as a REQUIRE SSL user: %v\n%s", err, out)
	}
}
