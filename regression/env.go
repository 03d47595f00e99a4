package regression

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql" // the FE speaks the MySQL protocol
)

// Environment variables that point the suite at an external cluster. With
// none of them set the runner starts the emulator, a BE (when cmd/be
// serves) and the FE itself.
const (
	// EnvBootstrap is the Fluss bootstrap servers (host:port,...) of an
	// external cluster, e.g. the docker-compose one; no emulator is started.
	EnvBootstrap = "INLET_REGRESSION_BOOTSTRAP"
	// EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey and EnvS3Region give
	// the lake's object store; the runner passes them to every catalog as
	// fluss.lake.paimon.s3.* (Fluss never hands credentials out).
	EnvS3Endpoint  = "INLET_REGRESSION_S3_ENDPOINT"
	EnvS3AccessKey = "INLET_REGRESSION_S3_ACCESS_KEY"
	EnvS3SecretKey = "INLET_REGRESSION_S3_SECRET_KEY"
	EnvS3Region    = "INLET_REGRESSION_S3_REGION"
	// EnvRemoteDir is the cluster's remote.data.dir, mounted on this host
	// at the same path (the BE reads KV snapshot files from it).
	EnvRemoteDir = "INLET_REGRESSION_REMOTE_DIR"
	// EnvFE is host:port of an already running FE to use instead of
	// starting one; EnvFEUser / EnvFEPassword log in (root, empty).
	EnvFE         = "INLET_REGRESSION_FE"
	EnvFEUser     = "INLET_REGRESSION_FE_USER"
	EnvFEPassword = "INLET_REGRESSION_FE_PASSWORD"
	// EnvBE forces the BE placement: "process" starts cmd/be, "inprocess"
	// lets the FE run its own; unset decides from `be --help`.
	EnvBE = "INLET_REGRESSION_BE"
)

// Options configure a local environment.
type Options struct {
	// ModuleRoot is the repository root (go.mod).
	ModuleRoot string
	// WorkDir holds binaries, data and logs.
	WorkDir string
	// Scenarios are concatenated and loaded into the emulator.
	Scenarios []string
	// Logf reports progress (t.Logf).
	Logf func(format string, args ...any)
	// LakeFormat is the emulator's datalake.format: "" or "paimon", or
	// "iceberg" (the same fixtures tiered into an Iceberg lake).
	LakeFormat string
	// DropTables are fixture tables left out of the scenarios (every
	// statement naming db.table for one of them): those an Iceberg lake
	// refuses, as Fluss refuses them.
	DropTables []string
}

// Env is where suites run: an FE to talk to and the values of the
// placeholders.
type Env struct {
	DB *sql.DB
	// Vars are the placeholder values (BOOTSTRAP, LAKE_PROPS).
	Vars map[string]string
	// Caps are the capabilities suites may require: "emulator" (the
	// fixture set is the emulator's, loaded by this runner), "real-fluss"
	// (an external Fluss cluster), "s3" (the lake is on an object store
	// reached with catalog credentials), "paimon-lake" or "iceberg-lake"
	// (the emulator's lake format; an external cluster counts as Paimon).
	Caps map[string]bool
	// secrets are replaced by *** in anything the runner prints.
	secrets []string

	procs []*proc
}

// Redact hides secret values in s.
func (e *Env) Redact(s string) string {
	for _, v := range e.secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "***")
		}
	}
	return s
}

// Close stops what Start started (only those processes, by their handle).
func (e *Env) Close() {
	if e.DB != nil {
		e.DB.Close()
	}
	for i := len(e.procs) - 1; i >= 0; i-- {
		e.procs[i].stop()
	}
}

// Logs returns the tail of each started process's output, for failures.
func (e *Env) Logs() string {
	var b strings.Builder
	for _, p := range e.procs {
		fmt.Fprintf(&b, "---- %s (%s)\n%s\n", p.name, p.logPath, tail(p.logPath, 40))
	}
	return b.String()
}

