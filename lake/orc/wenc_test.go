package orc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestIntEncoderRoundTrip: every sequence shape the encoder treats apart
// (repeats, fixed steps, literals, extremes) decodes to itself through the
// reader's RLE v2 decoder, and the sub-encoding chosen is the expected one.
func TestIntEncoderRoundTrip(t *testing.T) {
	seq := func(n int, f func(i int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name   string
		vals   []int64
		signed bool
		first  byte // expected encoding (top two bits) of the first run; 0xff: any
	}{
		{"repeat3", []int64{7, 7, 7}, true, 0x00},
		{"repeat10", seq(10, func(int) int64 { return -5 }), true, 0x00},
		{"repeat600", seq(600, func(int) int64 { return 1 << 40 }), true, 0xc0},
		{"sequence", seq(1000, func(i int) int64 { return int64(i) + 100 }), false, 0xc0},
		{"descending", seq(700, func(i int) int64 { return 5 - 3*int64(i) }), true, 0xc0},
		{"literals", seq(1000, func(int) int64 { return r.Int64N(1 << 20) }), false, 0x40},
		{"mixed", append(append(seq(5, func(i int) int64 { return int64(i * i) }), 9, 9, 9, 9), seq(20, func(i int) int64 { return int64(2 * i) })...), true, 0x40},
		{"extremes", []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64, math.MinInt64, math.MinInt64}, true, 0x40},
		{"unsigned big", []int64{-1, -1, -1, -1, math.MinInt64, 3}, false, 0x00},
		{"near limit steps", seq(20, func(i int) int64 { return math.MaxInt64 - int64(i)*(1<<59) }), true, 0xff},
		{"single", []int64{42}, true, 0x40},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			out := newABuf(mem)
			defer out.release()
			e := intEnc{out: out, signed: tc.signed}
			for _, v := range tc.vals {
				e.add(v)
			}
			e.flush()
			b := append([]byte(nil), out.bytes()...)
			if tc.first != 0xff && b[0]&0xc0 != tc.first {
				t.Errorf("first run encoding %#x, want %#x", b[0]&0xc0, tc.first)
			}
			got := make([]int64, len(tc.vals))
			if err := newIntDecoder(b, tc.signed, true, "test").next(got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.vals) {
				t.Fatalf("decoded %v\nwant %v", got, tc.vals)
			}
		})
	}
}
