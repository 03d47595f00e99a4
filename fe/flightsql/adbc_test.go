package flightsql

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	adbcflightsql "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// adbcConn opens the FE's Flight SQL port with the ADBC Flight SQL driver
// (apache/arrow-adbc's Go driver: a client we did not write).
func adbcConn(t *testing.T, f *testFE, user, pass string) adbc.Connection {
	t.Helper()
	drv := adbcflightsql.NewDriver(memory.NewGoAllocator())
	db, err := drv.NewDatabase(map[string]string{
		adbc.OptionKeyURI:      "grpc://" + f.flight.Addr().String(),
		adbc.OptionKeyUsername: user,
		adbc.OptionKeyPassword: pass,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cn, err := db.Open(context.Background())
	if err != nil {
		t.Fatalf("ADBC connect as %s: %v", user, err)
	}
	t.Cleanup(func() { cn.Close() })
	return cn
}

// adbcQuery runs text (with params bound when not nil) and returns the
// schema and batches.
func adbcQuery(t *testing.T, cn adbc.Connection, text string, params arrow.RecordBatch) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	ctx := context.Background()
	st, err := cn.NewStatement()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetSqlQuery(text); err != nil {
		t.Fatal(err)
	}
	if params != nil {
		if err := st.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.Bind(ctx, params); err != nil {
			t.Fatal(err)
		}
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		t.Fatalf("ADBC %s: %v", text, err)
	}
	defer rdr.Release()
	var recs []arrow.RecordBatch
	for rdr.Next() {
		r := rdr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rdr.Err(); err != nil {
		release(recs)
		t.Fatal(err)
	}
	return rdr.Schema(), recs
}

// Issue 27: the ADBC Flight SQL driver reads the every-type table (NULLs
// in every column) with the values the MySQL driver and the hand
// derivation give, plain and as a prepared statement with a bound
// parameter; it browses the catalogs; a wrong password is refused.
func TestADBCFlightSQLEveryType(t *testing.T) {
	f := startFE(t, "pw")
	db := f.mysqlDB("root", "pw", "")
	names := everyTypeTable(t, db)
	q := "SELECT " + strings.Join(names, ", ") + " FROM proto.every ORDER BY k"
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	viaMySQL, _, err := scanAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]string, 6)
	for r := range want {
		for c, col := range protoColumns {
			v := col.want[r]
			if nullAt(r, c) {
				v = "NULL"
			}
			want[r] = append(want[r], v)
		}
	}

	cn := adbcConn(t, f, "root", "pw")
	schema, recs := adbcQuery(t, cn, q, nil)
	defer release(recs)
	viaADBC := textRowsOf(t, schema, recs)
	diffRows(t, "ADBC vs hand-derived", viaADBC, want)
	diffRows(t, "ADBC vs MySQL", viaADBC, viaMySQL)

	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	b.Append(2)
	col := b.NewArray()
	b.Release()
	params := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1)
	col.Release()
	defer params.Release()
	ps, precs := adbcQuery(t, cn, "SELECT "+strings.Join(names, ", ")+" FROM proto.every WHERE k >= ? ORDER BY k", params)
	defer release(precs)
	diffRows(t, "prepared ADBC vs hand-derived", textRowsOf(t, ps, precs), want[2:])

	// Catalog browsing: the table and its columns are listed.
	ctx := context.Background()
	tbl := "every"
	objs, err := cn.GetObjects(ctx, adbc.ObjectDepthTables, nil, nil, &tbl, nil, nil)
	if err != nil {
		t.Fatalf("GetObjects: %v", err)
	}
	found := false
	for objs.Next() {
		found = found || strings.Contains(objs.RecordBatch().Column(1).String(), "proto") && strings.Contains(objs.RecordBatch().Column(1).String(), "every")
	}
	objs.Release()
	if !found {
		t.Error("GetObjects does not list proto.every")
	}

	// A wrong password is refused at connect or at the first statement.
	drv := adbcflightsql.NewDriver(memory.NewGoAllocator())
	bad, err := drv.NewDatabase(map[string]string{adbc.OptionKeyURI: "grpc://" + f.flight.Addr().String(),
		adbc.OptionKeyUsername: "root", adbc.OptionKeyPassword: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if bc, err := bad.Open(ctx); err == nil {
		st, _ := bc.NewStatement()
		_ = st.SetSqlQuery("SELECT 1")
		if rdr, _, err := st.ExecuteQuery(ctx); err == nil {
			rdr.Release()
			t.Error("ADBC with a wrong password ran a query")
		}
		st.Close()
		bc.Close()
	}
}
