package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/internal/sysmem"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan/flightsrv"
	"github.com/inlet-db/inlet/typemap"
)

const secret = "process-test-secret"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// beBinary builds cmd/be once per test binary run.
func beBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "inlet-be-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "be")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type proc struct {
	cmd          *exec.Cmd
	flight, http string
	stderr       *bytes.Buffer
}

// startBE runs the BE binary and waits for its listening lines.
func startBE(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(beBinary(t), append([]string{"--port", "0", "--http-port", "0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for (p.flight == "" || p.http == "") && sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "flight listening on "); ok {
			p.flight = a
		}
		if a, ok := strings.CutPrefix(sc.Text(), "http listening on "); ok {
			p.http = a
		}
	}
	if p.flight == "" || p.http == "" {
		t.Fatalf("BE did not start; stderr:\n%s", p.stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

// table is an emulated log table db.t (id BIGINT, s STRING) over 4
// buckets; row i is (i, "s<i>", NULL when i%9 == 0).
func table(t *testing.T, rows, perBatch int) (*minifluss.Cluster, *inletpb.Fragment, []string) {
	t.Helper()
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	const buckets = 4
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "t", Buckets: buckets,
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "s", Type: typemap.String()}}}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for start := 0; start < rows; start += perBatch {
		per := map[int32][][]any{}
		for i := start; i < min(start+perBatch, rows); i++ {
			var s any
			if i%9 != 0 {
				s = fmt.Sprintf("s%d", i)
			}
			per[int32(i%buckets)] = append(per[int32(i%buckets)], []any{int64(i), s})
			if s == nil {
				s = "NULL"
			}
			want = append(want, fmt.Sprintf("%d|%v", i, s))
		}
		for b, rs := range per {
			if err := c.AppendToBucket(ctx, "db", "t", b, rs); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(want)
	info, err := c.Table("db", "t")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := &inletpb.Fragment{QueryId: fmt.Sprintf("q-%d", time.Now().UnixNano()), OutputSchema: buf.Bytes(), Projection: []int32{0, 1}, Limit: -1,
		Fluss: &inletpb.FlussTable{Database: "db", Table: "t", TableId: info.ID, SchemaId: info.SchemaID, TableJson: info.JSON,
			ClientOptions: map[string]string{"bootstrap.servers": c.BootstrapAddr()}, RemoteDataDir: c.RemoteDataDir()},
		Options: &inletpb.ScanOptions{MaxConcurrency: 1}}
	for b := range int32(buckets) {
		off, err := c.Offsets("db", "t", "", b)
		if err != nil {
			t.Fatal(err)
		}
		f.Ranges = append(f.Ranges, &inletpb.Range{Type: inletpb.RangeType_LOG, Id: int64(b), Bucket: b,
			LogStartOffset: -2, LogStopOffset: off.HighWatermark, Affinity: fmt.Sprint(b)})
	}
	return c, f, want
}

func rowsOf(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for i := range out {
		var parts []string
		for _, c := range rec.Columns() {
			if c.IsNull(i) {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, c.ValueStr(i))
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

func backends(t *testing.T, ps ...*proc) []dispatch.Backend {
	var out []dispatch.Backend
	for _, p := range ps {
		b := dispatch.NewFlightBackend(p.flight, secret)
		t.Cleanup(func() { b.Close() })
		out = append(out, b)
	}
	return out
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Two BE processes, a kill -9 of one mid-query: the rows are exactly the
// table's, and /metrics of the survivor shows the work.
func TestProcessesKillOneMidQuery(t *testing.T) {
	_, f, want := table(t, 20000, 50)
	env := []string{"INLET_CLUSTER_SECRET=" + secret}
	a, b := startBE(t, env), startBE(t, env)
	d := dispatch.New(dispatch.Config{Backends: backends(t, a, b), Buffer: 1})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := d.Run(context.Background(), f, mem)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var victim *proc
	for i := 0; r.Next(); i++ {
		got = append(got, rowsOf(r.RecordBatch())...)
		if i == 5 {
			victim = a
			if !strings.Contains(get(t, "http://"+a.http+"/metrics"), "inlet_be_streams 1") {
				victim = b
			}
			if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if victim == nil {
		t.Fatal("stream ended before the kill")
	}
	slices.Sort(got)
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
	survivor := a
	if victim == a {
		survivor = b
	}
	m := get(t, "http://"+survivor.http+"/metrics")
	for _, s := range []string{"inlet_be_fragments_total", `inlet_be_rows_total{kind="LOG"}`, "inlet_be_fluss_connections_opened_total",
		"inlet_be_admission_waits_total", "inlet_be_errors_total"} {
		if !strings.Contains(m, s) {
			t.Errorf("/metrics lacks %s:\n%s", s, m)
		}
	}
	// The BE runs with the collector held off below 256 MiB of heap, or a
	// quarter of the machine's memory when that is less
	// (internal/gcfloor), and the floor has set a percent above GOGC's
	// 100 for its small heap.
	floor := int64(256 << 20)
	if phys := sysmem.PhysicalMemory(); phys > 0 && phys/4 < floor {
		floor = phys / 4
	}
	if f := metricValue(m, "inlet_go_gc_floor_bytes"); f != float64(floor) {
		t.Errorf("inlet_go_gc_floor_bytes %v, want %d", f, floor)
	}
	if p := metricValue(m, "inlet_go_gc_percent"); p <= 100 {
		t.Errorf("inlet_go_gc_percent %v with a 256 MiB floor", p)
	}
}

// metricValue is the value of the unlabelled metric name in a /metrics
// text (-1: absent).
func metricValue(text, name string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// --fe registers the BE with the FE's registry and keeps it alive with
// heartbeats; a dead BE expires.
func TestHeartbeatRegisters(t *testing.T) {
	if dispatch.ChallengeAction != flightsrv.ChallengeAction {
		t.Fatalf("FE challenges with %s, BE answers %s", dispatch.ChallengeAction, flightsrv.ChallengeAction)
	}
	if heartbeatPath != dispatch.HeartbeatPath {
		t.Fatalf("BE posts to %s, FE serves %s", heartbeatPath, dispatch.HeartbeatPath)
	}
	reg := dispatch.NewRegistry(dispatch.RegistryConfig{Secret: secret, TTL: time.Second,
		Verify: func(ctx context.Context, addr string) error { return dispatch.ChallengeFlight(ctx, addr, secret) }})
	defer reg.Close()
	mux := http.NewServeMux()
	mux.Handle(dispatch.HeartbeatPath, reg.Handler())
	fe := httptest.NewServer(mux)
	defer fe.Close()
	feAddr := strings.TrimPrefix(fe.URL, "http://")

	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startBE(t, nil, "--fe", feAddr, "--heartbeat", "100ms", "--secret-file", secretFile)
	waitFor(t, func() bool { return names(reg.Live()) == p.flight }, "BE registered")

	// The registered BE serves queries through the registry.
	_, f, want := table(t, 500, 100)
	d := dispatch.New(dispatch.Config{Registry: reg})
	r, err := d.Run(context.Background(), f, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() {
		got = append(got, rowsOf(r.RecordBatch())...)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if len(got) != len(want) {
		t.Errorf("got %d rows through the registered BE, want %d", len(got), len(want))
	}

	// A BE with the wrong secret is refused.
	bad := startBE(t, []string{"INLET_CLUSTER_SECRET=wrong"}, "--fe", feAddr, "--heartbeat", "100ms")
	time.Sleep(500 * time.Millisecond)
	if strings.Contains(names(reg.Live()), bad.flight) {
		t.Error("a BE with the wrong secret registered")
	}

	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	waitFor(t, func() bool { return names(reg.Live()) == "" }, "dead BE expired")
}

func names(bs []dispatch.Backend) string {
	var s []string
	for _, b := range bs {
		s = append(s, b.Name())
	}
	return strings.Join(s, ",")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestUpdateConfig(t *testing.T) {
	p := startBE(t, []string{"INLET_CLUSTER_SECRET=" + secret})
	post := func(query, sec string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+p.http+"/api/update_config?"+query, nil)
		req.Header.Set(dispatch.SecretHeader, sec)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		query, secret string
		want          int
	}{
		{"jni_scanner_heap_budget_ratio=0.4&jni_scanner_heap_max_wait_ms=1000", secret, 200},
		{"jni_scanner_heap_budget_ratio=1.5", secret, 400},
		{"jni_scanner_heap_budget_ratio=abc", secret, 400},
		{"jni_scanner_heap_max_wait_ms=-1", secret, 400},
		{"no_such_key=1", secret, 400},
		{"jni_scanner_heap_budget_ratio=0.4", "wrong", 401},
	}
	for _, tc := range tests {
		if got := post(tc.query, tc.secret); got != tc.want {
			t.Errorf("POST ?%s = %d, want %d", tc.query, got, tc.want)
		}
	}
	if !strings.Contains(p.stderr.String(), "jni_scanner_heap_budget_ratio") {
		t.Errorf("update not logged; stderr:\n%s", p.stderr)
	}
}

func TestRefusesOpenListenerWithoutSecret(t *testing.T) {
	cmd := exec.Command(beBinary(t), "--host", "0.0.0.0", "--port", "0", "--http-port", "-1")
	cmd.Env = slices.DeleteFunc(os.Environ(), func(s string) bool { return strings.HasPrefix(s, "INLET_CLUSTER_SECRET=") })
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not loopback") {
		t.Fatalf("err %v, output %q: want a refusal naming loopback", err, out)
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--port", "70000"}, "--port 70000"},
		{[]string{"--http-port", "-2"}, "--http-port -2"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"--heartbeat", "0s"}, "--heartbeat"},
		{[]string{"--port", "0", "--fe", "127.0.0.1:8030"}, ""},
	}
	for _, tc := range tests {
		_, err := parseFlags(tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parseFlags(%v) = %v, want %q", tc.args, err, tc.err)
		}
	}
}

// The Grafana dashboard that docker/ provisions charts only BE series that
// exist: every BE metric name in its queries is on a live BE's /metrics,
// the Doris-named process gauges included.
func TestDashboardMetricsBE(t *testing.T) {
	raw, err := os.ReadFile("../../docker/grafana/dashboards/inlet.json")
	if err != nil {
		t.Fatal(err)
	}
	p := startBE(t, []string{"INLET_CLUSTER_SECRET=" + secret})
	text := get(t, "http://"+p.http+"/metrics")
	checked := 0
	for _, name := range regexp.MustCompile(`\b(?:doris|inlet)_be_[a-z0-9_]+`).FindAllString(string(raw), -1) {
		checked++
		if !regexp.MustCompile(`(?m)^# TYPE ` + name + ` `).MatchString(text) {
			t.Errorf("dashboard charts %s, which the BE's /metrics does not have", name)
		}
	}
	if checked < 6 {
		t.Errorf("only %d BE metric names found in the dashboard", checked)
	}
	for _, g := range []string{"doris_be_memory_allocated_bytes", "doris_be_process_thread_num", "doris_be_process_fd_num_used"} {
		m := regexp.MustCompile(`(?m)^` + g + ` (\S+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("/metrics lacks a value for %s", g)
			continue
		}
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || v <= 0 {
			t.Errorf("%s = %s, want a positive reading of /proc", g, m[1])
		}
	}
}
