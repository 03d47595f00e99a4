package streamload_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const ordersCols = `(id INT NOT NULL, tenant VARCHAR(16), total DECIMAL(10,2), note STRING, flag BOOLEAN, loaded_at DATETIME)`

func order(i int) string {
	return fmt.Sprintf(`{"id":%d,"tenant":"t%d","total":%d.25,"note":"n%d","flag":%v}`, i, i%3, i, i, i%2 == 0)
}

func orderRow(i int) string {
	return fmt.Sprintf("%d|t%d|%d.25|n%d|%d", i, i%3, i, i, map[bool]int{true: 1, false: 0}[i%2 == 0])
}

func orderRows(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, orderRow(i))
	}
	return out
}

const ordersQuery = "SELECT id, tenant, total, note, flag FROM d.orders ORDER BY id"

// TestSinkReplaySameLabels: the sink's labels make a redelivered batch
// harmless even on a DUPLICATE KEY table.
func TestSinkReplaySameLabels(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", "CREATE TABLE d.orders "+ordersCols+" DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
	s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
	s.batchSize = 4
	ctx := context.Background()
	recs := records(100, 110, order)
	if err := s.writeBatch(ctx, "orders.eu", 0, 100, recs); err != nil {
		t.Fatal(err)
	}
	wantRows(t, c, ordersQuery, orderRows(100, 110)...)
	s.attempts = 0
	if err := s.writeBatch(ctx, "orders.eu", 0, 100, recs); err != nil {
		t.Fatal(err)
	}
	if s.attempts != 3 || s.retried != 0 {
		t.Fatalf("replay: %d attempts, %d retried", s.attempts, s.retried)
	}
	wantRows(t, c, ordersQuery, orderRows(100, 110)...)
}

// TestSinkRechunkUnique: a batch redelivered in other chunks gets new
// labels and loads again; the UNIQUE KEY table still holds one row per key,
// the latest.
func TestSinkRechunkUnique(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", "CREATE TABLE d.orders "+ordersCols+" UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3")
	s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
	ctx := context.Background()
	s.batchSize = 4
	if err := s.writeBatch(ctx, "orders.eu", 1, 0, records(0, 10, order)); err != nil {
		t.Fatal(err)
	}
	s.batchSize = 3
	if err := s.writeBatch(ctx, "orders.eu", 1, 0, records(0, 10, order)); err != nil {
		t.Fatal(err)
	}
	wantRows(t, c, ordersQuery, orderRows(0, 10)...)
	wantRows(t, c, "SELECT count(*), count(DISTINCT id) FROM d.orders", "10|10")
	// CSV chunks of an overlapping range with changed payloads: the latest wins.
	s.outputFormat, s.columns = "csv", "id,tenant,total,note,flag"
	changed := records(8, 12, func(i int) string { return fmt.Sprintf(`{"id":%d,"tenant":"new","total":1,"note":"x"}`, i) })
	if err := s.writeBatch(ctx, "orders.eu", 1, 8, changed); err != nil {
		t.Fatal(err)
	}
	want := orderRows(0, 8)
	for i := 8; i < 12; i++ {
		want = append(want, fmt.Sprintf("%d|new|1.00|x|NULL", i))
	}
	wantRows(t, c, ordersQuery, want...)
}

// TestSinkCSV: the sink's \x01/\x02 CSV with enclosed, escaped strings,
// nested values as JSON text, missing keys and nulls as \N.
func TestSinkCSV(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", "CREATE TABLE d.orders "+ordersCols+" DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
	s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
	s.outputFormat, s.columns = "csv", "id,tenant,total,note,flag,loaded_at=now()"
	recs := records(0, 1, func(int) string { return "" })[:0]
	for _, r := range []string{
		`{"id":1,"tenant":"a\"b\\c","total":1.5,"note":"sep\u0001 and line\u0002 inside","flag":true}`,
		`{"id":2,"tenant":null,"total":-2,"note":{"k":[1,"x"]}}`,
		`{"id":3,"tenant":"\\N","note":"with\nnewline"}`,
	} {
		recs = append(recs, []byte(r))
	}
	if err := s.writeBatch(context.Background(), "orders", 0, 0, recs); err != nil {
		t.Fatal(err)
	}
	wantRows(t, c, "SELECT id, tenant, total, note, flag, loaded_at IS NOT NULL FROM d.orders ORDER BY id",
		"1|a\"b\\c|1.50|sep\x01 and line\x02 inside|1|1",
		`2|NULL|-2.00|{"k":[1,"x"]}|NULL|1`,
		"3|\\N|NULL|with\nnewline|NULL|1")
}

