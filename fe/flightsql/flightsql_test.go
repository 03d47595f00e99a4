package flightsql

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/inlet-db/inlet/fe/server"
)

// The every-type table and the MySQL-side normalisation below are those of
// fe/server's binary-protocol test (binproto_test.go): the same hand-derived
// values must come out of both ports.

// protoColumn is one column of the every-type table: its DDL type and, per
// row, the literal inserted and the value a client must read back, written
// by hand from MySQL/Doris rules (not from Inlet's output). A row whose
// literal is "" gets NULL instead (see nullAt).
type protoColumn struct {
	name, typ string
	lits      [6]string
	want      [6]string // normalised as normValue prints it
}

// protoColumns covers every type Inlet returns to a client.
var protoColumns = []protoColumn{
	{"c_tiny", "TINYINT", [6]string{"-128", "127", "0", "-1", "5", "1"}, [6]string{"-128", "127", "0", "-1", "5", "1"}},
	{"c_small", "SMALLINT", [6]string{"-32768", "32767", "0", "-2", "300", "7"}, [6]string{"-32768", "32767", "0", "-2", "300", "7"}},
	{"c_int", "INT", [6]string{"-2147483648", "2147483647", "0", "-3", "70000", "9"}, [6]string{"-2147483648", "2147483647", "0", "-3", "70000", "9"}},
	{"c_big", "BIGINT", [6]string{"-9223372036854775808", "9223372036854775807", "0", "-4", "5000000000", "11"}, [6]string{"-9223372036854775808", "9223372036854775807", "0", "-4", "5000000000", "11"}},
	{"c_large", "LARGEINT", [6]string{"-170141183460469231731687303715884105728", "170141183460469231731687303715884105727", "0", "-5", "18446744073709551616", "13"},
		[6]string{"-170141183460469231731687303715884105728", "170141183460469231731687303715884105727", "0", "-5", "18446744073709551616", "13"}},
	{"c_bool", "BOOLEAN", [6]string{"true", "false", "true", "false", "true", "false"}, [6]string{"1", "0", "1", "0", "1", "0"}},
	{"c_float", "FLOAT", [6]string{"1.5", "-3.25e-10", "0", "3.4e38", "-7.125", "100"}, [6]string{"1.5", "-3.25e-10", "0", "3.4e+38", "-7.125", "100"}},
	{"c_double", "DOUBLE", [6]string{"2.5", "-1.7976931348623157e308", "0", "123456789.125", "1e-300", "-0.1"}, [6]string{"2.5", "-1.7976931348623157e+308", "0", "1.23456789125e+08", "1e-300", "-0.1"}},
	{"c_dec52", "DECIMAL(5,2)", [6]string{"12.5", "-999.99", "0", "0.01", "999.99", "-0.5"}, [6]string{"12.50", "-999.99", "0.00", "0.01", "999.99", "-0.50"}},
	{"c_dec184", "DECIMAL(18,4)", [6]string{"12345678901234.5678", "-1", "0", "0.0001", "-99999999999999.9999", "3.14159"}, [6]string{"12345678901234.5678", "-1.0000", "0.0000", "0.0001", "-99999999999999.9999", "3.1416"}},
	{"c_dec3810", "DECIMAL(38,10)", [6]string{"1234567890123456789012345678.0123456789", "-0.0000000001", "0", "1", "-5.5", "99"},
		[6]string{"1234567890123456789012345678.0123456789", "-0.0000000001", "0.0000000000", "1.0000000000", "-5.5000000000", "99.0000000000"}},
	{"c_date", "DATE", [6]string{"'2024-01-05'", "'1900-01-01'", "'1969-12-31'", "'9999-12-31'", "'0001-01-01'", "'2000-02-29'"}, [6]string{"2024-01-05", "1900-01-01", "1969-12-31", "9999-12-31", "0001-01-01", "2000-02-29"}},
	{"c_dt", "DATETIME", [6]string{"'2024-01-05 10:00:00'", "'1900-01-01 00:00:01'", "'1969-12-31 23:59:59'", "'9999-12-31 23:59:59'", "'1970-01-01 00:00:00'", "'2000-02-29 12:34:56'"},
		[6]string{"2024-01-05 10:00:00", "1900-01-01 00:00:01", "1969-12-31 23:59:59", "9999-12-31 23:59:59", "1970-01-01 00:00:00", "2000-02-29 12:34:56"}},
	{"c_dt3", "DATETIME(3)", [6]string{"'2024-01-05 10:00:00.5'", "'1900-01-01 00:00:00.001'", "'1969-12-31 23:59:59.999'", "'2024-01-05 10:00:00'", "'1970-01-01 00:00:00.123'", "'2000-02-29 12:34:56.789'"},
		[6]string{"2024-01-05 10:00:00.500", "1900-01-01 00:00:00.001", "1969-12-31 23:59:59.999", "2024-01-05 10:00:00.000", "1970-01-01 00:00:00.123", "2000-02-29 12:34:56.789"}},
	{"c_dt6", "DATETIME(6)", [6]string{"'2024-01-05 10:00:00.000001'", "'1900-01-01 00:00:00.5'", "'1969-12-31 23:59:59.999999'", "'2024-01-05 10:00:00'", "'1970-01-01 00:00:00.123456'", "'2000-02-29 12:34:56.654321'"},
		[6]string{"2024-01-05 10:00:00.000001", "1900-01-01 00:00:00.500000", "1969-12-31 23:59:59.999999", "2024-01-05 10:00:00.000000", "1970-01-01 00:00:00.123456", "2000-02-29 12:34:56.654321"}},
	{"c_char", "CHAR(6)", [6]string{"'ab'", "''", "'héllo'", "'x'", "'abcde'", "'日本'"}, [6]string{"ab", "", "héllo", "x", "abcde", "日本"}},
	{"c_vc", "VARCHAR(20)", [6]string{"'hello'", "''", "'it''s'", "'a,b|c'", "'NULL'", "'😀 emoji'"}, [6]string{"hello", "", "it's", "a,b|c", "NULL", "😀 emoji"}},
	{"c_str", "STRING", [6]string{"'" + strings.Repeat("s", 300) + "'", "'line\\nbreak'", "'tab\\there'", "''", "'back\\\\slash'", "'日本語テキスト'"},
		[6]string{strings.Repeat("s", 300), "line\nbreak", "tab\there", "", "back\\slash", "日本語テキスト"}},
	{"c_bin", "VARBINARY(10)", [6]string{"X'010203'", "X''", "X'00FF'", "'abc'", "X'7F'", "X'80'"}, [6]string{"\x01\x02\x03", "", "\x00\xff", "abc", "\x7f", "\x80"}},
	{"c_json", "JSON", [6]string{`'{"a":1}'`, `'[1,2,3]'`, `'"s"'`, `'null'`, `'{"b":[true,false]}'`, `'1.5'`}, [6]string{`{"a":1}`, `[1,2,3]`, `"s"`, `null`, `{"b":[true,false]}`, `1.5`}},
	{"c_arr", "ARRAY<INT>", [6]string{"array(1,2,3)", "array()", "array(NULL,4)", "array(5)", "array(-1,0)", "array(7,8,9,10)"}, [6]string{"[1, 2, 3]", "[]", "[null, 4]", "[5]", "[-1, 0]", "[7, 8, 9, 10]"}},
}

