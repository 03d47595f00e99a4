package duckrun

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed package.json
var packageJSON []byte

//go:embed runner.mjs
var runnerScript []byte

// DB is a running DuckDB runner.
type DB struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	// Version is the @duckdb/node-api version, Threads DuckDB's thread
	// count.
	Version string
	Threads int
}

// Start installs @duckdb/node-api into the user cache directory when
// missing and starts the runner with threads DuckDB threads (TimeZone UTC).
func Start(ctx context.Context, threads int) (*DB, error) {
	if os.Getenv("INLET_SKIP_DUCKDB") != "" {
		return nil, errors.New("INLET_SKIP_DUCKDB is set")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node is not on PATH (Debian package nodejs)")
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(packageJSON, &pj); err != nil {
		return nil, fmt.Errorf("duckrun package.json: %w", err)
	}
	version := pj.Dependencies["@duckdb/node-api"]
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "inlet-duckdb", version)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		if err := install(ctx, filepath.Dir(dir), dir); err != nil {
			return nil, err
		}
	}
	// Beside node_modules for ESM resolution; written through a rename so a
	// concurrent run never sees half a file.
	tmp, err := os.CreateTemp(dir, "runner-*.mjs")
	if err != nil {
		return nil, err
	}
	_, err = tmp.Write(runnerScript)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	runner := filepath.Join(dir, "runner.mjs")
	if err == nil {
		err = os.Rename(tmp.Name(), runner)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	cmd := exec.CommandContext(ctx, node, runner)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &DB{cmd: cmd, in: in, out: bufio.NewScanner(out), Version: version, Threads: threads}
	d.out.Buffer(nil, 64<<20) // a result of 1 M groups is one line
	if _, _, err := d.Run(fmt.Sprintf("SET threads = %d", threads)); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func install(ctx context.Context, parent, dir string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("npm is not on PATH (Debian package npm)")
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "package.json"), packageJSON, 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := string(out)
		if len(msg) > 1000 {
			msg = "..." + msg[len(msg)-1000:]
		}
		return fmt.Errorf("npm install @duckdb/node-api: %v\n%s", err, msg)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr != nil {
			return fmt.Errorf("installing DuckDB into %s: %w", dir, err)
		}
	}
	return nil
}

// Run executes one statement: DuckDB's own wall time and the rows,
// cells as text (NULL as nil).
func (d *DB) Run(sql string) (time.Duration, [][]*string, error) {
	line, err := json.Marshal(sql)
	if err != nil {
		return 0, nil, err
	}
	if _, err := d.in.Write(append(line, '\n')); err != nil {
		return 0, nil, fmt.Errorf("DuckDB runner: %w", err)
	}
	if !d.out.Scan() {
		err := d.out.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, fmt.Errorf("DuckDB runner: %w", err)
	}
	var r struct {
		MS    float64     `json:"ms"`
		Rows  [][]*string `json:"rows"`
		Error string      `json:"error"`
	}
	if err := json.Unmarshal(d.out.Bytes(), &r); err != nil {
		return 0, nil, fmt.Errorf("DuckDB runner output: %w", err)
	}
	if r.Error != "" {
		return 0, nil, fmt.Errorf("DuckDB: %s (statement: %s)", r.Error, strings.TrimSpace(sql))
	}
	return time.Duration(r.MS * float64(time.Millisecond)), r.Rows, nil
}

// Close ends the runner.
func (d *DB) Close() {
	d.in.Close()
	d.cmd.Wait()
}
