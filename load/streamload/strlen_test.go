package streamload_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestCurlStringLength: as Doris's sink does in any mode, Stream Load filters
// a row whose value is longer than its CHAR(n)/VARCHAR(n) column (n bytes)
// with a reason naming the column and its type; the rows count in
// NumberFilteredRows and against max_filter_ratio. A derived column is held
// to the same length, so `v=repeat("x",16000000)` loads nothing.
func TestCurlStringLength(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d",
		"CREATE TABLE d.t (k INT, v VARCHAR(8), c CHAR(3)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
	file := writeFile(t, "1,abcdefgh,abc\n2,abcdefghi,ab\n3,ab,abcd\n4,中文,a\n5,\\N,\\N\n6,中文中,b\n")
	base := []string{"-u", "root:" + rootPass, "-H", "column_separator:,"}

	code, res, body := curl(t, append(base, "-T", file, c.url("d", "t"))...)
	if code != 200 || res.Status != "Fail" || res.NumberTotalRows != 6 || res.NumberFilteredRows != 3 || res.ErrorURL == "" {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT count(*) FROM d.t", "0")
	log := get(t, res.ErrorURL)
	for _, w := range []string{
		`Row 2: Reason: column "v": the value has 9 bytes, longer than the column's varchar(8)`,
		`Row 3: Reason: column "c": the value has 4 bytes, longer than the column's char(3)`,
		// Three characters, nine bytes: Doris counts bytes.
		`Row 6: Reason: column "v": the value has 9 bytes, longer than the column's varchar(8)`,
	} {
		if !strings.Contains(log, w) {
			t.Errorf("error log lacks %q:\n%s", w, log)
		}
	}
	code, res, body = curl(t, append(base, "-H", "max_filter_ratio:0.5", "-T", file, c.url("d", "t"))...)
	if code != 200 || res.Status != "Success" || res.NumberFilteredRows != 3 || res.NumberLoadedRows != 3 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, v, c FROM d.t ORDER BY k", "1|abcdefgh|abc", "4|中文|a", "5|NULL|NULL")

	// Derived columns: 12 rows of 16,000,000 bytes each for a VARCHAR(8).
	var sb strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&sb, "%d,a\n", 100+i)
	}
	bomb := writeFile(t, sb.String())
	code, res, body = curl(t, append(base, "-H", `columns: k, tmp, v=repeat("x",16000000)`, "-H", "max_filter_ratio:1", "-T", bomb, c.url("d", "t"))...)
	if code != 200 || res.Status != "Success" || res.NumberTotalRows != 12 || res.NumberFilteredRows != 12 || res.NumberLoadedRows != 0 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	if log := get(t, res.ErrorURL); !strings.Contains(log, `column "v": the value has 16000000 bytes, longer than the column's varchar(8)`) {
		t.Errorf("error log:\n%.2000s", log)
	}
	// Derived values that fit load; one too long is filtered.
	code, res, body = curl(t, append(base, "-H", `columns: k, tmp, v=concat(tmp, if(k = 100, "-too-long", "!"))`, "-H", "max_filter_ratio:1", "-T", bomb, c.url("d", "t"))...)
	if code != 200 || res.Status != "Success" || res.NumberFilteredRows != 1 || res.NumberLoadedRows != 11 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT count(*), min(k), max(v) FROM d.t WHERE k >= 100", "11|101|a!")
}

// TestRemoteBEStringLength: a BE in its own process learns each column's
// declared type from the FE and filters over-long values the same way.
func TestRemoteBEStringLength(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", uniqueTable)
	url := remoteBE(t, c, secret)
	_, res := put(t, url, "root", rootPass, strings.NewReader("1,"+strings.Repeat("n", 33)+",1\n2,"+strings.Repeat("n", 32)+",2\n"),
		"column_separator", ",", "columns", "k,name,amount", "max_filter_ratio", "0.5")
	if res.Status != "Success" || res.NumberFilteredRows != 1 || res.NumberLoadedRows != 1 {
		t.Fatalf("%+v", res)
	}
	wantRows(t, c, "SELECT k, length(name) FROM d.t ORDER BY k", "2|32")
}