// nullAt says whether row r (0-based) holds NULL in column c: every column
// is NULL in some rows and not in others, in a different pattern per column.
func nullAt(r, c int) bool { return (r+c)%4 == 3 }

// normValue prints a value read through database/sql the same way whatever
// the protocol decoded it to: integers in decimal, floats as the shortest
// 'g' form of their width, everything else as its bytes.
func normValue(v any, dbType string) string {
	float := func(f float64, bits int) string { return strconv.FormatFloat(f, 'g', -1, bits) }
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return float(float64(x), 32)
	case float64:
		if dbType == "FLOAT" {
			return float(x, 32)
		}
		return float(x, 64)
	case []byte:
		s := string(x)
		switch dbType {
		case "FLOAT", "DOUBLE":
			bits := 64
			if dbType == "FLOAT" {
				bits = 32
			}
			f, err := strconv.ParseFloat(s, bits)
			if err != nil {
				return "unparsable float " + strconv.Quote(s)
			}
			return float(f, bits)
		}
		return s
	case time.Time:
		return "time.Time " + x.String()
	}
	return fmt.Sprintf("unexpected %T %v", v, v)
}

// scanAll reads every row of rs as normalised strings.
func scanAll(rs *sql.Rows) ([][]string, []string, error) {
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		return nil, nil, err
	}
	types := make([]string, len(cts))
	for i, ct := range cts {
		types[i] = ct.DatabaseTypeName()
	}
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cts))
		for i, v := range vals {
			row[i] = normValue(v, types[i])
		}
		out = append(out, row)
	}
	return out, types, rs.Err()
}

