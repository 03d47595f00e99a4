package flightsql

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkLargeResult reads one result of benchRows rows (BIGINT, DOUBLE,
// VARCHAR) through the MySQL driver (text protocol, values scanned as raw
// bytes) and through arrow-go's Flight SQL client. SetBytes is the size
// of the result as MySQL text, the same for both, so MB/s compare like
// with like; rows/s is reported too. The rows are a plain scan of an
// internal table, so the protocol is most of the cost.
//
//	go test ./fe/flightsql -run '^$' -bench LargeResult -benchtime 3x
func BenchmarkLargeResult(b *testing.B) {
	f := startFE(b, "")
	db := f.mysqlDB("root", "", "")
	var vals []string
	for i := 0; i < 100; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	mustExec(b, db, "CREATE DATABASE bench", "CREATE TABLE bench.d (x BIGINT) DUPLICATE KEY(x) DISTRIBUTED BY HASH(x) BUCKETS 1",
		"INSERT INTO bench.d VALUES "+strings.Join(vals, ","))
	const benchRows = 1_000_000
	mustExec(b, db, "CREATE TABLE bench.big (id BIGINT, v DOUBLE, s STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2",
		"INSERT INTO bench.big SELECT a.x * 10000 + b.x * 100 + c.x, (a.x + 0.5) * b.x, concat('name-', c.x, '-', b.x) FROM bench.d a, bench.d b, bench.d c")
	q := "SELECT id, v, s FROM bench.big"

	// The result's size as MySQL text.
	readMySQL := func(db *sql.DB) (int64, int64) {
		rs, err := db.Query(q)
		if err != nil {
			b.Fatal(err)
		}
		defer rs.Close()
		var n, size int64
		var id, v, s sql.RawBytes
		for rs.Next() {
			if err := rs.Scan(&id, &v, &s); err != nil {
				b.Fatal(err)
			}
			n++
			size += int64(len(id) + len(v) + len(s))
		}
		if err := rs.Err(); err != nil {
			b.Fatal(err)
		}
		return n, size
	}
	n, textBytes := readMySQL(db)
	if n != benchRows {
		b.Fatalf("%d rows, want %d", n, benchRows)
	}

	b.Run("mysql", func(b *testing.B) {
		b.SetBytes(textBytes)
		for i := 0; i < b.N; i++ {
			readMySQL(db)
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("flightsql", func(b *testing.B) {
		cl, ctx := f.login("root", "")
		b.SetBytes(textBytes)
		for i := 0; i < b.N; i++ {
			info, err := cl.Execute(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
			if err != nil {
				b.Fatal(err)
			}
			var rows int64
			for rdr.Next() {
				rows += rdr.RecordBatch().NumRows()
			}
			if err := rdr.Err(); err != nil {
				b.Fatal(err)
			}
			rdr.Release()
			if rows != benchRows {
				b.Fatalf("%d rows", rows)
			}
		}
		b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
