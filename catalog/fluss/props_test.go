package fluss

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
)

func props(kv ...string) map[string]string {
	m := map[string]string{"type": "fluss", PropBootstrapServers: "127.0.0.1:9123"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestParsePropertiesErrors(t *testing.T) {
	cases := []struct {
		name  string
		props map[string]string
		want  string // substring of the error
	}{
		{"missing bootstrap", map[string]string{"type": "fluss"}, "Required property 'fluss.bootstrap.servers' is missing"},
		{"blank bootstrap", props(PropBootstrapServers, "  "), "Required property 'fluss.bootstrap.servers' is missing"},
		{"no port", props(PropBootstrapServers, "host"), "Invalid value 'host' for property 'fluss.bootstrap.servers'; expected a comma-separated host:port list"},
		{"empty port", props(PropBootstrapServers, "host:"), "expected a comma-separated host:port list"},
		{"empty entry", props(PropBootstrapServers, "h:1,,h:2"), "expected a comma-separated host:port list"},
		{"port zero", props(PropBootstrapServers, "h:0"), "Invalid port in 'h:0' for property 'fluss.bootstrap.servers'; expected a number between 1 and 65535"},
		{"port too big", props(PropBootstrapServers, "h:1,h2:65536"), "Invalid port in 'h2:65536' for property 'fluss.bootstrap.servers'; expected a number between 1 and 65535"},
		{"port not a number", props(PropBootstrapServers, "h:abc"), "Invalid port in 'h:abc'"},
		{"bad mode", props(PropUnionReadMode, "sometimes"), "Invalid value 'sometimes' for property 'fluss.union_read.mode'; expected one of auto, required, disabled"},
		{"tail zero", props(PropMaxTailRows, "0"), "Invalid value '0' for property 'fluss.union_read.max_tail_rows'; expected a positive number of rows"},
		{"tail negative", props(PropMaxTailRows, "-5"), "Invalid value '-5' for property 'fluss.union_read.max_tail_rows'"},
		{"tail text", props(PropMaxTailRows, "many"), "Invalid value 'many' for property 'fluss.union_read.max_tail_rows'"},
		{"total zero", props(PropMaxTotalTailRows, "0"), "Invalid value '0' for property 'fluss.union_read.max_total_tail_rows'; expected a positive number of rows"},
		{"total below per-bucket", props(PropMaxTailRows, "10", PropMaxTotalTailRows, "9"),
			"Property 'fluss.union_read.max_total_tail_rows' (9) is below 'fluss.union_read.max_tail_rows' (10), so no union read could satisfy both"},
		{"total below default per-bucket", props(PropMaxTotalTailRows, "100"), "(100) is below 'fluss.union_read.max_tail_rows' (2000000)"},
		{"varbinary", props(PropMapVarbinary, "yes"), "Invalid value 'yes' for property 'enable.mapping.varbinary'; expected true or false"},
		{"timestamp_tz", props(PropMapTimestampTZ, "1x"), "Invalid value '1x' for property 'enable.mapping.timestamp_tz'; expected true or false"},
		{"metastore unknown", props(LakePrefix+"metastore", "glue"), "expected one of filesystem, hive, rest, jdbc"},
		{"warehouse scheme", props(LakePrefix+"warehouse", "hdfs://b/wh"), "Lake warehouse 'hdfs://b/wh'"},
		{"path style", props(LakePrefix+"s3.path-style-access", "maybe"), "Invalid value 'maybe' for property 'fluss.lake.paimon.s3.path-style-access'; expected true or false"},
		{"client protocol", props("fluss.client.security.protocol", "kerberos"), "client.security.protocol"},
		{"sasl without user", props("fluss.client.security.protocol", "sasl", "fluss.client.security.sasl.password", "hunter2"), "client.security.sasl.username"},
		{"client duration", props("fluss.client.request-timeout", "soon"), "client.request-timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProperties(c.props)
			if err == nil {
				t.Fatalf("accepted %v", c.props)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			if !errors.Is(err, catalog.ErrInvalidProperty) && !errors.Is(err, catalog.ErrUnsupported) {
				t.Errorf("error %q is neither an invalid property nor unsupported", err)
			}
			for k, v := range c.props {
				if catalog.IsSecret(k) && strings.Contains(err.Error(), v) {
					t.Errorf("error %q shows the value of secret %s", err, k)
				}
			}
			if err := Validate(c.props); err == nil {
				t.Errorf("Validate accepted %v", c.props)
			}
		})
	}
}

func TestParsePropertiesAccepted(t *testing.T) {
	in := props(
		PropBootstrapServers, " 10.0.0.1:9123, [::1]:9124 ",
		PropUnionReadMode, "REQUIRED",
		PropMaxTailRows, "5",
		PropMaxTotalTailRows, "5",
		PropMapVarbinary, "true",
		PropMapTimestampTZ, "FALSE",
		"fluss.client.security.protocol", "sasl",
		"fluss.client.security.sasl.mechanism", "PLAIN",
		"fluss.client.security.sasl.username", "u",
		"fluss.client.security.sasl.password", "pw",
		"fluss.netty.client.num-network-threads", "1",
		LakePrefix+"warehouse", "s3://bucket/lake",
		LakePrefix+"s3.access-key", "AK",
		LakePrefix+"s3.endpoint", "", // blank: no override
		LakePrefix+"metastore", "filesystem",
		"meta.cache.ttl", "10", // unknown names are accepted
	)
	cfg, err := ParseProperties(in)
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Options
	if o.UnionMode != ModeRequired || o.MaxTailRows != 5 || o.MaxTotalTailRows != 5 || !o.MapVarbinary || o.MapTimestampTZ {
		t.Errorf("options %+v", o)
	}
	wantClient := map[string]string{
		"bootstrap.servers":                "10.0.0.1:9123, [::1]:9124",
		"client.security.protocol":         "sasl",
		"client.security.sasl.mechanism":   "PLAIN",
		"client.security.sasl.username":    "u",
		"client.security.sasl.password":    "pw",
		"netty.client.num-network-threads": "1",
	}
	if !maps.Equal(o.ClientOptions, wantClient) {
		t.Errorf("client options %v, want %v", o.ClientOptions, wantClient)
	}
	if !cfg.Client.SASL || cfg.Client.SaslUsername != "u" || cfg.Client.SaslPassword != "pw" || len(cfg.Client.BootstrapServers) != 2 {
		t.Errorf("client config %v", cfg.Client)
	}
	wantLake := map[string]string{"warehouse": "s3://bucket/lake", "s3.access-key": "AK", "metastore": "filesystem"}
	if !maps.Equal(cfg.LakeOverrides, wantLake) {
		t.Errorf("lake overrides %v, want %v", cfg.LakeOverrides, wantLake)
	}

	def, err := ParseProperties(props())
	if err != nil {
		t.Fatal(err)
	}
	if d := def.Options; d.UnionMode != ModeAuto || d.MaxTailRows != 2_000_000 || d.MaxTotalTailRows != 20_000_000 || d.MapVarbinary || d.MapTimestampTZ {
		t.Errorf("defaults %+v", d)
	}
	// Blank ceilings read as the defaults, as Doris' binder skips blanks.
	if b, err := ParseProperties(props(PropMaxTailRows, " ", PropUnionReadMode, "")); err != nil || b.Options.MaxTailRows != DefaultMaxTailRows || b.Options.UnionMode != ModeAuto {
		t.Errorf("blank values: %v %v", b, err)
	}
}

func TestParseUnionReadModeSession(t *testing.T) {
	for in, want := range map[string]string{"": ModeAuto, "auto": ModeAuto, "Disabled": ModeDisabled, " required ": ModeRequired} {
		got, err := ParseUnionReadMode(in, "session variable 'fluss_union_read_mode'")
		if err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	_, err := ParseUnionReadMode("on", "session variable 'fluss_union_read_mode'")
	if err == nil || err.Error() != "Invalid value 'on' for session variable 'fluss_union_read_mode'; expected one of auto, required, disabled" {
		t.Errorf("got %v", err)
	}
}

func TestSecretsMaskedInShowCreateCatalog(t *testing.T) {
	in := props("fluss.client.security.sasl.password", "pw1", LakePrefix+"s3.secret-key", "sk1",
		LakePrefix+"s3.access-key", "ak1", LakePrefix+"fs.s3a.session.token", "tok1", LakePrefix+"fs.oss.accessKeySecret", "osk")
	masked := catalog.MaskProperties(in)
	for k, v := range masked {
		if strings.Contains(v, "pw1") || strings.Contains(v, "sk1") || strings.Contains(v, "ak1") || strings.Contains(v, "tok1") || v == "osk" {
			t.Errorf("%s shown as %q", k, v)
		}
	}
	if masked[PropBootstrapServers] != "127.0.0.1:9123" {
		t.Errorf("bootstrap masked: %v", masked)
	}
}

func TestLakeSettings(t *testing.T) {
	path := client.TablePath{Database: "db", Table: "t"}
	table := map[string]string{
		"table.datalake.enabled":                       "true",
		"table.datalake.paimon.warehouse":              "s3://lake/wh",
		"table.datalake.paimon.metastore":              "filesystem",
		"table.datalake.paimon.s3.endpoint":            "http://cluster:9000",
		"table.datalake.paimon.fs.s3a.endpoint.region": "eu-1",
		"table.datalake.paimon.s3.path.style.access":   "true",
		"table.datalake.paimon.fs.defaultFS":           "hdfs://nn",
		"table.datalake.paimon.bucket-key-extra":       "x",
	}
	cases := []struct {
		name      string
		overrides map[string]string
		wantWH    string
		storage   map[string]string
		err       string
	}{
		{name: "cluster only", wantWH: "s3://lake/wh", storage: map[string]string{
			"s3.endpoint": "http://cluster:9000", "s3.region": "eu-1", "use_path_style": "true", "fs.defaultFS": "hdfs://nn"}},
		{name: "credentials and endpoint override", overrides: map[string]string{
			"s3.access-key": "AK", "s3.secret.key": "SK", "fs.s3a.session.token": "T", "fs.s3a.endpoint": "http://mine:9000",
			"fs.oss.accessKeyId": "OA", "fs.oss.accessKeySecret": "OS", "fs.oss.endpoint": "oss-e", "fs.obs.access-key": "BA",
			"fs.obs.secret.key": "BS", "fs.obs.endpoint": "obs-e", "dfs.nameservices": "ns", "hadoop.security.authentication": "kerberos"},
			wantWH: "s3://lake/wh", storage: map[string]string{
				"s3.endpoint": "http://mine:9000", "s3.region": "eu-1", "use_path_style": "true", "fs.defaultFS": "hdfs://nn",
				"s3.access_key": "AK", "s3.secret_key": "SK", "s3.session_token": "T", "oss.access_key": "OA", "oss.secret_key": "OS",
				"oss.endpoint": "oss-e", "obs.access_key": "BA", "obs.secret_key": "BS", "obs.endpoint": "obs-e",
				"dfs.nameservices": "ns", "hadoop.security.authentication": "kerberos"}},
		{name: "warehouse override", overrides: map[string]string{"warehouse": "/local/wh"}, wantWH: "/local/wh",
			storage: map[string]string{"s3.endpoint": "http://cluster:9000", "s3.region": "eu-1", "use_path_style": "true", "fs.defaultFS": "hdfs://nn"}},
		{name: "hive metastore from override", overrides: map[string]string{"metastore": "hive"}, err: "is not supported yet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := resolveLakeSettings(path, table, c.overrides)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.warehouse != c.wantWH || !maps.Equal(s.storage, c.storage) {
				t.Errorf("warehouse %q storage %v, want %q %v", s.warehouse, s.storage, c.wantWH, c.storage)
			}
			if s.paimon["bucket-key-extra"] != "x" {
				t.Errorf("non-storage cluster option lost: %v", s.paimon)
			}
		})
	}
	if _, err := resolveLakeSettings(path, map[string]string{"table.datalake.paimon.metastore": "rest", "table.datalake.paimon.warehouse": "/w"}, nil); err == nil || !strings.Contains(err.Error(), "not supported yet") {
		t.Errorf("cluster rest metastore: %v", err)
	}
	if _, err := resolveLakeSettings(path, map[string]string{"table.datalake.paimon.metastore": "jdbc", "table.datalake.paimon.warehouse": "/w"}, nil); err == nil || !strings.Contains(err.Error(), "'jdbc'") {
		t.Errorf("cluster jdbc metastore: %v", err)
	}
	// A catalog that names jdbc or hive as its metastore is created (Doris
	// does); the lake read refuses it by name.
	for _, m := range []string{"jdbc", "hive", "REST"} {
		cfg, err := ParseProperties(props(PropBootstrapServers, "h:1", LakePrefix+"metastore", m))
		if err != nil {
			t.Errorf("CREATE with metastore %s refused: %v", m, err)
			continue
		}
		if _, err := resolveLakeSettings(path, map[string]string{"table.datalake.paimon.warehouse": "/w"}, cfg.LakeOverrides); err == nil || !strings.Contains(err.Error(), "'"+m+"'") {
			t.Errorf("override metastore %s at the lake read: %v", m, err)
		}
	}
	if _, err := resolveLakeSettings(path, map[string]string{}, nil); err == nil || !strings.Contains(err.Error(), "has no lake warehouse") {
		t.Errorf("no warehouse: %v", err)
	}
}
