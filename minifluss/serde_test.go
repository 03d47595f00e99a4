package minifluss

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
)

type serdeCases struct {
	Cases []struct {
		JSON      string `json:"json"`
		Direction string `json:"direction"`
		Describes string `json:"describes"`
	} `json:"cases"`
}

func loadSerde(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(fixtures.Path(t, "fluss", "json_serde.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

// The table JSON the emulator writes matches Java's serialiser for the
// upstream golden descriptors (properties compared as maps).
func TestTableDescriptorJSONMatchesJava(t *testing.T) {
	var cs serdeCases
	if err := json.Unmarshal(loadSerde(t)["table_descriptors"], &cs); err != nil {
		t.Fatal(err)
	}
	strip := func(s string) (map[string]any, map[string]any, map[string]any) {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		p, c := m["properties"], m["custom_properties"]
		delete(m, "properties")
		delete(m, "custom_properties")
		pm, _ := p.(map[string]any)
		cm, _ := c.(map[string]any)
		return m, pm, cm
	}
	n := 0
	for _, c := range cs.Cases {
		if c.Direction != "both" {
			continue
		}
		d, err := parseDescriptor([]byte(c.JSON))
		if err != nil {
			t.Fatalf("%s: %v", c.Describes, err)
		}
		got := string(d.marshal())
		g, gp, gc := strip(got)
		w, wp, wc := strip(c.JSON)
		if !reflect.DeepEqual(g, w) || !reflect.DeepEqual(gp, wp) || !reflect.DeepEqual(gc, wc) {
			t.Errorf("%s:\n got %s\nwant %s", c.Describes, got, c.JSON)
		}
		// outside the two maps, member order is Java's too
		if len(wp) <= 1 {
			if len(wc) <= 1 && got != c.JSON {
				t.Errorf("%s: byte difference:\n got %s\nwant %s", c.Describes, got, c.JSON)
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no table descriptor cases")
	}
}

// The remote-log manifest the emulator writes is byte-identical to Java's.
func TestRemoteLogManifestJSONMatchesJava(t *testing.T) {
	var cs serdeCases
	if err := json.Unmarshal(loadSerde(t)["remote_log_manifests"], &cs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs.Cases {
		var m manifestJSON
		if err := json.Unmarshal([]byte(c.JSON), &m); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.JSON {
			t.Errorf("manifest:\n got %s\nwant %s", b, c.JSON)
		}
	}
}
