package server

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

func TestInternalTablesQueriesAndRestart(t *testing.T) {
	dir := t.TempDir()
	f := startFE(t, dir, "", false)
	db := f.db("")
	mustExec(t, db,
		"CREATE DATABASE shop",
		"USE shop",
		`CREATE TABLE sales (
			id BIGINT NOT NULL COMMENT 'row id',
			region VARCHAR(8),
			qty INT,
			price DECIMAL(10,2),
			score DOUBLE,
			day DATE
		) DUPLICATE KEY(id) COMMENT 'sales facts' DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ('replication_num' = '1')`,
	)
	wantErr(t, db, "CREATE DATABASE shop", 1007, "database exists")
	wantErr(t, db, "CREATE TABLE sales (a INT)", 1050, "already exists")

	// 300 rows in three INSERTs; expected answers computed here.
	regions := []string{"north", "south", "east", "west"}
	want := map[string]*regionAgg{}
	var bigNorth []string // ids of north rows with qty > 8, descending
	var totalQty int64
	for batch := 0; batch < 3; batch++ {
		var vals []string
		for i := 0; i < 100; i++ {
			id := int64(batch*100 + i)
			region := regions[(id*7)%4]
			qty := id%13 - 3
			cents := (id * 37) % 10000
			vals = append(vals, fmt.Sprintf("(%d, '%s', %d, %d.%02d, %d.5, '2026-01-%02d')", id, region, qty, cents/100, cents%100, id%50, 1+id%28))
			a := want[region]
			if a == nil {
				a = &regionAgg{}
				want[region] = a
			}
			a.n++
			a.qty += qty
			a.cents += cents
			a.maxID = max(a.maxID, id)
			totalQty += qty
			if region == "north" && qty > 8 {
				bigNorth = append([]string{fmt.Sprint(id)}, bigNorth...)
			}
		}
		mustExec(t, db, "INSERT INTO sales VALUES "+strings.Join(vals, ", "))
	}
	mustExec(t, db, "INSERT INTO sales (id, region) VALUES (1000, NULL)")
	wantErr(t, db, "INSERT INTO sales (region) VALUES ('x')", 1105, "Column 'id' is NOT NULL")
	wantErr(t, db, "INSERT INTO sales VALUES (1, 'x')", 1136, "Column count doesn't match")
	wantErr(t, db, "INSERT INTO sales (nope) VALUES (1)", 1054, "Unknown column 'nope'")

	wantRows(t, db, "SELECT count(*), count(region), sum(qty) FROM sales", fmt.Sprintf("301|300|%d", totalQty))
	var exp []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, r := range keys {
		a := want[r]
		exp = append(exp, fmt.Sprintf("%s|%d|%d|%d.%02d|%d", r, a.n, a.qty, a.cents/100, a.cents%100, a.maxID))
	}
	wantRows(t, db, "SELECT region, count(*) AS n, sum(qty), sum(price), max(id) FROM sales WHERE region IS NOT NULL GROUP BY region ORDER BY region", exp...)
	// HAVING, ordinal GROUP BY/ORDER BY, expression keys, LIMIT/OFFSET.
	wantRows(t, db, "SELECT region, count(*) c FROM sales GROUP BY 1 HAVING count(*) > 74 ORDER BY c DESC, region LIMIT 2",
		topRegions(want, 74, 2)...)
	wantRows(t, db, "SELECT region, count(*) AS c FROM sales GROUP BY region HAVING c > 74 ORDER BY c DESC, region LIMIT 2",
		topRegions(want, 74, 2)...)
	wantRows(t, db, "SELECT id, qty * 2 + 1 FROM sales WHERE id BETWEEN 10 AND 12 ORDER BY id", "10|15", "11|17", "12|19")
	wantRows(t, db, "SELECT id FROM sales WHERE region = 'north' AND qty > 8 ORDER BY id DESC LIMIT 2 OFFSET 1", bigNorth[1:3]...)
	wantRows(t, db, "SELECT DISTINCT region FROM sales WHERE region LIKE '%th' ORDER BY region", "north", "south")
	wantRows(t, db, "SELECT day, score, price FROM sales WHERE id = 41", "2026-01-14|41.5|15.17")
	wantRows(t, db, "SELECT region FROM sales WHERE id = 1000", "NULL")
	wantRows(t, db, "SELECT count(*) FROM sales WHERE id IN (1, 2, 3, 999)", "3")
	wantRows(t, db, "SELECT min(day), max(day) FROM sales", "2026-01-01|2026-01-28")
	wantRows(t, db, "SELECT sales.id FROM shop.sales WHERE id < 2 UNION ALL SELECT 7 ORDER BY 1", "0", "1", "7")
	wantRows(t, db, "SELECT count(*) FROM (SELECT region, sum(qty) s FROM sales GROUP BY region) x WHERE x.s > 0", fmt.Sprint(positive(want)))
	wantRows(t, db, "WITH n AS (SELECT id FROM sales WHERE region = 'west') SELECT count(*) FROM n", fmt.Sprint(want["west"].n))
	wantErr(t, db, "SELECT nope FROM sales", 1054, "Unknown column 'nope'")
	wantErr(t, db, "SELECT region, qty FROM sales GROUP BY region", 1105, "qty not in aggregate's output")
	wantErr(t, db, "SELECT * FROM nosuch", 1146, "Table 'shop.nosuch' doesn't exist")
	wantErr(t, db, "SELECT * FROM nodb.t", 1049, "Unknown database 'nodb'")

	// INSERT ... SELECT and CREATE TABLE ... AS SELECT.
	mustExec(t, db,
		"CREATE TABLE north (id BIGINT, qty INT) DISTRIBUTED BY HASH(id) BUCKETS 1",
		"INSERT INTO north SELECT id, qty FROM sales WHERE region = 'north'",
		"CREATE TABLE totals AS SELECT region, sum(qty) AS total FROM sales WHERE region IS NOT NULL GROUP BY region",
	)
	wantRows(t, db, "SELECT count(*) FROM north", fmt.Sprint(want["north"].n))
	wantRows(t, db, "SELECT total FROM totals WHERE region = 'east'", fmt.Sprint(want["east"].qty))

	// A CTAS takes Doris's default duplicate key: leading columns within
	// the short key (3 columns, 36 bytes), up to the first that cannot be a
	// key; value columns show Extra NONE (Doris's misc.out desc_ctas).
	mustExec(t, db, "CREATE TABLE ctas_keys AS SELECT CAST(1 AS INT) AS id, true AS b, CAST(1 AS TINYINT) AS ti, "+
		"CAST(2 AS SMALLINT) AS si, CAST(1.5 AS DOUBLE) AS d, 'x' AS s")
	wantRows(t, db, "DESC ctas_keys", "id|int|Yes|true|NULL|", "b|boolean|Yes|true|NULL|", "ti|tinyint|Yes|true|NULL|",
		"si|smallint|Yes|false|NULL|NONE", "d|double|Yes|false|NULL|NONE", "s|text|Yes|false|NULL|NONE")
	mustExec(t, db, "CREATE TABLE ctas_stop AS SELECT CAST(1 AS INT) AS id, CAST(1.5 AS DOUBLE) AS d, CAST(2 AS INT) AS i")
	wantRows(t, db, "DESC ctas_stop", "id|int|Yes|true|NULL|", "d|double|Yes|false|NULL|NONE", "i|int|Yes|false|NULL|NONE")
	// A leading string column becomes varchar(65533), a key, and ends it.
	mustExec(t, db, "CREATE TABLE ctas_str AS SELECT 'a' AS s, CAST(1 AS INT) AS i")
	wantRows(t, db, "DESC ctas_str", "s|varchar(65533)|Yes|true|NULL|", "i|int|Yes|false|NULL|NONE")
	mustExec(t, db, "DROP TABLE ctas_keys", "DROP TABLE ctas_stop", "DROP TABLE ctas_str")

	// DESC, SHOW CREATE TABLE, SHOW TABLES, SHOW PARTITIONS.
	wantRows(t, db, "DESC sales",
		"id|bigint|No|true|NULL|", "region|varchar(8)|Yes|false|NULL|NONE", "qty|int|Yes|false|NULL|NONE",
		"price|decimal(10,2)|Yes|false|NULL|NONE", "score|double|Yes|false|NULL|NONE", "day|date|Yes|false|NULL|NONE")
	sc := rows(t, db, "SHOW CREATE TABLE sales")
	if len(sc) != 1 || !strings.Contains(sc[0], "`id` bigint NOT NULL COMMENT \"row id\"") || !strings.Contains(sc[0], "DUPLICATE KEY(`id`)") ||
		!strings.Contains(sc[0], "COMMENT \"sales facts\"") || !strings.Contains(sc[0], "BUCKETS 3") {
		t.Errorf("SHOW CREATE TABLE = %q", sc)
	}
	wantRows(t, db, "SHOW TABLES", "north", "sales", "totals")
	wantRows(t, db, "SHOW TABLES LIKE 'n%'", "north")
	wantErr(t, db, "SHOW PARTITIONS FROM sales", 1105, "not a partitioned table")
	ex := rows(t, db, "EXPLAIN SELECT region, count(*) FROM sales WHERE qty > 3 GROUP BY region")
	if j := strings.Join(ex, "\n"); !strings.Contains(j, "TABLE: internal.shop.sales") || !strings.Contains(j, "VLocalScanNode") {
		t.Errorf("EXPLAIN = %s", j)
	}
	if j := strings.Join(rows(t, db, "EXPLAIN VERBOSE SELECT id FROM sales"), "\n"); !strings.Contains(j, "LOGICAL PLAN:") || !strings.Contains(j, "  file 0000") {
		t.Errorf("EXPLAIN VERBOSE = %s", j)
	}

	// Restart: tables, rows and types survive.
	f.stop()
	f = startFE(t, dir, "", false)
	db = f.db("shop")
	wantRows(t, db, "SELECT count(*), sum(qty) FROM sales", fmt.Sprintf("301|%d", totalQty))
	wantRows(t, db, "SELECT price FROM sales WHERE id = 41", "15.17")
	mustExec(t, db, "DROP TABLE north", "DROP TABLE IF EXISTS north")
	wantErr(t, db, "DROP TABLE north", 1146, "Unknown table 'north'")
	mustExec(t, db, "DROP DATABASE shop")
	wantErr(t, db, "DROP DATABASE shop", 1008, "Can't drop database 'shop'; database doesn't exist")
	mustExec(t, db, "DROP DATABASE IF EXISTS shop")
	wantErr(t, db, "USE shop", 1049, "Unknown database 'shop'")
}

