package mysqlwire

import (
	"log/slog"
	"regexp"
	"sync"
	"testing"

	vtlog "vitess.io/vitess/go/vt/log"
)

// vitessErrors records vitess' ERROR log lines while a test runs.
func vitessErrors(t *testing.T) func() []string {
	var mu sync.Mutex
	var lines []string
	prev := vtlog.Error
	vtlog.Error = func(msg string, attrs ...slog.Attr) {
		mu.Lock()
		lines = append(lines, msg)
		mu.Unlock()
		prev(msg, attrs...)
	}
	t.Cleanup(func() { vtlog.Error = prev })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// statLine is MySQL's COM_STATISTICS layout.
var statLine = regexp.MustCompile(`^Uptime: \d+  Threads: (\d+)  Questions: (\d+)  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: \d+\.\d{3}$`)

// COM_STATISTICS is answered as MySQL does, with a bare status string
// (sequence 1), no error and no vitess ERROR log line; the connection
// carries on.
func TestComStatistics(t *testing.T) {
	logged := vitessErrors(t)
	srv, _, _ := startServer(t, "")
	rc := dialRaw(t, srv.Addr().String(), rawClientBaseCap)
	for i := range 2 {
		rc.write(0, []byte{0x03}) // an empty COM_QUERY is still a question
		rc.read()
		rc.write(0, []byte{0x09})
		seq, p := rc.read()
		m := statLine.FindStringSubmatch(string(p))
		if seq != 1 || m == nil {
			t.Fatalf("COM_STATISTICS reply (seq %d): %q", seq, p)
		}
		if m[1] != "1" {
			t.Errorf("Threads = %s, want 1", m[1])
		}
		if want := []string{"1", "2"}[i]; m[2] != want {
			t.Errorf("Questions = %s, want %s", m[2], want)
		}
		rc.wantAlive()
	}
	if l := logged(); len(l) > 0 {
		t.Errorf("vitess logged errors: %q", l)
	}
}
