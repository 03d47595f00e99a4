package record_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
)

func loadHex(tb testing.TB, name string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(fixtures.Path(tb, "fluss", name))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return b
}

func loadJSON(tb testing.TB, name string, v any) {
	tb.Helper()
	raw, err := os.ReadFile(fixtures.Path(tb, "fluss", name))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
}
