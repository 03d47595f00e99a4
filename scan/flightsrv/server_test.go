package flightsrv_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/scan/flightsrv"
	"github.com/inlet-db/inlet/typemap"
)

// TestStreamShape reads a DoGet stream with a plain Flight client and
// checks the contract of doc.go point 2: schema first, every batch tagged
// with a range of the fragment, each range's done message after its last
// batch with its exact row count, the counters last.
func TestStreamShape(t *testing.T) {
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "t", Buckets: 3,
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}}}); err != nil {
		t.Fatal(err)
	}
	// Bucket b gets 100*(b+1) rows in batches of 10.
	perBucket := map[int64]int64{}
	for b := range int32(3) {
		for i := 0; i < 100*int(b+1); i += 10 {
			var rows [][]any
			for j := range 10 {
				rows = append(rows, []any{int64(i + j)})
			}
			if err := c.AppendToBucket(ctx, "db", "t", b, rows); err != nil {
				t.Fatal(err)
			}
		}
		perBucket[int64(b)] = int64(100 * (b + 1))
	}
	info, err := c.Table("db", "t")
	if err != nil {
		t.Fatal(err)
	}
	var sb bytes.Buffer
	w := ipc.NewWriter(&sb, ipc.WithSchema(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := &inletpb.Fragment{QueryId: fmt.Sprint("shape-", time.Now().UnixNano()), OutputSchema: sb.Bytes(), Projection: []int32{0}, Limit: -1,
		Fluss: &inletpb.FlussTable{Database: "db", Table: "t", TableId: info.ID, SchemaId: info.SchemaID, TableJson: info.JSON,
			ClientOptions: map[string]string{"bootstrap.servers": c.BootstrapAddr()}}}
	for b := range int32(3) {
		off, err := c.Offsets("db", "t", "", b)
		if err != nil {
			t.Fatal(err)
		}
		f.Ranges = append(f.Ranges, &inletpb.Range{Type: inletpb.RangeType_LOG, Id: int64(b) + 40, Bucket: b, LogStartOffset: -2, LogStopOffset: off.HighWatermark})
	}

	ex := scan.NewExecutor(scan.Config{})
	defer ex.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := flightsrv.New(flightsrv.Config{Executor: ex, Secret: "sec", Mem: mem, ErrorCode: scan.ErrorCode})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := srv.NewGRPCServer()
	go func() { _ = g.Serve(lis) }()
	defer g.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := flight.NewFlightServiceClient(conn)
	ticket, _ := proto.Marshal(f)

	// Without the secret: Unauthenticated, before any work.
	st, err := cl.DoGet(ctx, &flight.Ticket{Ticket: ticket})
	if err == nil {
		_, err = st.Recv()
	}
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no secret: %v, want Unauthenticated", err)
	}

	st, err = cl.DoGet(metadata.AppendToOutgoingContext(ctx, flightsrv.SecretHeader, "sec"), &flight.Ticket{Ticket: ticket})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int64]int64{}
	done := map[int64]bool{}
	var stats *inletpb.ScanStats
	var schemaFD *flight.FlightData
	for i := 0; ; i++ {
		fd, err := st.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if stats != nil {
			t.Fatal("message after the stats message")
		}
		var m inletpb.FlightMeta
		if err := proto.Unmarshal(fd.AppMetadata, &m); err != nil {
			t.Fatal(err)
		}
		var typ ipc.MessageType
		if len(fd.DataHeader) > 0 {
			msg := ipc.NewMessage(memory.NewBufferBytes(fd.DataHeader), memory.NewBufferBytes(fd.DataBody))
			typ = msg.Type()
			msg.Release()
		}
		switch {
		case i == 0:
			if len(fd.DataHeader) == 0 || typ != ipc.MessageSchema {
				t.Fatalf("first message is not the schema")
			}
			schemaFD = fd
		case len(fd.DataHeader) > 0:
			if typ != ipc.MessageRecordBatch {
				t.Fatalf("message %d: %v", i, typ)
			}
			if _, ok := perBucket[m.RangeId-40]; !ok || done[m.RangeId] {
				t.Fatalf("batch of range %d: unknown or already done", m.RangeId)
			}
			rows[m.RangeId] += batchRows(t, schemaFD, fd)
		case m.RangeDone:
			if m.Rows != rows[m.RangeId] || m.Rows != perBucket[m.RangeId-40] {
				t.Fatalf("range %d done with %d rows; received %d, table has %d", m.RangeId, m.Rows, rows[m.RangeId], perBucket[m.RangeId-40])
			}
			done[m.RangeId] = true
		case m.Stats != nil:
			stats = m.Stats
		default:
			t.Fatalf("message %d has neither batch, done nor stats", i)
		}
	}
	if len(done) != 3 || stats == nil {
		t.Fatalf("done %v, stats %v", done, stats)
	}
	if got := stats.GetCounters()["FlussLogRowsReturned"]; got != 600 {
		t.Errorf("FlussLogRowsReturned %d, want 600", got)
	}
	if len(stats.GetDoneRanges()) != 3 {
		t.Errorf("done ranges %v", stats.GetDoneRanges())
	}
	mem.AssertSize(t, 0)
}

// batchRows decodes one batch message (framed as an IPC stream after the
// schema) and returns its row count.
func batchRows(t *testing.T, schema, batch *flight.FlightData) int64 {
	t.Helper()
	var buf bytes.Buffer
	for _, fd := range []*flight.FlightData{schema, batch} {
		hdr := fd.DataHeader
		pad := (8 - (len(hdr)+8)%8) % 8
		_ = binary.Write(&buf, binary.LittleEndian, uint32(0xFFFFFFFF))
		_ = binary.Write(&buf, binary.LittleEndian, int32(len(hdr)+pad))
		buf.Write(hdr)
		buf.Write(make([]byte, pad))
		buf.Write(fd.DataBody)
	}
	r, err := ipc.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatalf("batch did not decode: %v", r.Err())
	}
	return r.RecordBatch().NumRows()
}
