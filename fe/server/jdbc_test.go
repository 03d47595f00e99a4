package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/scan"
)

// connectorJ is where Debian's libmariadb-java puts MariaDB Connector/J.
const connectorJ = "/usr/share/java/mariadb-java-client.jar"

// TestConnectorJ runs testdata/jdbc/JdbcCheck.java with MariaDB Connector/J
// against a real FE holding the demo tables, a UNIQUE KEY table of every
// scalar type and a Fluss catalog over the emulator: the same prepared
// queries through the text protocol and through server-side prepared
// statements (the binary protocol), the DatabaseMetaData calls DBeaver and
// IntelliJ make on connect, and a Fluss database addressed as Doris does,
// catalog.db in the URL. Every expected line is derived by hand from the
// rows inserted here, the demo's and the Fluss scenario's.
func TestConnectorJ(t *testing.T) {
	java := fixtures.Tool(t, "java", "default-jdk-headless")
	if _, err := os.Stat(connectorJ); err != nil {
		fixtures.Unavailable(t, "MariaDB Connector/J is not at %s: install the Debian package libmariadb-java (.ci/run does)", connectorJ)
	}
	cl, _ := startMetaCluster(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	t.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: t.TempDir(), Mem: mem, Demo: true,
		Types: []catalog.Type{fluss.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	f := &testFE{t: t, fe: fe, mem: mem}
	t.Cleanup(f.stop)
	db := f.db("demo")
	mustExec(t, db,
		"CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='"+cl.BootstrapAddr()+"')",
		`CREATE TABLE typed (id INT NOT NULL COMMENT 'row id', b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, d DOUBLE,
			amt DECIMAL(10,2), dt DATE, ts DATETIME(3), s VARCHAR(20)) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`,
		`INSERT INTO typed VALUES
			(1, true, -128, 32767, 9007199254740993, 1.5, 12345678.91, '2026-02-28', '2026-05-06 07:08:09.123', 'it''s'),
			(2, false, 127, -32768, -9223372036854775807, -2.25, -0.50, '1970-01-01', '1999-12-31 23:59:59.999', ''),
			(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, java, "-cp", connectorJ, filepath.Join("testdata", "jdbc", "JdbcCheck.java"), fe.Addr().String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v\n%s\n%s", err, out, stderr.String())
	}
	t.Logf("Connector/J checks took %v", time.Since(start).Round(time.Millisecond))
	want := "## useServerPrepStmts=false\n" + connectorJQueries + "## useServerPrepStmts=true\n" + connectorJQueries +
		connectorJMetadata + connectorJFluss
	got := string(out)
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got: %s\nwant: %s", i+1, g, w)
			}
		}
		t.Logf("full output:\n%s", got)
	}
}

// connectorJQueries is what both protocols must answer. Headers are
// label:TYPE(precision,scale) from ResultSetMetaData: MySQL's display widths
// (INT 11, BIGINT 20, DOUBLE 22), DECIMAL(p,s) as declared, DATETIME(3) 23
// wide ('YYYY-MM-DD hh:mm:ss.fff'), BOOLEAN as TINYINT(1), which Connector/J
// reads as a Java boolean. Rows: the typed table as inserted; params
// matches row 1 by s and row 2 by amt; nullparam counts b = true (row 1)
// and s <=> NULL (row 3); join is the demo orders from 2026-04-02 per
// customer (1003 Ada 4, 1006 Grace 3, 1004 Linus 1, 1005 Margaret 2; 1007
// has no customer); union is lake_log's tiered rows 2-4 and its log tail 5-6;
// pk is pk_basic after key 3 was deleted; wide crosses the NULL bitmap's
// first byte (12 columns) and shows DATETIME's widths, 19 without a
// fraction and 26 with six digits (java.sql.Timestamp prints ".0" for none).
const connectorJQueries = `== typed: id:INTEGER(11,0) b:TINYINT(1,0) ti:TINYINT(4,0) si:SMALLINT(6,0) bi:BIGINT(20,0) d:DOUBLE(22,0) amt:DECIMAL(10,2) dt:DATE(10,0) ts:DATETIME(23,3) s:VARCHAR(16383,0)
1|true|-128|32767|9007199254740993|1.5|12345678.91|2026-02-28|2026-05-06 07:08:09.123|it's
2|false|127|-32768|-9223372036854775807|-2.25|-0.50|1970-01-01|1999-12-31 23:59:59.999|
3|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL
== params: id:INTEGER(11,0) s:VARCHAR(16383,0)
1|it's
2|
== nullparam: n:BIGINT(20,0)
2
== join: name:VARCHAR(16383,0) n:BIGINT(20,0) q:BIGINT(20,0)
Ada|1|4
Grace|1|3
Linus|1|1
Margaret|1|2
== union: id:INTEGER(11,0) name:VARCHAR(16383,0) price:DECIMAL(10,2)
2|lake2|2.20
3|lake3|3.30
4|lake4|4.40
5|hot5|5.50
6|hot6|6.60
== pk: id:INTEGER(11,0) name:VARCHAR(16383,0) score:DOUBLE(22,0)
1|k1|1.5
2|k2|2.5
4|k4|4.5
== wide: a:BIGINT(20,0) b:VARCHAR(16383,0) c:VARCHAR(16383,0) d:DECIMAL(3,2) e:VARCHAR(16383,0) f:BIGINT(20,0) g:BIGINT(20,0) h:VARCHAR(16383,0) i:VARCHAR(16383,0) j:DATETIME(19,0) k:DATETIME(26,6) l:DOUBLE(22,0)
1|NULL|x|2.50|NULL|6|7|NULL|nine|2026-01-02 03:04:05.0|2026-01-02 03:04:05.123456|0.1
`

// connectorJMetadata: the JDBC catalogs are the databases of the session's
// catalog (MariaDB's getCatalogs reads information_schema.SCHEMATA, as
// MySQL's Connector/J runs SHOW DATABASES against Doris); MySQL has no
// schemas. getColumns' sizes: INT 10 digits, BOOLEAN a BIT of 1 as MySQL's
// tinyint(1), TINYINT 3, SMALLINT 5, BIGINT 19, DOUBLE 22 (MySQL's), DECIMAL
// 10 and 2, DATE 10, DATETIME(3) 23, VARCHAR(20) 20; NULLABLE 0 for NOT NULL id
// (columnNoNulls), 1 (columnNullable) for the rest. typed's UNIQUE KEY(id)
// is its primary key and only index; products (DUPLICATE KEY) has none; no
// foreign keys, procedures or functions exist. The isolation level reads
// back as set (2 = READ_COMMITTED, 8 = SERIALIZABLE).
const connectorJMetadata = `## metadata
== catalogs
demo
information_schema
== schemas
== tables
demo|customers|TABLE|demo customers
demo|orders|TABLE|
demo|products|TABLE|
demo|typed|TABLE|
== columns
id|4|INT|10|0|0|NO|1|row id
b|-7|BIT|1|0|1|YES|2|
ti|-6|TINYINT|3|0|1|YES|3|
si|5|SMALLINT|5|0|1|YES|4|
bi|-5|BIGINT|19|0|1|YES|5|
d|8|DOUBLE|22|NULL|1|YES|6|
amt|3|DECIMAL|10|2|1|YES|7|
dt|91|DATE|10|NULL|1|YES|8|
ts|93|DATETIME|23|NULL|1|YES|9|
s|12|VARCHAR|20|NULL|1|YES|10|
== primaryKeys
typed|id|1|PRIMARY
== primaryKeys dup
== indexInfo
typed|0|PRIMARY|1|id
== importedKeys
== exportedKeys
== procedures
== functions
== typeInfo
rows>20=true decimal=true
== isolation
2
8
SERIALIZABLE|SERIALIZABLE
== resultMeta
amt|DECIMAL|3|10|2|java.math.BigDecimal|1
ts|DATETIME|93|23|3|java.sql.Timestamp|1
b|TINYINT|-7|1|0|java.lang.Boolean|1
s|VARCHAR|12|16383|0|java.lang.String|1
`

// connectorJFluss: with "fl.fluss_test" in the URL the session is in
// catalog fl, so the JDBC catalogs are fl's databases; log_basic's columns
// and comments as the scenario declares them (STRING is TEXT, unbounded);
// pk_basic's primary key; lake_log's six rows (1.10 + ... + 6.60 = 23.10,
// SUM of DECIMAL(10,2) is DECIMAL(38,2) as in Doris).
const connectorJFluss = `## fl.fluss_test
== fluss catalogs
fluss_test
information_schema
other_db
== fluss tables
fluss_test|lake_empty|TABLE|
fluss_test|lake_log|TABLE|fluss log table tiered into paimon
fluss_test|lake_part|TABLE|
fluss_test|lake_pk|TABLE|
== fluss columns
id|4|INT|10|0|1|YES|row id
name|-1|TEXT|2147483647|NULL|1|YES|row name
price|3|DECIMAL|10|2|1|YES|
== fluss primaryKeys
id|1|PRIMARY
== fluss query: n:BIGINT(20,0) total:DECIMAL(38,2)
6|23.10
`

// TestJDBCMetadataSQL checks, without a JVM, the SQL underneath the JDBC
// metadata calls: CONVERT, SET TRANSACTION, and the information_schema
// tables drivers read.
func TestJDBCMetadataSQL(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("demo")
	mustExec(t, db, `CREATE TABLE u (k1 INT NOT NULL, k2 VARCHAR(8) NOT NULL, v DECIMAL(12,3), ok BOOLEAN, at DATETIME(6), note STRING)
		UNIQUE KEY(k1, k2) DISTRIBUTED BY HASH(k1) BUCKETS 1`)

	// MySQL's CONVERT(x, type) is CAST; CONVERT(x USING cs) is x.
	wantRows(t, db, "SELECT CONVERT('12', UNSIGNED INTEGER) + 1, CONVERT(CASE 1 WHEN 1 THEN 7 END, SIGNED), CONVERT('abc' USING utf8mb4)", "13|7|abc")

	// SET [SESSION|GLOBAL] TRANSACTION sets what drivers read back; without
	// a scope it is for the next transaction only (MySQL), so nothing stays.
	wantRows(t, db, "SELECT @@tx_isolation, @@transaction_isolation, @@tx_read_only", "REPEATABLE-READ|REPEATABLE-READ|0")
	mustExec(t, db, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY")
	wantRows(t, db, "SELECT @@tx_isolation, @@transaction_isolation, @@tx_read_only", "READ-COMMITTED|READ-COMMITTED|1")
	mustExec(t, db, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	wantRows(t, db, "SELECT @@tx_isolation", "READ-COMMITTED")
	mustExec(t, db, "SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
	wantRows(t, db, "SELECT @@global.tx_isolation, @@tx_isolation", "READ-UNCOMMITTED|READ-UNCOMMITTED")

	// COLUMNS: MySQL's sizes of each type; UNIQUE KEY columns are the
	// primary key (PRI), DUPLICATE KEY ones DUP.
	wantRows(t, db, `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,
		NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLUMN_KEY FROM information_schema.columns
		WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME IN ('u', 'products') ORDER BY TABLE_NAME, ORDINAL_POSITION`,
		"sku|varchar|varchar(16)|16|64|NULL|NULL|NULL|utf8mb4|DUP",
		"title|varchar|varchar(128)|128|512|NULL|NULL|NULL|utf8mb4|",
		"price|decimal|decimal(10,2)|NULL|NULL|10|2|NULL|NULL|",
		"k1|int|int|NULL|NULL|10|0|NULL|NULL|PRI",
		"k2|varchar|varchar(8)|8|32|NULL|NULL|NULL|utf8mb4|PRI",
		"v|decimal|decimal(12,3)|NULL|NULL|12|3|NULL|NULL|",
		"ok|tinyint|tinyint(1)|NULL|NULL|1|0|NULL|NULL|",
		"at|datetime|datetime(6)|NULL|NULL|NULL|NULL|6|NULL|",
		"note|text|text|2147483647|2147483647|NULL|NULL|NULL|utf8mb4|")
	// The primary key as MySQL lists it: index PRIMARY, constraint PRIMARY.
	wantRows(t, db, "SELECT TABLE_NAME, NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME FROM information_schema.statistics WHERE TABLE_SCHEMA = 'demo' ORDER BY 1, 4",
		"u|0|PRIMARY|1|k1", "u|0|PRIMARY|2|k2")
	wantRows(t, db, "SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, REFERENCED_TABLE_NAME FROM information_schema.key_column_usage WHERE TABLE_SCHEMA = 'demo' ORDER BY 4",
		"PRIMARY|u|k1|1|NULL", "PRIMARY|u|k2|2|NULL")
	wantRows(t, db, "SELECT CONSTRAINT_NAME, TABLE_NAME, CONSTRAINT_TYPE FROM information_schema.table_constraints WHERE TABLE_SCHEMA = 'demo'",
		"PRIMARY|u|PRIMARY KEY")
	// information_schema's text compares without regard to case, as in
	// MySQL (Connector/J's getColumns tests IS_NULLABLE = 'yes'); tables'
	// text does not.
	wantRows(t, db, "SELECT COLUMN_NAME, IS_NULLABLE = 'yes', IS_NULLABLE != 'YES', IF(IS_NULLABLE = 'Yes', 1, 0) FROM information_schema.columns WHERE table_name = 'U' ORDER BY ORDINAL_POSITION LIMIT 2")
	wantRows(t, db, "SELECT COLUMN_NAME, IS_NULLABLE = 'yes', IS_NULLABLE != 'YES', IF(IS_NULLABLE = 'Yes', 1, 0) FROM information_schema.columns WHERE table_name = 'u' AND column_name <=> 'v' ORDER BY ORDINAL_POSITION",
		"v|1|0|1")
	wantRows(t, db, "SELECT count(*) FROM information_schema.statistics WHERE index_name = 'primary' AND table_name = 'u'", "2")
	wantRows(t, db, "SELECT count(*) FROM products WHERE sku = 'a-1'", "0")
	// Views are tables of type VIEW, with their query's columns typed as
	// DESC of the view shows them (a string is text), the definition stored
	// qualified as SHOW CREATE VIEW prints it.
	mustExec(t, db, "CREATE VIEW cheap COMMENT 'under 20' AS SELECT sku, price FROM products WHERE price < 20")
	wantRows(t, db, "SELECT TABLE_NAME, TABLE_TYPE, TABLE_COMMENT FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME IN ('cheap', 'u') ORDER BY 1",
		"cheap|VIEW|under 20", "u|BASE TABLE|")
	wantRows(t, db, "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.views", "cheap|SELECT sku, price FROM internal.demo.products WHERE price < 20")
	wantRows(t, db, "SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.columns WHERE TABLE_NAME = 'cheap' ORDER BY 2",
		"sku|1|text|text|NULL|NULL", "price|2|decimal|decimal(10,2)|10|2")
	// No foreign keys, procedures or functions: empty, not missing.
	wantRows(t, db, "SELECT count(*) FROM information_schema.referential_constraints", "0")
	wantRows(t, db, "SELECT count(*) FROM information_schema.routines", "0")
	wantRows(t, db, "SELECT count(*) FROM information_schema.parameters", "0")
}

// TestNotSupportedNamesStatement: a statement the parser knows and the
// server does not run is refused by its keywords, never by a Go type name.
func TestNotSupportedNamesStatement(t *testing.T) {
	for _, c := range []struct{ stmt, want string }{
		{"SET SESSION TRANSACTION READ ONLY", "SET SESSION TRANSACTION statements are not supported"},
		{"KILL QUERY 7", "KILL QUERY statements are not supported"},
		{"SELECT 1", "SELECT statements are not supported"},
	} {
		st, err := sql.Parse(c.stmt)
		if err != nil {
			t.Fatal(err)
		}
		got := notSupported(st).Error()
		if !strings.Contains(got, c.want) || strings.ContainsAny(got, "*") || strings.Contains(got, "sql.") {
			t.Errorf("%s: %q, want %q", c.stmt, got, c.want)
		}
	}
}
