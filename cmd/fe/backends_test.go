package main

import (
	"bufio"
	"context"
	"database/sql"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// startRun runs the FE (run) until the test ends and returns its MySQL and
// HTTP addresses.
func startRun(t *testing.T, c config) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, c, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("FE shutdown: %v", err)
		}
	})
	query, httpRE := regexp.MustCompile(`listening on (\S+)`), regexp.MustCompile(`HTTP on (\S+)`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		q, h := query.FindStringSubmatch(out.String()), httpRE.FindStringSubmatch(out.String())
		if q != nil && h != nil {
			return q[1], h[1]
		}
		select {
		case err := <-done:
			t.Fatalf("FE stopped: %v\n%s", err, out.String())
		default:
		}
	}
	t.Fatalf("FE did not come up:\n%s", out.String())
	return "", ""
}

// startBEProcess builds and runs cmd/be with args; it returns the process
// and its Flight address.
func startBEProcess(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--port", "0", "--http-port", "0", "--log-level", "error"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	var flight string
	for flight == "" && sc.Scan() {
		flight, _ = strings.CutPrefix(sc.Text(), "flight listening on ")
	}
	if flight == "" {
		t.Fatal("BE did not start")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, flight
}

func rootDB(t *testing.T, addr string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", addr
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// backendRows returns SHOW BACKENDS (or q) as column name → value, one map
// per BE, keyed by Host:BePort.
func backendRows(t *testing.T, db *sql.DB, q string) ([]string, map[string]map[string]string) {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	out := map[string]map[string]string{}
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = vals[i].String
		}
		out[m["Host"]+":"+m["BePort"]] = m
	}
	return cols, out
}

// dorisBackendColumns are the columns of Doris's SHOW BACKENDS
// (BackendsProcDir.TITLE_NAMES), copied from Doris's FE source by hand.
const dorisBackendColumns = "BackendId Host HeartbeatPort BePort HttpPort BrpcPort ArrowFlightSqlPort LastStartTime " +
	"LastHeartbeat Alive SystemDecommissioned TabletNum DataUsedCapacity TrashUsedCapacity AvailCapacity TotalCapacity " +
	"UsedPct MaxDiskUsedPct RemoteUsedCapacity Tag ErrMsg Version Status HeartbeatFailureCounter CpuCores Memory " +
	"RunningTasks NodeRole"

// Issue 22: SHOW BACKENDS lists every BE with Doris's columns and real
// liveness: a --be BE that answers is alive after a query (it showed
// Alive=false, "not part of this build"), one that does not answer is
// dead with the reason, a BE that registered by heartbeat is listed, and
// a killed --be BE turns dead. SHOW PROC '/backends' is the same table.
func TestShowBackendsLiveness(t *testing.T) {
	const secret = "backends-test-secret"
	t.Setenv("INLET_CLUSTER_SECRET", secret)
	bin := filepath.Join(t.TempDir(), "be")
	if out, err := exec.Command("go", "build", "-o", bin, "../be").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/be: %v\n%s", err, out)
	}
	static, staticAddr := startBEProcess(t, bin)
	dead := "127.0.0.1:1"
	fq, fh := startRun(t, config{queryPort: 0, httpPort: 0, beHTTPPort: -1, host: "127.0.0.1", metaDir: t.TempDir(), metaSet: true,
		logLevel: "error", backends: []string{staticAddr, dead}, memLimit: 1 << 30, maxConns: 16, handshakeTimeout: 10 * time.Second})
	_, regAddr := startBEProcess(t, bin, "--fe", fh, "--heartbeat", "200ms")
	db := rootDB(t, fq)
	if _, err := db.Exec("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	var rows map[string]map[string]string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var cols []string
		cols, rows = backendRows(t, db, "SHOW BACKENDS")
		if got := strings.Join(cols, " "); got != dorisBackendColumns {
			t.Fatalf("columns:\n got %s\nwant %s", got, dorisBackendColumns)
		}
		if rows[regAddr] != nil || time.Now().After(deadline) {
			break
		}
	}
	if len(rows) != 3 {
		t.Fatalf("want 3 BEs (static, dead, registered), got %v", rows)
	}
	for addr, want := range map[string]string{staticAddr: "true", regAddr: "true", dead: "false"} {
		r := rows[addr]
		if r == nil {
			t.Fatalf("BE %s not listed: %v", addr, rows)
		}
		if r["Alive"] != want {
			t.Errorf("BE %s: Alive=%s, want %s (ErrMsg %q)", addr, r["Alive"], want, r["ErrMsg"])
		}
		if want == "true" && (r["ErrMsg"] != "" || r["NodeRole"] != "mix" || r["LastHeartbeat"] == "NULL" || r["LastStartTime"] == "NULL") {
			t.Errorf("live BE %s: %v", addr, r)
		}
	}
	if r := rows[dead]; r["ErrMsg"] != "unreachable: connection refused" || r["LastHeartbeat"] != "NULL" || r["HeartbeatFailureCounter"] == "0" {
		t.Errorf("dead BE: %v", r)
	}
	if !strings.Contains(rows[regAddr]["Tag"], "registered") || !strings.Contains(rows[staticAddr]["Tag"], "static") {
		t.Errorf("tags: %q %q", rows[regAddr]["Tag"], rows[staticAddr]["Tag"])
	}
	_, proc := backendRows(t, db, "SHOW PROC '/backends'")
	for addr, r := range rows {
		if proc[addr] == nil || proc[addr]["BackendId"] != r["BackendId"] || proc[addr]["Alive"] != r["Alive"] {
			t.Errorf("SHOW PROC '/backends' row of %s: %v, SHOW BACKENDS: %v", addr, proc[addr], r)
		}
	}
	if _, err := db.Exec("SHOW PROC '/nope'"); err == nil || !strings.Contains(err.Error(), "Proc path '/nope' doesn't exist") {
		t.Errorf("unknown proc path: %v", err)
	}

	// The --be BE dies: the next SHOW BACKENDS says so, with the same id.
	_ = static.Process.Kill()
	_ = static.Wait()
	_, rows2 := backendRows(t, db, "SHOW BACKENDS")
	if r := rows2[staticAddr]; r == nil || r["Alive"] != "false" || r["ErrMsg"] == "" || r["BackendId"] != rows[staticAddr]["BackendId"] {
		t.Errorf("killed BE: %v", r)
	}
}

// Without --be the in-process BE is listed, alive.
func TestShowBackendsInProcess(t *testing.T) {
	fq, _ := startRun(t, config{queryPort: 0, httpPort: 0, beHTTPPort: 0, host: "127.0.0.1", metaDir: t.TempDir(), metaSet: true,
		logLevel: "error", memLimit: 1 << 30, maxConns: 16, handshakeTimeout: 10 * time.Second})
	db := rootDB(t, fq)
	_, rows := backendRows(t, db, "SHOW BACKENDS")
	if len(rows) != 1 {
		t.Fatalf("want the in-process BE alone, got %v", rows)
	}
	for _, r := range rows {
		if r["Alive"] != "true" || !strings.Contains(r["Tag"], "in-process") || r["ErrMsg"] != "" || r["CpuCores"] == "0" {
			t.Errorf("in-process BE: %v", r)
		}
	}
}