// Start prepares the environment the variables describe, starting what is
// missing.
func Start(ctx context.Context, o Options) (*Env, error) {
	e := &Env{Vars: map[string]string{}, Caps: map[string]bool{}}
	ok := false
	defer func() {
		if !ok {
			e.Close()
		}
	}()
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	e.Vars["LAKE_PROPS"] = ""
	if ep := os.Getenv(EnvS3Endpoint); ep != "" {
		ak, sk := os.Getenv(EnvS3AccessKey), os.Getenv(EnvS3SecretKey)
		region := os.Getenv(EnvS3Region)
		if region == "" {
			region = "us-east-1"
		}
		e.secrets = append(e.secrets, sk, ak)
		e.Vars["LAKE_PROPS"] = fmt.Sprintf(", 'fluss.lake.paimon.s3.endpoint' = '%s', 'fluss.lake.paimon.s3.access-key' = '%s', "+
			"'fluss.lake.paimon.s3.secret-key' = '%s', 'fluss.lake.paimon.s3.region' = '%s', 'fluss.lake.paimon.s3.path.style.access' = 'true'",
			ep, ak, sk, region)
		e.Caps["s3"] = true
	}
	if rd := os.Getenv(EnvRemoteDir); rd != "" {
		if st, err := os.Stat(rd); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s=%s: not a directory on this host (mount remote.data.dir at the same path): %v", EnvRemoteDir, rd, err)
		}
	}

	needBuild := os.Getenv(EnvBootstrap) == "" || os.Getenv(EnvFE) == ""
	bin := filepath.Join(o.WorkDir, "bin")
	if needBuild {
		start := time.Now()
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin+string(filepath.Separator), "./cmd/minifluss", "./cmd/fe")
		cmd.Dir = o.ModuleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/minifluss ./cmd/fe: %v\n%s", err, out)
		}
		// The BE is optional (the FE can run one in-process), so a BE that
		// does not build is reported, not fatal, unless EnvBE asks for it.
		cmd = exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "be"), "./cmd/be")
		cmd.Dir = o.ModuleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv(EnvBE) == "process" {
				return nil, fmt.Errorf("go build ./cmd/be: %v\n%s", err, out)
			}
			logf("cmd/be does not build, using the FE's in-process BE: %v\n%s", err, out)
		}
		logf("built the commands in %v", time.Since(start).Round(time.Millisecond))
	}

	if bs := os.Getenv(EnvBootstrap); bs != "" {
		e.Vars["BOOTSTRAP"] = bs
		e.Caps["real-fluss"] = true
		e.Caps["paimon-lake"] = true
		logf("external Fluss cluster at %s", bs)
	} else {
		e.Caps["emulator"] = true
		lakeArgs := []string{}
		if o.LakeFormat == "iceberg" {
			e.Caps["iceberg-lake"] = true
			lakeArgs = append(lakeArgs, "--datalake-format", "iceberg")
		} else {
			e.Caps["paimon-lake"] = true
		}
		scen := filepath.Join(o.WorkDir, "fixtures.scenario")
		var all []byte
		for _, s := range o.Scenarios {
			raw, err := os.ReadFile(s)
			if err != nil {
				return nil, err
			}
			all = append(append(all, raw...), '\n')
		}
		if len(o.DropTables) > 0 {
			all = []byte(dropStatements(string(all), o.DropTables))
		}
		if err := os.WriteFile(scen, all, 0o644); err != nil {
			return nil, err
		}
		start := time.Now()
		p, line, err := startProc(ctx, o.WorkDir, "minifluss", filepath.Join(bin, "minifluss"),
			regexp.MustCompile(`^bootstrap\.servers=(\S+)`), 3*time.Minute,
			append([]string{"--data-dir", filepath.Join(o.WorkDir, "fluss"), "--lake-warehouse", filepath.Join(o.WorkDir, "lake"),
				"--default-bucket-number", "3", "--scenario", scen}, lakeArgs...)...)
		if p != nil {
			e.procs = append(e.procs, p)
		}
		if err != nil {
			return nil, err
		}
		e.Vars["BOOTSTRAP"] = line
		logf("minifluss at %s, fixtures loaded in %v", line, time.Since(start).Round(time.Millisecond))
	}

	user, pass := os.Getenv(EnvFEUser), os.Getenv(EnvFEPassword)
	if user == "" {
		user = "root"
	}
	e.secrets = append(e.secrets, pass)
	feAddr := os.Getenv(EnvFE)
	if feAddr == "" {
		var feArgs []string
		metaDir := filepath.Join(o.WorkDir, "fe-meta")
		if beProcess(ctx, filepath.Join(bin, "be")) {
			// The BEs must hold the FE's cluster secret: the FE takes the one
			// under its meta dir when the file is there (or the variable's).
			var secretArgs []string
			if os.Getenv("INLET_CLUSTER_SECRET") == "" {
				file, err := writeClusterSecret(metaDir)
				if err != nil {
					return nil, err
				}
				secretArgs = []string{"--secret-file", file}
			}
			// Two BEs, as a small cluster: the FE spreads each scan's
			// ranges over both by (partition, bucket).
			var addrs []string
			for i := 0; i < 2; i++ {
				port, err := freePort()
				if err != nil {
					return nil, err
				}
				addr := "127.0.0.1:" + strconv.Itoa(port)
				name := fmt.Sprintf("be%d", i+1)
				p, _, err := startProc(ctx, o.WorkDir, name, filepath.Join(bin, "be"), nil, time.Minute,
					append([]string{"--port", strconv.Itoa(port), "--host", "127.0.0.1", "--http-port", "0"}, secretArgs...)...)
				if p != nil {
					e.procs = append(e.procs, p)
				}
				if err != nil {
					return nil, err
				}
				if err := waitTCP(ctx, addr, time.Minute); err != nil {
					return nil, fmt.Errorf("%s: %w\n%s", name, err, e.Logs())
				}
				addrs = append(addrs, addr)
				logf("%s at %s", name, addr)
			}
			feArgs = append(feArgs, "--be", strings.Join(addrs, ","))
		}
		feArgs = append(feArgs, "--query-port", "0", "--http-port", "0", "--flight-sql-port", "-1", "--meta-dir", metaDir, "--log-level", "warn")
		p, addr, err := startProc(ctx, o.WorkDir, "fe", filepath.Join(bin, "fe"),
			regexp.MustCompile(`listening on (\S+)`), time.Minute, feArgs...)
		if p != nil {
			e.procs = append(e.procs, p)
		}
		if err != nil {
			return nil, err
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("fe printed address %q: %v", addr, err)
		}
		feAddr = "127.0.0.1:" + port
		logf("fe at %s", feAddr)
	}
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/?timeout=10s&readTimeout=10m", user, pass, feAddr))
	if err != nil {
		return nil, err
	}
	e.DB = db
	deadline := time.Now().Add(time.Minute)
	for {
		err := db.PingContext(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("fe %s: %v\n%s", feAddr, err, e.Logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	ok = true
	return e, nil
}

// dropStatements removes from a scenario every statement (lines up to one
// ending in ';') that names one of tables as <db>.<table>.
func dropStatements(text string, tables []string) string {
	named := regexp.MustCompile(`\b[A-Za-z0-9_]+\.` + "`?" + `(` + strings.Join(tables, "|") + `)\b`)
	var out, cur []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(cur) == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "--")) {
			out = append(out, line)
			continue
		}
		cur = append(cur, line)
		if strings.HasSuffix(trimmed, ";") {
			st := strings.Join(cur, "\n")
			if !named.MatchString(st) {
				out = append(out, st)
			}
			cur = nil
		}
	}
	return strings.Join(append(out, cur...), "\n")
}

