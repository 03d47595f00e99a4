package server

import (
	"crypto/md5"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

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

// protoClients are the ways go-sql-driver reaches the FE: the text protocol
// (COM_QUERY), and the binary protocol through a server-side prepared
// statement, both without and with arguments.
type protoClients struct {
	text *sql.DB // interpolateParams: every query is COM_QUERY
	bin  *sql.DB // no interpolation: queries with arguments are prepared
}

func newProtoClients(t *testing.T, f *testFE, dbName string) protoClients {
	t.Helper()
	open := func(interpolate bool) *sql.DB {
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "root", f.pass, "tcp", f.fe.Addr().String(), dbName
		cfg.InterpolateParams = interpolate
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d := sql.OpenDB(c)
		d.SetMaxOpenConns(1)
		t.Cleanup(func() { d.Close() })
		return d
	}
	return protoClients{text: open(true), bin: open(false)}
}

// readBoth runs q through the text protocol and through the binary protocol
// twice (prepared without arguments; with one argument that changes
// nothing), and fails unless all three agree.
func (p protoClients) readBoth(t *testing.T, q string) [][]string {
	t.Helper()
	rs, err := p.text.Query(q)
	if err != nil {
		t.Fatalf("text %s: %v", q, err)
	}
	text, types, err := scanAll(rs)
	if err != nil {
		t.Fatalf("text %s: %v", q, err)
	}
	stmt, err := p.bin.Prepare(q)
	if err != nil {
		t.Fatalf("prepare %s: %v", q, err)
	}
	rs, err = stmt.Query()
	if err != nil {
		t.Fatalf("binary %s: %v", q, err)
	}
	bin, btypes, err := scanAll(rs)
	stmt.Close()
	if err != nil {
		t.Fatalf("binary %s: %v", q, err)
	}
	if strings.Join(types, ",") != strings.Join(btypes, ",") {
		t.Errorf("%s: column types differ: text %v, binary %v", q, types, btypes)
	}
	diffRows(t, "binary (prepared, no arguments) vs text: "+q, bin, text)
	// A query with arguments goes through COM_STMT_EXECUTE with a
	// parameter block.
	withArg := "SELECT * FROM (" + q + ") AS q WHERE ? = 1"
	rs, err = p.bin.Query(withArg, 1)
	if err != nil {
		t.Fatalf("binary %s: %v", withArg, err)
	}
	bin2, _, err := scanAll(rs)
	if err != nil {
		t.Fatalf("binary %s: %v", withArg, err)
	}
	diffRows(t, "binary (with an argument) vs text: "+q, bin2, text)
	return text
}

func diffRows(t *testing.T, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for r := range want {
		if len(got[r]) != len(want[r]) {
			t.Errorf("%s: row %d has %d columns, want %d", what, r, len(got[r]), len(want[r]))
			return
		}
		for c := range want[r] {
			if got[r][c] != want[r][c] {
				if bad++; bad <= 5 {
					t.Errorf("%s: row %d column %d = %q, want %q", what, r, c+1, got[r][c], want[r][c])
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values differ in all", what, bad)
	}
}

// TestBinaryProtocolEveryType reads a table of every type, with NULLs in
// every column, through the text and the binary protocol: both must give
// the hand-derived values.
func TestBinaryProtocolEveryType(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	setup := f.db("")
	mustExec(t, setup, "CREATE DATABASE proto")
	var ddl []string
	for _, c := range protoColumns {
		ddl = append(ddl, c.name+" "+c.typ)
	}
	mustExec(t, setup, "CREATE TABLE proto.every (k INT, "+strings.Join(ddl, ", ")+
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
		mustExec(t, setup, "INSERT INTO proto.every VALUES ("+strings.Join(vals, ", ")+")")
	}
	p := newProtoClients(t, f, "proto")

	names := make([]string, len(protoColumns))
	for i, c := range protoColumns {
		names[i] = c.name
	}
	got := p.readBoth(t, "SELECT "+strings.Join(names, ", ")+" FROM every ORDER BY k")
	for r := 0; r < 6; r++ {
		for c, col := range protoColumns {
			want := col.want[r]
			if nullAt(r, c) {
				want = "NULL"
			}
			if got[r][c] != want {
				t.Errorf("row %d %s %s = %q, want %q", r, col.name, col.typ, got[r][c], want)
			}
		}
	}

	// 1 to 70 columns: the NULL bitmap of a binary row has a 2-bit offset,
	// so it grows a byte at 7, 15, 23, … columns. Columns cycle through the
	// table's, starting at a different one for each width, with literal
	// NULLs and constants mixed in, so a NULL lands in every position.
	for n := 1; n <= 70; n++ {
		sel := make([]string, n)
		for i := range sel {
			switch j := (i + n) % (len(protoColumns) + 2); j {
			case len(protoColumns):
				sel[i] = "NULL"
			case len(protoColumns) + 1:
				sel[i] = strconv.Itoa(i)
			default:
				sel[i] = protoColumns[j].name
			}
			sel[i] += " AS a" + strconv.Itoa(i)
		}
		p.readBoth(t, "SELECT "+strings.Join(sel, ", ")+" FROM every ORDER BY k")
	}

	// Expressions whose types come from functions rather than columns.
	p.readBoth(t, "SELECT timediff('2024-01-01 10:00:00', '2024-01-01 09:00:00.5'), CAST(c_big AS DOUBLE), "+
		"CAST(c_int AS DECIMAL(12,3)), c_dt6 + INTERVAL 1 DAY, to_date(c_dt), json_object('k', k), "+
		"CAST(k AS STRING), k > 2, sum(k) OVER (), NULL FROM every ORDER BY k")
	p.readBoth(t, "SELECT count(*), sum(c_dec52), avg(c_double), min(c_dt3), max(c_date), sum(c_int), "+
		"group_concat(c_vc), count(c_json) FROM every WHERE k = 1")
}

// TestBinaryProtocolParameters sends arguments of every type through
// COM_STMT_EXECUTE, NULL ones and long data included, and checks them
// against the same statements with the arguments interpolated as text.
func TestBinaryProtocolParameters(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	setup := f.db("")
	mustExec(t, setup, "CREATE DATABASE proto",
		"CREATE TABLE proto.p (k INT, d DATE, dt DATETIME(6), dec DECIMAL(10,2), s VARCHAR(40), b VARBINARY(20), f DOUBLE) "+
			"DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"INSERT INTO proto.p VALUES (1, '1969-12-31', '1969-12-31 23:59:59.5', 12.50, 'it''s', X'00FF', 1.5), "+
			"(2, '2024-01-05', '2024-01-05 10:00:00', -3.25, '日本', X'01', -0.25), (3, NULL, NULL, NULL, NULL, NULL, NULL)")
	p := newProtoClients(t, f, "proto")

	instant := time.Date(1969, 12, 31, 23, 59, 59, 500000000, time.UTC)
	args := []any{int64(-5), uint64(math.MaxUint64), 1.25, float32(2.5), "str'q\\x", []byte{0, 1, 2, 0xff}, true, false, nil,
		instant, int8(-8), int16(300), int32(-70000), "", strings.Repeat("é", 100)}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
	cases := []struct {
		q    string
		args []any
	}{
		{"SELECT " + marks, args},
		{"SELECT k FROM p WHERE d = ? ORDER BY k", []any{"2024-01-05"}},
		{"SELECT k FROM p WHERE dt < ? ORDER BY k", []any{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"SELECT k FROM p WHERE dt = ? ORDER BY k", []any{instant}},
		{"SELECT k FROM p WHERE dec = ? ORDER BY k", []any{"12.50"}},
		{"SELECT k FROM p WHERE dec < ? ORDER BY k", []any{0}},
		{"SELECT k FROM p WHERE s = ? OR b = ? ORDER BY k", []any{"日本", []byte{0, 0xff}}},
		{"SELECT k FROM p WHERE f > ? ORDER BY k", []any{float32(-0.5)}},
		{"SELECT k FROM p WHERE s IS NULL AND ? IS NULL ORDER BY k", []any{nil}},
		{"SELECT k, ? + k, concat(?, s), ? FROM p ORDER BY k", []any{10, "x", nil}},
		{"SELECT dec * ?, dt + INTERVAL ? SECOND FROM p ORDER BY k", []any{2, 1}},
	}
	for _, c := range cases {
		want := queryNorm(t, p.text, c.q, c.args...)
		got := queryNorm(t, p.bin, c.q, c.args...)
		diffRows(t, "binary vs text: "+c.q, got, want)
	}
	// Hand-derived: the echoed arguments, as MySQL returns them.
	got := queryNorm(t, p.bin, "SELECT "+marks, args...)
	want := []string{"-5", "18446744073709551615", "1.25", "2.5", "str'q\\x", "\x00\x01\x02\xff", "1", "0", "NULL",
		"1969-12-31 23:59:59.5", "-8", "300", "-70000", "", strings.Repeat("é", 100)}
	if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Errorf("echoed arguments = %q, want %q", got, want)
	}

	// Re-execution of one prepared statement with different arguments,
	// NULL among them.
	stmt, err := p.bin.Prepare("SELECT k, s FROM p WHERE k = ? OR s = ? ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for i, c := range []struct {
		a, b any
		want string
	}{{1, nil, "1|it's"}, {nil, "日本", "2|日本"}, {3, "it's", "1|it's;3|NULL"}, {int64(9), "none", ""}, {2, nil, "2|日本"}} {
		rs, err := stmt.Query(c.a, c.b)
		if err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
		rows, _, err := scanAll(rs)
		if err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
		var parts []string
		for _, r := range rows {
			parts = append(parts, strings.Join(r, "|"))
		}
		if g := strings.Join(parts, ";"); g != c.want {
			t.Errorf("execution %d (%v, %v) = %q, want %q", i, c.a, c.b, g, c.want)
		}
	}
}

// TestBinaryProtocolLongData sends arguments larger than the client's packet
// share, which go-sql-driver splits into COM_STMT_SEND_LONG_DATA chunks, and
// re-executes the statement so the long data of one execution does not
// leak into the next.
func TestBinaryProtocolLongData(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", f.fe.Addr().String()
	cfg.MaxAllowedPacket = 1024 // long data from 1024/(params+1) bytes on
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmt, err := db.Prepare("SELECT length(?), md5(?), ?")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for _, n := range []int{10, 5000, 300, 70000} {
		big := strings.Repeat("abcdefghij", n/10)
		blob := []byte(strings.Repeat("\x00\xff", n/2))
		var length int64
		var sum, back string
		if err := stmt.QueryRow(big, blob, n).Scan(&length, &sum, &back); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		want := fmt.Sprintf("%x", md5.Sum(blob))
		if length != int64(len(big)) || sum != want || back != strconv.Itoa(n) {
			t.Errorf("n=%d: length %d md5 %s back %s, want %d %s %d", n, length, sum, back, len(big), want, n)
		}
	}
}

func queryNorm(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	out, _, err := scanAll(rs)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}