// TestSinkClassifies drives the sink into each row of its outcome table
// with real answers of the FE and BE.
func TestSinkClassifies(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", "CREATE TABLE d.orders "+ordersCols+" DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
	ctx := context.Background()
	bad := records(0, 4, func(i int) string {
		if i == 2 {
			return `{"id":null,"tenant":"x"}` // NOT NULL key: filtered
		}
		return order(i)
	})

	t.Run("wrong password is permanent", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "orders", "root", "wrong")
		err := s.writeBatch(ctx, "o", 0, 0, records(0, 1, order))
		if err == nil || !strings.Contains(err.Error(), "401") || s.attempts != 1 {
			t.Fatalf("%v after %d attempts", err, s.attempts)
		}
	})
	t.Run("filtered rows fail the chunk without max_filter_ratio", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
		err := s.writeBatch(ctx, "o", 0, 0, bad)
		if err == nil || !strings.Contains(err.Error(), "permanent: stream load failed: [DATA_QUALITY_ERROR]too many filtered rows") || s.attempts != 1 {
			t.Fatalf("%v after %d attempts", err, s.attempts)
		}
		wantRows(t, c, "SELECT count(*) FROM d.orders", "0")
	})
	t.Run("filtered rows within max_filter_ratio succeed with a warning", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
		s.maxFilterRatio = "0.5"
		if err := s.writeBatch(ctx, "o", 0, 10, bad); err != nil {
			t.Fatal(err)
		}
		if len(s.warnings) != 1 || s.warnings[0] != "loaded 3 rows but FILTERED 1 rows" {
			t.Fatalf("warnings %q", s.warnings)
		}
		wantRows(t, c, "SELECT id FROM d.orders ORDER BY id", "0", "1", "3")
	})
	t.Run("unknown table is permanent", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "nosuch", "root", rootPass)
		err := s.writeBatch(ctx, "o", 0, 0, records(0, 1, order))
		if err == nil || !strings.Contains(err.Error(), "permanent") || s.attempts != 1 {
			t.Fatalf("%v after %d attempts", err, s.attempts)
		}
	})
	t.Run("non-object payload fails before sending", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
		err := s.writeBatch(ctx, "o", 0, 0, records(0, 1, func(int) string { return `[1]` }))
		if err == nil || s.attempts != 0 {
			t.Fatalf("%v after %d attempts", err, s.attempts)
		}
	})
	t.Run("a RUNNING label is transient and retried until FINISHED", func(t *testing.T) {
		s := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
		s.maxRetries, s.retryDelay, s.maxRetryDelay = 20, 50*time.Millisecond, 200*time.Millisecond
		rec := records(70, 71, order)
		// Another delivery of the same chunk is in flight: its body stalls.
		pr, pw := io.Pipe()
		first := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodPut, "http://"+c.beHTTP+"/api/d/orders/_stream_load", pr)
			req.SetBasicAuth("root", rootPass)
			req.Header.Set("label", s.label("o", 0, 70, 70))
			req.Header.Set("format", "json")
			req.Header.Set("strip_outer_array", "true")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			first <- err
		}()
		if _, err := pw.Write([]byte("[" + string(rec[0]))); err != nil {
			t.Fatal(err)
		}
		c.awaitBodyRead(t, s.label("o", 0, 70, 70))
		go func() {
			time.Sleep(400 * time.Millisecond)
			_, _ = pw.Write([]byte("]"))
			pw.Close()
		}()
		if err := s.writeBatch(ctx, "o", 0, 70, rec); err != nil {
			t.Fatal(err)
		}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		if s.retried == 0 || s.outcomes[0] != transient || s.outcomes[len(s.outcomes)-1] != success {
			t.Fatalf("outcomes %v", s.outcomes)
		}
		wantRows(t, c, "SELECT count(*) FROM d.orders WHERE id = 70", "1")
	})
	t.Run("redirect checks", func(t *testing.T) {
		plain := newSink("http://"+c.feHTTP, "d", "orders", "root", rootPass)
		plain.allowedRedirectHosts = []string{"10.0.0.1:8040"}
		err := plain.writeBatch(ctx, "o", 0, 50, records(50, 51, order))
		if err == nil || !strings.Contains(err.Error(), "is not in allowed_redirect_hosts") || plain.attempts != 1 {
			t.Fatalf("%v after %d attempts", err, plain.attempts)
		}
		plain.allowedRedirectHosts = []string{c.beHTTP}
		if err := plain.writeBatch(ctx, "o", 0, 50, records(50, 51, order)); err != nil {
			t.Fatal(err)
		}
	})
}
