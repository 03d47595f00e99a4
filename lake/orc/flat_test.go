package orc

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// validPatterns are flag slices that exercise the word-at-a-time paths:
// lengths around multiples of eight, long runs of each value, isolated
// NULLs and random mixes.
func validPatterns() map[string][]bool {
	rng := rand.New(rand.NewPCG(1, 2))
	pats := map[string][]bool{"empty": {}}
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200} {
		all, none, rnd, every97, runs := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
		for i := range n {
			all[i] = true
			rnd[i] = rng.IntN(2) == 0
			every97[i] = i%97 != 0
			runs[i] = (i/13)%2 == 0
		}
		pats[fmt.Sprintf("all/%d", n)] = all
		pats[fmt.Sprintf("none/%d", n)] = none
		pats[fmt.Sprintf("random/%d", n)] = rnd
		pats[fmt.Sprintf("every97/%d", n)] = every97
		pats[fmt.Sprintf("runs13/%d", n)] = runs
	}
	return pats
}

func TestFlagKernels(t *testing.T) {
	for name, valid := range validPatterns() {
		n, k := len(valid), 0
		wantBM := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, v := range valid {
			if v {
				k++
				bitutil.SetBit(wantBM, i)
			}
		}
		if got := countTrue(valid); got != k {
			t.Errorf("%s: countTrue %d, want %d", name, got, k)
		}
		bm := bytes.Repeat([]byte{0xa5}, len(wantBM)) // packBools must overwrite, not OR
		packBools(bm, valid)
		if !bytes.Equal(bm, wantBM) {
			t.Errorf("%s: bitmap %08b, want %08b", name, bm, wantBM)
		}
		// the packed values of the valid rows, then spread back out
		vals := make([]uint64, 0, k)
		vals32 := make([]uint32, 0, k)
		ints := make([]int64, 0, k)
		for i, v := range valid {
			if v {
				vals = append(vals, uint64(i)*0x9e3779b97f4a7c15|1)
				vals32 = append(vals32, uint32(i)+1)
				ints = append(ints, int64(i)*3-100)
			}
		}
		out := make([]uint64, n)
		out32 := make([]uint32, n)
		o64, o32, o8 := make([]int64, n), make([]int32, n), make([]int8, n)
		for i := range n { // garbage that NULL rows must not keep
			out[i], out32[i], o64[i], o32[i], o8[i] = 7, 7, 7, 7, 7
		}
		spreadValid(out, vals, valid)
		spreadValid(out32, vals32, valid)
		bad64 := scatter(o64, ints, valid, math.MinInt64, math.MaxInt64)
		bad32 := scatter(o32, ints, valid, math.MinInt32, math.MaxInt32)
		bad8 := scatter(o8, ints, valid, math.MinInt8, math.MaxInt8)
		wantBad8 := false
		for i, v := range valid {
			var w uint64
			var w32 uint32
			var wi int64
			if v {
				w, w32, wi = uint64(i)*0x9e3779b97f4a7c15|1, uint32(i)+1, int64(i)*3-100
				if wi < math.MinInt8 || wi > math.MaxInt8 {
					wantBad8 = true
				}
			}
			if out[i] != w || out32[i] != w32 || o64[i] != wi || o32[i] != int32(wi) || o8[i] != int8(wi) {
				t.Fatalf("%s row %d: spread %d/%d, scatter %d/%d/%d; want %d/%d, %d", name, i, out[i], out32[i], o64[i], o32[i], o8[i], w, w32, wi)
			}
		}
		if bad64 || bad32 || bad8 != wantBad8 {
			t.Errorf("%s: out-of-range flags %v %v %v, want false false %v", name, bad64, bad32, bad8, wantBad8)
		}
	}
	// without a validity slice every value is range checked, wherever it is
	for pos := range 20 {
		vals := make([]int64, 20)
		vals[pos] = math.MaxInt16 + 1
		if !scatter(make([]int16, 20), vals, nil, math.MinInt16, math.MaxInt16) {
			t.Errorf("value %d out of int16 range at %d not reported", vals[pos], pos)
		}
	}
}