// writeClusterSecret makes the FE's cluster secret file (cmd/fe's
// <meta-dir>/cluster_secret, mode 0600) unless it exists, and returns its
// path.
func writeClusterSecret(metaDir string) (string, error) {
	file := filepath.Join(metaDir, "cluster_secret")
	if _, err := os.Stat(file); err == nil {
		return file, nil
	}
	if err := os.MkdirAll(metaDir, 0o700); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return file, os.WriteFile(file, []byte(hex.EncodeToString(b[:])+"\n"), 0o600)
}

// beProcess decides whether to start cmd/be: it must serve (its --help
// lists a -port flag and exits 0) unless EnvBE says otherwise.
func beProcess(ctx context.Context, be string) bool {
	switch os.Getenv(EnvBE) {
	case "process":
		return true
	case "inprocess":
		return false
	}
	out, err := exec.CommandContext(ctx, be, "--help").CombinedOutput()
	return err == nil && strings.Contains(string(out), "-port")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitTCP(ctx context.Context, addr string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %v: %v", addr, d, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// proc is a process this runner started; its output goes to a log file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	once    sync.Once
}

func (p *proc) stop() {
	p.once.Do(func() {
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Signal(os.Interrupt)
			select {
			case <-p.done:
			case <-time.After(5 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
	})
}

// startProc runs bin and waits up to d for a stdout line matching re; it
// returns the first submatch (or the line). A nil re does not wait. Everything the process prints
// goes to WorkDir/<name>.log.
func startProc(ctx context.Context, dir, name, bin string, re *regexp.Regexp, d time.Duration, args ...string) (*proc, string, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, "", fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			l := sc.Text()
			fmt.Fprintln(logf, l)
			if !sent && re != nil {
				if m := re.FindStringSubmatch(l); m != nil {
					sent = true
					if len(m) > 1 {
						found <- m[1]
					} else {
						found <- l
					}
				}
			}
		}
		_, _ = io.Copy(logf, out)
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	if re == nil {
		return p, "", nil
	}
	select {
	case v := <-found:
		return p, v, nil
	case <-p.done:
		return p, "", fmt.Errorf("%s exited before it was ready (%v):\n%s", name, cmd.ProcessState, tail(logPath, 40))
	case <-time.After(d):
		return p, "", fmt.Errorf("%s: not ready after %v:\n%s", name, d, tail(logPath, 40))
	case <-ctx.Done():
		return p, "", ctx.Err()
	}
}

func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
