package streamload_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLoadOptions: partial_columns on a UNIQUE KEY table, strict_mode off
// (an unconvertible value becomes NULL) and on, trim_double_quotes, and
// the timeout header.
func TestLoadOptions(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", uniqueTable)
	be := "http://" + c.beHTTP + "/api/d/t/_stream_load"
	load := func(body string, hdr ...string) (int, string, string, int64, int64) {
		t.Helper()
		resp, res := put(t, be, "root", rootPass, strings.NewReader(body), hdr...)
		return resp.StatusCode, res.Status, res.Message, res.NumberLoadedRows, res.NumberFilteredRows
	}
	if _, st, msg, n, _ := load("1,\"a\",1.5,2024-01-01 00:00:00\n2,\"b\",x,\\N\n", "column_separator", ",", "trim_double_quotes", "true",
		"columns", "k,name,amount,ts"); st != "Success" || n != 2 {
		t.Fatalf("%s %s", st, msg)
	}
	// Not strict: "x" into DECIMAL is NULL, as Doris loads it.
	wantRows(t, c, "SELECT k, name, amount, ts FROM d.t ORDER BY k", "1|a|1.50|2024-01-01 00:00:00", "2|b|NULL|NULL")

	// Partial columns: only name changes; amount and ts keep their values.
	if _, st, msg, n, _ := load("1,z\n3,new\n", "column_separator", ",", "columns", "k,name", "partial_columns", "true"); st != "Success" || n != 2 {
		t.Fatalf("%s %s", st, msg)
	}
	wantRows(t, c, "SELECT k, name, amount, ts FROM d.t ORDER BY k", "1|z|1.50|2024-01-01 00:00:00", "2|b|NULL|NULL", "3|new|NULL|NULL")
	// Partial columns without the key column is refused.
	if _, st, msg, _, _ := load("z\n", "columns", "name", "partial_columns", "true"); st != "Fail" || !strings.Contains(msg, `key column "k" is missing`) {
		t.Fatalf("%s %s", st, msg)
	}

	// timeout: a body that stalls past it fails the load, which leaves nothing.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte("7,late\n"))
		time.Sleep(5 * time.Second)
		pw.Close()
	}()
	resp, res := put(t, be, "root", rootPass, pr, "column_separator", ",", "columns", "k,name", "timeout", "1")
	if resp.StatusCode != http.StatusOK || res.Status != "Fail" || !strings.Contains(res.Message, "timed out") {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}
	wantRows(t, c, "SELECT count(*) FROM d.t WHERE k = 7", "0")

	// Unknown columns in the headers name themselves.
	if _, st, msg, _, _ := load("1\n", "columns", "k, nope=k+1"); st != "Fail" || !strings.Contains(msg, `table has no column "nope"`) {
		t.Fatalf("%s %s", st, msg)
	}
	if _, st, msg, _, _ := load("1\n", "columns", "k", "where", "nosuch > 1"); st != "Fail" || !strings.Contains(msg, "nosuch") {
		t.Fatalf("%s %s", st, msg)
	}
}
