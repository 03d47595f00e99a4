package server

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/fe/mysqlwire"
)

// FuzzStatement runs arbitrary statement text through parse → bind → exec
// against the demo database: every input must end in a result or an error,
// never a panic or a leaked buffer.
func FuzzStatement(f *testing.F) {
	for _, q := range []string{
		"SELECT c.name, sum(o.qty) FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.name ORDER BY 2 DESC",
		"SELECT * EXCEPT(sku) FROM orders WHERE qty BETWEEN 1 AND 3 LIMIT 2 OFFSET 1",
		"SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders) AND country LIKE 'U%'",
		"SELECT sku, rank() OVER (PARTITION BY sku ORDER BY qty DESC) FROM orders",
		"SELECT (SELECT max(qty) FROM orders), @@time_zone, DATABASE(), 1 + NULL, CAST('x' AS INT)",
		"SELECT DISTINCT country FROM customers UNION SELECT sku FROM products ORDER BY 1",
		"WITH t AS (SELECT * FROM orders) SELECT count(*) FROM t, t AS u WHERE t.order_id = u.order_id",
		"SHOW VARIABLES WHERE Variable_name LIKE 'max%' AND Value > 1",
		"SET time_zone = '+01:00'", "DESC orders", "SHOW CREATE TABLE demo.orders", "EXPLAIN VERBOSE SELECT * FROM products",
		"SELECT sku, count(*) AS n FROM orders GROUP BY sku HAVING n > 1 ORDER BY n",
		"SELECT TABLE_NAME FROM information_schema.columns WHERE COLUMN_NAME LIKE '%id'",
		"SELECT name FROM customers WHERE id = ?",
		"INSERT INTO products VALUES ('Z', NULL, 1.5)", "CREATE TABLE x AS SELECT * FROM products", "DROP TABLE IF EXISTS x",
	} {
		f.Add(q)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: f.TempDir(), Demo: true, Mem: mem,
		Types: []catalog.Type{localDirType()}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		fe.Close()
		mem.AssertSize(f, 0)
	})
	sess, err := fe.Server.NewSession(mysqlwire.ConnInfo{User: "root"})
	if err != nil {
		f.Fatal(err)
	}
	if err := sess.Query(context.Background(), "USE demo", discard{}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 2000 {
			return
		}
		before := mem.CurrentAlloc()
		sess.Query(context.Background(), q, &limitWriter{})
		if after := mem.CurrentAlloc(); after != before {
			t.Fatalf("%q: %d bytes still allocated after the statement (%d before)", q, after, before)
		}
	})
}

// limitWriter accepts results but stops a statement that streams too many
// rows (a fuzzed cross join), which must then release what it holds.
type limitWriter struct{ rows int }

func (w *limitWriter) Columns([]mysqlwire.Column) error { return nil }
func (w *limitWriter) OK(mysqlwire.OKResult) error      { return nil }
func (w *limitWriter) Row([][]byte) error {
	w.rows++
	if w.rows > 10000 {
		return errorf(context.Canceled, "fuzz: too many rows")
	}
	return nil
}
