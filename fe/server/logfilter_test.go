package server

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/typemap"
)

// logFilterRow is row i of the events table, the model the expected
// answers are computed from (never from the engine): rows are appended in i
// order, lfBatch rows per append and bucket, so every batch covers a narrow
// id and day range while kind cycles within each batch.
type logFilterRow struct {
	id     int64
	kind   string
	amount float64
	day    time.Time
	note   *string // NULL in every row of one batch in seven
}

const (
	lfRows  = 40000
	lfBatch = 500
)

var lfKinds = []string{"click", "view", "buy", "refund"}

func lfRow(i int) logFilterRow {
	r := logFilterRow{id: int64(i), kind: lfKinds[i%4], amount: float64(i%1000) / 4,
		day: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/1000)}
	if (i/lfBatch)%7 != 3 {
		n := fmt.Sprintf("note-%08d", i)
		r.note = &n
	}
	return r
}

func (r logFilterRow) text() string {
	note := "NULL"
	if r.note != nil {
		note = *r.note
	}
	return fmt.Sprintf("%d|%s|%s|%s|%s", r.id, r.kind, strconv.FormatFloat(r.amount, 'f', -1, 64), r.day.Format("2006-01-02"), note)
}

// startLogFilterFE starts an emulated cluster holding lf.events with n rows
// (a log table of two buckets whose batches carry statistics for every
// column, table.statistics.columns = '*') and an FE with catalog `lf` over
// it, and returns a one-session connection.
func startLogFilterFE(t testing.TB, n int) *sql.DB {
	t.Helper()
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), TabletServers: 1, DefaultBucketNumber: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, "lf"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: "lf", Name: "events", Buckets: 2,
		Properties: map[string]string{"table.statistics.columns": "*"},
		Columns: []minifluss.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "kind", Type: typemap.String()},
			{Name: "amount", Type: typemap.Double()}, {Name: "day", Type: typemap.Date()}, {Name: "note", Type: typemap.String()}}}); err != nil {
		t.Fatal(err)
	}
	for from := 0; from < n; from += lfBatch {
		var rows [][]any
		for i := from; i < from+lfBatch; i++ {
			r := lfRow(i)
			var note any
			if r.note != nil {
				note = *r.note
			}
			rows = append(rows, []any{r.id, r.kind, r.amount, r.day.Format("2006-01-02"), note})
		}
		// Alternate buckets so that both hold sorted, disjoint id runs.
		if err := c.AppendToBucket(ctx, "lf", "events", int32(from/lfBatch%2), rows); err != nil {
			t.Fatal(err)
		}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	be := scan.NewExecutor(scan.Config{Name: "test-be"})
	t.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: t.TempDir(), Mem: mem,
		Types: []catalog.Type{fluss.Type()}, Runner: disp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fe.Close()
		mem.AssertSize(t, 0)
	})
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", fe.Addr().String()
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1) // one session, so SET carries over
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(fmt.Sprintf(`CREATE CATALOG lf PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s')`, c.BootstrapAddr())); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestFlussLogFilterPushdown: selective filters on a large log table give
// the model's rows with fluss_log_filter_pushdown on and off; with it on the
// BE fetches fewer bytes and the server skips batches (profile counters).
func TestFlussLogFilterPushdown(t *testing.T) {
	db := startLogFilterFE(t, lfRows)
	mustExec(t, db, "SET time_zone = 'UTC'")
	want := func(keep func(logFilterRow) bool) []string {
		var out []string
		for i := 0; i < lfRows; i++ {
			if r := lfRow(i); keep(r) {
				out = append(out, r.text())
			}
		}
		slices.Sort(out)
		return out
	}
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	cases := []struct {
		name, where string
		keep        func(logFilterRow) bool
		skips       bool // the server can leave batches out
	}{
		{"id range", "id >= 20100 AND id < 20160", func(r logFilterRow) bool { return r.id >= 20100 && r.id < 20160 }, true},
		{"id equal", "id = 31234", func(r logFilterRow) bool { return r.id == 31234 }, true},
		{"id in", "id IN (5, 17777, 39999)", func(r logFilterRow) bool { return r.id == 5 || r.id == 17777 || r.id == 39999 }, true},
		{"id or", "id = 7 OR id = 8 OR id = 12001", func(r logFilterRow) bool { return r.id == 7 || r.id == 8 || r.id == 12001 }, true},
		{"between and kind", "id BETWEEN 1000 AND 1499 AND kind = 'buy'", func(r logFilterRow) bool { return r.id >= 1000 && r.id <= 1499 && r.kind == "buy" }, true},
		{"date", "day = '2024-01-20'", func(r logFilterRow) bool { return r.day.Equal(day("2024-01-20")) }, true},
		{"long string", "note = 'note-00033833'", func(r logFilterRow) bool { return r.note != nil && *r.note == "note-00033833" }, true},
		// id 33333 is in a batch whose notes are all NULL: no row at all.
		{"long string none", "note = 'note-00033333'", func(r logFilterRow) bool { return r.note != nil && *r.note == "note-00033333" }, true},
		{"string range", "note > 'note-00039990'", func(r logFilterRow) bool { return r.note != nil && *r.note > "note-00039990" }, true},
		{"is null", "note IS NULL AND id < 5000", func(r logFilterRow) bool { return r.note == nil && r.id < 5000 }, true},
		{"double", "amount > 249.5 AND id < 3000", func(r logFilterRow) bool { return r.amount > 249.5 && r.id < 3000 }, true},
		// Every batch holds every kind: nothing to skip, same rows.
		{"not selective", "kind = 'refund'", func(r logFilterRow) bool { return r.kind == "refund" }, false},
		// Disjunctions across columns go as one compound OR predicate.
		{"or across columns", "id = 31234 OR day = '2024-01-20'", func(r logFilterRow) bool { return r.id == 31234 || r.day.Equal(day("2024-01-20")) }, true},
		{"or across three columns", "note = 'note-00000042' OR id > 39990 OR day < '2024-01-02'",
			func(r logFilterRow) bool {
				return r.note != nil && *r.note == "note-00000042" || r.id > 39990 || r.day.Before(day("2024-01-02"))
			}, true},
		{"or beside a conjunct", "(id < 600 OR note IS NULL) AND id < 4000",
			func(r logFilterRow) bool { return (r.id < 600 || r.note == nil) && r.id < 4000 }, true},
		// One branch every batch may match: nothing to skip.
		{"or not selective", "id = 5 OR kind = 'buy'", func(r logFilterRow) bool { return r.id == 5 || r.kind == "buy" }, false},
		// A branch the servers cannot test (LIKE) keeps the whole OR home.
		{"or with a like", "id = 5 OR note LIKE 'note-0003999%'",
			func(r logFilterRow) bool {
				return r.id == 5 || r.note != nil && strings.HasPrefix(*r.note, "note-0003999")
			}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exp := want(c.keep)
			q := "SELECT id, kind, amount, day, note FROM lf.lf.events WHERE " + c.where
			on := sortedRows(t, db, q)
			onCtr := profileCounters(t, db, "FlussLogBytesFetched", "FlussLogBatchesSkipped")
			off := sortedRows(t, db, "SELECT /*+ SET_VAR(fluss_log_filter_pushdown=false) */ id, kind, amount, day, note FROM lf.lf.events WHERE "+c.where)
			offCtr := profileCounters(t, db, "FlussLogBytesFetched", "FlussLogBatchesSkipped")
			if !slices.Equal(on, exp) {
				t.Fatalf("pushdown on: %d rows, want %d\n got %.300q\nwant %.300q", len(on), len(exp), on, exp)
			}
			if !slices.Equal(off, exp) {
				t.Fatalf("pushdown off: %d rows, want %d", len(off), len(exp))
			}
			if offCtr["FlussLogBatchesSkipped"] != 0 {
				t.Errorf("pushdown off skipped %d batch runs", offCtr["FlussLogBatchesSkipped"])
			}
			if c.skips {
				if onCtr["FlussLogBatchesSkipped"] == 0 || onCtr["FlussLogBytesFetched"]*4 > offCtr["FlussLogBytesFetched"] {
					t.Errorf("pushdown on: %v, off: %v; want skipped runs and under a quarter of the bytes", onCtr, offCtr)
				}
			} else if onCtr["FlussLogBatchesSkipped"] != 0 || onCtr["FlussLogBytesFetched"] != offCtr["FlussLogBytesFetched"] {
				t.Errorf("non-selective filter: on %v, off %v", onCtr, offCtr)
			}
			t.Logf("%s: bytes fetched on %d / off %d, skipped runs %d", c.name, onCtr["FlussLogBytesFetched"], offCtr["FlussLogBytesFetched"], onCtr["FlussLogBatchesSkipped"])
		})
	}
	if e := strings.Join(rows(t, db, "EXPLAIN SELECT * FROM lf.lf.events WHERE id = 31234 OR day = '2024-01-20'"), "\n"); !strings.Contains(e, "logFilterOr: (`id` = 31234 OR `day` = ") {
		t.Errorf("EXPLAIN of a cross-column OR shows no logFilterOr line:\n%s", e)
	}
	// tbl$changelog of the log table: its LOG ranges push the filter too.
	// Row 31234 is in the batch of rows 31000..31499, the 32nd batch of
	// bucket 0 (even batches go there), so at offset 31*500 + 234.
	wantRows(t, db, "SELECT _change_type, _log_offset, id FROM lf.lf.`events$changelog` WHERE id = 31234", "+A|15734|31234")
	if c := profileCounters(t, db, "FlussLogBatchesSkipped"); c["FlussLogBatchesSkipped"] == 0 {
		t.Errorf("$changelog read skipped nothing: %v", c)
	}
	// The session variable too, not only the hint.
	mustExec(t, db, "SET fluss_log_filter_pushdown = false")
	if got := sortedRows(t, db, "SELECT count(*) FROM lf.lf.events WHERE id = 31234"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("count with pushdown off: %v", got)
	}
	if c := profileCounters(t, db, "FlussLogBatchesSkipped"); c["FlussLogBatchesSkipped"] != 0 {
		t.Errorf("SET fluss_log_filter_pushdown = false still skipped: %v", c)
	}
}