type regionAgg struct {
	n     int
	qty   int64
	cents int64
	maxID int64
}

// topRegions is HAVING count(*) > minN ORDER BY count DESC, region LIMIT limit.
func topRegions(want map[string]*regionAgg, minN, limit int) []string {
	var rs []string
	for r, a := range want {
		if a.n > minN {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool {
		if want[rs[i]].n != want[rs[j]].n {
			return want[rs[i]].n > want[rs[j]].n
		}
		return rs[i] < rs[j]
	})
	var out []string
	for _, r := range rs[:min(limit, len(rs))] {
		out = append(out, fmt.Sprintf("%s|%d", r, want[r].n))
	}
	return out
}

func positive(want map[string]*regionAgg) int {
	n := 0
	for _, a := range want {
		if a.qty > 0 {
			n++
		}
	}
	return n
}

func TestJoins(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("demo")
	// Hand-computed from the demo rows (fe/server/demo.go).
	wantRows(t, db, `SELECT c.name, sum(o.qty) AS items FROM orders o JOIN customers c ON o.customer_id = c.id
		GROUP BY c.name ORDER BY items DESC, c.name`,
		"Ada|6", "Grace|4", "Margaret|2", "Linus|1")
	wantRows(t, db, `SELECT c.name, count(o.order_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
		GROUP BY c.name ORDER BY c.name`,
		"Ada|2", "Edsger|0", "Grace|2", "Linus|1", "Margaret|1")
	wantRows(t, db, `SELECT o.order_id, c.name FROM customers c RIGHT JOIN orders o ON o.customer_id = c.id WHERE o.order_id > 1005 ORDER BY o.order_id`,
		"1006|Grace", "1007|NULL")
	wantRows(t, db, `SELECT sum(o.qty * p.price) FROM orders o JOIN products p USING (sku)`, "201.25")
	wantRows(t, db, `SELECT o.order_id FROM orders o JOIN products p ON o.sku = p.sku AND o.qty * p.price > 20 ORDER BY 1`,
		"1001", "1002", "1003", "1005", "1006")
	wantRows(t, db, `SELECT count(*) FROM customers CROSS JOIN products`, "15")
	// Set operations treat NULLs as equal.
	wantRows(t, db, `SELECT customer_id FROM orders INTERSECT SELECT id FROM customers WHERE id > 2 ORDER BY 1`, "3", "4")
	wantRows(t, db, `SELECT customer_id FROM orders EXCEPT SELECT id FROM customers ORDER BY 1`, "NULL")
	wantRows(t, db, `SELECT customer_id FROM orders INTERSECT SELECT NULL ORDER BY 1`, "NULL")
	wantRows(t, db, `SELECT c.id, o.order_id FROM (SELECT id FROM customers WHERE id >= 4) c
		FULL OUTER JOIN (SELECT order_id, customer_id FROM orders WHERE order_id >= 1005) o ON c.id = o.customer_id ORDER BY c.id, o.order_id`,
		"NULL|1006", "NULL|1007", "4|1005", "5|NULL")
	wantRows(t, db, `SELECT c.name FROM customers c LEFT ANTI JOIN orders o ON o.customer_id = c.id`, "Edsger")
	wantRows(t, db, `SELECT count(*) FROM internal.demo.orders o, demo.products p WHERE o.sku = p.sku AND p.price < 10`, "2")
}

func TestSubqueries(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("demo")
	wantRows(t, db, `SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE qty >= 2) ORDER BY name`,
		"Ada", "Grace", "Margaret")
	// NOT IN with a NULL in the subquery yields nothing (SQL three-valued logic).
	wantRows(t, db, `SELECT name FROM customers WHERE id NOT IN (SELECT customer_id FROM orders)`)
	wantRows(t, db, `SELECT name FROM customers WHERE id NOT IN (SELECT customer_id FROM orders WHERE customer_id IS NOT NULL)`, "Edsger")
	wantRows(t, db, `SELECT count(*) FROM customers WHERE EXISTS (SELECT 1 FROM orders WHERE qty > 3)`, "5")
	wantRows(t, db, `SELECT count(*) FROM customers WHERE NOT EXISTS (SELECT 1 FROM orders WHERE qty > 100)`, "5")
	wantRows(t, db, `SELECT order_id FROM orders WHERE qty = (SELECT max(qty) FROM orders)`, "1003")
	wantRows(t, db, `SELECT order_id, qty - (SELECT min(qty) FROM orders) AS d FROM orders WHERE order_id < 1003 ORDER BY order_id`, "1001|1", "1002|0")
	wantRows(t, db, `SELECT (SELECT name FROM customers WHERE id = 99 LIMIT 1)`, "NULL")
	// Whether a scalar subquery yields more than one row is a run-time
	// fact (MySQL and Doris): one row or none runs, a second row fails
	// with 1242. Order 1003 is the only one with qty 4; none has qty 9.
	wantRows(t, db, `SELECT order_id FROM orders WHERE qty = (SELECT qty FROM orders WHERE order_id = 1003)`, "1003")
	wantRows(t, db, `SELECT (SELECT name FROM customers WHERE id = 2), (SELECT order_id FROM orders WHERE qty = 9)`, "Grace|NULL")
	wantRows(t, db, `SELECT name FROM customers WHERE id = (SELECT customer_id FROM orders WHERE sku = 'B-2' AND qty = 2)`, "Margaret")
	wantErr(t, db, `SELECT order_id FROM orders WHERE qty = (SELECT qty FROM orders)`, 1242, "more than 1 row")
	wantErr(t, db, `SELECT (SELECT name FROM customers WHERE country = 'US')`, 1242, "more than 1 row")
	// Correlated (issue 15): of the 5 customers only Edsger has no order
	// (the NOT IN above).
	wantRows(t, db, `SELECT count(*) FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)`, "4")
	wantRows(t, db, `SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)`, "Edsger")
}

func TestWindowFunctions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", true)
	db := f.db("demo")
	wantRows(t, db, `SELECT order_id, customer_id, row_number() OVER (PARTITION BY customer_id ORDER BY order_id) AS rn
		FROM orders WHERE customer_id IN (1, 2) ORDER BY order_id`,
		"1001|1|1", "1002|2|1", "1003|1|2", "1006|2|2")
	wantRows(t, db, `SELECT sku, qty, sum(qty) OVER (PARTITION BY sku) AS total, rank() OVER (ORDER BY qty DESC) AS r
		FROM orders ORDER BY r, order_id`,
		"C-3|4|5|1", "A-1|3|6|2", "A-1|2|6|3", "B-2|2|3|3", "B-2|1|3|5", "A-1|1|6|5", "C-3|1|5|5")
	wantRows(t, db, `SELECT customer_id, sum(qty) AS s, dense_rank() OVER (ORDER BY sum(qty) DESC) AS d
		FROM orders WHERE customer_id IS NOT NULL GROUP BY customer_id ORDER BY d, customer_id`,
		"1|6|1", "2|4|2", "4|2|3", "3|1|4")
	// qty by order_id is 2 1 4 1 2 3 1 (below): pairs of neighbours.
	wantRows(t, db, `SELECT order_id, sum(qty) OVER (ORDER BY order_id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM orders ORDER BY order_id`,
		"1001|2", "1002|3", "1003|5", "1004|5", "1005|3", "1006|5", "1007|4")
	// qty by order_id: 2 1 4 1 2 3 1; a tie on qty=1 shows RANGE vs ROWS.
	wantRows(t, db, `SELECT order_id,
			sum(qty) OVER (ORDER BY qty ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rows_sum,
			sum(qty) OVER (ORDER BY qty) AS range_sum,
			max(qty) OVER (ORDER BY order_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS whole,
			lag(qty) OVER (ORDER BY order_id) AS prev,
			lead(qty, 2, 0) OVER (ORDER BY order_id) AS next2,
			first_value(order_id) OVER (PARTITION BY sku ORDER BY order_id) AS first_in_sku
		FROM orders ORDER BY order_id`,
		"1001|5|7|4|NULL|4|1001", "1002|1|3|4|2|1|1002", "1003|14|14|4|1|2|1003", "1004|2|3|4|4|3|1001",
		"1005|7|7|4|1|1|1002", "1006|10|10|4|2|0|1001", "1007|3|3|4|3|0|1003")
}

