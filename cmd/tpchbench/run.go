package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/tpch"
)

// result is one query's outcome.
type result struct {
	q            int
	inlet, duck  []time.Duration
	status, note string // "ok", "WRONG", "ERROR", "TIMEOUT"
}

type report struct {
	source  string
	wrote   bool // the lake copy was written in this run (else reused)
	sf      float64
	threads int
	results []result
	peakRSS int64 // bytes, the FE process's VmHWM
	// rssAnon and rssFile split its RSS after the last query: the FE keeps
	// internal tables' data files mapped, whose clean pages count in RSS.
	rssAnon, rssFile int64
	loadDur          time.Duration
	rows             int64
	// analyzeFailed counts the lake tables ANALYZE TABLE failed on.
	analyzeFailed int
}

func (r *report) failures() int {
	n := 0
	for _, x := range r.results {
		if x.status != "ok" {
			n++
		}
	}
	return n
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r *report) print(w io.Writer) {
	switch {
	case r.source == sourcePaimon && r.wrote:
		fmt.Fprintf(w, "TPC-H SF %g over a Paimon warehouse (written in %s) through a type=paimon catalog; DuckDB %d threads on read_parquet of the same files\n", r.sf, r.loadDur.Round(time.Millisecond), r.threads)
	case r.source == sourcePaimon:
		fmt.Fprintf(w, "TPC-H SF %g over a Paimon warehouse (reused) through a type=paimon catalog; DuckDB %d threads on read_parquet of the same files\n", r.sf, r.threads)
	case r.source == sourceFluss:
		fmt.Fprintf(w, "TPC-H SF %g in the Fluss emulator (appended and tiered in %s; orders and lineitem keep %.0f%% in the log) through a type=fluss catalog, union read; DuckDB %d threads on read_parquet of the lake files UNION ALL the log tail\n", r.sf, r.loadDur.Round(time.Millisecond), tailShare*100, r.threads)
	default:
		fmt.Fprintf(w, "TPC-H SF %g: %d rows loaded through Stream Load in %s; DuckDB %d threads\n", r.sf, r.rows, r.loadDur.Round(time.Millisecond), r.threads)
	}
	fmt.Fprintf(w, "%-4s %12s %12s %8s  %s\n", "q", "inlet ms", "duckdb ms", "D/I", "answer")
	logSum, n := 0.0, 0
	for _, x := range r.results {
		im, dm := median(x.inlet), median(x.duck)
		ratio := "-"
		if x.status == "ok" && im > 0 {
			v := float64(dm) / float64(im)
			ratio = fmt.Sprintf("%.2f", v)
			logSum += math.Log(v)
			n++
		}
		status := x.status
		if x.note != "" {
			status += ": " + x.note
		}
		fmt.Fprintf(w, "Q%-3d %12.1f %12.1f %8s  %s\n", x.q, ms(im), ms(dm), ratio, status)
	}
	if n > 0 {
		fmt.Fprintf(w, "geometric mean DuckDB/Inlet over %d correct queries: %.3f\n", n, math.Exp(logSum/float64(n)))
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(w, "FE peak RSS: %.0f MiB (after the last query: %.0f MiB anonymous, %.0f MiB mapped files)\n",
			float64(r.peakRSS)/(1<<20), float64(r.rssAnon)/(1<<20), float64(r.rssFile)/(1<<20))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func run(ctx context.Context, c config, log io.Writer) (*report, error) {
	data := filepath.Join(c.dir, "sf"+strconv.FormatFloat(c.sf, 'g', -1, 64))
	if _, err := os.Stat(filepath.Join(data, "lineitem.tbl")); err != nil {
		fmt.Fprintf(log, "generating SF %g into %s\n", c.sf, data)
		tmp := data + ".tmp"
		os.RemoveAll(tmp)
		if err := tpch.Generate(tmp, c.sf); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, data); err != nil {
			return nil, err
		}
	}
	work, err := os.MkdirTemp(c.dir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	fe, err := startFE(ctx, c.feBin, work, log)
	if err != nil {
		return nil, err
	}
	defer fe.stop()

	db, err := fe.open("")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rep := &report{sf: c.sf, threads: c.threads, source: c.source}
	t0 := time.Now()
	wh := filepath.Join(data, "paimon")
	qdbName := "tpch"
	var fl *flussLake
	switch c.source {
	case sourcePaimon:
		if rep.wrote, err = ensureWarehouse(ctx, data, wh, log); err != nil {
			return nil, err
		}
		stmt := fmt.Sprintf("CREATE CATALOG %s PROPERTIES ('type'='paimon', 'warehouse'='%s')", lakeCatalog, wh)
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		qdbName = lakeCatalog + "." + lakeDB
	case sourceFluss:
		dir, keep := work, c.flussDir != ""
		if keep {
			dir = filepath.Join(c.flussDir, "sf"+strconv.FormatFloat(c.sf, 'g', -1, 64))
		}
		if fl, err = startFluss(ctx, data, dir, keep, log); err != nil {
			return nil, err
		}
		defer fl.close()
		stmt := fmt.Sprintf("CREATE CATALOG %s PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')", flussCatalog, fl.cluster.BootstrapAddr())
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		qdbName = flussCatalog + "." + lakeDB
	}
	switch {
	case c.source == sourcePaimon || c.source == sourceFluss:
		if !c.noLakeAnalyze {
			rep.analyzeFailed = analyzeLake(ctx, db, qdbName, log)
		}
	default:
		if rep.rows, err = loadInlet(ctx, db, fe, data, log); err != nil {
			return nil, err
		}
	}
	rep.loadDur = time.Since(t0)

	duck, err := duckrun.Start(ctx, c.threads)
	if err != nil {
		return rep, fmt.Errorf("DuckDB: %w", err)
	}
	defer duck.Close()
	switch c.source {
	case sourcePaimon:
		err = loadDuckLake(ctx, duck, wh)
	case sourceFluss:
		err = loadDuckFluss(ctx, duck, fl)
	default:
		err = loadDuck(duck, data)
	}
	if err != nil {
		return rep, err
	}

	qdb, err := fe.open(qdbName)
	if err != nil {
		return rep, err
	}
	defer qdb.Close()
	if _, err := qdb.ExecContext(ctx, fmt.Sprintf("SET query_timeout = %d", max(1, int(c.timeout.Seconds())))); err != nil {
		return rep, err
	}
	for _, q := range c.queries {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		if c.explain != "" {
			if err := explainQuery(ctx, qdb, q, c); err != nil {
				return rep, err
			}
		}
		rep.results = append(rep.results, runQuery(ctx, qdb, duck, q, c))
		x := rep.results[len(rep.results)-1]
		fmt.Fprintf(log, "Q%d: inlet %.1f ms, duckdb %.1f ms, %s %s\n", q, ms(median(x.inlet)), ms(median(x.duck)), x.status, x.note)
	}
	rep.peakRSS = fe.peakRSS()
	rep.rssAnon, rep.rssFile = fe.status("RssAnon:"), fe.status("RssFile:")
	return rep, nil
}

// explainQuery writes the plan of query q to the --explain directory.
func explainQuery(ctx context.Context, db *sql.DB, q int, c config) error {
	rows, err := queryText(ctx, db, "EXPLAIN VERBOSE "+tpch.Query(q, c.sf))
	if err != nil {
		return fmt.Errorf("EXPLAIN Q%d: %w", q, err)
	}
	var b strings.Builder
	for _, r := range rows {
		if len(r) > 0 && r[0] != nil {
			b.WriteString(*r[0])
		}
		b.WriteString("\n")
	}
	if err := os.MkdirAll(c.explain, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.explain, fmt.Sprintf("q%02d.txt", q)), []byte(b.String()), 0o644)
}

func runQuery(ctx context.Context, db *sql.DB, duck *duckrun.DB, q int, c config) result {
	text := tpch.Query(q, c.sf)
	res := result{q: q, status: "ok"}
	var want, got [][]*string
	for r := 0; r < c.runs; r++ {
		qctx, cancel := context.WithTimeout(ctx, c.timeout+10*time.Second)
		t0 := time.Now()
		rows, err := queryText(qctx, db, text)
		d := time.Since(t0)
		cancel()
		if err != nil {
			res.status, res.note = "ERROR", firstLine(err.Error())
			if d >= c.timeout || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
				res.status = "TIMEOUT"
			}
			return res
		}
		res.inlet = append(res.inlet, d)
		dd, drows, err := duck.Run("SELECT COLUMNS(*)::VARCHAR FROM (" + text + ")")
		if err != nil {
			res.status, res.note = "ERROR", "DuckDB: "+firstLine(err.Error())
			return res
		}
		res.duck = append(res.duck, dd)
		if r == 0 {
			got, want = rows, drows
		}
	}
	if d := tpch.Compare(got, want); d != "" {
		res.status, res.note = "WRONG", d
	}
	return res
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// queryText runs q and returns its rows as text, nil for NULL.
func queryText(ctx context.Context, db *sql.DB, q string) ([][]*string, error) {
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]*string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

// loadInlet creates the tables, Stream Loads every file and analyses
// each table, logging each table's load and ANALYZE times.
func loadInlet(ctx context.Context, db *sql.DB, fe *feProc, data string, log io.Writer) (int64, error) {
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS tpch"); err != nil {
		return 0, err
	}
	var total int64
	for _, t := range tpch.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c[0] + " " + c[1] + " NOT NULL"
		}
		buckets := 1
		if t.Name == "lineitem" || t.Name == "orders" || t.Name == "partsupp" || t.Name == "part" || t.Name == "customer" {
			buckets = 4
		}
		ddl := fmt.Sprintf("CREATE TABLE tpch.%s (%s) DUPLICATE KEY(%s) DISTRIBUTED BY HASH(%s) BUCKETS %d",
			t.Name, strings.Join(cols, ", "), strings.Join(t.Key, ", "), t.Key[0], buckets)
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			return 0, fmt.Errorf("%s: %w", ddl, err)
		}
		t0 := time.Now()
		n, err := fe.streamLoad(ctx, "tpch", t.Name, filepath.Join(data, t.Name+".tbl"))
		if err != nil {
			return 0, fmt.Errorf("stream load %s: %w", t.Name, err)
		}
		loadDur := time.Since(t0)
		total += n
		// Statistics for the optimizer's join order, as a Doris user runs
		// ANALYZE (or auto analyze does) after loading.
		// An FE without ANALYZE (an older --fe-bin, for comparisons) runs
		// the queries without statistics.
		t1 := time.Now()
		db.ExecContext(ctx, "ANALYZE TABLE tpch."+t.Name+" WITH SYNC")
		fmt.Fprintf(log, "loaded %s: %d rows in %s (%.2f M rows/s), ANALYZE %s\n", t.Name, n, loadDur.Round(time.Millisecond),
			float64(n)/loadDur.Seconds()/1e6, time.Since(t1).Round(time.Millisecond))
	}
	return total, nil
}