// TestTimestampZoneCache: the combined loop caches the writer zone's
// offset per zone period; every instant must get the offset the time
// package gives it, across DST transitions in both directions and
// far-off years, whatever the order of values.
func TestTimestampZoneCache(t *testing.T) {
	for _, zone := range []string{"America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		base := time.Date(2015, 1, 1, 0, 0, 0, 0, loc).Unix()
		var secs []int64
		for _, d := range []time.Time{
			time.Date(2021, 3, 14, 10, 0, 0, 0, time.UTC), time.Date(2021, 3, 28, 1, 0, 0, 0, time.UTC),
			time.Date(2021, 11, 7, 9, 0, 0, 0, time.UTC), time.Date(2021, 10, 31, 1, 0, 0, 0, time.UTC),
			time.Date(2021, 4, 3, 15, 0, 0, 0, time.UTC), time.Date(1950, 6, 1, 0, 0, 0, 0, time.UTC),
			time.Date(2200, 7, 1, 0, 0, 0, 0, time.UTC),
		} {
			for delta := int64(-3); delta <= 3; delta++ { // the seconds around each transition hour
				for _, h := range []int64{-3600, 0, 3600} {
					secs = append(secs, d.Unix()+h+delta-base)
				}
			}
		}
		vs := make([]int64, len(secs))
		copy(vs, secs)
		vn := make([]int64, len(secs))
		for i := range vn {
			vn[i] = int64(i%1000) << 3 // i nanoseconds, no trailing-zero code
		}
		r := &timestampReader{c: &stripeCtx{loc: loc, unit: arrow.Nanosecond}, base: base}
		if err := r.combine(vs, vn); err != nil {
			t.Fatal(err)
		}
		for i, s := range secs {
			u := s + base
			_, off := time.Unix(u, 0).In(loc).Zone()
			if want := (u+int64(off))*1e9 + int64(i%1000); vs[i] != want {
				t.Errorf("%s: value %d (%s): %d, want %d", zone, i, time.Unix(u, 0).In(loc), vs[i], want)
			}
		}
	}
}

// TestFloatEdges reads FLOAT and DOUBLE columns whose values straddle
// compression chunks (odd block sizes split values between chunks), with
// NULLs in long and short runs, NaN payloads, -0, ±Inf and extremes; the
// bit patterns must come back exactly.
func TestFloatEdges(t *testing.T) {
	specials := []float64{math.NaN(), math.Float64frombits(0x7ff0000000000123), math.Copysign(0, -1), 0,
		math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1.5}
	specials32 := []float32{float32(math.NaN()), math.Float32frombits(0x7fc00abc), float32(math.Copysign(0, -1)), 0,
		float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 2.25}
	const rows = 20_000
	null := func(r int) bool { return r%97 == 0 || (r >= 5000 && r < 5400) || r%1024 == 1023 }
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "dd", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, // no NULLs: the plain copy path
	}, nil)
	d := func(r int) float64 { return specials[r%len(specials)] * float64(1+r/len(specials)%3) }
	f := func(r int) float32 { return specials32[r%len(specials32)] * float32(1+r/len(specials32)%3) }
	for _, tc := range []struct {
		codec string
		block int
		batch int
	}{{"zstd", 1001, 1000}, {"zlib", 777, 8192}, {"none", 0, 333}, {"lz4", 4093, 1}} {
		t.Run(fmt.Sprintf("%s/%d/%d", tc.codec, tc.block, tc.batch), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: tc.codec, BlockSize: tc.block, StripeSize: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < rows; lo += 4096 {
				rb := array.NewRecordBuilder(mem, sc)
				for r := lo; r < min(lo+4096, rows); r++ {
					if null(r) {
						rb.Field(0).AppendNull()
						rb.Field(1).AppendNull()
					} else {
						rb.Field(0).(*array.Float64Builder).Append(d(r))
						rb.Field(1).(*array.Float32Builder).Append(f(r))
					}
					rb.Field(2).(*array.Float64Builder).Append(d(r))
				}
				rec := rb.NewRecordBatch()
				rb.Release()
				err := w.Write(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			file, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Stripes()) < 2 {
				t.Errorf("%d stripes; the test wants values spread over several", len(file.Stripes()))
			}
			rr, err := file.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: tc.batch})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			row := 0
			for rr.Next() {
				rec := rr.RecordBatch()
				dc := rec.Column(0).(*array.Float64)
				fc := rec.Column(1).(*array.Float32)
				dd := rec.Column(2).(*array.Float64)
				if dd.NullN() != 0 {
					t.Fatalf("row %d: column without NULLs has %d", row, dd.NullN())
				}
				for i := range int(rec.NumRows()) {
					r := row + i
					if dc.IsNull(i) != null(r) || fc.IsNull(i) != null(r) {
						t.Fatalf("row %d: null %v/%v, want %v", r, dc.IsNull(i), fc.IsNull(i), null(r))
					}
					if math.Float64bits(dd.Value(i)) != math.Float64bits(d(r)) {
						t.Fatalf("row %d dd: %x, want %x", r, math.Float64bits(dd.Value(i)), math.Float64bits(d(r)))
					}
					if null(r) {
						continue
					}
					if math.Float64bits(dc.Value(i)) != math.Float64bits(d(r)) || math.Float32bits(fc.Value(i)) != math.Float32bits(f(r)) {
						t.Fatalf("row %d: %x %x, want %x %x", r, math.Float64bits(dc.Value(i)), math.Float32bits(fc.Value(i)),
							math.Float64bits(d(r)), math.Float32bits(f(r)))
					}
				}
				row += int(rec.NumRows())
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if row != rows {
				t.Fatalf("read %d rows, want %d", row, rows)
			}
		})
	}
}

