package minifluss

import (
	"context"
	"strings"
	"testing"
)

func TestScenarioDemo(t *testing.T) {
	s, err := LoadScenario("testdata/demo.sql")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := startCluster(t, Config{DataDir: dir, TabletServers: 2})
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	ev, err := c.Table("shop", "events")
	if err != nil || ev.Buckets != 2 || !strings.Contains(string(ev.JSON), `"custom_properties":{"owner":"demo"}`) {
		t.Fatalf("events: %+v %v", ev, err)
	}
	if off, _ := c.Offsets("shop", "events", "", 0); off.HighWatermark != 2 || off.LocalStart != 2 || off.LogStart != 0 {
		t.Errorf("events bucket 0 offsets %+v", off)
	}
	if l, _ := c.Leader("shop", "events", "", 1); l != 0 {
		t.Errorf("leader of bucket 1: %d", l)
	}
	// +I, +I, then -U/+U, then -D: 5 changelog records in partition 2024-05-01
	if off, err := c.Offsets("shop", "orders", "2024-05-01", 0); err != nil || off.HighWatermark != 5 {
		t.Errorf("orders offsets %+v %v", off, err)
	}
	if _, err := c.PartitionID("shop", "orders", "2024-05-02"); err != nil {
		t.Error(err)
	}
}

func TestScenarioErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE DATABASE a;\nCREATE TABLE a.t (id BOGUS);", "line 2"},
		{"CREATE TABLE a.t (id INT", "line 1"},
		{"INSERT INTO a.t VALUES (1, 'x'", "expected"},
		{"FROB a;", "unknown statement"},
		{"CREATE DATABASE 'x';", "database name"},
		{"INSERT INTO a.t VALUES ('unterminated);", "unterminated"},
	} {
		_, err := ParseScenario(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.src, err, tc.want)
		}
	}
	s, err := ParseScenario("CREATE DATABASE d; CREATE TABLE d.t (id INT); INSERT INTO d.t VALUES ('nope');")
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Config{TabletServers: 1})
	err = s.Run(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "line 1 (INSERT)") || !strings.Contains(err.Error(), "column id") {
		t.Fatalf("run error %v", err)
	}
}

// TestScenarioHexLiteral: X'..' is a byte string (Doris's init writes BINARY
// values so), and a BINARY partition is named by the hex text of its bytes.
func TestScenarioHexLiteral(t *testing.T) {
	toks, err := lexScenario("X'010203' x'0A0b' 'X'")
	if err != nil {
		t.Fatal(err)
	}
	if toks[0].kind != tkString || toks[0].text != "\x01\x02\x03" || toks[1].text != "\x0a\x0b" || toks[2].text != "X" {
		t.Errorf("tokens %q %q %q", toks[0].text, toks[1].text, toks[2].text)
	}
	for _, bad := range []string{"X'0g'", "X'01"} {
		if _, err := lexScenario(bad); err == nil {
			t.Errorf("%s lexed", bad)
		}
	}
	s, err := ParseScenario("CREATE DATABASE d; CREATE TABLE d.t (id INT, p BINARY(2)) PARTITIONED BY (p); INSERT INTO d.t VALUES (1, X'0102');")
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Config{TabletServers: 1})
	if err := s.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PartitionID("d", "t", "0102"); err != nil {
		t.Error(err)
	}
}
