package server

import (
	"fmt"
	"testing"
)

// TestValueAggsExecMemLimit: PERCENTILE, MEDIAN, PERCENTILE_APPROX, NDV,
// APPROX_COUNT_DISTINCT and TOPN keep a value or key per row, so over many
// distinct values they end in the memory-limit error naming
// exec_mem_limit (not an unbounded heap), give every byte back, and the
// same aggregates over a few values still answer under the same limit.
func TestValueAggsExecMemLimit(t *testing.T) {
	f := startFE(t, t.TempDir(), "", false)
	a := f.db("")
	bigTable(t, a)

	const limit = 6 << 20
	mustExec(t, a, fmt.Sprintf("SET exec_mem_limit = %d", limit))
	// What fits: 1000 ids (median 499.5, 1000 distinct; id % 3 is 0 for
	// 334 of them and 1 or 2 for 333, the tie in ascending order).
	fits := func() {
		t.Helper()
		wantRows(t, a, "SELECT percentile(id, 0.5), median(id), percentile_approx(id, 0.5), ndv(id), approx_count_distinct(pad), topn(cast(id % 3 AS VARCHAR), 2) FROM big WHERE id < 1000",
			`499.5|499.5|499.5|1000|1000|{"0":334,"1":333}`)
		if n := f.mem.CurrentAlloc(); n != 0 {
			t.Errorf("after the fitting query the FE allocator holds %d bytes", n)
		}
	}
	fits()
	// What does not: 10^5 distinct 200-byte pads (about 25 MB of keys) and
	// 10^6 values (8 MB of doubles) in one group.
	overs := []string{
		"SELECT ndv(pad) FROM big",
		"SELECT approx_count_distinct(pad) FROM big",
		"SELECT topn(pad, 3) FROM big",
		"SELECT percentile(a.id, 0.5) FROM big a, d b",
		"SELECT median(a.id) FROM big a, d b",
		"SELECT percentile_approx(a.id, 0.5) FROM big a, d b",
	}
	for _, q := range overs {
		wantMemLimit(t, a, q, limit)
		if n := f.mem.CurrentAlloc(); n != 0 {
			t.Errorf("after %q the FE allocator holds %d bytes", q, n)
		}
		fits()
	}
}
