package sysmem

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestPhysicalMemory: on Linux, MemTotal from /proc/meminfo (read here
// with a plain scan), or a cgroup limit below it.
func TestPhysicalMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			total = kb * 1024
		}
	}
	got := PhysicalMemory()
	if got <= 0 || got > total {
		t.Fatalf("PhysicalMemory %d, MemTotal %d", got, total)
	}
	if got < total {
		t.Logf("cgroup limit %d below MemTotal %d", got, total)
	}
}