// analyzeLake runs ANALYZE TABLE on each lake table (outside the queries'
// timings), as loadInlet does after loading, logging each one's time. An
// FE that cannot analyse lake tables (an older --fe-bin) logs the error
// and runs the queries on the manifests' statistics. It returns the
// number of tables it failed on.
func analyzeLake(ctx context.Context, db *sql.DB, qdb string, log io.Writer) int {
	failed := 0
	for _, t := range tpch.Tables {
		t0 := time.Now()
		if _, err := db.ExecContext(ctx, "ANALYZE TABLE "+qdb+"."+t.Name+" WITH SYNC"); err != nil {
			fmt.Fprintf(log, "ANALYZE %s.%s: %v\n", qdb, t.Name, err)
			failed++
			continue
		}
		fmt.Fprintf(log, "ANALYZE %s.%s: %s\n", qdb, t.Name, time.Since(t0).Round(time.Millisecond))
	}
	return failed
}

func loadDuck(duck *duckrun.DB, data string) error {
	for _, t := range tpch.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c[0] + " " + c[1]
		}
		for _, s := range []string{
			fmt.Sprintf("CREATE TABLE %s (%s)", t.Name, strings.Join(cols, ", ")),
			fmt.Sprintf("COPY %s FROM '%s' (DELIMITER '|', HEADER false, QUOTE '')", t.Name, filepath.Join(data, t.Name+".tbl")),
		} {
			if _, _, err := duck.Run(s); err != nil {
				return fmt.Errorf("DuckDB %s: %w", s, err)
			}
		}
	}
	return nil
}

