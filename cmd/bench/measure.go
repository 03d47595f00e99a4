package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	flightsqlsrv "github.com/inlet-db/inlet/fe/flightsql"
	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// benchCatalog is the fluss catalog created over the emulator;
// paimonCatalog a paimon catalog over its warehouse.
const (
	benchCatalog  = "bench"
	paimonCatalog = "bench_lake"
)

type queryKind int

const (
	aggQuery          queryKind = iota // count(*), sum(id), sum(v): one row back
	streamQuery                        // every row of every column sent to the client
	flightStreamQuery                  // the same rows through the FE's Arrow Flight SQL port
)

// query is one timed read path.
type query struct {
	key   string // short name used for ratios
	label string
	sql   string
	kind  queryKind
	want  agg
	// same names the query whose answer must equal this one's (union read
	// vs Fluss-only read), checked on every run.
	same string
}

func queries(p plan) []query {
	t := func(tbl string) string { return fmt.Sprintf("%s.%s.`%s`", benchCatalog, benchDB, tbl) }
	hint := func(mode string) string { return "/*+ SET_VAR(fluss_union_read_mode='" + mode + "') */ " }
	const aggCols = "count(*), sum(id), sum(v)"
	return []query{
		{key: "log_fluss", label: "log   Fluss only (disabled)", sql: "SELECT " + hint("disabled") + aggCols + " FROM " + t(logTable), want: p.logAll},
		{key: "log_lake", label: "log   $lake", sql: "SELECT " + aggCols + " FROM " + t(logTable+"$lake"), want: p.logLake},
		{key: "log_union", label: "log   union read (required)", sql: "SELECT " + hint("required") + aggCols + " FROM " + t(logTable), want: p.logAll, same: "log_fluss"},
		{key: "pk_fluss", label: "pk    Fluss only (disabled)", sql: "SELECT " + hint("disabled") + aggCols + " FROM " + t(pkTable), want: p.pkAll},
		{key: "pk_lake", label: "pk    $lake", sql: "SELECT " + aggCols + " FROM " + t(pkTable+"$lake"), want: p.pkLake},
		{key: "pk_union", label: "pk    union read (required)", sql: "SELECT " + hint("required") + aggCols + " FROM " + t(pkTable), want: p.pkAll, same: "pk_fluss"},
		{key: "pk_lake_rows", label: "pk    $lake, all columns streamed", sql: "SELECT id, k, v, s, ts FROM " + t(pkTable+"$lake"), kind: streamQuery, want: p.pkLake},
		{key: "pk_union_rows", label: "pk    union read, all columns streamed", sql: "SELECT " + hint("required") + "id, k, v, s, ts FROM " + t(pkTable), kind: streamQuery, want: p.pkAll},
		{key: "pk_union_rows_flight", label: "pk    union read, streamed, Flight SQL", sql: "SELECT " + hint("required") + "id, k, v, s, ts FROM " + t(pkTable), kind: flightStreamQuery, want: p.pkAll, same: "pk_union_rows"},
	}
}

// explainQuery is the statement whose latency stands for planning time: it
// lists the table's buckets, reads the lake snapshot and the log offsets,
// and plans the PK union read, without scanning.
func explainQuery() string {
	return fmt.Sprintf("EXPLAIN SELECT count(*), sum(id), sum(v) FROM %s.%s.`%s`", benchCatalog, benchDB, pkTable)
}

// explainsPerRun is how many EXPLAINs each run times (planning is short,
// so one sample per run would be noisy).
const explainsPerRun = 5

type measureConfig struct {
	cluster  *minifluss.Cluster
	metaDir  string
	lake     string // the warehouse, read once through a type=paimon catalog; "" skips it
	runs     int
	plan     plan
	log      *slog.Logger
	progress io.Writer
	// duck, when not nil, runs each $lake and union read's lake half over
	// the same Parquet files right after Inlet's run of it.
	duck *duckrun.DB
}

type measured struct {
	q       query
	times   []time.Duration
	answers []agg
	// DuckDB over the lake files of the query's table ("" when not run);
	// its answer must be the lake's (duckWant) and Inlet's $lake answer
	// of the same run (duckSame).
	duckSQL   string
	duckWant  agg
	duckSame  string
	duckTimes []time.Duration
}