var counterLine = regexp.MustCompile(`- (Fluss[A-Za-z]+): (\d+)`)

// profileCounters sums the named counters over the scans of the last
// query's profile.
func profileCounters(t testing.TB, db *sql.DB, names ...string) map[string]int64 {
	t.Helper()
	list, err := tryRows(db, `SHOW QUERY PROFILE "/"`)
	if err != nil || len(list) == 0 {
		t.Fatalf("no query profiles (%v)", err)
	}
	id := strings.SplitN(list[0], "|", 2)[0]
	text, err := tryRows(db, `SHOW QUERY PROFILE "/`+id+`"`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, l := range text {
		if m := counterLine.FindStringSubmatch(l); m != nil && slices.Contains(names, m[1]) {
			n, _ := strconv.ParseInt(m[2], 10, 64)
			out[m[1]] += n
		}
	}
	return out
}

// BenchmarkFlussLogFilterPushdown times a selective query (one id) on a
// 400 000-row log table with fluss_log_filter_pushdown on and off, and
// reports the log bytes the BE fetched.
func BenchmarkFlussLogFilterPushdown(b *testing.B) {
	db := startLogFilterFE(b, 400000)
	for _, mode := range []string{"true", "false"} {
		b.Run("pushdown="+mode, func(b *testing.B) {
			q := "SELECT /*+ SET_VAR(fluss_log_filter_pushdown=" + mode + ") */ count(*) FROM lf.lf.events WHERE id = 312345"
			for i := 0; i < b.N; i++ {
				if got, err := tryRows(db, q); err != nil || len(got) != 1 || got[0] != "1" {
					b.Fatalf("count %v %v", got, err)
				}
			}
			b.StopTimer()
			c := profileCounters(b, db, "FlussLogBytesFetched", "FlussLogBatchesSkipped")
			b.ReportMetric(float64(c["FlussLogBytesFetched"]), "bytes-fetched/op")
			b.ReportMetric(float64(c["FlussLogBatchesSkipped"]), "skipped-runs/op")
		})
	}
}
