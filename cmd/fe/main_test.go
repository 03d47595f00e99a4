package main

import (
	"slices"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	cases := []struct {
		args []string
		ok   bool
		want config
	}{
		{nil, true, config{queryPort: 9030, metaDir: "", logLevel: "info", flightSQLPort: 8070}}, // run picks a per-user directory
		{[]string{"--query-port", "0", "--meta-dir", "/m", "--data-dir", "/d", "--be", "h1:9060, h2:9060", "--demo", "--flight-sql-port", "-1"}, true,
			config{queryPort: 0, metaDir: "/m", dataDir: "/d", backends: []string{"h1:9060", "h2:9060"}, demo: true, logLevel: "info", flightSQLPort: -1}},
		{[]string{"--flight-sql-port", "70000"}, false, config{}},
		{[]string{"--flight-sql-port", "-2"}, false, config{}},
		{[]string{"--query-port", "70000"}, false, config{}},
		{[]string{"-v", "2"}, false, config{}}, // glog's -v is not ours
		{[]string{"extra"}, false, config{}},
		{[]string{"--mem-limit", "150%"}, false, config{}},
		{[]string{"--mem-limit", "0"}, false, config{}},
		{[]string{"--mem-limit", "lots"}, false, config{}},
		{[]string{"--max-connections", "0"}, false, config{}},
		{[]string{"--handshake-timeout", "0s"}, false, config{}},
		{[]string{"--tls-cert", "c.pem"}, false, config{}}, // the key must come too
		{[]string{"--tls-key", "k.pem"}, false, config{}},
	}
	for _, c := range cases {
		got, err := parseFlags(c.args)
		if (err == nil) != c.ok {
			t.Errorf("%v: err = %v", c.args, err)
			continue
		}
		if !c.ok {
			continue
		}
		if got.queryPort != c.want.queryPort || got.metaDir != c.want.metaDir || got.dataDir != c.want.dataDir ||
			got.demo != c.want.demo || !slices.Equal(got.backends, c.want.backends) || got.logLevel != c.want.logLevel ||
			got.flightSQLPort != c.want.flightSQLPort {
			t.Errorf("%v: got %+v, want %+v", c.args, got, c.want)
		}
	}
}

// Without --meta-dir the FE keeps its metadata in a per-user directory, not
// in the current directory: $XDG_DATA_HOME/inlet, else
// ~/.local/share/inlet.
func TestDefaultMetaDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d, err := defaultMetaDir(); err != nil || d != "/xdg/inlet" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", d, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, err := defaultMetaDir(); err != nil || d != "/home/u/.local/share/inlet" {
		t.Errorf("from HOME: %q, %v", d, err)
	}
}

// The connection limits and the process memory cap (issue 13) are flags;
// the defaults are Doris': 80% of memory, qe_max_connection 1024, and
// MySQL's connect_timeout of 10 s.
func TestLimitFlags(t *testing.T) {
	def, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.maxConns != 1024 || def.handshakeTimeout != 10*time.Second || def.memLimit <= 0 {
		t.Fatalf("defaults: %d connections, %s handshake, %d bytes", def.maxConns, def.handshakeTimeout, def.memLimit)
	}
	all, err := parseFlags([]string{"--mem-limit", "100%"})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(0.8 * float64(all.memLimit)); def.memLimit < want-1 || def.memLimit > want+1 {
		t.Fatalf("80%% = %d bytes, 100%% = %d", def.memLimit, all.memLimit)
	}
	c, err := parseFlags([]string{"--mem-limit", "6G", "--max-connections", "7", "--handshake-timeout", "3s"})
	if err != nil {
		t.Fatal(err)
	}
	if c.memLimit != 6<<30 || c.maxConns != 7 || c.handshakeTimeout != 3*time.Second {
		t.Fatalf("got %d bytes, %d connections, %s", c.memLimit, c.maxConns, c.handshakeTimeout)
	}
}
