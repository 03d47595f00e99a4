package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Issue 27: cmd/fe serves Arrow Flight SQL on --flight-sql-port with the
// root password of the MySQL port, and KILL reaches its sessions.
func TestFlightSQLPort(t *testing.T) {
	t.Setenv("INLET_ROOT_PASSWORD", "rootpw")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	c := config{queryPort: 0, httpPort: -1, beHTTPPort: -1, flightSQLPort: 0, host: "127.0.0.1", metaDir: t.TempDir(), metaSet: true,
		logLevel: "error", memLimit: 1 << 30, maxConns: 16, handshakeTimeout: 10 * time.Second}
	go func() { done <- run(ctx, c, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("FE shutdown: %v", err)
		}
	})
	re := regexp.MustCompile(`Arrow Flight SQL on (\S+)`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no Flight SQL port:\n%s", out.String())
	}
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Client.AuthenticateBasicToken(context.Background(), "root", "wrong"); err == nil {
		t.Fatal("wrong root password accepted")
	}
	qctx, err := cl.Client.AuthenticateBasicToken(context.Background(), "root", "rootpw")
	if err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(qctx, "SELECT 40 + 2 AS answer")
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := cl.DoGet(qctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if !rdr.Next() {
		t.Fatalf("no batch: %v", rdr.Err())
	}
	col := rdr.RecordBatch().Column(0)
	if got := col.(*array.Int64).Value(0); got != 42 || rdr.Schema().Field(0).Name != "answer" {
		t.Errorf("got %s = %d", rdr.Schema().Field(0).Name, got)
	}
}
