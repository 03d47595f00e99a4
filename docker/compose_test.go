package docker

import (
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
			host, _, _ := strings.Cut(p, ":")
			published = append(published, host)
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
