package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/duckrun"
	"github.com/inlet-db/inlet/internal/fixtures"
)

// TestSemanticsVsDuckDB (issue 24) runs CASE/COALESCE/IF typing, date and
// time functions, window frames and grouping sets through Inlet and DuckDB
// (internal/duckrun) over one generated table with every scalar type:
// integers of each width, DOUBLE, decimals of scales 0, 2, 6 and 10 (the
// last 38 digits wide), unicode text, DATE and DATETIME from 1900 to 2100,
// BOOLEAN, and NULLs in every column. Rows compare as multisets of text.
//
// Where the engines differ by design, the DuckDB side spells out Doris's
// rule (each exception is written next to its query):
//   - text against a number is text (Doris's common type; DuckDB refuses
//     to mix them implicitly): DuckDB's side casts the number to VARCHAR;
//   - DAYOFWEEK is 1 for Sunday (MySQL, Doris); DuckDB's is 0;
//   - DATEDIFF(a, b) is a - b in days (MySQL, Doris); DuckDB names the
//     unit and takes the operands the other way round;
//   - NULLs sort first ascending (Doris); windows name NULLS FIRST/LAST so
//     both engines agree;
//   - booleans are 1/0 (the MySQL protocol has none);
//   - decimals and dates are compared as text (CAST to VARCHAR on DuckDB's
//     side, whose driver hands decimals over as JavaScript numbers).
//
// Skipped when DuckDB cannot be started, unless CI=true.
func TestSemanticsVsDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := duckrun.Start(ctx, 1)
	if err != nil {
		fixtures.Unavailable(t, "DuckDB: %v", err)
	}
	defer d.Close()
	f := startFE(t, t.TempDir(), "", false)
	db := f.db("")
	mustExec(t, db, "CREATE DATABASE sd", "USE sd",
		`CREATE TABLE w (id INT, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f DOUBLE, d0 DECIMAL(5,0), d2 DECIMAL(10,2),
			d6 DECIMAL(18,6), d10 DECIMAL(38,10), s VARCHAR(20), dt DATE, ts DATETIME, b BOOLEAN) DISTRIBUTED BY HASH(id) BUCKETS 3`)
	if _, _, err := d.Run(`CREATE TABLE w (id INTEGER, ti TINYINT, si SMALLINT, i INTEGER, bi BIGINT, f DOUBLE, d0 DECIMAL(5,0),
		d2 DECIMAL(10,2), d6 DECIMAL(18,6), d10 DECIMAL(38,10), s VARCHAR, dt DATE, ts TIMESTAMP, b BOOLEAN)`); err != nil {
		t.Fatal(err)
	}
	texts := []string{"'a'", "'ä'", "'日本語'", "'Zz'", "'12abc'", "''", "NULL", "'ẞ😀'"}
	null := func(i, m, r int, v string) string {
		if i%m == r {
			return "NULL"
		}
		return v
	}
	var vals []string
	for i := range 300 {
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", i,
			null(i, 7, 1, fmt.Sprint(i%200-100)),
			null(i, 9, 2, fmt.Sprint((i*311)%60000-30000)),
			null(i, 11, 3, fmt.Sprint((i*7919)%2000-1000)),
			null(i, 13, 4, fmt.Sprint(int64(i)*982451653%4000000000-2000000000)),
			null(i, 5, 0, fmt.Sprintf("%d.%s", i%50-25, []string{"0", "25", "5", "75"}[i%4])),
			null(i, 6, 5, fmt.Sprint((i*37)%99999-49999)),
			null(i, 8, 6, fmt.Sprintf("%d.%02d", (i*7)%300-150, (i*13)%100)),
			null(i, 10, 7, fmt.Sprintf("%d.%06d", (i*31)%2000-1000, (i*7919)%1000000)),
			null(i, 12, 8, fmt.Sprintf("%d.%010d", int64(i)*1234567891011%100000000000000000-50000000000000000, (i*104729)%10000000000)),
			texts[i%len(texts)],
			null(i, 17, 2, fmt.Sprintf("'%04d-%02d-%02d'", 1900+(i*53)%201, 1+i%12, 1+(i*5)%28)),
			null(i, 19, 3, fmt.Sprintf("'%04d-%02d-%02d %02d:%02d:%02d'", 1900+(i*29)%201, 1+(i*5)%12, 1+(i*3)%28, (i*7)%24, (i*11)%60, (i*13)%60)),
			null(i, 4, 3, []string{"true", "false"}[i%2])))
	}
	ins := "INSERT INTO w VALUES " + strings.Join(vals, ", ")
	mustExec(t, db, ins)
	if _, _, err := d.Run(ins); err != nil {
		t.Fatal(err)
	}
	// Each query: Inlet's text, and DuckDB's spelling of the same under
	// Doris's rules when it differs.
	queries := []struct{ q, duck string }{
		// Text against a number is text; a number in a text result is its
		// own text (a DECIMAL(10,2) keeps two digits).
		{`SELECT id, coalesce(s, i), ifnull(s, bi), if(b, s, d2), CASE WHEN i > 0 THEN s ELSE ti END, CASE si WHEN 1 THEN 'one' ELSE d6 END FROM w`,
			`SELECT id, coalesce(s, CAST(i AS VARCHAR)), coalesce(s, CAST(bi AS VARCHAR)), CASE WHEN b THEN s ELSE CAST(d2 AS VARCHAR) END,
				CASE WHEN i > 0 THEN s ELSE CAST(ti AS VARCHAR) END, CASE si WHEN 1 THEN 'one' ELSE CAST(d6 AS VARCHAR) END FROM w`},
		// Numbers: the widest integer, decimals widened to hold every
		// branch (DECIMAL(12,2) for d2 and INT; (18,6) for d6, d2 and
		// TINYINT; (38,10) for d0 and d10), DOUBLE against integers.
		{`SELECT id, coalesce(ti, si, i, bi), CAST(coalesce(d2, i) AS VARCHAR), CAST(coalesce(d6, d2, ti) AS VARCHAR),
				CAST(CASE WHEN b THEN d0 ELSE d10 END AS VARCHAR), coalesce(f, i), if(b, ti, si), CAST(ifnull(d0, d2) AS VARCHAR) FROM w`, ""},
		// Date and time functions. DuckDB's DAYOFWEEK counts from 0 on
		// Sunday; its DATEDIFF takes the unit and the operands reversed.
		{`SELECT id, year(dt), month(dt), day(dt), quarter(dt), dayofyear(dt), dayofweek(dt), weekofyear(dt), datediff(dt, '2000-01-01'),
				last_day(dt), date_add(dt, INTERVAL 45 DAY), date_sub(dt, INTERVAL 2 MONTH), date_add(dt, INTERVAL 1 YEAR) FROM w`,
			`SELECT id, year(dt), month(dt), day(dt), quarter(dt), dayofyear(dt), dayofweek(dt) + 1, weekofyear(dt), datediff('day', DATE '2000-01-01', dt),
				CAST(last_day(dt) AS VARCHAR), CAST(CAST(dt + INTERVAL 45 DAY AS DATE) AS VARCHAR), CAST(CAST(dt - INTERVAL 2 MONTH AS DATE) AS VARCHAR),
				CAST(CAST(dt + INTERVAL 1 YEAR AS DATE) AS VARCHAR) FROM w`},
		{`SELECT id, ts, hour(ts), minute(ts), second(ts), date_format(ts, '%Y-%m-%d %H:%i:%s'), date_trunc(ts, 'month'), to_date(ts),
				date_add(ts, INTERVAL 90 MINUTE), timestampdiff(SECOND, '2000-01-01 00:00:00', ts), unix_timestamp(ts) FROM w WHERE ts >= '1970-01-01'`,
			`SELECT id, CAST(ts AS VARCHAR), hour(ts), minute(ts), second(ts), strftime(ts, '%Y-%m-%d %H:%M:%S'), CAST(date_trunc('month', ts) AS VARCHAR),
				CAST(CAST(ts AS DATE) AS VARCHAR), CAST(ts + INTERVAL 90 MINUTE AS VARCHAR), datediff('second', TIMESTAMP '2000-01-01 00:00:00', ts),
				epoch(ts)::BIGINT FROM w WHERE ts >= '1970-01-01'`},
		// Window frames: ROWS, and RANGE with offsets over integer,
		// decimal, date and datetime keys (the frame of a NULL key is its
		// NULL peers in both).
		{`SELECT id, sum(i) OVER (PARTITION BY ti % 3 ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING),
				count(*) OVER (ORDER BY bi NULLS FIRST RANGE BETWEEN 100000000 PRECEDING AND 100000000 FOLLOWING),
				CAST(sum(d2) OVER (ORDER BY d2 NULLS FIRST RANGE BETWEEN 1.5 PRECEDING AND 0.25 FOLLOWING) AS VARCHAR),
				count(*) OVER (ORDER BY dt NULLS FIRST RANGE BETWEEN INTERVAL 400 DAY PRECEDING AND CURRENT ROW),
				max(i) OVER (ORDER BY ts DESC NULLS LAST RANGE BETWEEN INTERVAL 36 HOUR PRECEDING AND INTERVAL 400 DAY FOLLOWING),
				min(s) OVER (PARTITION BY b ORDER BY d6 NULLS LAST RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
			FROM w`, ""},
		// DOUBLE against DECIMAL is DOUBLE; NULLIF keeps its first
		// argument's type; GREATEST/LEAST over integers and decimals are
		// NULL when any argument is (Doris's GREATEST page; DuckDB skips
		// NULLs, so its side says so).
		{`SELECT id, CASE WHEN b THEN f ELSE d2 END, nullif(s, 'a'), nullif(i, 5), greatest(ti, si, i), least(bi, i),
				CAST(greatest(d2, d0) AS VARCHAR), coalesce(NULL, NULL, s), CASE WHEN b IS NULL THEN NULL WHEN b THEN ti END FROM w`,
			`SELECT id, CASE WHEN b THEN f ELSE CAST(d2 AS DOUBLE) END, nullif(s, 'a'), nullif(i, 5),
				CASE WHEN ti IS NOT NULL AND si IS NOT NULL AND i IS NOT NULL THEN greatest(ti, si, i) END,
				CASE WHEN bi IS NOT NULL AND i IS NOT NULL THEN least(bi, i) END,
				CAST(CASE WHEN d0 IS NOT NULL AND d2 IS NOT NULL THEN greatest(d2, d0) END AS VARCHAR), coalesce(NULL, NULL, s), CASE WHEN b IS NULL THEN NULL WHEN b THEN ti END FROM w`},
		// ISO weeks: WEEK mode 3 is DuckDB's WEEKOFYEAR; DATE_TRUNC to a
		// year or quarter of a DATE is a DATE in Doris and the date part
		// of DuckDB's result.
		{`SELECT id, week(dt, 3), yearweek(dt, 3) DIV 100, date_trunc(dt, 'quarter'), date_trunc(dt, 'year'), to_days(dt) - to_days('2000-01-01'),
				dayname(dt), monthname(dt) FROM w`,
			`SELECT id, weekofyear(dt), isoyear(dt), CAST(CAST(date_trunc('quarter', dt) AS DATE) AS VARCHAR), CAST(CAST(date_trunc('year', dt) AS DATE) AS VARCHAR),
				dt - DATE '2000-01-01', dayname(dt), monthname(dt) FROM w`},
		// Ranking and offset functions.
		{`SELECT id, lag(d2, 2) OVER (PARTITION BY b ORDER BY id), lead(s, 1, 'end') OVER (ORDER BY id), ntile(4) OVER (ORDER BY id),
				rank() OVER (ORDER BY ti NULLS FIRST), dense_rank() OVER (PARTITION BY b ORDER BY dt DESC NULLS LAST),
				percent_rank() OVER (ORDER BY si NULLS FIRST), cume_dist() OVER (PARTITION BY ti % 2 ORDER BY bi NULLS FIRST),
				first_value(s) OVER (ORDER BY dt NULLS FIRST, id ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING)
			FROM w`,
			`SELECT id, CAST(lag(d2, 2) OVER (PARTITION BY b ORDER BY id) AS VARCHAR), lead(s, 1, 'end') OVER (ORDER BY id), ntile(4) OVER (ORDER BY id),
				rank() OVER (ORDER BY ti NULLS FIRST), dense_rank() OVER (PARTITION BY b ORDER BY dt DESC NULLS LAST),
				percent_rank() OVER (ORDER BY si NULLS FIRST), cume_dist() OVER (PARTITION BY ti % 2 ORDER BY bi NULLS FIRST),
				first_value(s) OVER (ORDER BY dt NULLS FIRST, id ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING)
			FROM w`},
		// Grouping sets over mixed key types.
		{`SELECT ti % 4, dt, b, count(*), sum(bi), CAST(sum(d6) AS VARCHAR), CAST(max(d10) AS VARCHAR), grouping_id(ti % 4, dt, b)
			FROM w GROUP BY GROUPING SETS ((ti % 4, dt), (b), ())`,
			`SELECT ti % 4, CAST(dt AS VARCHAR), b, count(*), sum(bi), CAST(sum(d6) AS VARCHAR), CAST(max(d10) AS VARCHAR), grouping_id(ti % 4, dt, b)
			FROM w GROUP BY GROUPING SETS ((ti % 4, dt), (b), ())`},
		// AVG of a DECIMAL(p,s) is DECIMAL(38, max(s, 4)) in Doris; DuckDB
		// answers a DOUBLE, cast here to that scale.
		{`SELECT s, year(ts), count(*), CAST(avg(d2) AS VARCHAR), grouping(s) + grouping(year(ts)) FROM w GROUP BY CUBE(s, year(ts))`,
			`SELECT s, year(ts), count(*), CAST(CAST(avg(d2) AS DECIMAL(38,4)) AS VARCHAR), grouping(s) + grouping(year(ts)) FROM w GROUP BY CUBE(s, year(ts))`},
	}
	for _, qq := range queries {
		dq := qq.duck
		if dq == "" {
			dq = qq.q
		}
		got := rows(t, db, qq.q)
		want := duckText(t, d, dq)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n inlet %d rows, DuckDB %d; first differences:\n%s%s", qq.q, len(got), len(want), firstDiffs("Inlet", got, want, 4), firstDiffs("DuckDB", want, got, 4))
		}
	}
}

// duckText runs q on DuckDB and renders its rows as rows() does Inlet's:
// cells joined by "|", NULL as NULL, booleans as 1/0, a DATE (which the
// runner hands over as a JSON instant) as YYYY-MM-DD.
func duckText(t *testing.T, d *duckrun.DB, q string) []string {
	t.Helper()
	_, dr, err := d.Run(q)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(dr))
	for _, r := range dr {
		parts := make([]string, len(r))
		for i, c := range r {
			switch {
			case c == nil:
				parts[i] = "NULL"
			case *c == "true":
				parts[i] = "1"
			case *c == "false":
				parts[i] = "0"
			case len(*c) == 26 && strings.HasSuffix(*c, `T00:00:00.000Z"`):
				parts[i] = (*c)[1:11]
			default:
				parts[i] = *c
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}