func (m measured) duckMedian() time.Duration { return medianOf(m.duckTimes) }

func (m measured) median() time.Duration { return medianOf(m.times) }

type results struct {
	queries    []measured
	planning   []time.Duration
	scanLines  map[string]string // EXPLAIN flussScan line per table (union read)
	mismatches []string
	// paimonChecked counts the tables read through the paimon catalog.
	paimonChecked int
	// duckVersion and duckThreads describe the DuckDB runs; duckNotes
	// say why DuckDB did not run (at all, or for a table).
	duckVersion string
	duckThreads int
	duckNotes   []string

	genTime            time.Duration
	genPeak, queryPeak int64 // bytes, 0 when unknown
	// peakReset tells whether the query phase had its own VmHWM window
	// (else queryPeak is the whole process's peak).
	peakReset bool
	dir, lake string
}

func (r *results) byKey(k string) *measured {
	for i := range r.queries {
		if r.queries[i].q.key == k {
			return &r.queries[i]
		}
	}
	return nil
}

func (r *results) mismatch(format string, args ...any) {
	r.mismatches = append(r.mismatches, fmt.Sprintf(format, args...))
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// measure starts a BE in this process behind the dispatcher and the FE
// with the fluss and paimon catalog types (as cmd/fe does without --be),
// creates the fluss catalog over the emulator and times every query,
// interleaved, runs times.
func measure(ctx context.Context, mc measureConfig) (*results, error) {
	be := scan.NewExecutor(scan.Config{Name: "bench-be", Logger: mc.log})
	defer be.Close()
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)},
		Classify: scan.ErrorCode, Logger: mc.log})
	fe, err := server.Start(ctx, server.Options{
		QueryAddr: "127.0.0.1:0",
		MetaDir:   mc.metaDir,
		Mem:       memory.DefaultAllocator,
		Logger:    mc.log,
		Types:     []catalog.Type{fluss.Type(), paimon.Type()},
		Runner:    disp,
	})
	if err != nil {
		return nil, fmt.Errorf("start the FE: %w", err)
	}
	defer fe.Close()

	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = fe.Addr().String()
	cfg.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(1) // one client session, like a user at a prompt

	// The same FE's Arrow Flight SQL port, read with arrow-go's client.
	fsrv, err := flightsqlsrv.Listen(flightsqlsrv.Config{Addr: "127.0.0.1:0", FE: fe.Server, Mem: memory.DefaultAllocator})
	if err != nil {
		return nil, fmt.Errorf("the Flight SQL port: %w", err)
	}
	go func() { _ = fsrv.Serve() }()
	defer fsrv.Close()
	fcl, err := flightsql.NewClient(fsrv.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer fcl.Close()
	fctx, err := fcl.Client.AuthenticateBasicToken(ctx, "root", "")
	if err != nil {
		return nil, fmt.Errorf("login on the Flight SQL port: %w", err)
	}
	runOne := func(ctx context.Context, q query) (agg, error) {
		if q.kind == flightStreamQuery {
			return runFlight(fctx, fcl, q)
		}
		return runQuery(ctx, db, q)
	}

	create := fmt.Sprintf("CREATE CATALOG %s PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')", benchCatalog, mc.cluster.BootstrapAddr())
	if _, err := db.ExecContext(ctx, create); err != nil {
		return nil, fmt.Errorf("%s: %w", create, err)
	}

	res := &results{scanLines: map[string]string{}}
	for _, tbl := range []string{logTable, pkTable} {
		line, err := flussScanLine(ctx, db, fmt.Sprintf("EXPLAIN SELECT * FROM %s.%s.`%s`", benchCatalog, benchDB, tbl))
		if err != nil {
			return nil, err
		}
		res.scanLines[tbl] = line
		if !strings.Contains(line, "unionRead=yes") {
			res.mismatch("EXPLAIN of %s.%s does not plan a union read: %s", benchDB, tbl, line)
		}
	}

	qs := queries(mc.plan)
	for _, q := range qs {
		res.queries = append(res.queries, measured{q: q})
	}
	if mc.duck != nil && mc.lake != "" {
		res.duckVersion, res.duckThreads = mc.duck.Version, mc.duck.Threads
		for _, t := range []struct {
			table, prefix string
			want          agg
		}{{logTable, "log_", mc.plan.logLake}, {pkTable, "pk_", mc.plan.pkLake}} {
			sql, err := duckLakeSQL(ctx, mc.lake, t.table)
			if err != nil {
				res.duckNotes = append(res.duckNotes, fmt.Sprintf("DuckDB not run on %s: %v", t.table, err))
				continue
			}
			for _, k := range []string{"lake", "union"} {
				if m := res.byKey(t.prefix + k); m != nil {
					m.duckSQL, m.duckWant, m.duckSame = sql, t.want, t.prefix+"lake"
				}
			}
		}
	}
	for run := 1; run <= mc.runs; run++ {
		for i := range res.queries {
			m := &res.queries[i]
			fmt.Fprintf(mc.progress, "\rrun %d/%d: %-40s", run, mc.runs, m.q.label)
			start := time.Now()
			got, err := runOne(ctx, m.q)
			if err != nil {
				fmt.Fprintln(mc.progress)
				return nil, fmt.Errorf("run %d, %s: %s: %w", run, strings.Join(strings.Fields(m.q.label), " "), m.q.sql, err)
			}
			m.times = append(m.times, time.Since(start))
			m.answers = append(m.answers, got)
			if got != m.q.want {
				res.mismatch("run %d, %s: got %s, want %s (from the generator's definition)", run, m.q.label, got, m.q.want)
			}
			if m.q.same != "" {
				if o := res.byKey(m.q.same); o != nil && len(o.answers) == run && o.answers[run-1] != got {
					res.mismatch("run %d: %s answered %s but %s answered %s: union read != Fluss-only read",
						run, m.q.label, got, o.q.label, o.answers[run-1])
				}
			}
			if m.duckSQL != "" {
				if err := runDuck(mc.duck, res, m, run); err != nil {
					fmt.Fprintln(mc.progress)
					return nil, fmt.Errorf("run %d, DuckDB beside %s: %w", run, strings.Join(strings.Fields(m.q.label), " "), err)
				}
			}
		}
		for range explainsPerRun {
			start := time.Now()
			if _, err := flussScanLine(ctx, db, explainQuery()); err != nil {
				fmt.Fprintln(mc.progress)
				return nil, err
			}
			res.planning = append(res.planning, time.Since(start))
		}
	}
	fmt.Fprintf(mc.progress, "\r%-60s\r", "")

	// The warehouse is a plain Paimon warehouse: a type=paimon catalog
	// over it reads the same lake rows as $lake.
	if mc.lake != "" {
		create := fmt.Sprintf("CREATE CATALOG %s PROPERTIES ('type'='paimon', 'warehouse'='%s')", paimonCatalog, mc.lake)
		if _, err := db.ExecContext(ctx, create); err != nil {
			return nil, fmt.Errorf("%s: %w", create, err)
		}
		for _, c := range []struct {
			tbl  string
			want agg
		}{{logTable, mc.plan.logLake}, {pkTable, mc.plan.pkLake}} {
			q := query{sql: fmt.Sprintf("SELECT count(*), sum(id), sum(v) FROM %s.%s.`%s`", paimonCatalog, benchDB, c.tbl)}
			got, err := runQuery(ctx, db, q)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", q.sql, err)
			}
			if got != c.want {
				res.mismatch("%s: got %s, want the lake's %s", q.sql, got, c.want)
			}
			res.paimonChecked++
		}
	}
	return res, nil
}

