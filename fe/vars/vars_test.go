package vars

import (
	"errors"
	"strings"
	"testing"
)

func newReg(t *testing.T) *Registry {
	t.Helper()
	r, err := NewRegistry(Defs("Inlet test", "UTC"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDefaults(t *testing.T) {
	s := newReg(t).NewSession()
	want := map[string]string{
		"fluss_union_read_mode":         "",
		"max_file_scanners_concurrency": "16",
		"enable_jni_heap_admission":     "false",
		"force_jni_scanner":             "false",
		"enable_prune_nested_column":    "true",
		"time_zone":                     "UTC",
		"version_comment":               "Inlet test",
		"autocommit":                    "true",
		"max_allowed_packet":            "16777216",
		"character_set_client":          "utf8mb4",
		"enable_file_scanner_v2":        "true",
	}
	for k, v := range want {
		got, err := s.Get(k)
		if err != nil || got != v {
			t.Errorf("%s = %q, %v; want %q", k, got, err, v)
		}
	}
}

func TestSetValidation(t *testing.T) {
	cases := []struct {
		name, value string
		want        string // normalised value, or error substring prefixed by "!"
	}{
		{"fluss_union_read_mode", "REQUIRED", "required"},
		{"fluss_union_read_mode", "", ""},
		// Doris takes any value at SET; the query that reads it refuses it.
		{"fluss_union_read_mode", "sometimes", "sometimes"},
		// Doris's suites start with these; they are accepted no-ops.
		{"enable_file_scanner_v2", "true", "true"},
		{"enable_nereids_planner", "false", "false"},
		{"enable_file_scanner_v2", "maybe", "!Variable 'enable_file_scanner_v2'"},
		{"max_file_scanners_concurrency", "4", "4"},
		{"max_file_scanners_concurrency", "0", "!Variable 'max_file_scanners_concurrency' can't be set to the value of '0'"},
		{"max_file_scanners_concurrency", "four", "!variable 'max_file_scanners_concurrency': 'four' is not an integer"},
		{"enable_jni_heap_admission", "1", "true"},
		{"enable_jni_heap_admission", "yes", "!Variable 'enable_jni_heap_admission'"},
		{"time_zone", "+08:00", "+08:00"},
		{"time_zone", "Asia/Shanghai", "Asia/Shanghai"},
		{"time_zone", "Mars/Olympus", "!Variable 'time_zone'"},
		{"version_comment", "x", "!Variable 'version_comment' is a read only variable"},
		{"no_such_var", "1", "!Unknown system variable 'no_such_var'"},
		{"Force_JNI_Scanner", "true", "true"},
		{"exec_mem_limit", "16G", "17179869184"},
		{"exec_mem_limit", "64kb", "65536"},
		{"exec_mem_limit", "16Q", "!'16Q' is not a data volume"},
		{"max_file_scanners_concurrency", "16G", "!'16G' is not an integer"},
	}
	for _, c := range cases {
		s := newReg(t).NewSession()
		err := s.Set(c.name, c.value)
		if strings.HasPrefix(c.want, "!") {
			if err == nil || !strings.Contains(err.Error(), c.want[1:]) {
				t.Errorf("Set(%s, %q) err = %v, want %q", c.name, c.value, err, c.want[1:])
			}
			continue
		}
		if err != nil {
			t.Errorf("Set(%s, %q): %v", c.name, c.value, err)
			continue
		}
		if got, _ := s.Get(c.name); got != c.want {
			t.Errorf("Set(%s, %q) stored %q, want %q", c.name, c.value, got, c.want)
		}
	}
	if err := newReg(t).NewSession().Set("nope", "1"); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown kind = %v", err)
	}
}

func TestGlobalAndHints(t *testing.T) {
	r := newReg(t)
	before := r.NewSession()
	if err := r.SetGlobal("max_file_scanners_concurrency", "8"); err != nil {
		t.Fatal(err)
	}
	if v, _ := before.Get("max_file_scanners_concurrency"); v != "16" {
		t.Errorf("existing session changed by SET GLOBAL: %s", v)
	}
	s := r.NewSession()
	if v, _ := s.Get("max_file_scanners_concurrency"); v != "8" {
		t.Errorf("new session = %s, want 8", v)
	}
	h, err := s.WithHints(map[string]string{"fluss_union_read_mode": "required", "max_file_scanners_concurrency": "4"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := h.Get("fluss_union_read_mode"); v != "required" {
		t.Errorf("hint value = %q", v)
	}
	if v, _ := s.Get("fluss_union_read_mode"); v != "" {
		t.Errorf("hint leaked into session: %q", v)
	}
	if _, err := s.WithHints(map[string]string{"max_file_scanners_concurrency": "x"}); err == nil {
		t.Error("bad hint accepted")
	}
}

func TestLike(t *testing.T) {
	r := newReg(t)
	got := r.Like("fluss\\_u%")
	if len(got) != 1 || got[0] != "fluss_union_read_mode" {
		t.Errorf("Like(fluss%%) = %v", got)
	}
	if got := r.Like("character\\_set\\_c%"); len(got) != 2 {
		t.Errorf("Like escaped = %v", got)
	}
	for _, c := range []struct {
		p, s string
		ok   bool
	}{{"a_c", "abc", true}, {"a_c", "abbc", false}, {"%", "", true}, {"A%", "abc", true}, {"a[b", "a[b", true}, {"a/b%", "a/bc", true}} {
		if MatchLike(c.p, c.s) != c.ok {
			t.Errorf("MatchLike(%q, %q) != %v", c.p, c.s, c.ok)
		}
	}
}
