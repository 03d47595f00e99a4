package planner

import (
	"runtime"
	"testing"
)

// minSplits asks for two slices per scanner only when file_split_size is
// auto and files are cut at all.
func TestMinSplits(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	cases := []struct {
		name string
		vars map[string]string
		want int
	}{
		{"auto", nil, 2 * cores},
		{"auto, zero", map[string]string{"file_split_size": "0"}, 2 * cores},
		{"auto, 3 tasks", map[string]string{"parallel_pipeline_task_num": "3"}, 6},
		{"auto, tasks 0 = cores", map[string]string{"parallel_pipeline_task_num": "0"}, 2 * cores},
		{"size set", map[string]string{"file_split_size": "1048576"}, 0},
		{"jni reads whole files", map[string]string{"force_jni_scanner": "true"}, 0},
	}
	for _, c := range cases {
		if got := minSplits(c.vars); got != c.want {
			t.Errorf("%s: minSplits = %d, want %d", c.name, got, c.want)
		}
	}
}
