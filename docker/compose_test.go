package docker

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type compose struct {
	Name     string `yaml:"name"`
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     any               `yaml:"command"`
		Entrypoint  any               `yaml:"entrypoint"`
		User        string            `yaml:"user"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   any               `yaml:"depends_on"`
		Healthcheck map[string]any    `yaml:"healthcheck"`
		Profiles    []string          `yaml:"profiles"`
		ExtraHosts  []string          `yaml:"extra_hosts"`
	} `yaml:"services"`
}

func load(t *testing.T) compose {
	t.Helper()
	raw, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	var top map[string]any
	if err := yaml.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	for k := range top {
		if k != "name" && k != "services" {
			t.Errorf("unexpected top-level key %q", k)
		}
	}
	// Strict: a misspelt key of a service fails here.
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCompose checks the services, images, ports, volumes and server
// settings anchors §2.1/§2.3 ask for.
func TestCompose(t *testing.T) {
	c := load(t)
	images := map[string]string{
		"zookeeper": "zookeeper:3.9.2", "coordinator": "apache/fluss:1.0.0", "tablet-server": "apache/fluss:1.0.0",
		"jobmanager": "apache/fluss-quickstart-flink:1.20-1.0.0", "taskmanager": "apache/fluss-quickstart-flink:1.20-1.0.0",
		"init": "apache/fluss-quickstart-flink:1.20-1.0.0", "minio": "${MINIO_IMAGE:-minio/minio:RELEASE.2025-01-20T14-49-07Z}",
		"prometheus": "prom/prometheus:v2.53.0", "grafana": "grafana/grafana:11.1.0",
	}
	for name, img := range images {
		s, ok := c.Services[name]
		if !ok {
			t.Errorf("service %s missing", name)
			continue
		}
		if s.Image != img {
			t.Errorf("%s: image %q, want %q", name, s.Image, img)
		}
	}
	for name := range c.Services {
		if _, ok := images[name]; !ok {
			t.Errorf("service %s is not described by this test or the README", name)
		}
	}
	ports := map[string]string{"zookeeper": "22181:2181", "coordinator": "19123:9123", "tablet-server": "19124:9123",
		"minio": "19125:9000", "jobmanager": "18085:8081"}
	for name, p := range ports {
		if !slices.Contains(c.Services[name].Ports, p) {
			t.Errorf("%s: ports %v lack %s", name, c.Services[name].Ports, p)
		}
	}
	if c.Services["coordinator"].Command != "coordinatorServer" || c.Services["tablet-server"].Command != "tabletServer" {
		t.Error("fluss server commands must be coordinatorServer / tabletServer")
	}
	settings := func(name string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(c.Services[name].Environment["FLUSS_PROPERTIES"], "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				m[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		return m
	}
	for name, port := range map[string]string{"coordinator": "19123", "tablet-server": "19124"} {
		s := settings(name)
		for k, v := range map[string]string{
			"bind.listeners": "FLUSS://0.0.0.0:9123", "remote.data.dir": "${FLUSS_REMOTE_DIR}", "datalake.enabled": "true",
			"datalake.format": "paimon", "datalake.paimon.metastore": "filesystem", "datalake.paimon.warehouse": "s3://fluss-lake/wh",
			"datalake.paimon.s3.path.style.access": "true", "default.bucket.number": "3",
		} {
			if s[k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, s[k], v)
			}
		}
		if !strings.HasSuffix(s["advertised.listeners"], ":"+port) || !strings.Contains(s["advertised.listeners"], "HOST_IP") {
			t.Errorf("%s: advertised.listeners %q must be HOST_IP:%s", name, s["advertised.listeners"], port)
		}
		if c.Services[name].User != "9999:9999" {
			t.Errorf("%s: user %q, want 9999:9999", name, c.Services[name].User)
		}
		sameDir := false
		for _, v := range c.Services[name].Volumes {
			src, dst, _ := strings.Cut(v, ":")
			sameDir = sameDir || strings.HasPrefix(src, "${FLUSS_REMOTE_DIR") && strings.HasPrefix(dst, "${FLUSS_REMOTE_DIR")
		}
		if !sameDir {
			t.Errorf("%s: remote.data.dir must be mounted at the same path: %v", name, c.Services[name].Volumes)
		}
	}
	if v := settings("tablet-server")["kv.snapshot.interval"]; v != "10s" {
		t.Errorf("tablet-server: kv.snapshot.interval %q, want 10s", v)
	}
	if c.Services["init"].Healthcheck == nil || !strings.Contains(c.Services["init"].Environment["FLUSS_BOOTSTRAP_SERVERS"], "coordinator:9123") {
		t.Error("init needs a healthcheck and FLUSS_BOOTSTRAP_SERVERS=coordinator:9123")
	}
	// Files the compose file mounts from this folder exist.
	for _, s := range c.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "./lib/") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("volume %s: %v", v, err)
				}
			}
		}
	}
}

// TestReadme checks that the README names what the compose file has and
// gives the two commands.
func TestReadme(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	c := load(t)
	for _, s := range []string{"docker compose -f docker/docker-compose.yml up", "go test -count=1 -v ./regression/",
		"INLET_REGRESSION_BOOTSTRAP", "INLET_REGRESSION_S3_ENDPOINT", "INLET_REGRESSION_S3_ACCESS_KEY", "INLET_REGRESSION_S3_SECRET_KEY",
		"INLET_REGRESSION_REMOTE_DIR", "HOST_IP", "FLUSS_REMOTE_DIR", "MINIO_IMAGE", "paimon-s3-2.0.0.jar"} {
		if !strings.Contains(readme, s) {
			t.Errorf("README lacks %q", s)
		}
	}
	// Every host port the README mentions is published by some service.
	var published []string
	for _, s := range c.Services {
		for _, p := range s.Ports {
			// host:container or ip:host:container
			parts := strings.Split(p, ":")
			published = append(published, parts[len(parts)-2])
		}
	}
	for _, m := range regexp.MustCompile(`\b(1[0-9]{4}|22181)\b`).FindAllString(readme, -1) {
		if !slices.Contains(published, m) {
			t.Errorf("README names port %s, which no service publishes", m)
		}
	}
	for _, img := range []string{"apache/fluss:1.0.0", "apache/fluss-quickstart-flink:1.20-1.0.0", "ZooKeeper 3.9.2"} {
		if !strings.Contains(readme, img) {
			t.Errorf("README lacks %q", img)
		}
	}
}

var createRe = regexp.MustCompile(`(?m)^CREATE TABLE (?:IF NOT EXISTS )?fluss_test\.(\w+)`)

// TestFixturesAgree keeps the Flink SQL fixture set equal to the
// emulator's: the same tables, and every table tiered before the freeze
// except lake_untiered.
func TestFixturesAgree(t *testing.T) {
	read := func(p string) string {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	tables := func(s string) []string {
		var out []string
		for _, m := range createRe.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	emu := tables(read("../minifluss/testdata/doris_regression.scenario") + read("../regression/testdata/extra.scenario"))
	init, tail := read("sql/init.sql"), read("sql/init-tail.sql")
	dock := tables(init + tail)
	if !slices.Equal(emu, dock) {
		t.Errorf("tables differ:\n emulator %v\n docker   %v", emu, dock)
	}
	if got := tables(tail); !slices.Equal(got, []string{"lake_untiered"}) {
		t.Errorf("tables created after the freeze: %v, want only lake_untiered", got)
	}
	counts := read("sql/lake-row-counts.sql")
	script := read("scripts/init.sh")
	for _, tb := range tables(init) {
		if !strings.HasPrefix(tb, "lake_") && !strings.HasPrefix(tb, "big_") || tb == "lake_empty" {
			continue
		}
		if !strings.Contains(counts, "LAKEROWS:"+tb+"=") || !regexp.MustCompile(`[" ]`+tb+`=\d`).MatchString(script) {
			t.Errorf("lake table %s is not awaited by lake-row-counts.sql and init.sh", tb)
		}
	}
}

