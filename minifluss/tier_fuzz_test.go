package minifluss

import "testing"

// FuzzLakeStatements parses lake controls (never runs them): the parser
// must return a value or an error naming the line, never panic.
func FuzzLakeStatements(f *testing.F) {
	for _, s := range []string{
		"TIER; TIER a.b; FREEZE TIERING; UNFREEZE TIERING; COMPACT LAKE a.b;",
		"LAKE HOLD READABLE; LAKE RELEASE READABLE; LAKE EXPIRE LOG a.b; LAKE LEGACY COLUMNS ON;",
		"LAKE OPTIONS ('s3.endpoint' = 'http://x', 'metastore' = 'filesystem');",
		"GENERATE INTO a.b FROM 1 TO 10 VALUES (ID, 'n{id}', ID MOD 7, ID PLUS 3, NULL, 1.5);",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = ParseScenario(src)
	})
}