func everyTypeTable(t *testing.T, db *sql.DB) []string {
	t.Helper()
	mustExec(t, db, "CREATE DATABASE proto")
	var ddl []string
	names := make([]string, len(protoColumns))
	for i, c := range protoColumns {
		ddl = append(ddl, c.name+" "+c.typ)
		names[i] = c.name
	}
	mustExec(t, db, "CREATE TABLE proto.every (k INT, "+strings.Join(ddl, ", ")+
		") DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3")
	for r := 0; r < 6; r++ {
		vals := []string{strconv.Itoa(r)}
		for c, col := range protoColumns {
			if nullAt(r, c) {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, col.lits[r])
			}
		}
		mustExec(t, db, "INSERT INTO proto.every VALUES ("+strings.Join(vals, ", ")+")")
	}
	return names
}

func diffRows(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for r := range want {
		for c := range want[r] {
			if c >= len(got[r]) || got[r][c] != want[r][c] {
				if bad++; bad <= 8 {
					g := "(missing)"
					if c < len(got[r]) {
						g = got[r][c]
					}
					t.Errorf("%s: row %d column %d = %q, want %q", what, r, c+1, g, want[r][c])
				}
			}
		}
	}
}

// Issue 27: a table of every type, NULLs in every column, reads the same
// through Flight SQL (arrow-go's client, plain and as a prepared statement
// with a parameter) as through the MySQL driver, and both give the
// hand-derived values.
func TestFlightSQLEveryTypeMatchesMySQL(t *testing.T) {
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
	diffRows(t, "MySQL vs hand-derived", viaMySQL, want)

	cl, ctx := f.login("root", "pw")
	info, err := cl.Execute(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	announced, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("FlightInfo schema: %v", err)
	}
	schema, recs, err := readInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	defer release(recs)
	if !announced.Equal(schema) {
		t.Errorf("FlightInfo announced %s, the stream has %s", announced, schema)
	}
	if sr, err := cl.GetExecuteSchema(ctx, q); err != nil {
		t.Errorf("GetExecuteSchema: %v", err)
	} else if s, err := flight.DeserializeSchema(sr.GetSchema(), memory.DefaultAllocator); err != nil || !s.Equal(schema) {
		t.Errorf("GetExecuteSchema: %v, %v", s, err)
	}
	if schema.NumFields() != len(names) {
		t.Fatalf("schema %s: want %d fields", schema, len(names))
	}
	for i, n := range names {
		if schema.Field(i).Name != n {
			t.Errorf("field %d is %q, want %q", i, schema.Field(i).Name, n)
		}
	}
	viaFlight := textRowsOf(t, schema, recs)
	diffRows(t, "Flight SQL vs MySQL", viaFlight, viaMySQL)
	diffRows(t, "Flight SQL vs hand-derived", viaFlight, want)

	// The same through a prepared statement with a bound parameter.
	stmt, err := cl.Prepare(ctx, "SELECT "+strings.Join(names, ", ")+" FROM proto.every WHERE k >= ? ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	if n := stmt.ParameterSchema().NumFields(); n != 1 {
		t.Errorf("parameter schema has %d fields, want 1", n)
	}
	stmt.SetParameters(int64Param(t, f, 2))
	info, err = stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps, precs, err := readInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	defer release(precs)
	diffRows(t, "prepared Flight SQL vs hand-derived", textRowsOf(t, ps, precs), want[2:])
}

