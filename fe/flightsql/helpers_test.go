package flightsql

import (
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/inlet-db/inlet/fe/server"
)

// testFE is a whole FE (MySQL port) with a Flight SQL port beside it.
type testFE struct {
	t      testing.TB
	fe     *server.FE
	flight *Server
	mem    *memory.CheckedAllocator
	pass   string
	dir    string // meta dir
}

func startFE(t testing.TB, password string) *testFE {
	t.Helper()
	return startFETLS(t, password, nil)
}

// startFETLS is startFE with the Flight SQL port on TLS when tc is set.
func startFETLS(t testing.TB, password string, tc *tls.Config) *testFE {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := t.TempDir()
	fe, err := server.Start(context.Background(), server.Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, RootPassword: password, Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Listen(Config{Addr: "127.0.0.1:0", FE: fe.Server, Mem: mem, TLSConfig: tc})
	if err != nil {
		fe.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- fs.Serve() }()
	f := &testFE{t: t, fe: fe, flight: fs, mem: mem, pass: password, dir: dir}
	t.Cleanup(func() {
		fs.Close()
		<-done
		fe.Close()
		mem.AssertSize(t, 0)
	})
	return f
}

// mysqlDB opens the MySQL port as user (one connection).
func (f *testFE) mysqlDB(user, pass, db string) *sql.DB {
	f.t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, pass, "tcp", f.fe.Addr().String(), db
	cfg.InterpolateParams = true
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	d := sql.OpenDB(c)
	d.SetMaxOpenConns(1)
	f.t.Cleanup(func() { d.Close() })
	return d
}

// client is arrow-go's Flight SQL client, not logged in.
func (f *testFE) client() *flightsql.Client {
	f.t.Helper()
	cl, err := flightsql.NewClient(f.flight.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cl.Close() })
	return cl
}

// login returns a logged-in client and the context carrying its token.
func (f *testFE) login(user, pass string) (*flightsql.Client, context.Context) {
	f.t.Helper()
	cl := f.client()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), user, pass)
	if err != nil {
		f.t.Fatalf("login %s: %v", user, err)
	}
	return cl, ctx
}

func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// query runs text through Flight SQL (GetFlightInfo, then DoGet of every
// endpoint) and returns the schema and every batch.
func query(ctx context.Context, cl *flightsql.Client, text string) (*arrow.Schema, []arrow.RecordBatch, error) {
	info, err := cl.Execute(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	return readInfo(ctx, cl, info)
}

func readInfo(ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo) (*arrow.Schema, []arrow.RecordBatch, error) {
	var schema *arrow.Schema
	var recs []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, nil, err
		}
		schema = rdr.Schema()
		for rdr.Next() {
			r := rdr.RecordBatch()
			r.Retain()
			recs = append(recs, r)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, nil, err
		}
	}
	return schema, recs, nil
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// textRowsOf prints every value of recs as arrowText does.
func textRowsOf(t *testing.T, schema *arrow.Schema, recs []arrow.RecordBatch) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := make([]string, r.NumCols())
			for c := range row {
				row[c] = arrowText(r.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

// arrowText prints an Arrow value the way the MySQL text protocol writes
// it (written for this test from MySQL/Doris rules, independent of the
// FE's renderer): integers in decimal, booleans 1/0, floats in their
// shortest form, decimals with their scale, dates and datetimes with the
// fraction digits of their unit, arrays as Doris prints them.
func arrowText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch x := a.(type) {
	case *array.Int8:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(x.Value(i), 10)
	case *array.Uint64:
		return strconv.FormatUint(x.Value(i), 10)
	case *array.Boolean:
		if x.Value(i) {
			return "1"
		}
		return "0"
	case *array.Float32:
		return strconv.FormatFloat(float64(x.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(x.Value(i), 'g', -1, 64)
	case *array.Decimal128:
		return decimal128.Num(x.Value(i)).ToString(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return decimal256.Num(x.Value(i)).ToString(x.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Date32:
		return x.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		unit := x.DataType().(*arrow.TimestampType).Unit
		layout := map[arrow.TimeUnit]string{arrow.Second: "", arrow.Millisecond: ".000", arrow.Microsecond: ".000000", arrow.Nanosecond: ".000000"}[unit]
		return x.Value(i).ToTime(unit).UTC().Format("2006-01-02 15:04:05" + layout)
	case *array.String:
		return x.Value(i)
	case *array.LargeString:
		return x.Value(i)
	case *array.Binary:
		return string(x.Value(i))
	case *array.List:
		start, end := x.ValueOffsets(i)
		vals := x.ListValues()
		parts := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			if vals.IsNull(int(j)) {
				parts = append(parts, "null")
			} else {
				parts = append(parts, arrowText(vals, int(j)))
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if s, ok := a.(interface{ ValueStr(int) string }); ok && a.DataType().ID() == arrow.EXTENSION {
		return s.ValueStr(i)
	}
	return fmt.Sprintf("unexpected %s", a.DataType())
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
