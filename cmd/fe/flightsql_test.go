package main

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
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

// Issue 27: a union read (the demo's PK table: lake files plus a log tail
// with an update, an insert and a delete) gives the same rows through
// Flight SQL as through the MySQL driver, TIMESTAMP_LTZ included as
// wall-clock time in the session's time_zone; both match the values
// derived by hand from the demo scenario (UTC+8 for Asia/Shanghai).
func TestFlightSQLUnionReadMatchesMySQL(t *testing.T) {
	fe := startDemo(t, 0)
	if fe.flight == "" {
		t.Fatal("no Flight SQL port printed")
	}
	const q = "SELECT order_id, customer, status, total, updated_at FROM fluss.shop.orders ORDER BY order_id"
	want := [][]string{
		{"1001", "ada", "shipped", "25.00", "2026-04-02 16:30:00.000"},
		{"1002", "grace", "paid", "30.00", "2026-04-01 19:00:00.000"},
		{"1004", "margaret", "created", "12.50", "2026-04-01 18:04:00.000"},
		{"1005", "edsger", "created", "99.90", "2026-04-02 17:00:00.000"},
	}

	db := openDB(t, fe.query, "root", "")
	if _, err := db.Exec("SET time_zone = 'Asia/Shanghai'"); err != nil {
		t.Fatal(err)
	}
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	var viaMySQL [][]string
	for rs.Next() {
		row := make([]sql.NullString, 5)
		if err := rs.Scan(&row[0], &row[1], &row[2], &row[3], &row[4]); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range row {
			out = append(out, v.String)
		}
		viaMySQL = append(viaMySQL, out)
	}
	rs.Close()

	cl, err := flightsql.NewClient(fe.flight, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), "root", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ExecuteUpdate(ctx, "SET time_zone = 'Asia/Shanghai'"); err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var viaFlight [][]string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var row []string
			for c := 0; c < int(rec.NumCols()); c++ {
				row = append(row, cellText(rec.Column(c), i))
			}
			viaFlight = append(viaFlight, row)
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(viaMySQL) != fmt.Sprint(want) {
		t.Errorf("MySQL:\n%v\nwant\n%v", viaMySQL, want)
	}
	if fmt.Sprint(viaFlight) != fmt.Sprint(want) {
		t.Errorf("Flight SQL:\n%v\nwant\n%v", viaFlight, want)
	}
}

// cellText prints the Arrow values of this table as MySQL's text does.
func cellText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch x := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(x.Value(i), 10)
	case *array.String:
		return x.Value(i)
	case *array.Decimal128:
		return decimal128.Num(x.Value(i)).ToString(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Timestamp:
		tt := x.DataType().(*arrow.TimestampType)
		if tt.TimeZone != "" {
			return "unexpected zone " + tt.TimeZone
		}
		return x.Value(i).ToTime(tt.Unit).UTC().Format("2006-01-02 15:04:05.000")
	}
	return fmt.Sprintf("unexpected %s", a.DataType())
}
