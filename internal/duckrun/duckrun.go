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

	"github.com/inlet-db/inlet/internal/npmcache"
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
	dir, err := npmcache.Ensure(ctx, "inlet-duckdb", version, packageJSON, filepath.Join("node_modules", "@duckdb", "node-api", "package.json"))
	if err != nil {
		return nil, err
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