// TestIntRLEv2InPlace: runs decode straight into the caller's slice when
// they fit and through the decoder's buffer when they do not; both must
// give the same values whatever the read sizes, across runs of every
// sub-encoding (PATCHED_BASE twice, so its scratch is reused).
func TestIntRLEv2InPlace(t *testing.T) {
	shortRepeat := []byte{0x0a, 0x27, 0x10}
	direct := []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef}
	patched := []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
		0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe,
		0xfc, 0xe8}
	delta := []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46}
	fixedDelta := []byte{0xc1, 0xf3, 0x03, 0x02} // 500 values 3, 4, 5, ...
	var src []byte
	var want []int64
	for _, part := range []struct {
		b []byte
		v []int64
	}{
		{shortRepeat, []int64{10000, 10000, 10000, 10000, 10000}},
		{patched, []int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130,
			2140, 2150, 2160, 2170, 2180, 2190}},
		{direct, []int64{23713, 43806, 57005, 48879}},
		{fixedDelta, nil},
		{patched, nil},
		{delta, []int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
		// descending DELTA: first delta -6, then magnitudes 4, 2, 4 in 4 bits
		{[]byte{0xc6, 0x04, 0x1d, 0x0b, 0x42, 0x40}, []int64{29, 23, 19, 17, 13}},
	} {
		src = append(src, part.b...)
		switch {
		case part.v != nil:
			want = append(want, part.v...)
		case part.b[0] == 0xc1:
			for i := range 500 {
				want = append(want, int64(3+i))
			}
		default:
			want = append(want, want[5:25]...) // the patched run again
		}
	}
	for _, step := range []int{1, 2, 5, 19, 20, 21, 512, len(want)} {
		d := newIntDecoder(src, false, true, "test")
		got := make([]int64, 0, len(want))
		for len(got) < len(want) {
			buf := make([]int64, min(step, len(want)-len(got)))
			for i := range buf {
				buf[i] = -12345 // in-place runs must overwrite every slot
			}
			if err := d.next(buf); err != nil {
				t.Fatalf("step %d after %d values: %v", step, len(got), err)
			}
			got = append(got, buf...)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("step %d: value %d is %d, want %d", step, i, got[i], want[i])
			}
		}
		if err := d.next(make([]int64, 1)); err == nil {
			t.Fatalf("step %d: read past the end", step)
		}
	}
}

