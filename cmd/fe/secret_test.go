package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// binProc is a binary of this repository running as its own process.
type binProc struct {
	cmd      *exec.Cmd
	mu       sync.Mutex
	out, err strings.Builder
}

func (p *binProc) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String() + p.err.String()
}

// await waits for a line of output matching re and returns its first group.
func (p *binProc) await(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := rx.FindStringSubmatch(p.text()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no %q in the output:\n%s", re, p.text())
	return ""
}

func buildBin(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

func startBin(t *testing.T, env []string, bin string, args ...string) *binProc {
	t.Helper()
	p := &binProc{cmd: exec.Command(bin, args...)}
	p.cmd.Env = append(os.Environ(), env...)
	so, _ := p.cmd.StdoutPipe()
	se, _ := p.cmd.StderrPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	copyTo := func(r io.Reader, b *strings.Builder) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			b.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}
	go copyTo(so, &p.out)
	go copyTo(se, &p.err)
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	})
	return p
}

func curlOut(t *testing.T, curl string, args ...string) string {
	t.Helper()
	out, err := exec.Command(curl, append([]string{"-sS", "--max-time", "30"}, args...)...).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestClusterSecretByDefault runs the FE binary with no
// INLET_CLUSTER_SECRET, as a first start does: it makes a secret under its
// meta dir (0600, printed nowhere), refuses BE registrations without it,
// refuses a registrant that cannot answer the challenge on its own address
// (so curl --location-trusted never sends a user's password there), and
// redirects loads to a real cmd/be given the secret file.
func TestClusterSecretByDefault(t *testing.T) {
	curl := fixtures.Tool(t, "curl", "curl")
	feBin, beBin := buildBin(t, "."), buildBin(t, "../be")
	meta := filepath.Join(t.TempDir(), "meta")
	env := []string{"INLET_CLUSTER_SECRET=", "INLET_ROOT_PASSWORD=rootpw"}
	fe := startBin(t, env, feBin, "--meta-dir", meta, "--query-port", "0", "--http-port", "0", "--be-http-port", "0", "--flight-sql-port", "-1", "--log-level", "debug")
	httpAddr := fe.await(t, `HTTP on (\S+) `)
	queryAddr := fe.await(t, `listening on (\S+) `)

	secretFile := filepath.Join(meta, "cluster_secret")
	st, err := os.Stat(secretFile)
	if err != nil {
		t.Fatalf("no cluster secret under the meta dir: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("cluster secret mode %04o, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(secretFile)
	secret := strings.TrimSpace(string(b))
	if len(secret) < 32 {
		t.Fatalf("cluster secret %d characters", len(secret))
	}

	// A fake BE: answers every request "Success" and keeps what it got.
	var mu sync.Mutex
	var captured []string
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		// Challenges come here (they carry nothing secret); loads and
		// credentials must not.
		if r.Header.Get("Authorization") != "" || strings.Contains(r.URL.Path, "_stream_load") || r.Header.Get("Inlet-Cluster-Secret") != "" {
			captured = append(captured, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		}
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, `{"Status":"Success","Message":"OK"}`)
	}))
	defer fake.Close()
	fakeAddr := strings.TrimPrefix(fake.URL, "http://")

	for _, tc := range []struct{ name, path, secret, want string }{
		{"stream load BE, no secret", "/api/_internal/stream_load_be", "", "401"},
		{"heartbeat, no secret", "/api/be/heartbeat", "", "401"},
		{"stream load BE, wrong secret", "/api/_internal/stream_load_be", "wrong", "401"},
		// With the secret but no BE on the address to prove it.
		{"stream load BE, fails the challenge", "/api/_internal/stream_load_be", secret, "403"},
		{"heartbeat, fails the challenge", "/api/be/heartbeat", secret, "403"},
	} {
		args := []string{"-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", "addr=" + fakeAddr}
		if tc.secret != "" {
			args = append(args, "-H", "Inlet-Cluster-Secret: "+tc.secret)
		}
		if got := curlOut(t, curl, append(args, "http://"+httpAddr+tc.path)...); got != tc.want {
			t.Errorf("%s: HTTP %s, want %s", tc.name, got, tc.want)
		}
	}

	db, err := sql.Open("mysql", "root:rootpw@tcp("+queryAddr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (k INT, v VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	data := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(data, []byte("1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(label string) string {
		return curlOut(t, curl, "--location-trusted", "-u", "root:rootpw", "-H", "label:"+label, "-H", "column_separator:,",
			"-T", data, "http://"+httpAddr+"/api/d/t/_stream_load")
	}
	if got := load("l1"); !strings.Contains(got, `"Status": "Success"`) && !strings.Contains(got, `"Status":"Success"`) {
		t.Fatalf("load: %s", got)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows after the load: %d, %v (a fake BE took it?)", n, err)
	}
	mu.Lock()
	if len(captured) > 0 {
		t.Errorf("the fake BE was sent: %q", captured)
	}
	mu.Unlock()

	// A BE without the secret refuses to start with --fe, saying where it is.
	out, err := exec.Command(beBin, "--fe", httpAddr, "--port", "0", "--http-port", "0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--secret-file") {
		t.Errorf("BE without a secret: %v\n%s", err, out)
	}

	// A real BE with the secret file registers, answers the challenges and
	// gets the loads.
	be := startBin(t, []string{"INLET_CLUSTER_SECRET="}, beBin, "--fe", httpAddr, "--port", "0", "--http-port", "0",
		"--heartbeat", "200ms", "--secret-file", secretFile)
	beHTTP := be.await(t, `http listening on (\S+)`)
	var loc string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		loc = curlOut(t, curl, "-o", "/dev/null", "-w", "%{redirect_url}", "-u", "root:rootpw", "-H", "Expect:", "-X", "PUT",
			"http://"+httpAddr+"/api/d/t/_stream_load")
		if strings.Contains(loc, beHTTP) {
			break
		}
	}
	if !strings.Contains(loc, beHTTP) {
		t.Fatalf("loads are redirected to %q, not to the registered BE %s\nFE:\n%s\nBE:\n%s", loc, beHTTP, fe.text(), be.text())
	}
	if got := load("l2"); !strings.Contains(got, "Success") {
		t.Fatalf("load through the BE: %s", got)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil || n != 4 {
		t.Fatalf("rows after the load through the BE: %d, %v", n, err)
	}
	if strings.Contains(fe.text(), secret) || strings.Contains(be.text(), secret) {
		t.Error("the cluster secret was printed")
	}

	// A secret file others may read is refused: the FE does not start on
	// it (on any --host), and says how to fix it.
	meta2 := filepath.Join(t.TempDir(), "meta")
	if err := os.MkdirAll(meta2, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(meta2, "cluster_secret"), []byte("readable-by-all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(feBin, "--meta-dir", meta2, "--host", "0.0.0.0", "--query-port", "0", "--http-port", "0", "--be-http-port", "-1", "--flight-sql-port", "-1")
	cmd.Env = append(os.Environ(), env...)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "chmod 600") || strings.Contains(string(out), "readable-by-all") {
		t.Errorf("FE on a world-readable secret: %v\n%s", err, out)
	}
}
