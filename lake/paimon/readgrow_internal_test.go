package paimon

import "testing"

// TestReadGrowBounds: a read keeping almost nothing doubles its rows up
// to 8 batches, never past 65536 rows unless one batch is larger, and
// only after a full read (a part's last, shorter read does not count);
// a read keeping more than a batch halves it.
func TestReadGrowBounds(t *testing.T) {
	for _, c := range []struct {
		batch int64
		want  []int64 // grow after each full read keeping 1 row
	}{
		{4064, []int64{2, 4, 8, 8}},
		{10000, []int64{2, 4, 4}}, // 8 × 10000 would pass 65536
		{40000, []int64{1, 1}},    // 2 × 40000 would
		{1 << 20, []int64{1}},     // batch_size's maximum: never
		{100, []int64{2, 4, 8, 8, 8}},
	} {
		r := &pageRecordReader{batch: c.batch, left: 1 << 40}
		for i, w := range c.want {
			n := r.readRows()
			r.kept(n, 1)
			if r.grow != w {
				t.Errorf("batch %d, read %d of %d rows: grow %d, want %d", c.batch, i, n, r.grow, w)
			}
		}
		// A read keeping more than a batch halves the next.
		g := r.grow
		r.kept(r.readRows(), c.batch+1)
		if want := max(g/2, 1); r.grow != want {
			t.Errorf("batch %d: after a read keeping %d, grow %d, want %d", c.batch, c.batch+1, r.grow, want)
		}
	}
	// A part's last read, shorter than the grown size, does not grow it.
	r := &pageRecordReader{batch: 4064, left: 3000}
	r.kept(r.readRows(), 0)
	if r.grow > 1 {
		t.Errorf("a 3000-row tail read grew the reads to %d", r.grow)
	}
}
