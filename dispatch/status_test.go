package dispatch

import (
	"context"
	"strings"
	"testing"
	"time"
)

// States lists the in-process BE alive, a static BE that does not answer
// dead with the reason (the same id on every call), and registered BEs by
// their heartbeats, keeping one that expired listed as dead.
func TestStates(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	reg := NewRegistry(RegistryConfig{TTL: 10 * time.Second, Now: clock})
	defer reg.Close()
	dead := NewFlightBackend("127.0.0.1:1", "s")
	defer dead.Close()
	d := New(Config{Backends: []Backend{BackendFunc("local", nil), dead}, Registry: reg, Now: clock})
	if err := reg.Register("127.0.0.1:7001"); err != nil {
		t.Fatal(err)
	}
	byName := func() map[string]BackendState {
		m := map[string]BackendState{}
		for _, s := range d.States(context.Background()) {
			m[s.Name] = s
		}
		return m
	}
	first := byName()
	if len(first) != 3 {
		t.Fatalf("states: %+v", first)
	}
	if s := first["local"]; !s.Alive || s.Kind != "in-process" || s.Err != "" {
		t.Errorf("local: %+v", s)
	}
	if s := first["127.0.0.1:1"]; s.Alive || s.Kind != "static" || !strings.HasPrefix(s.Err, "unreachable") || s.Failures != 1 || !s.Heartbeat.IsZero() {
		t.Errorf("dead static BE: %+v", s)
	}
	if s := first["127.0.0.1:7001"]; !s.Alive || s.Kind != "registered" || !s.Heartbeat.Equal(now) {
		t.Errorf("registered BE: %+v", s)
	}
	// Heartbeats stop: past the TTL the BE is dead, and still listed after
	// the registry forgot it.
	now = now.Add(11 * time.Second)
	if s := byName()["127.0.0.1:7001"]; s.Alive || !strings.Contains(s.Err, "no heartbeat since") {
		t.Errorf("expired BE: %+v", s)
	}
	reg.Live() // forgets the expired member
	second := byName()
	if s, ok := second["127.0.0.1:7001"]; !ok || s.Alive || s.ID != first["127.0.0.1:7001"].ID {
		t.Errorf("forgotten BE: %+v (listed %v)", s, ok)
	}
	if s := second["127.0.0.1:1"]; s.ID != first["127.0.0.1:1"].ID || s.Failures != 3 { // three probes, all failed
		t.Errorf("dead static BE, third probe: %+v", s)
	}
}
