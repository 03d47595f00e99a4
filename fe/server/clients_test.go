package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/internal/npmcache"
	"github.com/inlet-db/inlet/minifluss"
)

// clientsScenario is the Fluss side of the client tests: one primary-key
// table with a tiered lake half and a log tail that updates, inserts and
// deletes on top of it, so a plain SELECT is a union read. After the tail
// the table holds ids 1, 2 (the tail's version), 3, 5 (from the lake) and 6
// (from the tail); 4 is deleted.
const clientsScenario = `
CREATE DATABASE shop;
CREATE TABLE shop.items (
  id INT NOT NULL COMMENT 'item id',
  name STRING COMMENT 'display name',
  price DECIMAL(10, 2),
  qty BIGINT,
  updated TIMESTAMP(3),
  day DATE,
  PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'items for the client tests'
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true', 'table.datalake.freshness' = '30s');
INSERT INTO shop.items VALUES
  (1, 'mug', '12.50', 10, '2026-01-02 03:04:05.678', '2026-01-02'),
  (2, 'poster', '30.00', 9007199254740993, '2026-01-03 00:00:00.000', '2026-01-03'),
  (3, 'map', '7.25', NULL, NULL, NULL),
  (4, 'pen', '1.99', 4, '2026-01-05 10:00:00.000', '2026-01-05'),
  (5, NULL, NULL, 5, '2026-01-06 23:59:59.999', '2026-01-06');
TIER;
FREEZE TIERING;
INSERT INTO shop.items VALUES
  (2, 'poster v2', '31.00', -9007199254740993, '2026-02-03 00:00:00.001', '2026-02-03'),
  (6, 'lamp', '99999999.99', 6, '2026-01-07 00:00:00.000', '2026-01-07');
DELETE FROM shop.items WHERE id = 4;
CREATE TABLE shop.events (id BIGINT, what STRING, at TIMESTAMP(6)) WITH ('bucket.num' = '1');
INSERT INTO shop.events VALUES (1, 'open', '2026-01-01 00:00:00.000001'), (2, NULL, NULL);
`

// clientsSeqRows is the number of rows of cl.seq (ids 0..70), enough for a
// 70-column result to carry a NULL in every column.
const clientsSeqRows = 71

