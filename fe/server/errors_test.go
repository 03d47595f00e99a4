package server

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/fe/sql"
)

// TestWireErrors pins, through a real MySQL driver, the errno and the whole
// message of the errors this package words itself: the code comes from the
// kind (wireKinds), the text is the site's, unchanged. Numbers are MySQL's
// (server error reference) where a client reacts to them, else Doris' 1105.
func TestWireErrors(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE shop",
		"CREATE TABLE shop.t (a INT NOT NULL, b VARCHAR(8)) DUPLICATE KEY(a) DISTRIBUTED BY HASH(a) BUCKETS 1 PROPERTIES ('replication_num' = '1')",
		"CREATE CATALOG lake1 PROPERTIES ('type'='localdir')",
	)
	const p = "errCode = 2, detailMessage = "
	cases := []struct {
		q   string
		num uint16
		msg string
	}{
		// No database selected yet: bind.ErrNoDatabase.
		{"SELECT * FROM t", 1046, "No database selected"},
		// Resolution marks the catalog's "not found" with the object kind.
		{"USE nodb", 1049, "Unknown database 'nodb'"},
		{"USE nocat.nodb", 1105, "Unknown catalog 'nocat'"},
		{"SELECT * FROM nocat.demo.orders", 1105, "Unknown catalog 'nocat'"},
		{"SELECT * FROM demo.nosuch", 1146, "Table 'demo.nosuch' doesn't exist"},
		{"SELECT * FROM information_schema.nope", 1146, "Table 'information_schema.nope' doesn't exist"},
		{"DROP CATALOG nocat", 1105, "Unknown catalog 'nocat'"},
		{"DROP DATABASE nodb", 1008, "Can't drop database 'nodb'; database doesn't exist"},
		{"DROP TABLE shop.nope", 1146, "Unknown table 'nope'"},
		{"CREATE DATABASE shop", 1007, "Can't create database 'shop'; database exists"},
		{"CREATE TABLE shop.t (a INT) DUPLICATE KEY(a)", 1050, "Table 't' already exists"},
		{"CREATE CATALOG lake1 PROPERTIES ('type'='localdir')", 1105, "Catalog 'lake1' already exists"},
		// Statement checks.
		{"CREATE TABLE shop.u (a INT) AGGREGATE KEY(a)", 1235, "AGGREGATE KEY tables are not supported by the internal catalog; use DUPLICATE KEY"},
		{"CREATE TABLE shop.u (a INT) DUPLICATE KEY(z)", 1054, "Key column z does not exist in table u"},
		{"INSERT INTO shop.t VALUES (1)", 1136, "Column count doesn't match value count at row 1"},
		{"INSERT INTO shop.t SELECT 1", 1136, "Column count doesn't match value count: 2 columns, query gives 1"},
		{"INSERT INTO shop.t (nope) VALUES (1)", 1054, "Unknown column 'nope' in 'field list'"},
		{"INSERT INTO shop.t (a, a) VALUES (1, 2)", 1105, "Column 'a' specified twice"},
		{"INSERT INTO shop.t (b) VALUES ('x')", 1105, "Column 'a' is NOT NULL and has no default: it must be given a value"},
		{"SHOW PARTITIONS FROM shop.t", 1105, "Table t is not a partitioned table"},
		{"KILL 987654", 1105, "Unknown thread id: 987654"},
		{"EXPLAIN INSERT INTO shop.t VALUES (1, 'x')", 1235, "EXPLAIN INSERT ... VALUES"},
		// The session's query_timeout (set below) turns the deadline into
		// the interrupted code with its own text.
		{"SELECT count(*) FROM demo.orders a, demo.orders b, demo.orders c, demo.orders d, demo.orders e, demo.orders f, demo.orders g, demo.orders h, demo.orders i, demo.orders j, demo.orders k, demo.orders l",
			1317, "Query exceeded query_timeout (1 s) and was cancelled"},
	}
	for i, c := range cases {
		if i == len(cases)-1 {
			mustExec(t, db, "SET query_timeout = 1")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := db.ExecContext(ctx, c.q)
		cancel()
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			t.Errorf("%s: want error %d, got %v", c.q, c.num, err)
			continue
		}
		if me.Number != c.num || me.Message != p+c.msg {
			t.Errorf("%s:\n got %d %q\nwant %d %q", c.q, me.Number, me.Message, c.num, p+c.msg)
		}
	}
}

// TestClassify checks the table itself: a kind attached at resolution beats
// the kind it wraps, wrapping keeps both the code and the text, and an error
// of no known kind is internal.
func TestClassify(t *testing.T) {
	notFound := catalog.Errorf(catalog.ErrNotFound, "Unknown database 'x'")
	cases := []struct {
		name string
		err  error
		code mysqlwire.Code
		text string
	}{
		{"own kind", errorf(errNotSupported, "KILL is not available"), mysqlwire.CodeNotSupported, "KILL is not available"},
		{"marked catalog error", withKind(errUnknownDB, notFound), mysqlwire.CodeUnknownDB, "Unknown database 'x'"},
		{"unmarked catalog error", notFound, mysqlwire.CodeAnalysis, "Unknown database 'x'"},
		{"marked then wrapped", fmt.Errorf("scan: %w", withKind(errUnknownTable, notFound)), mysqlwire.CodeUnknownTable, "scan: Unknown database 'x'"},
		{"kind of another package", errorf(sql.ErrSyntax, "bad table name a.b.c.d"), mysqlwire.CodeSyntax, "bad table name a.b.c.d"},
		{"bind kind", errorf(bind.ErrNoDatabase, "No database selected"), mysqlwire.CodeNoDB, "No database selected"},
		{"physical kind", fmt.Errorf("open: %w", catalog.Errorf(physical.ErrNotSupported, "no BE is available to read c.d.t")), mysqlwire.CodeNotSupported, "open: no BE is available to read c.d.t"},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), mysqlwire.CodeInterrupted, "read: context canceled"},
		{"no kind", errors.New("boom"), mysqlwire.CodeInternal, "boom"},
	}
	for _, c := range cases {
		got := classify(c.err)
		if code := mysqlwire.CodeOf(got); code != c.code {
			t.Errorf("%s: code %d, want %d", c.name, code, c.code)
		}
		if got.Error() != c.text {
			t.Errorf("%s: text %q, want %q", c.name, got.Error(), c.text)
		}
	}
	if classify(nil) != nil || withKind(errUnknownDB, nil) != nil {
		t.Error("nil must stay nil")
	}
	if !errors.Is(withKind(errUnknownDB, notFound), catalog.ErrNotFound) {
		t.Error("withKind must keep the wrapped kind")
	}
}

// TestWireCodesInOnePlace keeps the promise of doc.go: outside errors.go (and
// this test) no file of this package names a wire code; sites name kinds.
func TestWireCodesInOnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "errors.go" || name == "errors_test.go" { // the table and its test
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "mysqlwire" &&
				(sel.Sel.Name == "Errorf" || sel.Sel.Name == "WithCode" || strings.HasPrefix(sel.Sel.Name, "Code")) {
				t.Errorf("%s: mysqlwire.%s: give the error a kind and map it in wireKinds (errors.go)", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
