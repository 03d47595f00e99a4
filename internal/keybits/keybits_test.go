package keybits

import (
	"math"
	"slices"
	"testing"
)

// set makes the words of keys from lo by hand: bit k-lo of word (k-lo)/64.
func set(lo int64, n int, keys ...int64) []uint64 {
	w := make([]uint64, n)
	for _, k := range keys {
		p := k - lo
		w[p/64] |= 1 << (p % 64)
	}
	return w
}

// TestKeep: the values kept are exactly the keys of the set (edges of the
// words, below lo, past the last word, far outside, extreme values), rows
// already cleared stay cleared, and Has agrees row by row.
func TestKeep(t *testing.T) {
	for _, c := range []struct {
		name  string
		words []uint64
		lo    int64
		vals  []int64
		keep  []bool // nil: all true
		want  []bool
	}{
		{"edges", set(-5, 2, -5, 58, 59, 122), -5,
			[]int64{-6, -5, -4, 58, 59, 60, 122, 123, math.MaxInt64, math.MinInt64}, nil,
			[]bool{false, true, false, true, true, false, true, false, false, false}},
		{"already cleared", set(0, 1, 1, 2), 0, []int64{1, 2, 3}, []bool{false, true, true},
			[]bool{false, true, false}},
		{"empty set", nil, 7, []int64{7, 8}, nil, []bool{false, false}},
		{"lo near the top", set(math.MaxInt64-3, 1, math.MaxInt64), math.MaxInt64 - 3,
			[]int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64}, nil, []bool{true, false, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			keep := slices.Clone(c.keep)
			if keep == nil {
				keep = make([]bool, len(c.vals))
				for i := range keep {
					keep[i] = true
				}
			}
			before := 0
			for _, k := range keep {
				if k {
					before++
				}
			}
			d := Keep(c.words, c.lo, c.vals, keep)
			if !slices.Equal(keep, c.want) {
				t.Errorf("kept %v, want %v", keep, c.want)
			}
			after := 0
			for i, k := range keep {
				if k {
					after++
				}
				if k && !Has(c.words, c.lo, c.vals[i]) {
					t.Errorf("kept %d, which Has says is out", c.vals[i])
				}
			}
			if d != before-after {
				t.Errorf("dropped %d, want %d", d, before-after)
			}
		})
	}
}

// TestKeepWidths: every integer width reads its values signed.
func TestKeepWidths(t *testing.T) {
	w := set(-130, 3, -128, -1, 0, 5)
	want := []bool{true, true, true, true, false}
	check := func(name string, got []bool) {
		if !slices.Equal(got, want) {
			t.Errorf("%s: kept %v, want %v", name, got, want)
		}
	}
	all := func() []bool { return []bool{true, true, true, true, true} }
	k8, k16, k32, k64 := all(), all(), all(), all()
	Keep(w, -130, []int8{-128, -1, 0, 5, 6}, k8)
	Keep(w, -130, []int16{-128, -1, 0, 5, 6}, k16)
	Keep(w, -130, []int32{-128, -1, 0, 5, 6}, k32)
	Keep(w, -130, []int64{-128, -1, 0, 5, 6}, k64)
	check("int8", k8)
	check("int16", k16)
	check("int32", k32)
	check("int64", k64)
}

func TestSpanAndWire(t *testing.T) {
	w := set(100, 3, 103, 227)
	lo, hi, ok := Span(w, 100)
	if !ok || lo != 103 || hi != 227 {
		t.Errorf("span %d..%d %v, want 103..227", lo, hi, ok)
	}
	if _, _, ok := Span(make([]uint64, 4), 0); ok {
		t.Error("an empty set has a span")
	}
	back, err := Decode(Encode(w))
	if err != nil || !slices.Equal(back, w) {
		t.Errorf("round trip %v %v, want %v", back, err, w)
	}
	if _, err := Decode(make([]byte, 9)); err == nil {
		t.Error("9 bytes decoded")
	}
}