// Instants (timestamps with a zone, like Fluss TIMESTAMP_LTZ) are shown in
// the session time zone.
func TestInstantsFollowSessionTimeZone(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	ctx := context.Background()
	if err := f.fe.Server.Exec(ctx, "CREATE DATABASE tz"); err != nil {
		t.Fatal(err)
	}
	c, _ := f.fe.Catalogs.Get(ctx, "internal")
	d, _ := c.Database(ctx, "tz")
	ltz := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "ev", Schema: catalog.Schema{Columns: []catalog.Column{
		{Name: "at", Type: ltz, TypeName: "datetime(6)", Nullable: true, Extra: "WITH_TIMEZONE"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewTimestampBuilder(memory.NewGoAllocator(), ltz)
	b.Append(arrow.Timestamp(time.Date(2026, 1, 2, 23, 30, 0, 0, time.UTC).UnixMicro()))
	b.AppendNull()
	col := b.NewArray()
	schema := tb.Schema().Arrow()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2)
	rr, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if _, err := tb.(catalog.Writable).Append(ctx, rr); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	rec.Release()
	col.Release()
	b.Release()

	db := f.db("tz")
	wantRows(t, db, "SELECT at FROM ev", "2026-01-02 23:30:00.000000", "NULL")
	mustExec(t, db, "SET time_zone = '+08:00'")
	wantRows(t, db, "SELECT at FROM ev", "2026-01-03 07:30:00.000000", "NULL")
	mustExec(t, db, "SET time_zone = 'America/New_York'")
	wantRows(t, db, "SELECT at FROM ev", "2026-01-02 18:30:00.000000", "NULL")
	wantRows(t, db, "DESC ev", "at|datetime(6)|Yes|false|NULL|WITH_TIMEZONE")
}

// Concurrent sessions insert into and read one table; every INSERT is seen
// whole or not at all, and all are there at the end.
func TestConcurrentSessions(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	setup := f.db("")
	mustExec(t, setup, "CREATE DATABASE c", "CREATE TABLE c.t (w INT, i INT) DISTRIBUTED BY HASH(w) BUCKETS 1")
	const workers, inserts = 4, 10
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		db := f.db("c")
		go func(w int) {
			for i := 0; i < inserts; i++ {
				if _, err := db.Exec(fmt.Sprintf("INSERT INTO t VALUES (%d, %d), (%d, %d)", w, i, w, i)); err != nil {
					errs <- err
					return
				}
				var n int64
				if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
					errs <- err
					return
				}
				if n%2 != 0 {
					errs <- fmt.Errorf("saw a half-applied INSERT: %d rows", n)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	wantRows(t, setup, "SELECT count(*), count(DISTINCT w), sum(i) FROM c.t", fmt.Sprintf("%d|%d|%d", workers*inserts*2, workers, workers*2*inserts*(inserts-1)/2))
}