// startClientsFE starts an FE with catalog fl over clientsScenario and the
// internal tables the client tests read: cl.types (every scalar type a
// client maps, one row of values, one of NULLs, one of extremes), cl.seq
// (ids 0..70, ts = 2026-01-01 00:00 plus id minutes) and cl.people (a
// UNIQUE KEY table with a composite key).
func startClientsFE(t *testing.T) *unionFE {
	t.Helper()
	sc, err := minifluss.ParseScenario(clientsScenario)
	if err != nil {
		t.Fatal(err)
	}
	f := startScenarioFE(t, sc)
	db := f.db("")
	seq := make([]string, clientsSeqRows)
	for i := range seq {
		seq[i] = fmt.Sprintf("(%d, '2026-01-01 %02d:%02d:00')", i, i/60, i%60)
	}
	mustExec(t, db,
		fmt.Sprintf(`CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, f.cluster.BootstrapAddr()),
		"CREATE DATABASE cl",
		`CREATE TABLE cl.types (
			id INT NOT NULL COMMENT 'row id',
			ti TINYINT, si SMALLINT, i INT, bi BIGINT,
			f FLOAT, d DOUBLE, dec1 DECIMAL(10,2), dec2 DECIMAL(27,9),
			dt DATE, ts DATETIME, ts3 DATETIME(3), ts6 DATETIME(6),
			s VARCHAR(20), b BOOLEAN
		) UNIQUE KEY(id) COMMENT 'one column per type' DISTRIBUTED BY HASH(id) BUCKETS 1`,
		`INSERT INTO cl.types VALUES
			(1, 127, -32768, 2147483647, 9007199254740993, 1.5, -2.25, 12345678.90, -123456789012345678.123456789,
			 '2026-01-02', '2026-01-02 03:04:05', '2026-01-02 03:04:05.678', '2026-01-02 03:04:05.678901', 'héllo', true),
			(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
			(3, -128, 0, -1, -9223372036854775808, 0, 0.5, 0.00, 0.000000001,
			 '1970-01-01', '1999-12-31 23:59:59', '1999-12-31 23:59:59.999', '1999-12-31 23:59:59.000001', '', false)`,
		"CREATE TABLE cl.seq (id INT NOT NULL, ts DATETIME) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1",
		"INSERT INTO cl.seq VALUES "+strings.Join(seq, ", "),
		`CREATE TABLE cl.people (
			org VARCHAR(8) NOT NULL, id BIGINT NOT NULL, name VARCHAR(32) COMMENT 'it''s "the" name',
			born DATE, score DOUBLE
		) UNIQUE KEY(org, id) DISTRIBUTED BY HASH(org) BUCKETS 2`,
		"INSERT INTO cl.people VALUES ('a', 1, 'Ada', '1815-12-10', 9.5), ('b', 2, 'Grace', '1906-12-09', NULL)",
		"CREATE VIEW cl.named AS SELECT org, name FROM cl.people WHERE name IS NOT NULL",
	)
	if got := explainFlussScan(t, db, "SELECT * FROM fl.shop.items"); !strings.Contains(got, "unionRead=yes") {
		t.Fatalf("fl.shop.items is not read as a union read: %s", got)
	}
	return f
}

// wideSelect is the statement of the width cases: n columns over cl.seq
// WHERE id <= ?, column j (1-based) NULL in row j and otherwise of one of
// four wire types in turn (integer, string, decimal, datetime), so every
// column position carries a NULL and the binary NULL bitmap is exercised
// for every width.
func wideSelect(n int) string {
	cols := make([]string, n)
	for j := 1; j <= n; j++ {
		var v string
		switch j % 4 {
		case 1:
			v = fmt.Sprintf("id * 100 + %d", j)
		case 2:
			v = fmt.Sprintf("concat('s', id, '_', %d)", j)
		case 3:
			v = fmt.Sprintf("CAST(id * 100 + %d AS DECIMAL(10,2))", j)
		case 0:
			v = "ts"
		}
		cols[j-1] = fmt.Sprintf("IF(id = %d, NULL, %s) AS c%d", j, v, j)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM cl.seq WHERE id <= ? ORDER BY id"
}

// wideWant is wideSelect(n)'s answer as mysql2 returns it (timezone Z),
// derived from the formulas above: rows 0..n.
func wideWant(n int) [][]any {
	var out [][]any
	for r := 0; r <= n; r++ {
		row := make([]any, n)
		for j := 1; j <= n; j++ {
			if r == j {
				continue
			}
			switch j % 4 {
			case 1:
				row[j-1] = fmt.Sprintf("n:%d", r*100+j)
			case 2:
				row[j-1] = fmt.Sprintf("s:s%d_%d", r, j)
			case 3:
				row[j-1] = fmt.Sprintf("s:%d.00", r*100+j)
			case 0:
				row[j-1] = fmt.Sprintf("d:2026-01-01T%02d:%02d:00.000Z", r/60, r%60)
			}
		}
		out = append(out, row)
	}
	return out
}

// nodeClientDir installs the npm packages of testdata/clients/package.json
// into the user cache (once per version) and returns a temporary directory
// holding script beside a link to those node_modules, so node resolves the
// script's imports there and nothing is written into the repository.
func nodeClientDir(t *testing.T, script string) (node, dir string) {
	t.Helper()
	node = fixtures.Tool(t, "node", "nodejs")
	fixtures.Tool(t, "npm", "npm")
	pj, err := os.ReadFile(filepath.Join("testdata", "clients", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(pj, &meta); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cache, err := npmcache.Ensure(ctx, "inlet-client-tests", meta.Dependencies["mysql2"], pj,
		filepath.Join("node_modules", "mysql2", "package.json"))
	if err != nil {
		fixtures.Unavailable(t, "installing mysql2 from npm: %v", err)
		return "", ""
	}
	dir = t.TempDir()
	if err := os.Symlink(filepath.Join(cache, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "clients", script))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, script), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return node, dir
}

type mysql2Case struct {
	name   string
	sql    string
	params []any
	opts   map[string]any
	want   [][]any
}

// TestNodeMySQL2 drives the FE with Node's mysql2 as applications use it:
// .query (text protocol) and .execute (server-side prepared statements, the
// binary protocol) with parameters, over internal tables and a Fluss union
// read. Both must give the hand-derived rows, with the JS types mysql2's
// documentation promises: DECIMAL as string, DATE/DATETIME as Date, BIGINT as
// a (possibly rounded) number unless supportBigNumbers asks for strings
// beyond 2^53, and results of 1 to 70 columns with a NULL in every position.
func TestNodeMySQL2(t *testing.T) {
	node, dir := nodeClientDir(t, "mysql2.mjs")
	f := startClientsFE(t)

	typesQ := "SELECT * FROM cl.types WHERE id >= ? ORDER BY id"
	nulls := func(n int) []any { return make([]any, n) }
	typesRow1 := []any{"n:1", "n:127", "n:-32768", "n:2147483647", "n:9007199254740992", "n:1.5", "n:-2.25",
		"s:12345678.90", "s:-123456789012345678.123456789", "d:2026-01-02T00:00:00.000Z", "d:2026-01-02T03:04:05.000Z",
		"d:2026-01-02T03:04:05.678Z", "d:2026-01-02T03:04:05.678Z", "s:héllo", "n:1"}
	typesRow3 := []any{"n:3", "n:-128", "n:0", "n:-1", "n:-9223372036854776000", "n:0", "n:0.5",
		"s:0.00", "s:0.000000001", "d:1970-01-01T00:00:00.000Z", "d:1999-12-31T23:59:59.000Z",
		"d:1999-12-31T23:59:59.999Z", "d:1999-12-31T23:59:59.000Z", "s:", "n:0"}
	row2 := append([]any{"n:2"}, nulls(14)...)
	with := func(row []any, at int, v any) []any {
		r := append([]any(nil), row...)
		r[at] = v
		return r
	}
	cases := []mysql2Case{
		{name: "types", sql: typesQ, params: []any{1}, want: [][]any{typesRow1, row2, typesRow3}},
		// supportBigNumbers: BIGINTs beyond 2^53 come back as exact strings.
		{name: "types_bignumbers", sql: typesQ, params: []any{1}, opts: map[string]any{"supportBigNumbers": true},
			want: [][]any{with(typesRow1, 4, "s:9007199254740993"), row2, with(typesRow3, 4, "s:-9223372036854775808")}},
		// bigNumberStrings: every BIGINT as a string, in range or not.
		{name: "types_bignumberstrings", sql: "SELECT id, bi FROM cl.types WHERE id <> ? ORDER BY id", params: []any{2},
			opts: map[string]any{"supportBigNumbers": true, "bigNumberStrings": true},
			want: [][]any{{"n:1", "s:9007199254740993"}, {"n:3", "s:-9223372036854775808"}}},
		// dateStrings: DATE and DATETIME as the server's text, all digits kept.
		{name: "types_datestrings", sql: "SELECT dt, ts, ts3, ts6 FROM cl.types WHERE id = ?", params: []any{1},
			opts: map[string]any{"dateStrings": true},
			want: [][]any{{"s:2026-01-02", "s:2026-01-02 03:04:05", "s:2026-01-02 03:04:05.678", "s:2026-01-02 03:04:05.678901"}}},
		// decimalNumbers: DECIMAL as a JS number.
		{name: "types_decimalnumbers", sql: "SELECT dec1 FROM cl.types WHERE id = ?", params: []any{1},
			opts: map[string]any{"decimalNumbers": true}, want: [][]any{{"n:12345678.9"}}},
		// Parameters of every JS type mysql2 binds, each matching one row:
		// number (sent as DOUBLE), string, Date (DATETIME), BigInt
		// (LONGLONG, exact beyond 2^53: ...992 would match nothing), boolean
		// (TINY), null.
		{name: "param_number", sql: "SELECT id FROM cl.types WHERE i = ?", params: []any{2147483647}, want: [][]any{{"n:1"}}},
		{name: "param_string", sql: "SELECT id FROM cl.types WHERE s = ?", params: []any{""}, want: [][]any{{"n:3"}}},
		{name: "param_date", sql: "SELECT id FROM cl.types WHERE ts = ?",
			params: []any{map[string]string{"date": "1999-12-31T23:59:59Z"}}, want: [][]any{{"n:3"}}},
		{name: "param_bigint", sql: "SELECT id FROM cl.types WHERE bi = ?",
			params: []any{map[string]string{"bigint": "9007199254740993"}}, want: [][]any{{"n:1"}}},
		{name: "param_boolean", sql: "SELECT id FROM cl.types WHERE b = ?", params: []any{false}, want: [][]any{{"n:3"}}},
		{name: "param_null", sql: "SELECT ? IS NULL, ? + 1", params: []any{nil, nil}, want: [][]any{{"n:1", nil}}},
		{name: "param_decimal_string", sql: "SELECT id FROM cl.types WHERE dec1 = ?", params: []any{"12345678.90"}, want: [][]any{{"n:1"}}},

		// Union read of a Fluss primary-key table: lake rows, the tail's
		// update of id 2, its insert of id 6, its delete of id 4.
		{name: "fluss_all", sql: "SELECT * FROM fl.shop.items WHERE id > ? ORDER BY id", params: []any{0}, want: [][]any{
			{"n:1", "s:mug", "s:12.50", "n:10", "d:2026-01-02T03:04:05.678Z", "d:2026-01-02T00:00:00.000Z"},
			{"n:2", "s:poster v2", "s:31.00", "n:-9007199254740992", "d:2026-02-03T00:00:00.001Z", "d:2026-02-03T00:00:00.000Z"},
			{"n:3", "s:map", "s:7.25", nil, nil, nil},
			{"n:5", nil, nil, "n:5", "d:2026-01-06T23:59:59.999Z", "d:2026-01-06T00:00:00.000Z"},
			{"n:6", "s:lamp", "s:99999999.99", "n:6", "d:2026-01-07T00:00:00.000Z", "d:2026-01-07T00:00:00.000Z"},
		}},
		// The same statement again on the same connection: mysql2 re-executes
		// its cached prepared statement with the new parameter.
		{name: "fluss_all_again", sql: "SELECT * FROM fl.shop.items WHERE id > ? ORDER BY id", params: []any{3}, want: [][]any{
			{"n:5", nil, nil, "n:5", "d:2026-01-06T23:59:59.999Z", "d:2026-01-06T00:00:00.000Z"},
			{"n:6", "s:lamp", "s:99999999.99", "n:6", "d:2026-01-07T00:00:00.000Z", "d:2026-01-07T00:00:00.000Z"},
		}},
		{name: "fluss_bignumbers", sql: "SELECT id, qty FROM fl.shop.items WHERE id = ?", params: []any{2},
			opts: map[string]any{"supportBigNumbers": true}, want: [][]any{{"n:2", "s:-9007199254740993"}}},
		{name: "fluss_filter", sql: "SELECT id, name, price FROM fl.shop.items WHERE price > ? AND id <> ? ORDER BY id",
			params: []any{"10.00", 6}, want: [][]any{{"n:1", "s:mug", "s:12.50"}, {"n:2", "s:poster v2", "s:31.00"}}},
		// count 3 (ids 2, 5, 6); sum -9007199254740993 + 5 + 6.
		{name: "fluss_agg", sql: "SELECT count(*) AS n, sum(qty) AS q FROM fl.shop.items WHERE day >= ?",
			params: []any{map[string]string{"date": "2026-01-03T00:00:00Z"}}, want: [][]any{{"n:3", "n:-9007199254740982"}}},
		{name: "fluss_join", sql: "SELECT i.id, p.name FROM fl.shop.items i JOIN cl.people p ON p.id = i.id WHERE i.id < ? ORDER BY i.id",
			params: []any{10}, want: [][]any{{"n:1", "s:Ada"}, {"n:2", "s:Grace"}}},
	}
	for _, n := range []int{1, 2, 6, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 63, 64, 65, 70} {
		cases = append(cases, mysql2Case{name: fmt.Sprintf("width_%d", n), sql: wideSelect(n), params: []any{n}, want: wideWant(n)})
	}
	// The binary protocol's own byte layout for 7 columns of literals (the
	// shape of the original report).
	cases = append(cases, mysql2Case{name: "literals_7", sql: "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f, 7 AS g",
		want: [][]any{{"n:1", "n:2", "n:3", "n:4", "n:5", "n:6", "n:7"}}})

	type jsCase struct {
		Name   string         `json:"name"`
		SQL    string         `json:"sql"`
		Params []any          `json:"params"`
		Opts   map[string]any `json:"opts,omitempty"`
	}
	in := struct {
		Port  int      `json:"port"`
		Cases []jsCase `json:"cases"`
	}{Port: f.fe.Addr().(*net.TCPAddr).Port}
	for _, c := range cases {
		params := c.params
		if params == nil {
			params = []any{}
		}
		in.Cases = append(in.Cases, jsCase{Name: c.name, SQL: c.sql, Params: params, Opts: c.opts})
	}
	got := runNodeJSON(t, node, dir, "mysql2.mjs", in)
	var res map[string]struct {
		Query   json.RawMessage `json:"query"`
		Execute json.RawMessage `json:"execute"`
	}
	if err := json.Unmarshal(got, &res); err != nil {
		t.Fatalf("mysql2 output: %v\n%s", err, got)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := res[c.name]
			if !ok {
				t.Fatal("no result")
			}
			want, _ := json.Marshal(c.want)
			for how, raw := range map[string]json.RawMessage{"query": r.Query, "execute": r.Execute} {
				if !jsonEqual(raw, want) {
					t.Errorf("%s:\n got: %s\nwant: %s", how, raw, want)
				}
			}
		})
	}
}

// runNodeJSON runs node script (in dir) with in as JSON on stdin and returns
// its stdout.
func runNodeJSON(t *testing.T, node, dir, script string, in any) []byte {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// pythonClients returns a python3 that imports pymysql, sqlalchemy and
// pandas: the one on PATH, else Debian's, whose packages .ci/run installs.
func pythonClients(t *testing.T) string {
	t.Helper()
	var cands []string
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if exec.Command(p, "-c", "import pymysql, sqlalchemy, pandas").Run() == nil {
			return p
		}
	}
	fixtures.Unavailable(t, "no python3 imports pymysql, sqlalchemy and pandas: install the Debian packages python3-pymysql python3-sqlalchemy python3-pandas (.ci/run does)")
	return ""
}

// TestSQLAlchemy reflects internal and Fluss tables with SQLAlchemy's MySQL
// dialect over PyMySQL, as ORMs and notebooks do on connect, and reads a
// union read with pandas. The script turns every warning into an error:
// SQLAlchemy parses SHOW CREATE TABLE line by line and warns on each line it
// does not know, which is how a reflection that lost a key or a column shows.
func TestSQLAlchemy(t *testing.T) {
	py := pythonClients(t)
	f := startClientsFE(t)

	// The text SQLAlchemy parses: Doris's column lines and clauses, MySQL's
	// PRIMARY KEY line, the clauses on the ") " line.
	db := f.db("")
	for _, tc := range []struct{ table, want string }{
		{"cl.people", "CREATE TABLE `people` (\n" +
			"  `org` varchar(8) NOT NULL,\n" +
			"  `id` bigint NOT NULL,\n" +
			"  `name` varchar(32) NULL COMMENT \"it's \\\"the\\\" name\",\n" +
			"  `born` date NULL,\n" +
			"  `score` double NULL,\n" +
			"  PRIMARY KEY (`org`, `id`)\n" +
			") ENGINE=OLAP UNIQUE KEY(`org`, `id`) DISTRIBUTED BY HASH(`org`) BUCKETS 2;"},
		{"cl.seq", "CREATE TABLE `seq` (\n" +
			"  `id` int NOT NULL,\n" +
			"  `ts` datetime NULL\n" +
			") ENGINE=OLAP DUPLICATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1;"},
		{"fl.shop.events", "CREATE TABLE `events` (\n" +
			"  `id` bigint NULL,\n" +
			"  `what` text NULL,\n" +
			"  `at` datetime(6) NULL\n" +
			")"},
		{"fl.shop.items", "CREATE TABLE `items` (\n" +
			"  `id` int NULL COMMENT \"item id\",\n" +
			"  `name` text NULL COMMENT \"display name\",\n" +
			"  `price` decimal(10,2) NULL,\n" +
			"  `qty` bigint NULL,\n" +
			"  `updated` datetime(3) NULL,\n" +
			"  `day` date NULL,\n" +
			"  PRIMARY KEY (`id`)\n" +
			") COMMENT \"items for the client tests\";"},
	} {
		wantRows(t, db, "SHOW CREATE TABLE "+tc.table, tc.table[strings.LastIndexByte(tc.table, '.')+1:]+"|"+tc.want)
	}
	wantRows(t, db, "SHOW CREATE TABLE cl.named",
		"named|CREATE VIEW named AS SELECT org, name FROM internal.cl.people WHERE name IS NOT NULL|utf8mb4|utf8mb4_0900_bin")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "clients", "sqlalchemy_reflect.py"), fmt.Sprint(f.fe.Addr().(*net.TCPAddr).Port))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("script output: %v\n%s", err, out)
	}
	// Types as the DDL declares them, in SQLAlchemy's MySQL spelling (Doris's
	// text is MySQL's TEXT, boolean its BOOL); keys as declared: cl.types'
	// UNIQUE KEY(id), cl.people's composite UNIQUE KEY(org, id), the Fluss
	// table's PRIMARY KEY (id), none for the DUPLICATE KEY table cl.seq.
	// Rows: the union read of clientsScenario (ids 1, 2 from the tail, 3,
	// 5, 6 from the tail) and cl.types / cl.people as inserted; pandas turns
	// an integer column with a NULL into float64 (so BIGINT 9007199254740993
	// rounds to ...992) and DECIMAL into float.
	want := map[string]string{
		"cl.tables": `["people", "seq", "types"]`,
		"cl.types.columns": `[["id", "INTEGER", false], ["ti", "TINYINT", true], ["si", "SMALLINT", true], ["i", "INTEGER", true],
			["bi", "BIGINT", true], ["f", "FLOAT", true], ["d", "DOUBLE", true], ["dec1", "DECIMAL(10, 2)", true],
			["dec2", "DECIMAL(27, 9)", true], ["dt", "DATE", true], ["ts", "DATETIME", true], ["ts3", "DATETIME(3)", true],
			["ts6", "DATETIME(6)", true], ["s", "VARCHAR(20)", true], ["b", "BOOL", true]]`,
		"cl.types.pk":      `["id"]`,
		"cl.types.indexes": `[]`,
		"cl.people.columns": `[["org", "VARCHAR(8)", false], ["id", "BIGINT", false], ["name", "VARCHAR(32)", true],
			["born", "DATE", true], ["score", "DOUBLE", true]]`,
		"cl.people.pk":      `["org", "id"]`,
		"cl.people.indexes": `[]`,
		"cl.seq.columns":    `[["id", "INTEGER", false], ["ts", "DATETIME", true]]`,
		"cl.seq.pk":         `[]`,
		"cl.seq.indexes":    `[]`,
		"fl.tables":         `["events", "items"]`,
		// A log table without comment or key: its SHOW CREATE TABLE ends in a
		// bare ")".
		"fl.events.columns": `[["id", "BIGINT", true], ["what", "TEXT", true], ["at", "DATETIME(6)", true]]`,
		"fl.events.pk":      `[]`,
		"fl.events.indexes": `[]`,
		"fl.events.other":   `[[], [], [], null]`,
		"fl.items.columns": `[["id", "INTEGER", true], ["name", "TEXT", true], ["price", "DECIMAL(10, 2)", true],
			["qty", "BIGINT", true], ["updated", "DATETIME(3)", true], ["day", "DATE", true]]`,
		"fl.items.pk":      `["id"]`,
		"fl.items.indexes": `[]`,
		// No foreign keys, unique constraints or checks; the table comment is
		// None: Doris writes comments in double quotes, which SQLAlchemy's
		// parser (single quotes only) skips without a warning.
		"cl.types.other":  `[[], [], [], null]`,
		"cl.people.other": `[[], [], [], null]`,
		"cl.seq.other":    `[[], [], [], null]`,
		"fl.items.other":  `[[], [], [], null]`,
		// The view reflects through SHOW CREATE TABLE (which shows the view)
		// and DESCRIBE; a query's columns carry no varchar length: TEXT.
		"cl.views":          `["named"]`,
		"cl.named.columns":  `[["org", "TEXT", true], ["name", "TEXT", true]]`,
		"fl.views":          `[]`,
		"cl.schemas":        `true`,
		"fl.schemas":        `true`,
		"fl.items.autoload": `[["id", true], ["name", false], ["price", false], ["qty", false], ["updated", false], ["day", false]]`,
		"fl.read_sql": `[["int64", "object", "float64", "float64", "datetime64[ns]", "object"], [
			["1", "mug", "12.5", "10.0", "2026-01-02 03:04:05.678000", "2026-01-02"],
			["2", "poster v2", "31.0", "-9007199254740992.0", "2026-02-03 00:00:00.001000", "2026-02-03"],
			["3", "map", "7.25", null, null, null],
			["5", null, null, "5.0", "2026-01-06 23:59:59.999000", "2026-01-06"],
			["6", "lamp", "99999999.99", "6.0", "2026-01-07 00:00:00", "2026-01-07"]]]`,
		"fl.read_sql_params": `[["int64", "object", "float64"], [["1", "mug", "12.5"], ["2", "poster v2", "31.0"], ["6", "lamp", "99999999.99"]]]`,
		"cl.read_sql": `[["int64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64",
			"object", "datetime64[ns]", "datetime64[ns]", "datetime64[ns]", "object", "float64"], [
			["1", "127.0", "-32768.0", "2147483647.0", "9007199254740992.0", "1.5", "-2.25", "12345678.9", "-1.2345678901234568e+17",
			 "2026-01-02", "2026-01-02 03:04:05", "2026-01-02 03:04:05.678000", "2026-01-02 03:04:05.678901", "h\u00e9llo", "1.0"],
			["2", null, null, null, null, null, null, null, null, null, null, null, null, null, null],
			["3", "-128.0", "0.0", "-1.0", "-9.223372036854776e+18", "0.0", "0.5", "0.0", "1e-09",
			 "1970-01-01", "1999-12-31 23:59:59", "1999-12-31 23:59:59.999000", "1999-12-31 23:59:59.000001", "", "0.0"]]]`,
		"cl.read_sql_table": `[["object", "int64", "object", "datetime64[ns]", "float64"], [
			["a", "1", "Ada", "1815-12-10 00:00:00", "9.5"], ["b", "2", "Grace", "1906-12-09 00:00:00", null]]]`,
		// PyMySQL's own types: exact BIGINT, Decimal, date, datetime with
		// microseconds.
		"pymysql": `[["int:1", "int:9007199254740993", "Decimal:12345678.90", "date:2026-01-02", "datetime:2026-01-02 03:04:05.678901", "str:héllo", "int:1"],
			["int:3", "int:-9223372036854775808", "Decimal:0.00", "date:1970-01-01", "datetime:1999-12-31 23:59:59.000001", "str:", "int:0"]]`,
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: missing from the script's output", k)
			continue
		}
		if !jsonEqual(g, []byte(w)) {
			t.Errorf("%s:\n got: %s\nwant: %s", k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: output not checked: %s", k, got[k])
		}
	}
}
