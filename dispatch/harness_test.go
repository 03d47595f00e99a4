package dispatch_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/internal/metrics"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/scan/flightsrv"
	"github.com/inlet-db/inlet/typemap"
)

const testSecret = "s3cret-for-tests"

// logTable is an emulated log table "db.events" (id BIGINT, name STRING,
// grp INT) over several buckets, written in many small batches so a read
// is many Flight messages. Row i is (i, "n<i>" or NULL when i%7 == 0,
// i%5 or NULL when i%11 == 0): the expected rows are derived from i alone.
type logTable struct {
	c       *minifluss.Cluster
	info    minifluss.TableInfo
	rows    int
	buckets int32
}

func newLogTable(t testing.TB, rows, perBatch int, buckets int32) *logTable {
	t.Helper()
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), TabletServers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "events", Buckets: int(buckets),
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "grp", Type: typemap.Int()}}})
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < rows; start += perBatch {
		for b := range buckets {
			var batch [][]any
			for i := start; i < min(start+perBatch, rows); i++ {
				if int32(i)%buckets != b {
					continue
				}
				batch = append(batch, rowOf(i))
			}
			if len(batch) > 0 {
				if err := c.AppendToBucket(ctx, "db", "events", b, batch); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	info, err := c.Table("db", "events")
	if err != nil {
		t.Fatal(err)
	}
	return &logTable{c: c, info: info, rows: rows, buckets: buckets}
}

func rowOf(i int) []any {
	var name, grp any
	if i%7 != 0 {
		name = fmt.Sprintf("n%d", i)
	}
	if i%11 != 0 {
		grp = int32(i % 5)
	}
	return []any{int64(i), name, grp}
}

// want renders the expected rows, sorted.
func (lt *logTable) want() []string {
	out := make([]string, lt.rows)
	for i := range lt.rows {
		r := rowOf(i)
		out[i] = fmt.Sprintf("%v|%v|%v", r[0], orNull(r[1]), orNull(r[2]))
	}
	slices.Sort(out)
	return out
}

func orNull(v any) any {
	if v == nil {
		return "NULL"
	}
	return v
}

// fragment reads every bucket of the table: one LOG range per bucket, all
// three columns.
func (lt *logTable) fragment(t testing.TB) *inletpb.Fragment {
	t.Helper()
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "grp", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, nil)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := &inletpb.Fragment{QueryId: fmt.Sprintf("q-%d", time.Now().UnixNano()), OutputSchema: buf.Bytes(),
		Projection: []int32{0, 1, 2}, Limit: -1,
		Fluss: &inletpb.FlussTable{Database: "db", Table: "events", TableId: lt.info.ID, SchemaId: lt.info.SchemaID,
			TableJson: lt.info.JSON, ClientOptions: map[string]string{"bootstrap.servers": lt.c.BootstrapAddr()},
			RemoteDataDir: lt.c.RemoteDataDir()},
		Options: &inletpb.ScanOptions{MaxConcurrency: 4}}
	for b := range lt.buckets {
		off, err := lt.c.Offsets("db", "events", "", b)
		if err != nil {
			t.Fatal(err)
		}
		f.Ranges = append(f.Ranges, &inletpb.Range{Type: inletpb.RangeType_LOG, Id: int64(b), Bucket: b,
			LogStartOffset: -2, LogStopOffset: off.HighWatermark, Affinity: fmt.Sprintf("/%d", b)})
	}
	return f
}

// readAll drains a stream into sorted row strings.
func readAll(t testing.TB, r array.RecordReader) ([]string, error) {
	t.Helper()
	var out []string
	for r.Next() {
		out = append(out, render(r.RecordBatch())...)
	}
	slices.Sort(out)
	return out, r.Err()
}

func render(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for i := range int(rec.NumRows()) {
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

func checkRows(t testing.TB, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

// be is one in-process BE: a scan executor behind a Flight server on a
// loopback port.
type be struct {
	addr    string
	ex      *scan.Executor
	srv     *grpc.Server
	reg     *metrics.Registry
	mem     *memory.CheckedAllocator
	stopped sync.Once
}

func startBE(t testing.TB, secret string) *be {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &be{addr: lis.Addr().String(), ex: scan.NewExecutor(scan.Config{Name: lis.Addr().String()}),
		reg: metrics.NewRegistry(), mem: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	fs, err := flightsrv.New(flightsrv.Config{Executor: b.ex, Secret: secret, Mem: b.mem, ErrorCode: scan.ErrorCode, Metrics: b.reg})
	if err != nil {
		t.Fatal(err)
	}
	b.srv = fs.NewGRPCServer()
	go func() { _ = b.srv.Serve(lis) }()
	t.Cleanup(func() {
		b.kill()
		b.ex.Close()
	})
	return b
}

// kill stops the server abruptly: open streams break mid-flight, as when
// the process dies.
func (b *be) kill() { b.stopped.Do(b.srv.Stop) }

// metric reads one series of the BE's /metrics.
func (b *be) metric(t testing.TB, line string) string {
	t.Helper()
	var sb strings.Builder
	if _, err := b.reg.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(sb.String()) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), line+" "); ok {
			return v
		}
	}
	return "0"
}

// logSink collects log records for assertions.
type logSink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *logSink) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.msgs = append(s.msgs, string(p))
		return len(p), nil
	}), nil))
}

func (s *logSink) contains(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.msgs, func(m string) bool { return strings.Contains(m, sub) })
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

var _ = dispatch.SecretHeader
