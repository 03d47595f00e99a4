package streamload_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inlet-db/inlet/load/streamload"
)

// loadVia PUTs body, following the FE's 307 to the BE.
func loadVia(t testing.TB, url string, body []byte, hdr ...string) streamload.Result {
	t.Helper()
	client := &http.Client{CheckRedirect: noRedirect, Timeout: 60 * time.Second,
		Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
	for hop := 0; hop < 3; hop++ {
		req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		req.SetBasicAuth("root", rootPass)
		req.Header.Set("Expect", "100-continue")
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			continue
		}
		var res streamload.Result
		if err := jsonUnmarshal(data, &res); err != nil {
			t.Fatalf("%s: %s", resp.Status, data)
		}
		return res
	}
	t.Fatal("too many redirects")
	return streamload.Result{}
}

// TestParallelDecode: a plain CSV body of several chunks (decoded on every
// core) loads the same rows, counts and error log as the serial path (an
// enclose header forces it, and the body holds no enclose byte). Row
// numbers in the error log count from the body's start across chunks, and
// empty lines are not rows.
func TestParallelDecode(t *testing.T) {
	const n = 300_000 // about 8 MB: four chunks and more
	var body bytes.Buffer
	body.WriteString("\n") // an empty line: skipped, not counted
	var wantSumK, wantSumV int64
	var bad []string // the error log lines, by hand
	for i := 1; i <= n; i++ {
		switch {
		case i%50_000 == 123:
			fmt.Fprintf(&body, "%d|%d|s-%d\n", i, i%1000, i)
			bad = append(bad, fmt.Sprintf("Row %d: Reason: actual column number 3 does not match schema column number 4. src line [%d|%d|s-%d]", i, i, i%1000, i))
		case i == 200_002:
			fmt.Fprintf(&body, "\\N|%d|s-%d|2024-02-%02d\n", i%1000, i, i%28+1)
			bad = append(bad, fmt.Sprintf(`Row %d: Reason: column "k" is NOT NULL but the value is NULL`, i))
		default:
			fmt.Fprintf(&body, "%d|%d|s-%d|2024-02-%02d\n", i, i%1000, i, i%28+1)
			wantSumK += int64(i)
			wantSumV += int64(i % 1000)
		}
	}
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d",
		"CREATE TABLE d.par (k BIGINT NOT NULL, v INT, s VARCHAR(16), dt DATE) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
		"CREATE TABLE d.ser (k BIGINT NOT NULL, v INT, s VARCHAR(16), dt DATE) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")

	// Over max_filter_ratio (0 by default): nothing is loaded.
	res := loadVia(t, c.url("d", "par"), body.Bytes(), "label", "par-0", "column_separator", "|")
	if res.Status != "Fail" || !strings.Contains(res.Message, "too many filtered rows") || res.NumberTotalRows != n || res.NumberFilteredRows != int64(len(bad)) {
		t.Fatalf("%+v", res)
	}
	wantRows(t, c, "SELECT count(*) FROM d.par", "0")

	logs := map[string]string{}
	for _, tbl := range []string{"par", "ser"} {
		hdr := []string{"label", tbl + "-1", "column_separator", "|", "max_filter_ratio", "0.1"}
		if tbl == "ser" {
			hdr = append(hdr, "enclose", `"`)
		}
		res := loadVia(t, c.url("d", tbl), body.Bytes(), hdr...)
		if res.Status != "Success" || res.NumberTotalRows != n || res.NumberFilteredRows != int64(len(bad)) ||
			res.NumberLoadedRows != n-int64(len(bad)) || res.NumberUnselectedRows != 0 || res.ErrorURL == "" {
			t.Fatalf("%s: %+v", tbl, res)
		}
		wantRows(t, c, "SELECT count(*), sum(k), sum(v), count(DISTINCT dt), max(s) FROM d."+tbl,
			fmt.Sprintf("%d|%d|%d|28|s-99999", n-len(bad), wantSumK, wantSumV))
		logs[tbl] = get(t, res.ErrorURL)
	}
	if logs["par"] != logs["ser"] {
		t.Errorf("error logs differ:\nparallel:\n%s\nserial:\n%s", logs["par"], logs["ser"])
	}
	lines := strings.Split(strings.TrimSpace(logs["par"]), "\n")
	if len(lines) != len(bad) {
		t.Fatalf("error log has %d lines, want %d:\n%s", len(lines), len(bad), logs["par"])
	}
	// Rows are logged in body order.
	num := regexp.MustCompile(`^Row (\d+):`)
	prev := 0
	for _, l := range lines {
		m := num.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("log line %q", l)
		}
		k, _ := strconv.Atoi(m[1])
		if k <= prev {
			t.Errorf("row %d logged after row %d", k, prev)
		}
		prev = k
	}
	for _, w := range bad {
		if !strings.Contains(logs["par"], w) {
			t.Errorf("error log lacks %q", w)
		}
	}
}
