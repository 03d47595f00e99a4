package memlimit

import (
	"os"
	"strconv"
	"strings"
)

// RSS is the resident set size of this process in bytes (Linux
// /proc/self/statm), or -1 where it cannot be read. Shown next to the
// accounted bytes, it tells how much memory the account does not see.
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// RSSParts splits the resident set (Linux /proc/self/status) into anonymous
// memory (the heap: what the accounts should explain) and file-backed pages
// (mapped table files, shared and reclaimable by the OS); -1 where unknown.
func RSSParts() (anon, file int64) {
	anon, file = -1, -1
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "RssAnon" && name != "RssFile") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		if name == "RssAnon" {
			anon = kb << 10
		} else {
			file = kb << 10
		}
	}
	return
}
