package streamload_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const tableCols = `(
	k INT NOT NULL, name VARCHAR(32), amount DECIMAL(10,2), ts DATETIME, flag BOOLEAN, loaded_at DATETIME
)`

const (
	uniqueTable = "CREATE TABLE d.t " + tableCols + " UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3"
	dupTable    = "CREATE TABLE d.t " + tableCols + " DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (c *cluster) url(db, tbl string) string {
	return "http://" + c.feHTTP + "/api/" + db + "/" + tbl + "/_stream_load"
}

func wantRows(t *testing.T, c *cluster, q string, want ...string) {
	t.Helper()
	got := c.query(t, q)
	if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s:\ngot  %q\nwant %q", q, got, want)
	}
}

// TestCurlCSV loads with the real curl the way Doris documents it, through
// the FE's 307 to the BE, and replays the label.
func TestCurlCSV(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	file := writeFile(t, "1,alice,10.50,2024-01-02 03:04:05,true\n"+
		"2,\\N,-3.25,2024-02-03 00:00:00,false\n"+
		"3,\"c,\\\"d\\\"\",0,\\N,\\N\n")
	args := []string{"-u", "root:" + rootPass, "-H", "label:csv-1", "-H", "column_separator:,", "-H", `enclose:"`, "-H", `escape:\`,
		"-H", "columns: k, name, amount, ts, flag, loaded_at=now()", "-T", file, c.url("d", "t")}
	code, res, body := curl(t, args...)
	if code != 200 || res.Status != "Success" || res.NumberTotalRows != 3 || res.NumberLoadedRows != 3 || res.Label != "csv-1" || res.TxnID == 0 || res.Message != "OK" {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	for _, f := range []string{"TxnId", "Label", "Status", "Message", "NumberTotalRows", "NumberLoadedRows", "NumberFilteredRows",
		"NumberUnselectedRows", "LoadBytes", "LoadTimeMs", "BeginTxnTimeMs", "StreamLoadPutTimeMs", "ReadDataTimeMs",
		"WriteDataTimeMs", "CommitAndPublishTimeMs"} {
		if !strings.Contains(body, `"`+f+`"`) {
			t.Errorf("answer lacks %s:\n%s", f, body)
		}
	}
	if res.LoadBytes != int64(len("1,alice,10.50,2024-01-02 03:04:05,true\n2,\\N,-3.25,2024-02-03 00:00:00,false\n3,\"c,\\\"d\\\"\",0,\\N,\\N\n")) {
		t.Errorf("LoadBytes %d", res.LoadBytes)
	}
	want := []string{
		"1|alice|10.50|2024-01-02 03:04:05|1|1",
		"2|NULL|-3.25|2024-02-03 00:00:00|0|1",
		`3|c,"d"|0.00|NULL|NULL|1`,
	}
	wantRows(t, c, "SELECT k, name, amount, ts, flag, loaded_at IS NOT NULL FROM d.t ORDER BY k", want...)

	// The same label again: nothing changes, the answer says the job finished.
	code, res, body = curl(t, args...)
	if code != 200 || res.Status != "Label Already Exists" || res.ExistingJobStatus != "FINISHED" || !strings.Contains(res.Message, "csv-1") {
		t.Fatalf("replay: HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, name, amount, ts, flag, loaded_at IS NOT NULL FROM d.t ORDER BY k", want...)
}

// TestCurlUnique: on a UNIQUE KEY table a later load replaces the row of
// its key.
func TestCurlUnique(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", uniqueTable)
	file := writeFile(t, "1\ta\t1.00\n2\tb\t2.00\n3\tc\t3.00\n")
	code, res, body := curl(t, "-u", "root:"+rootPass, "-H", "label:u-1", "-H", "columns:k,name,amount", "-T", file, c.url("d", "t"))
	if code != 200 || res.Status != "Success" || res.NumberLoadedRows != 3 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}

	// A new label with an existing key: the latest load wins on a UNIQUE KEY table.
	file2 := writeFile(t, "1\tbob\t1.00\t2025-01-01 00:00:00\tfalse\n")
	code, res, body = curl(t, "-u", "root:"+rootPass, "-H", "label:csv-2", "-H", "columns:k,name,amount,ts,flag", "-T", file2, c.url("d", "t"))
	if code != 200 || res.Status != "Success" || res.NumberLoadedRows != 1 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, name, amount, ts, flag FROM d.t ORDER BY k", "1|bob|1.00|2025-01-01 00:00:00|0", "2|b|2.00|NULL|NULL", "3|c|3.00|NULL|NULL")
}

// TestCurlFiltered: rejected rows fail the load unless max_filter_ratio
// allows them, ErrorURL names them, and where-rejected rows are unselected.
func TestCurlFiltered(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	file := writeFile(t, "1,a,1.5\n2,b\n3,c,x\n\\N,d,4\n5,e,-5\n")
	base := []string{"-u", "root:" + rootPass, "-H", "column_separator:,", "-H", "columns:k,name,amount", "-H", "strict_mode:true"}

	code, res, body := curl(t, append(base, "-H", "label:f-1", "-T", file, c.url("d", "t"))...)
	if code != 200 || res.Status != "Fail" || res.NumberTotalRows != 5 || res.NumberFilteredRows != 3 || res.ErrorURL == "" ||
		!strings.Contains(res.Message, "too many filtered rows") {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT count(*) FROM d.t", "0")
	log := get(t, res.ErrorURL)
	for _, w := range []string{
		"Row 2: Reason: actual column number 2 does not match schema column number 3. src line [2,b]",
		`Row 3: Reason: column "amount": value "x" cannot be converted to decimal(10,2)`,
		`Row 4: Reason: column "k" is NOT NULL but the value is NULL`,
	} {
		if !strings.Contains(log, w) {
			t.Errorf("error log lacks %q:\n%s", w, log)
		}
	}

	// The failed label is free again. As in Doris the ratio is filtered /
	// (filtered + loaded): 3 / (3 + 1) is allowed by 0.75 (the where-rejected
	// row does not count).
	code, res, body = curl(t, append(base, "-H", "label:f-1", "-H", "max_filter_ratio:0.75", "-H", "where: amount > 0", "-T", file, c.url("d", "t"))...)
	if code != 200 || res.Status != "Success" || res.NumberFilteredRows != 3 || res.NumberUnselectedRows != 1 || res.NumberLoadedRows != 1 || res.ErrorURL == "" {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, name, amount FROM d.t ORDER BY k", "1|a|1.50")

	// A bad header is a failed load naming the header; nothing is read.
	code, res, body = curl(t, "-u", "root:"+rootPass, "-H", "max_filter_ratio:2", "-T", file, c.url("d", "t"))
	if code != 200 || res.Status != "Fail" || !strings.Contains(res.Message, "max_filter_ratio") {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
}

// TestCurlJSON loads a JSON array with derived columns, then JSON lines
// with jsonpaths.
func TestCurlJSON(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	file := writeFile(t, `[{"k":1,"name":"a\u00e9","raw":"12.5","flag":true},{"k":2,"name":null,"raw":"7"},{"k":3,"name":"c","raw":"x"}]`)
	code, res, body := curl(t, "-u", "root:"+rootPass, "-H", "label:j-1", "-H", "format:json", "-H", "strip_outer_array:true",
		"-H", "columns: k, name, raw, flag, amount=cast(raw as decimal(10,2)) * 2", "-T", file, c.url("d", "t"))
	if code != 200 || res.Status != "Success" || res.NumberLoadedRows != 3 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, name, amount, flag FROM d.t ORDER BY k", "1|aé|25.00|1", "2|NULL|14.00|NULL", "3|c|NULL|NULL")

	lines := writeFile(t, "{\"id\": 4, \"who\": {\"n\": \"dd\"}, \"amt\": 1}\n{\"id\": 5, \"who\": {\"n\": \"ee\"}, \"amt\": 2}\n")
	code, res, body = curl(t, "-u", "root:"+rootPass, "-H", "format:json", "-H", "read_json_by_line:true",
		"-H", `jsonpaths:["$.id", "$.who.n", "$.amt"]`, "-H", "columns:k,name,amount", "-T", lines, c.url("d", "t"))
	if code != 200 || res.Status != "Success" || res.NumberLoadedRows != 2 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT k, name, amount FROM d.t WHERE k > 3 ORDER BY k", "4|dd|1.00", "5|ee|2.00")

	// An unknown key is a rejected row naming the key.
	bad := writeFile(t, `{"k": 9, "colour": "red"}`)
	code, res, body = curl(t, "-u", "root:"+rootPass, "-H", "format:json", "-T", bad, c.url("d", "t"))
	if code != 200 || res.Status != "Fail" || res.NumberFilteredRows != 1 {
		t.Fatalf("HTTP %d\n%s", code, body)
	}
	if log := get(t, res.ErrorURL); !strings.Contains(log, `unknown JSON key "colour"`) {
		t.Fatalf("error log:\n%s", log)
	}
}

// TestCurlNoLabel: a load sent without a label gets one generated, a UUID as
// Doris's BE generates (generate_uuid_string), and the same request sent
// again is a new load with a new label, not a replay.
func TestCurlNoLabel(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	file := writeFile(t, "1,a\n2,b\n")
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	var labels []string
	for range 2 {
		code, res, body := curl(t, "-u", "root:"+rootPass, "-H", "column_separator:,", "-H", "columns:k,name", "-T", file, c.url("d", "t"))
		if code != 200 || res.Status != "Success" || res.NumberLoadedRows != 2 || !uuid.MatchString(res.Label) {
			t.Fatalf("HTTP %d\n%s", code, body)
		}
		labels = append(labels, res.Label)
	}
	if labels[0] == labels[1] {
		t.Fatalf("both loads got label %s", labels[0])
	}
	wantRows(t, c, "SELECT k, count(*) FROM d.t GROUP BY k ORDER BY k", "1|2", "2|2")
	// The generated label is a real one: sending it again is a replay.
	code, res, body := curl(t, "-u", "root:"+rootPass, "-H", "label:"+labels[0], "-H", "column_separator:,", "-H", "columns:k,name", "-T", file, c.url("d", "t"))
	if code != 200 || res.Status != "Label Already Exists" || res.ExistingJobStatus != "FINISHED" {
		t.Fatalf("replay of the generated label: HTTP %d\n%s", code, body)
	}
	wantRows(t, c, "SELECT count(*) FROM d.t", "4")
}