// Issue 27: without a login (or with a wrong password or a made-up token)
// nothing runs.
func TestFlightSQLRefusesWithoutCredentials(t *testing.T) {
	f := startFE(t, "pw")
	cl := f.client()
	if _, err := cl.Execute(context.Background(), "SELECT 1"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no credentials: %v, want Unauthenticated", err)
	}
	if _, err := cl.Client.AuthenticateBasicToken(context.Background(), "root", "wrong"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("wrong password: %v, want Unauthenticated", err)
	} else if strings.Contains(err.Error(), "wrong") {
		t.Errorf("error repeats the password: %v", err)
	}
	if _, err := cl.Client.AuthenticateBasicToken(context.Background(), "nobody", ""); status.Code(err) != codes.Unauthenticated {
		t.Errorf("unknown user: %v, want Unauthenticated", err)
	}
	forged := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer 0123456789abcdef")
	if _, err := cl.Execute(forged, "SELECT 1"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("made-up token: %v, want Unauthenticated", err)
	}
	if _, err := cl.GetCatalogs(context.Background()); status.Code(err) != codes.Unauthenticated {
		t.Errorf("catalogs without credentials: %v, want Unauthenticated", err)
	}
	// The right password works.
	_, ctx := f.login("root", "pw")
	if _, recs, err := query(ctx, cl, "SELECT 1"); err != nil {
		t.Fatal(err)
	} else {
		release(recs)
	}
}