// TestDictStringLengths: dictionary entries on both sides of the
// word-copy limit (dictPad), empty ones, NULLs, and batch sizes that end
// mid-run; every string and the batch's byte count must be exact.
func TestDictStringLengths(t *testing.T) {
	const rows = 3000
	val := func(r int) (any, bool) {
		n := (r * 7) % 41 // 0..40 bytes, 16 and 17 included
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + (r%53+i)%26)
		}
		return string(b), r%29 != 3
	}
	cols := []wcol{{name: "s", kind: KindString, value: func(r int) (any, bool) { return val(r % 173) }}}
	for _, o := range []wopts{
		{dictStrings: true, compression: CompressionZlib, blockSize: 999, stripeRows: 1234},
		{dictStrings: false, compression: CompressionNone},
	} {
		data := writeORC(t, cols, rows, o)
		f, err := Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, bs := range []int{1, 15, 1000} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			rr, err := f.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: bs})
			if err != nil {
				t.Fatal(err)
			}
			row := 0
			for rr.Next() {
				a := rr.RecordBatch().Column(0).(*array.String)
				var bytesWant int
				for i := range a.Len() {
					v, ok := val((row + i) % 173)
					if a.IsNull(i) != !ok || (ok && a.Value(i) != v.(string)) {
						t.Fatalf("dict=%v batch %d row %d: %q null=%v, want %q null=%v", o.dictStrings, bs, row+i, a.Value(i), a.IsNull(i), v, !ok)
					}
					if ok {
						bytesWant += len(v.(string))
					}
				}
				if got := len(a.ValueBytes()); got != bytesWant {
					t.Fatalf("dict=%v batch %d at row %d: %d value bytes, want %d", o.dictStrings, bs, row, got, bytesWant)
				}
				row += a.Len()
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			rr.Release()
			mem.AssertSize(t, 0)
			if row != rows {
				t.Fatalf("%d rows", row)
			}
		}
	}
}

// TestDirectStringLengths: the no-NULL offsets loop checks lengths once
// after summing; a negative, oversized or overflowing length must still
// fail naming the value, and nothing may leak.
func TestDirectStringLengths(t *testing.T) {
	for _, tc := range []struct {
		lens  []int64
		valid []bool
		err   string // "" = reads
	}{
		{lens: []int64{4, 0, 6}},
		{lens: []int64{4, 6}, valid: []bool{true, false, true}},
		{lens: []int64{3, -1, 2}, err: "string length -1 at value 1"},
		{lens: []int64{math.MaxInt64, 2}, err: "at value 0"},
		{lens: []int64{math.MaxInt64 / 2, math.MaxInt64 / 2, 4}, err: "at value 0"},
		{lens: []int64{5, 6}, err: "string length 6 at value 1 exceeds the 5 bytes left"},
		{lens: []int64{5, 6}, valid: []bool{true, false, true}, err: "string length 6 at value 1"},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r := &stringReader{c: &stripeCtx{mem: mem}, col: 3, dt: arrow.BinaryTypes.String, blob: []byte("abcdefghij")}
		n := len(tc.lens)
		if tc.valid != nil {
			n = len(tc.valid)
		}
		d, err := r.sliceDirect(n, tc.valid, len(tc.lens), tc.lens)
		if tc.err == "" {
			if err != nil {
				t.Fatalf("%v: %v", tc.lens, err)
			}
			a := array.NewStringData(d)
			var got []string
			for i := range a.Len() {
				got = append(got, a.Value(i))
			}
			if want := []string{"abcd", "", "efghij"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%v: %q, want %q", tc.lens, got, want)
			}
			a.Release()
			d.Release()
		} else if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.err)) {
			t.Errorf("%v: error %v, want one containing %q", tc.lens, err, tc.err)
		}
		mem.AssertSize(t, 0)
	}
}
