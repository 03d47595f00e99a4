package streamload_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/loginguard"
)

// Issue 25 point 4: Stream Load's HTTP Basic auth is throttled with the
// MySQL logins, per (user, host): after a few wrong passwords each further
// wrong answer waits its turn (about a second apart) over either protocol,
// other users are not slowed, the right password gets in at once, and
// /metrics counts it all.
func TestLoginGuessingSlowedAcrossProtocols(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable, "CREATE USER bob IDENTIFIED BY 'bobpw'")
	file := writeFile(t, "1,alice,10.50,2024-01-02 03:04:05,true\n")
	load := func(pass, label string) (int, time.Duration) {
		start := time.Now()
		code, _, _ := curl(t, "-u", "root:"+pass, "-H", "label:"+label, "-H", "column_separator:,",
			"-H", "columns: k, name, amount, ts, flag", "-T", file, c.url("d", "t"))
		return code, time.Since(start)
	}
	for i := range loginguard.FreeFailures {
		if code, took := load("guess", "g"); code != 401 || took > 900*time.Millisecond {
			t.Fatalf("free failure %d: HTTP %d after %s", i, code, took)
		}
	}
	// Sequential guesses now come back about a second apart.
	start := time.Now()
	for range 3 {
		if code, _ := load("guess", "g"); code != 401 {
			t.Fatalf("wrong password: HTTP %d", code)
		}
	}
	if took := time.Since(start); took < 1800*time.Millisecond {
		t.Errorf("3 more wrong passwords over HTTP answered in %s: not slowed", took)
	}
	// The same (user, host) over MySQL waits its turn too; another user
	// does not.
	mysqlLogin := func(user, pass string) (time.Duration, error) {
		db, err := sql.Open("mysql", user+":"+pass+"@tcp("+c.fe.Addr().String()+")/")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		start := time.Now()
		err = db.Ping()
		return time.Since(start), err
	}
	took, err := mysqlLogin("root", "guess")
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("wrong root password over MySQL: %v", err)
	}
	if took < 700*time.Millisecond {
		t.Errorf("a wrong root password over MySQL answered in %s after the HTTP guesses", took)
	}
	if took, err := mysqlLogin("bob", "nope"); err == nil || took > 700*time.Millisecond {
		t.Errorf("another user: %v after %s", err, took)
	}
	// The rightful owner is not locked out nor held back.
	if code, took := load(rootPass, "right-1"); code != 200 || took > 900*time.Millisecond {
		t.Errorf("right password over HTTP while guessed at: HTTP %d after %s", code, took)
	}
	m := get(t, "http://"+c.feHTTP+"/metrics")
	for _, l := range []string{`inlet_fe_login_failures_total{protocol="http"} 8`, `inlet_fe_login_failures_total{protocol="mysql"} 2`,
		`inlet_fe_login_failures_delayed_total{protocol="http"} 2`, `inlet_fe_login_failures_delayed_total{protocol="mysql"} 1`} {
		if !strings.Contains(m, l) {
			t.Errorf("/metrics lacks %s:\n%s", l, m)
		}
	}
}