// Issue 27: a user's privileges hold on the Flight SQL port as on the
// MySQL port: a table without SELECT_PRIV is refused with MySQL's 1142, a
// granted one reads, and one user cannot read another's ticket.
func TestFlightSQLPrivileges(t *testing.T) {
	f := startFE(t, "pw")
	db := f.mysqlDB("root", "pw", "")
	mustExec(t, db, "CREATE DATABASE d",
		"CREATE TABLE d.open (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"CREATE TABLE d.secret (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.open VALUES (1), (2)", "INSERT INTO d.secret VALUES (42)",
		"CREATE USER alice IDENTIFIED BY 'a-pass'", "GRANT SELECT_PRIV ON internal.d.open TO alice")

	cl, ctx := f.login("alice", "a-pass")
	_, recs, err := query(ctx, cl, "SELECT k FROM d.open ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, r := range recs {
		rows += int(r.NumRows())
	}
	release(recs)
	if rows != 2 {
		t.Errorf("d.open: %d rows, want 2", rows)
	}
	_, _, err = query(ctx, cl, "SELECT k FROM d.secret")
	if status.Code(err) != codes.PermissionDenied || !strings.Contains(err.Error(), "1142") {
		t.Errorf("d.secret: %v, want PermissionDenied with errno 1142", err)
	}
	if _, err := cl.ExecuteUpdate(ctx, "CREATE DATABASE other"); status.Code(err) != codes.PermissionDenied {
		t.Errorf("CREATE DATABASE by alice: %v, want PermissionDenied", err)
	}
	// A ticket is its session's: root's token cannot read alice's.
	info, err := cl.Execute(ctx, "SELECT k FROM d.open")
	if err != nil {
		t.Fatal(err)
	}
	_, rootCtx := f.login("root", "pw")
	if rdr, err := cl.DoGet(rootCtx, info.Endpoint[0].Ticket); err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
		if status.Code(err) != codes.NotFound {
			t.Errorf("another session's ticket: %v, want NotFound", err)
		}
	}
	// Catalog browsing lists only what alice may see.
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{})
	if err != nil {
		t.Fatal(err)
	}
	s, trecs, err := readInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	defer release(trecs)
	var tables []string
	for _, row := range textRowsOf(t, s, trecs) {
		if row[1] == "d" {
			tables = append(tables, row[2])
		}
	}
	if strings.Join(tables, ",") != "open" {
		t.Errorf("alice's tables in d: %v, want [open]", tables)
	}
	// The audit log has alice's statements, the refused one with its errno
	// and the read one with its rows, as for the MySQL port.
	audit, err := os.ReadFile(filepath.Join(f.dir, server.AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	var okLine, deniedLine bool
	for _, l := range strings.Split(string(audit), "\n") {
		if !strings.Contains(l, "|User=alice|") {
			continue
		}
		okLine = okLine || strings.Contains(l, "|State=EOF|") && strings.Contains(l, "|ReturnRows=2|") && strings.Contains(l, "Stmt=SELECT k FROM d.open ORDER BY k")
		deniedLine = deniedLine || strings.Contains(l, "|State=ERR|ErrorCode=1142|") && strings.Contains(l, "d.secret")
	}
	if !okLine || !deniedLine {
		t.Errorf("audit log lacks alice's lines (read %v, denied %v):\n%s", okLine, deniedLine, audit)
	}
}

// Issue 27: SET, USE and DDL run through CommandStatementQuery and
// ExecuteUpdate and keep their effect on the session; catalogs, schemas,
// tables, table types and SqlInfo answer for browsing tools.
func TestFlightSQLSessionAndCatalogs(t *testing.T) {
	f := startFE(t, "")
	cl, ctx := f.login("root", "")
	if _, err := cl.ExecuteUpdate(ctx, "CREATE DATABASE shop"); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ExecuteUpdate(ctx, "CREATE TABLE shop.items (id INT, name STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1"); err != nil {
		t.Fatal(err)
	}
	n, err := cl.ExecuteUpdate(ctx, "INSERT INTO shop.items VALUES (1, 'pen'), (2, 'ink'), (3, 'nib')")
	if err != nil || n != 3 {
		t.Fatalf("INSERT: %d rows, %v; want 3", n, err)
	}
	// A prepared INSERT with parameters, executed twice.
	ins, err := cl.Prepare(ctx, "INSERT INTO shop.items VALUES (?, 'cap')")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{10, 11} {
		ins.SetParameters(int64Param(t, f, id))
		if n, err := ins.ExecuteUpdate(ctx); err != nil || n != 1 {
			t.Fatalf("prepared INSERT %d: %d rows, %v", id, n, err)
		}
	}
	if err := ins.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// USE through a query call, then an unqualified name.
	if _, recs, err := query(ctx, cl, "USE shop"); err != nil {
		t.Fatal(err)
	} else {
		release(recs)
	}
	s, recs, err := query(ctx, cl, "SELECT name FROM items WHERE id > 1 ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	got := textRowsOf(t, s, recs)
	release(recs)
	if fmt.Sprint(got) != "[[ink] [nib] [cap] [cap]]" {
		t.Errorf("after USE: %v", got)
	}
	s, recs, err = query(ctx, cl, "SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	got = textRowsOf(t, s, recs)
	release(recs)
	if fmt.Sprint(got) != "[[items]]" {
		t.Errorf("SHOW TABLES: %v", got)
	}
	// A kept result nobody reads is freed at Close (the allocator is
	// checked then).
	if _, err := cl.Execute(ctx, "SHOW DATABASES"); err != nil {
		t.Fatal(err)
	}
	// A syntax error is InvalidArgument with MySQL's errno.
	if _, err := cl.Execute(ctx, "SELEC 1"); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "1064") {
		t.Errorf("syntax error: %v", err)
	}

	read := func(what string, info *flight.FlightInfo, err error) [][]string {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		s, recs, err := readInfo(ctx, cl, info)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer release(recs)
		return textRowsOf(t, s, recs)
	}
	info, err := cl.GetCatalogs(ctx)
	if rows := read("catalogs", info, err); fmt.Sprint(rows) != "[[internal]]" {
		t.Errorf("catalogs: %v", rows)
	}
	pat := "sh%"
	info, err = cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pat})
	if rows := read("schemas", info, err); fmt.Sprint(rows) != "[[internal shop]]" {
		t.Errorf("schemas like sh%%: %v", rows)
	}
	tpat := "item_"
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{DbSchemaFilterPattern: &pat, TableNameFilterPattern: &tpat, IncludeSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	ts, trecs, err := readInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	defer release(trecs)
	if n := ts.NumFields(); n != 5 {
		t.Fatalf("tables with schema: %d fields", n)
	}
	if trecs[0].NumRows() != 1 {
		t.Fatalf("tables like item_: %d rows", trecs[0].NumRows())
	}
	tableSchema, err := flight.DeserializeSchema(trecs[0].Column(4).(*array.Binary).Value(0), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if tableSchema.NumFields() != 2 || tableSchema.Field(0).Name != "id" || tableSchema.Field(1).Name != "name" {
		t.Errorf("items schema: %s", tableSchema)
	}
	info, err = cl.GetTableTypes(ctx)
	if rows := read("table types", info, err); fmt.Sprint(rows) != "[[SYSTEM VIEW] [TABLE] [VIEW]]" {
		t.Errorf("table types: %v", rows)
	}
	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName})
	if err != nil {
		t.Fatal(err)
	}
	_, srecs, err := readInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	defer release(srecs)
	if srecs[0].NumRows() != 1 {
		t.Errorf("SqlInfo server name: %d rows", srecs[0].NumRows())
	}
}

