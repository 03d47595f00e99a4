package flussapi

import (
	"strings"
	"testing"
)

func TestErrorNamesCoverSpecTable(t *testing.T) {
	for code := int32(-1); code <= 73; code++ {
		if n := ErrorName(code); strings.HasPrefix(n, "ERROR_") {
			t.Errorf("code %d has no name", code)
		}
	}
	if got := ErrorName(99); got != "ERROR_99" {
		t.Errorf("unknown code: got %q", got)
	}
}

func TestAPIKeyNames(t *testing.T) {
	cases := map[APIKey]string{FetchLog: "FETCH_LOG", ScanKv: "SCAN_KV", APIVersions: "API_VERSIONS", 1099: "API_1099"}
	for k, want := range cases {
		if got := k.String(); got != want {
			t.Errorf("%d: got %q want %q", int16(k), got, want)
		}
	}
}
