package planner

import (
	"testing"
	"time"

	"github.com/inlet-db/inlet/catalog"
)

// TestChangelogBounds: the WHERE conjuncts on the metadata columns become
// start/stop bounds no matching row lies outside of; anything else is
// left to the BE's filter.
func TestChangelogBounds(t *testing.T) {
	ts := func(s string) int64 {
		v, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixMilli()
	}
	pred := func(col, op string, v any) catalog.Predicate {
		return catalog.Predicate{Column: col, Op: op, Values: []any{v}}
	}
	cases := []struct {
		name  string
		preds []catalog.Predicate
		zone  string
		want  changelogBounds
	}{
		{"none", nil, "", changelogBounds{-1, -1, -1}},
		{">=", []catalog.Predicate{pred("_log_offset", ">=", int64(5))}, "", changelogBounds{5, -1, -1}},
		{">", []catalog.Predicate{pred("_log_offset", ">", int64(5))}, "", changelogBounds{6, -1, -1}},
		{"=", []catalog.Predicate{pred("_log_offset", "=", int64(5))}, "", changelogBounds{5, 6, -1}},
		{"window, tightest wins", []catalog.Predicate{pred("_log_offset", ">=", int64(2)), pred("_log_offset", ">", int64(3)),
			pred("_log_offset", "<", int64(9)), pred("_log_offset", "<=", int64(6))}, "", changelogBounds{4, 7, -1}},
		{"not a bound", []catalog.Predicate{pred("_log_offset", "!=", int64(5)), {Column: "_log_offset", Op: "IN", Values: []any{int64(1), int64(2)}}}, "", changelogBounds{-1, -1, -1}},
		{"text offset is not pushed", []catalog.Predicate{pred("_log_offset", ">=", "5")}, "", changelogBounds{-1, -1, -1}},
		{"other column", []catalog.Predicate{pred("id", ">=", int64(5))}, "", changelogBounds{-1, -1, -1}},
		{"commit time UTC", []catalog.Predicate{pred("_commit_timestamp", ">=", "2024-01-15 10:40:00")}, "UTC", changelogBounds{-1, -1, ts("2024-01-15 10:40:00")}},
		{"commit time ms rounded down", []catalog.Predicate{pred("_commit_timestamp", ">", "2024-01-15 10:40:00.0009")}, "UTC", changelogBounds{-1, -1, ts("2024-01-15 10:40:00")}},
		// East of UTC the session reading is earlier; west of it the UTC
		// reading is: the bound is the earlier of the two either way.
		{"commit time east", []catalog.Predicate{pred("_commit_timestamp", ">=", "2024-01-15 18:40:00")}, "Asia/Shanghai", changelogBounds{-1, -1, ts("2024-01-15 10:40:00")}},
		{"commit time west", []catalog.Predicate{pred("_commit_timestamp", ">=", "2024-01-15 10:40:00")}, "America/New_York", changelogBounds{-1, -1, ts("2024-01-15 10:40:00")}},
		{"commit time upper is not a start", []catalog.Predicate{pred("_commit_timestamp", "<", "2024-01-15 10:40:00")}, "UTC", changelogBounds{-1, -1, -1}},
		{"commit time unparsable", []catalog.Predicate{pred("_commit_timestamp", ">=", "yesterday")}, "UTC", changelogBounds{-1, -1, -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := metadataBounds(c.preds, map[string]string{varTimeZone: c.zone})
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestChangelogStartup(t *testing.T) {
	for _, c := range []struct {
		mode, ts, want string
		bad            bool
	}{
		{"", "", "earliest", false},
		{"EARLIEST", "", "earliest", false},
		{"latest", "", "latest", false},
		{"timestamp", "1705312200000", "timestamp(1705312200000)", false},
		{"timestamp", "", "", true},
		{"timestamp", "-1", "", true},
		{"timestamp", "soon", "", true},
		{"first", "", "", true},
	} {
		got, err := changelogStartup(map[string]string{varChangelogStartupMode: c.mode, varChangelogStartupTs: c.ts})
		if (err != nil) != c.bad || (err == nil && got.String() != c.want) {
			t.Errorf("mode %q ts %q: got %v, %v", c.mode, c.ts, got, err)
		}
	}
}