// Issue 27: query_timeout, KILL and CancelFlightInfo stop a Flight SQL
// query as they stop a MySQL one; the session works afterwards.
func TestFlightSQLCancelAndTimeout(t *testing.T) {
	f := startFE(t, "")
	cl, ctx := f.login("root", "")
	// A long query: a cross join of a 10-row table, 10^9 rows (as
	// fe/server's cancellation test).
	for _, q := range []string{"CREATE DATABASE c", "CREATE TABLE c.d (x BIGINT) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO c.d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)"} {
		if _, err := cl.ExecuteUpdate(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	long := "SELECT count(*) FROM c.d a, c.d b, c.d c, c.d e, c.d g, c.d h, c.d i, c.d j, c.d k"

	// query_timeout (seconds) bounds a Flight SQL statement.
	if _, err := cl.ExecuteUpdate(ctx, "SET query_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err := query(ctx, cl, long)
	if status.Code(err) != codes.DeadlineExceeded && !strings.Contains(fmt.Sprint(err), "query_timeout") {
		t.Errorf("over query_timeout: %v (after %s)", err, time.Since(start))
	}
	if _, err := cl.ExecuteUpdate(ctx, "SET query_timeout = 300"); err != nil {
		t.Fatal(err)
	}

	// exec_mem_limit holds as on the MySQL port.
	if _, _, err := query(ctx, cl, "SELECT /*+ SET_VAR(exec_mem_limit=4096) */ a.x FROM c.d a, c.d b, c.d c ORDER BY a.x"); err == nil ||
		!strings.Contains(err.Error(), "exec_mem_limit") {
		t.Errorf("over exec_mem_limit: %v", err)
	}

	// KILL from a MySQL connection, by the id SHOW PROCESSLIST shows.
	db := f.mysqlDB("root", "", "")
	errc := make(chan error, 1)
	go func() { _, recs, err := query(ctx, cl, long); release(recs); errc <- err }()
	var id int64
	waitFor(t, "the Flight SQL query in SHOW PROCESSLIST", func() bool {
		rows, err := db.Query("SHOW PROCESSLIST")
		if err != nil {
			return false
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rows.Scan(ptrs...)
			for i, c := range cols {
				if c == "Info" && strings.Contains(vals[i].String, "c.d k") && !strings.Contains(vals[i].String, "PROCESSLIST") {
					id, _ = strconv.ParseInt(vals[0].String, 10, 64)
				}
			}
		}
		return id != 0
	})
	mustExec(t, db, fmt.Sprintf("KILL QUERY %d", id))
	select {
	case err := <-errc:
		if err == nil {
			t.Error("killed query succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("KILL did not stop the Flight SQL query")
	}

	// CancelFlightInfo on the running query.
	info, err := cl.Execute(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, recs, err := readInfo(ctx, cl, info); release(recs); errc <- err }()
	time.Sleep(200 * time.Millisecond)
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cancel status %v", res.GetStatus())
	select {
	case err := <-errc:
		if err == nil {
			t.Error("cancelled query succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("CancelFlightInfo did not stop the query")
	}
	// The session still runs statements.
	if _, recs, err := query(ctx, cl, "SELECT 1"); err != nil {
		t.Errorf("after cancel: %v", err)
	} else {
		release(recs)
	}
}

// int64Param is a one-row, one-column parameter batch holding v.
func int64Param(t *testing.T, f *testFE, v int64) arrow.RecordBatch {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(v)
	a := b.NewArray()
	defer a.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "p1", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(s, []arrow.Array{a}, 1)
	t.Cleanup(rec.Release)
	return rec
}
