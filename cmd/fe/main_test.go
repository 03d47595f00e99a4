package main

import (
	"slices"
	"testing"
)

func TestParseFlags(t *testing.T) {
	cases := []struct {
		args []string
		ok   bool
		want config
	}{
		{nil, true, config{queryPort: 9030, metaDir: "inlet-meta", logLevel: "info"}},
		{[]string{"--query-port", "0", "--meta-dir", "/m", "--data-dir", "/d", "--be", "h1:9060, h2:9060", "--demo"}, true,
			config{queryPort: 0, metaDir: "/m", dataDir: "/d", backends: []string{"h1:9060", "h2:9060"}, demo: true, logLevel: "info"}},
		{[]string{"--query-port", "70000"}, false, config{}},
		{[]string{"-v", "2"}, false, config{}}, // glog's -v is not ours
		{[]string{"extra"}, false, config{}},
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
			got.demo != c.want.demo || !slices.Equal(got.backends, c.want.backends) || got.logLevel != c.want.logLevel {
			t.Errorf("%v: got %+v, want %+v", c.args, got, c.want)
		}
	}
}