// runDuck times DuckDB's query for m and checks its answer against the
// lake's closed form and against Inlet's $lake answer of the same run.
func runDuck(d *duckrun.DB, res *results, m *measured, run int) error {
	took, rows, err := d.Run(m.duckSQL)
	if err != nil {
		return err
	}
	got, err := duckAnswer(rows)
	if err != nil {
		return err
	}
	m.duckTimes = append(m.duckTimes, took)
	if got != m.duckWant {
		res.mismatch("run %d, DuckDB beside %s: got %s, want the lake's %s (from the generator's definition)", run, m.q.label, got, m.duckWant)
	}
	if o := res.byKey(m.duckSame); o != nil && len(o.answers) == run && o.answers[run-1] != got {
		res.mismatch("run %d: DuckDB over the lake files answered %s but Inlet's %s answered %s", run, got, o.q.label, o.answers[run-1])
	}
	return nil
}

var scanLineRE = regexp.MustCompile(`flussScan: .*`)

// flussScanLine runs an EXPLAIN and returns its flussScan line.
func flussScanLine(ctx context.Context, db *sql.DB, q string) (string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	found := ""
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		if m := scanLineRE.FindString(line); m != "" && found == "" {
			found = strings.TrimSpace(m)
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	if found == "" {
		return "", fmt.Errorf("%s: no flussScan line in the plan", q)
	}
	return found, nil
}

// runQuery runs q and returns its answer as an agg: read from the one row
// of an aggregate query, or computed here from every streamed row.
func runQuery(ctx context.Context, db *sql.DB, q query) (agg, error) {
	rows, err := db.QueryContext(ctx, q.sql)
	if err != nil {
		return agg{}, err
	}
	defer rows.Close()
	var a agg
	switch q.kind {
	case aggQuery:
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return a, err
			}
			return a, fmt.Errorf("no row")
		}
		var cnt, sumID, sumV sql.NullString
		if err := rows.Scan(&cnt, &sumID, &sumV); err != nil {
			return a, err
		}
		if a.Count, err = strconv.ParseInt(cnt.String, 10, 64); err != nil {
			return a, fmt.Errorf("count(*) %q: %w", cnt.String, err)
		}
		if a.Count > 0 {
			if a.SumID, err = strconv.ParseInt(sumID.String, 10, 64); err != nil {
				return a, fmt.Errorf("sum(id) %q: %w", sumID.String, err)
			}
			if a.SumVq, err = quarters(sumV.String); err != nil {
				return a, fmt.Errorf("sum(v): %w", err)
			}
		}
		if rows.Next() {
			return a, fmt.Errorf("more than one row")
		}
	case streamQuery:
		for rows.Next() {
			var id, k, v, s, ts sql.RawBytes
			if err := rows.Scan(&id, &k, &v, &s, &ts); err != nil {
				return a, err
			}
			n, err := strconv.ParseInt(string(id), 10, 64)
			if err != nil {
				return a, fmt.Errorf("row %d: id %q: %w", a.Count, id, err)
			}
			vq, err := quarters(string(v))
			if err != nil {
				return a, fmt.Errorf("row %d (id %d): v: %w", a.Count, n, err)
			}
			a.Count++
			a.SumID += n
			a.SumVq += vq
		}
	}
	return a, rows.Err()
}

