package paimon

import (
	"strings"
	"time"
)

// formatTimestamp renders a wall-clock timestamp as
// "YYYY-MM-DD HH:MM:SS[.fraction]" with trailing fraction zeros trimmed.
func formatTimestamp(ts TimestampValue, precision int) string {
	t := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
	return formatTime(t)
}

func formatTime(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05.000000000")
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func formatDate(days int32) string {
	return time.Unix(int64(days)*86400, 0).UTC().Format("2006-01-02")
}
