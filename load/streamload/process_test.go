package streamload_test

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is a started command and the addresses it printed.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
}

func buildCmd(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	b, err := exec.Command("go", "build", "-o", out, "github.com/inlet-db/inlet/"+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

func start(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.cmd.Wait()
	}
}

// await returns the first group of re in the output.
func (p *proc) await(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("process ended before printing %q", re)
			}
			if m := rx.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		case <-timeout:
			t.Fatalf("no %q within a minute", re)
		}
	}
}

type feProc struct {
	*proc
	mysql, http, beHTTP string
}

func startFE(t *testing.T, bin, meta string) *feProc {
	p := start(t, bin, []string{"INLET_ROOT_PASSWORD=" + rootPass, "INLET_CLUSTER_SECRET=" + secret},
		"--query-port", "0", "--http-port", "0", "--be-http-port", "0", "--flight-sql-port", "-1", "--meta-dir", meta, "--log-level", "error")
	f := &feProc{proc: p}
	f.mysql = p.await(t, `MySQL protocol listening on (\S+)`)
	f.beHTTP = p.await(t, `in-process BE takes Stream Loads on (\S+)`)
	f.http = p.await(t, `HTTP on (\S+)`)
	return f
}

func openDB(t *testing.T, addr string) *sql.DB {
	db, err := sql.Open("mysql", "root:"+rootPass+"@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// loadFollow loads like curl --location-trusted: PUT to the FE, then the
// same PUT where its 307 points.
func loadFollow(feHTTP, label, body string) (string, string, error) {
	url := "http://" + feHTTP + "/api/d/t/_stream_load"
	cl := &http.Client{CheckRedirect: noRedirect, Timeout: 20 * time.Second}
	for hop := 0; hop < 3; hop++ {
		req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
		req.SetBasicAuth("root", rootPass)
		req.Header.Set("label", label)
		req.Header.Set("columns", "k,name")
		resp, err := cl.Do(req)
		if err != nil {
			return "", "", err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			continue
		}
		if err != nil {
			return "", "", err
		}
		return url, string(b), nil
	}
	return "", "", fmt.Errorf("too many redirects")
}

// TestProcesses runs the real commands: the FE redirects to its in-process
// BE, then to a cmd/be that registered; loads run in a loop while the FE is
// killed with SIGKILL; after a restart every acknowledged label's rows are
// there exactly once, and an unacknowledged one is all there or absent.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs cmd/fe and cmd/be")
	}
	feBin, beBin := buildCmd(t, "cmd/fe"), buildCmd(t, "cmd/be")
	meta := t.TempDir()
	fe := startFE(t, feBin, meta)
	db := openDB(t, fe.mysql)
	for _, s := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (k INT NOT NULL, name VARCHAR(32)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(i int) string {
		var sb strings.Builder
		for k := i * 10; k < i*10+10; k++ {
			fmt.Fprintf(&sb, "%d\tl%d\n", k, i)
		}
		return sb.String()
	}
	url, ans, err := loadFollow(fe.http, "p-0", rows(0))
	if err != nil || !strings.Contains(ans, `"Status": "Success"`) || !strings.Contains(url, fe.beHTTP) {
		t.Fatalf("in-process BE: %s %v\n%s", url, err, ans)
	}

	// A cmd/be registers its HTTP address; loads now go there.
	be := start(t, beBin, []string{"INLET_CLUSTER_SECRET=" + secret}, "--port", "0", "--http-port", "0", "--fe", fe.http, "--heartbeat", "200ms")
	beHTTP := be.await(t, `http listening on (\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for i := 1; ; i++ {
		url, ans, err = loadFollow(fe.http, fmt.Sprintf("p-%d", i), rows(i))
		if err != nil || !strings.Contains(ans, `"Status": "Success"`) {
			t.Fatalf("%s %v\n%s", url, err, ans)
		}
		if strings.Contains(url, beHTTP) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the FE never redirected to the registered BE %s (last %s)", beHTTP, url)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Loads in a loop through the cmd/be; SIGKILL the FE mid-way (the BE's
	// loads in flight then lose their FE).
	acked := map[string]int{}
	var labels []string
	stop := time.After(700 * time.Millisecond)
	next := 100
loop:
	for {
		select {
		case <-stop:
			break loop
		default:
		}
		l := fmt.Sprintf("k-%d", next)
		labels = append(labels, l)
		if _, ans, err := loadFollow(fe.http, l, rows(next)); err == nil && strings.Contains(ans, `"Status": "Success"`) {
			acked[l] = next
		}
		next++
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := next; i < next+50; i++ {
			l := fmt.Sprintf("k-%d", i)
			if _, ans, err := loadFollow(fe.http, l, rows(i)); err == nil && strings.Contains(ans, `"Status": "Success"`) {
				acked[l] = i
			}
			labels = append(labels, l)
		}
	}()
	time.Sleep(50 * time.Millisecond)
	fe.kill()
	<-done
	be.kill()
	if len(acked) == 0 {
		t.Fatal("no load was acknowledged before the kill")
	}

	fe = startFE(t, feBin, meta)
	db = openDB(t, fe.mysql)
	count := func(i int) int {
		var n int
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM d.t WHERE k >= %d AND k < %d", i*10, i*10+10)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for l, i := range acked {
		if n := count(i); n != 10 {
			t.Errorf("acknowledged label %s: %d rows, want 10", l, n)
		}
		if _, ans, err := loadFollow(fe.http, l, rows(i)); err != nil || !strings.Contains(ans, `"ExistingJobStatus": "FINISHED"`) {
			t.Errorf("replay of %s after restart: %v\n%s", l, err, ans)
		}
	}
	for _, l := range labels {
		if _, ok := acked[l]; ok {
			continue
		}
		var i int
		fmt.Sscanf(l, "k-%d", &i)
		if n := count(i); n != 0 && n != 10 {
			t.Errorf("unacknowledged label %s: %d rows (a partial load)", l, n)
		}
	}
	t.Logf("%d loads acknowledged before the kill, %d not", len(acked), len(labels)-len(acked))
}