// quarters parses a double that must be a whole number of quarters (every
// v and every exact sum of them is).
func quarters(s string) (int64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	q := f * 4
	if q != float64(int64(q)) {
		return 0, fmt.Errorf("%q is not a multiple of 0.25", s)
	}
	return int64(q), nil
}

// peakRSS is the process's peak resident set (VmHWM), 0 when unknown.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n * 1024
				}
			}
		}
	}
	return 0
}

// resetPeakRSS starts a new VmHWM window (Linux: writing 5 to clear_refs),
// so the query phase's peak is not the generator's. Best effort.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// runFlight runs q through Flight SQL and computes its answer from the
// Arrow batches (columns id BIGINT, k, v DOUBLE, ...), as runQuery does
// from the MySQL rows.
func runFlight(ctx context.Context, cl *flightsql.Client, q query) (agg, error) {
	var a agg
	info, err := cl.Execute(ctx, q.sql)
	if err != nil {
		return a, err
	}
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return a, err
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			ids, ok1 := rec.Column(0).(*array.Int64)
			vs, ok2 := rec.Column(2).(*array.Float64)
			if !ok1 || !ok2 {
				rdr.Release()
				return a, fmt.Errorf("the Flight SQL result has %s, want id BIGINT and v DOUBLE", rec.Schema())
			}
			for i := 0; i < ids.Len(); i++ {
				q4 := vs.Value(i) * 4
				if vs.IsNull(i) || q4 != float64(int64(q4)) {
					rdr.Release()
					return a, fmt.Errorf("row %d (id %d): v is not a multiple of 0.25", a.Count, ids.Value(i))
				}
				a.Count++
				a.SumID += ids.Value(i)
				a.SumVq += int64(q4)
			}
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return a, err
		}
	}
	return a, nil
}