// feProc is a running fe binary.
type feProc struct {
	cmd       *exec.Cmd
	queryAddr string
	httpAddr  string
	logPath   string
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startFE(ctx context.Context, bin, work string, log io.Writer) (*feProc, error) {
	if bin == "" {
		bin = filepath.Join(work, "fe")
		fmt.Fprintln(log, "building ./cmd/fe")
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/fe").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go build ./cmd/fe (run from the repository root, or pass --fe-bin): %v\n%s", err, out)
		}
	}
	var ports [3]int
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	logPath := filepath.Join(work, "fe.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	args := []string{"--query-port", strconv.Itoa(ports[0]), "--http-port", strconv.Itoa(ports[1]),
		"--be-http-port", strconv.Itoa(ports[2]), "--meta-dir", filepath.Join(work, "meta"), "--data-dir", filepath.Join(work, "data"),
		"--log-level", "warn"}
	if knowsFlag(bin, "flight-sql-port") {
		// Its default port (8070) is shared by every FE on the machine.
		args = append(args, "--flight-sql-port", "-1")
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = append(os.Environ(), "INLET_ROOT_PASSWORD=")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	fe := &feProc{cmd: cmd, queryAddr: fmt.Sprintf("127.0.0.1:%d", ports[0]), httpAddr: fmt.Sprintf("127.0.0.1:%d", ports[1]), logPath: logPath}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fe.queryAddr, time.Second)
		if err == nil {
			c.Close()
			return fe, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			fe.stop()
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("the FE did not start listening on %s:\n%s", fe.queryAddr, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (f *feProc) stop() {
	if f.cmd.Process != nil {
		f.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { f.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			f.cmd.Process.Kill()
			<-done
		}
	}
}

func (f *feProc) open(dbName string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", f.queryAddr, dbName
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	return db, nil
}

// peakRSS reads the FE process's VmHWM (Linux); 0 when unknown.
func (f *feProc) peakRSS() int64 { return f.status("VmHWM:") }

// status reads one size field of the FE process's /proc status, in
// bytes; 0 when unknown.
func (f *feProc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", f.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// streamLoad PUTs a '|'-separated file as Doris's Stream Load does,
// following the FE's redirect to a BE, and returns the rows loaded.
func (f *feProc) streamLoad(ctx context.Context, db, table, path string) (int64, error) {
	url := fmt.Sprintf("http://%s/api/%s/%s/_stream_load", f.httpAddr, db, table)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for hop := 0; hop < 3; hop++ {
		body, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		st, err := body.Stat()
		if err != nil {
			body.Close()
			return 0, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, body)
		if err != nil {
			body.Close()
			return 0, err
		}
		req.ContentLength = st.Size()
		req.SetBasicAuth("root", "")
		req.Header.Set("label", fmt.Sprintf("tpch-%s-%d", table, time.Now().UnixNano()))
		req.Header.Set("column_separator", "|")
		resp, err := client.Do(req)
		body.Close()
		if err != nil {
			return 0, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			continue
		}
		var r struct {
			Status           string
			Message          string
			NumberLoadedRows int64
		}
		if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil {
			return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
		}
		if r.Status != "Success" {
			return 0, fmt.Errorf("%s: %s", r.Status, r.Message)
		}
		return r.NumberLoadedRows, nil
	}
	return 0, errors.New("too many redirects")
}

// knowsFlag reports whether an FE binary's usage names flag: --fe-bin may
// be a build from before the flag existed.
func knowsFlag(bin, flag string) bool {
	out, _ := exec.Command(bin, "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+flag)
}
