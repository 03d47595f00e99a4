package slt

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the FE speaks the MySQL protocol
)

// feProc is an FE process this test started.
type feProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  string
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// startFE builds cmd/fe and starts it on free ports with a fresh meta
// directory; it returns the MySQL address.
func startFE(t *testing.T, ctx context.Context) (*feProc, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fe")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/fe")
	build.Dir = moduleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/fe: %v\n%s", err, out)
	}
	p := &feProc{done: make(chan struct{}), log: filepath.Join(dir, "fe.log")}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--query-port", "0", "--http-port", "-1", "--flight-sql-port", "-1", "--meta-dir", filepath.Join(dir, "meta"), "--log-level", "warn"}
	// Every port this FE opens is free or off, so runs never collide.
	if help, _ := exec.CommandContext(ctx, bin, "--help").CombinedOutput(); strings.Contains(string(help), "-be-http-port") {
		args = append(args, "--be-http-port", "-1")
	}
	p.cmd = exec.Command(bin, args...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout, p.cmd.Stderr = pw, pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	addr := make(chan string, 1)
	re := regexp.MustCompile(`listening on (\S+)`)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addr <- m[1]
				sent = true
			}
		}
		logf.Close()
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
			return
		default:
		}
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case a := <-addr:
		return p, a
	case <-p.done:
		t.Fatalf("fe exited before listening: %v\n%s", p.err, p.tail())
	case <-time.After(time.Minute):
		t.Fatalf("fe did not listen within a minute\n%s", p.tail())
	}
	return nil, ""
}

// alive is nil while the process runs.
func (p *feProc) alive() error {
	select {
	case <-p.done:
		return fmt.Errorf("fe exited: %v\n%s", p.err, p.tail())
	default:
		return nil
	}
}

func (p *feProc) tail() string {
	b, _ := os.ReadFile(p.log)
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > 40 {
		ls = ls[len(ls)-40:]
	}
	return strings.Join(ls, "\n")
}

func openDB(t *testing.T, addr string, logs func() string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", fmt.Sprintf("root:@tcp(%s)/?timeout=10s&readTimeout=10m", addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	deadline := time.Now().Add(time.Minute)
	for {
		err := db.Ping()
		if err == nil {
			return db
		}
		if time.Now().After(deadline) {
			t.Fatalf("fe %s: %v\n%s", addr, err, logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