// TestMonitoring checks the Prometheus + Grafana pair: opt-in profile,
// loopback-only ports, a dashboard Grafana can load whose every query uses
// the provisioned data source and scrapes the groups Prometheus labels.
// The metric names themselves are checked against live /metrics in
// cmd/be (TestDashboardMetricsBE) and fe/server (TestDashboardMetricsFE).
func TestMonitoring(t *testing.T) {
	c := load(t)
	for _, name := range []string{"prometheus", "grafana"} {
		s := c.Services[name]
		if !slices.Equal(s.Profiles, []string{"monitoring"}) {
			t.Errorf("%s: profiles %v, want [monitoring] (the regression stack must not need it)", name, s.Profiles)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s: port %s is not bound to loopback", name, p)
			}
		}
	}
	if c.Services["grafana"].Environment["GF_AUTH_ANONYMOUS_ENABLED"] != "false" {
		t.Error("grafana must not allow anonymous access")
	}
	var ds struct {
		Datasources []struct{ UID, Type, URL string } `yaml:"datasources"`
	}
	raw, err := os.ReadFile("grafana/provisioning/datasources/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" || ds.Datasources[0].URL != "http://prometheus:9090" {
		t.Fatalf("datasources: %+v", ds.Datasources)
	}
	uid := ds.Datasources[0].UID

	var prom struct {
		ScrapeConfigs []struct {
			MetricsPath   string `yaml:"metrics_path"`
			StaticConfigs []struct {
				Targets []string          `yaml:"targets"`
				Labels  map[string]string `yaml:"labels"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	raw, err = os.ReadFile("prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &prom); err != nil {
		t.Fatal(err)
	}
	groups := map[string]string{}
	for _, sc := range prom.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, tg := range st.Targets {
				groups[st.Labels["group"]] = tg
			}
		}
	}
	if !strings.HasSuffix(groups["fe"], ":8030") || !strings.HasSuffix(groups["be"], ":8040") {
		t.Errorf("scrape groups %v, want fe on :8030 and be on :8040 (the default --http-port of each)", groups)
	}

	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title      string               `json:"title"`
			Datasource struct{ UID string } `json:"datasource"`
			Targets    []struct {
				Expr       string               `json:"expr"`
				Datasource struct{ UID string } `json:"datasource"`
			} `json:"targets"`
		} `json:"panels"`
	}
	raw, err = os.ReadFile("grafana/dashboards/inlet.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	if dash.UID == "" || len(dash.Panels) < 6 {
		t.Fatalf("dashboard uid %q with %d panels", dash.UID, len(dash.Panels))
	}
	groupRe := regexp.MustCompile(`group="(\w+)"`)
	for _, p := range dash.Panels {
		if p.Datasource.UID != uid || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %q, %d queries", p.Title, p.Datasource.UID, len(p.Targets))
		}
		for _, q := range p.Targets {
			if q.Datasource.UID != uid {
				t.Errorf("panel %q: query data source %q, want %q", p.Title, q.Datasource.UID, uid)
			}
			for _, m := range groupRe.FindAllStringSubmatch(q.Expr, -1) {
				if _, ok := groups[m[1]]; !ok {
					t.Errorf("panel %q selects group %q, which Prometheus does not label", p.Title, m[1])
				}
			}
		}
	}
}
