package parquetpage

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestUnpackers checks every width's 32-value kernel against values
// packed bit by bit here (LSB first, as the hybrid encoding packs them),
// from random values including each width's maximum.
func TestUnpackers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for bw := 0; bw <= 32; bw++ {
		for trial := 0; trial < 20; trial++ {
			var want [32]uint32
			for i := range want {
				if bw > 0 {
					want[i] = uint32(rng.Uint64() & (1<<bw - 1))
					if trial == 0 {
						want[i] = uint32(1<<bw - 1)
					}
				}
			}
			in := make([]byte, 4*bw)
			for i, v := range want {
				for k := 0; k < bw; k++ {
					if v>>k&1 == 1 {
						bit := i*bw + k
						in[bit/8] |= 1 << (bit % 8)
					}
				}
			}
			var got [32]uint32
			for i := range got {
				got[i] = 0xdeadbeef
			}
			unpackers[bw](in, &got)
			if got != want {
				t.Fatalf("width %d: got %v, want %v", bw, got, want)
			}
		}
	}
}

// hybridRun is one run of a hand-built RLE/bit-packed hybrid stream.
type hybridRun struct {
	rle  bool
	vals []uint32 // rle: len(vals) repeats of vals[0]
}

// encodeHybrid builds the stream; a packed run's values are padded to a
// multiple of 8 with zeros (the padding is never read as values unless
// the run is the last, which the caller accounts for).
func encodeHybrid(runs []hybridRun, bw int) []byte {
	var out []byte
	for _, r := range runs {
		if r.rle {
			out = binary.AppendUvarint(out, uint64(len(r.vals))<<1)
			for k := 0; k < (bw+7)/8; k++ {
				out = append(out, byte(r.vals[0]>>(8*k)))
			}
			continue
		}
		groups := (len(r.vals) + 7) / 8
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		packed := make([]byte, groups*bw)
		for i, v := range r.vals {
			for k := 0; k < bw; k++ {
				if v>>k&1 == 1 {
					bit := i*bw + k
					packed[bit/8] |= 1 << (bit % 8)
				}
			}
		}
		out = append(out, packed...)
	}
	return out
}

// randomHybrid returns a stream of mixed runs at width bw and the values
// it holds (packed runs of multiples of 8, so no padding is a value).
func randomHybrid(rng *rand.Rand, bw, total int) ([]byte, []uint32) {
	var runs []hybridRun
	var want []uint32
	val := func() uint32 {
		if bw == 0 {
			return 0
		}
		return uint32(rng.Uint64() & (1<<bw - 1))
	}
	for len(want) < total {
		var r hybridRun
		if rng.IntN(3) == 0 {
			r.rle = true
			v := val()
			for n := 1 + rng.IntN(40); n > 0; n-- {
				r.vals = append(r.vals, v)
			}
		} else {
			for n := 8 * (1 + rng.IntN(30)); n > 0; n-- {
				r.vals = append(r.vals, val())
			}
		}
		runs = append(runs, r)
		want = append(want, r.vals...)
	}
	return encodeHybrid(runs, bw), want
}

// TestHybridDecodeSplits decodes random mixed streams of every width in
// random read sizes (so blocks start at every bit offset within runs)
// through decode (indices) and decodeDict (16-, 8- and 4-byte gathers), and
// compares with the values encoded.
func TestHybridDecodeSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for bw := 0; bw <= 32; bw++ {
		for trial := 0; trial < 10; trial++ {
			data, want := randomHybrid(rng, bw, 600)
			// Reads of 1..100 values, some long enough for blocks.
			var sizes []int
			for n := 0; n < len(want); {
				k := min(len(want)-n, 1+rng.IntN(100))
				if rng.IntN(4) == 0 {
					k = min(len(want)-n, 32+rng.IntN(200))
				}
				sizes = append(sizes, k)
				n += k
			}
			t.Run(fmt.Sprintf("bw%d/%d", bw, trial), func(t *testing.T) {
				var d rleDecoder
				if err := d.init(data, bw); err != nil {
					t.Fatal(err)
				}
				var got []uint32
				for _, k := range sizes {
					buf := make([]uint32, k)
					if err := d.decode(buf); err != nil {
						t.Fatal(err)
					}
					got = append(got, buf...)
				}
				same(t, "decode", got, want)
				// Past the end is an error, not a panic.
				if err := d.decode(make([]uint32, 1)); err == nil {
					t.Fatal("decoded past the stream's end")
				}
				if bw > 20 {
					return // a dictionary of every index would be too large
				}
				// A dictionary as large as the indices go: value i is
				// derived from i, so a wrong index shows as a wrong value.
				maxIx := uint32(0)
				for _, v := range want {
					maxIx = max(maxIx, v)
				}
				dict64 := make([]uint64, int(maxIx)+1)
				dict32 := make([]uint32, int(maxIx)+1)
				for i := range dict64 {
					dict64[i], dict32[i] = uint64(i)*0x9e3779b97f4a7c15, uint32(i)*2654435761
				}
				_ = d.init(data, bw)
				var g64 []uint64
				for _, k := range sizes {
					buf := make([]uint64, k)
					if bad, err := decodeDict(&d, buf, dict64); bad >= 0 || err != nil {
						t.Fatalf("bad index %d, error %v", bad, err)
					}
					g64 = append(g64, buf...)
				}
				_ = d.init(data, bw)
				var g32 []uint32
				for _, k := range sizes {
					buf := make([]uint32, k)
					if bad, err := decodeDict(&d, buf, dict32); bad >= 0 || err != nil {
						t.Fatalf("bad index %d, error %v", bad, err)
					}
					g32 = append(g32, buf...)
				}
				dict128 := make([][2]uint64, len(dict64))
				for i := range dict128 {
					dict128[i] = [2]uint64{dict64[i], ^dict64[i]}
				}
				_ = d.init(data, bw)
				var g128 [][2]uint64
				for _, k := range sizes {
					buf := make([][2]uint64, k)
					if bad, err := decodeDict(&d, buf, dict128); bad >= 0 || err != nil {
						t.Fatalf("bad index %d, error %v", bad, err)
					}
					g128 = append(g128, buf...)
				}
				for i, v := range want {
					if g128[i] != dict128[v] {
						t.Fatalf("value %d: index %d gathered %v, want %v", i, v, g128[i], dict128[v])
					}
				}
				for i, v := range want {
					if g64[i] != dict64[v] || g32[i] != dict32[v] {
						t.Fatalf("value %d: index %d gathered %d, %d; want %d, %d", i, v, g64[i], g32[i], dict64[v], dict32[v])
					}
				}
			})
		}
	}
}

// TestDecodeDictBadIndex: an index past the dictionary, in an RLE run, a
// 32-value block or a short packed run, is reported with its value.
func TestDecodeDictBadIndex(t *testing.T) {
	idx := make([]uint32, 64)
	for i := range idx {
		idx[i] = uint32(i % 5)
	}
	for _, tc := range []struct {
		name string
		data []byte
		n    int
		bad  int64
	}{
		{"rle", encodeHybrid([]hybridRun{{rle: true, vals: []uint32{7, 7, 7}}}, 4), 3, 7},
		{"block", encodeHybrid([]hybridRun{{vals: append(idx[:40:40], 9)}}, 4), 41, 9},
		{"block-last", encodeHybrid([]hybridRun{{vals: append(append([]uint32{}, idx[:31]...), 6)}}, 4), 32, 6},
		{"short", encodeHybrid([]hybridRun{{vals: []uint32{1, 2, 8, 0, 0, 0, 0, 0}}}, 4), 8, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d rleDecoder
			_ = d.init(tc.data, 4)
			bad, err := decodeDict(&d, make([]uint64, tc.n), make([]uint64, 5))
			if err != nil || bad != tc.bad {
				t.Fatalf("bad %d, error %v; want bad %d", bad, err, tc.bad)
			}
		})
	}
}

// TestSpreadW checks the branch-free spread against a plain reference
// at every NULL density, including all-NULL and no-NULL segments.
func TestSpreadW(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		k := rng.IntN(80)
		defs := make([]byte, k)
		nullPct := rng.IntN(101)
		var vals []uint64
		for i := range defs {
			if rng.IntN(100) >= nullPct {
				defs[i] = 1
				vals = append(vals, rng.Uint64()|1)
			}
		}
		want := make([]uint64, k)
		j := 0
		for i, d := range defs {
			if d == 1 {
				want[i] = vals[j]
				j++
			}
		}
		got := make([]uint64, k)
		for i := range got {
			got[i] = 0xbad
		}
		copy(got, vals)
		spreadW(got, defs, len(vals))
		same(t, fmt.Sprintf("trial %d (%d rows, %d values)", trial, k, len(vals)), got, want)
		got32 := make([]uint32, k)
		for i := range got32 {
			got32[i] = 0xbad
		}
		for i, v := range vals {
			got32[i] = uint32(v)
		}
		spreadW(got32, defs, len(vals))
		for i := range want {
			if got32[i] != uint32(want[i]) {
				t.Fatalf("trial %d: 32-bit row %d is %d, want %d", trial, i, got32[i], uint32(want[i]))
			}
		}
	}
}

func same[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestStringLengthsMatchPqarrow: strings and binaries of 0 to 40 bytes
// (either side of the 16-byte word copies), required and nullable,
// dictionary-encoded and PLAIN, short pages so values sit at a page's
// end, read through this package and pqarrow at several batch sizes and
// selections (diffFile).
func TestStringLengthsMatchPqarrow(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "rs", Type: arrow.BinaryTypes.String},
		{Name: "ns", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "nb", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(11, 12))
	const rows = 4000
	bl := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	pool := make([][]byte, 300)
	for i := range pool {
		pool[i] = make([]byte, rng.IntN(41))
		for k := range pool[i] {
			pool[i][k] = byte('a' + rng.IntN(26))
		}
	}
	for c := range sch.Fields() {
		for i := 0; i < rows; i++ {
			if c > 0 && rng.IntN(7) == 0 {
				bl.Field(c).AppendNull()
				continue
			}
			v := pool[rng.IntN(len(pool))]
			switch fb := bl.Field(c).(type) {
			case *array.StringBuilder:
				fb.Append(string(v))
			case *array.BinaryBuilder:
				fb.Append(v)
			}
		}
	}
	rec := bl.NewRecordBatch()
	bl.Release()
	defer rec.Release()
	for _, dict := range []bool{true, false} {
		for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Zstd} {
			name := fmt.Sprintf("dict%v-%s", dict, codec)
			t.Run(name, func(t *testing.T) {
				opts := []parquet.WriterProperty{parquet.WithDictionaryDefault(dict), parquet.WithCompression(codec),
					parquet.WithDataPageSize(1000), parquet.WithMaxRowGroupLength(1500)}
				for _, f := range sch.Fields() {
					opts = append(opts, parquet.WithDictionaryCostFallbackFor(f.Name, false))
				}
				path := filepath.Join(t.TempDir(), name+".parquet")
				writeFile(t, path, rec, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
				for _, f := range sch.Fields() {
					enc := parquet.Encodings.Plain
					if dict {
						enc = parquet.Encodings.RLEDict
					}
					requireEncodingOf(t, path, f.Name, enc)
				}
				for _, batch := range []int{1, 3, 777} {
					if compared, refused := diffFile(t, path, batch); compared != 9 || refused != 0 {
						t.Fatalf("compared %d column chunks, refused %d; want 9, 0", compared, refused)
					}
				}
			})
		}
	}
}

// FuzzHybrid decodes arbitrary bytes as RLE/bit-packed hybrid indices in
// reads of step values through decode and decodeDict and compares them
// with the one-value-at-a-time reader (one, which unpacks bit offsets
// directly): the same values, an error exactly where the stream ends, the
// first index past the dictionary reported, and no panic.
//
//	go test ./lake/parquetpage -run '^$' -fuzz FuzzHybrid -fuzztime 60s
func FuzzHybrid(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, bw := range []int{0, 1, 3, 8, 10, 17, 32} {
		data, _ := randomHybrid(rng, bw, 300)
		f.Add(data, uint8(bw), uint16(1<<min(bw, 12)), uint8(40))
		f.Add(data, uint8(bw), uint16(5), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, bw uint8, dictN uint16, step uint8) {
		w := int(bw % 33)
		n := int(step%200) + 1
		var ref []uint32
		var d rleDecoder
		_ = d.init(data, w)
		for len(ref) < 4096 {
			v, err := d.one()
			if err != nil {
				break
			}
			ref = append(ref, v)
		}
		_ = d.init(data, w)
		for pos := 0; pos < len(ref)+n && pos < 4096; pos += n {
			buf := make([]uint32, n)
			err := d.decode(buf)
			if pos+n <= len(ref) {
				if err != nil {
					t.Fatalf("values %d..%d: %v", pos, pos+n, err)
				}
				same(t, fmt.Sprintf("values %d..%d", pos, pos+n), buf, ref[pos:pos+n])
			} else if len(ref) < 4096 {
				if err == nil {
					t.Fatalf("values %d..%d decoded from a stream of %d", pos, pos+n, len(ref))
				}
				break
			}
		}
		dict := make([]uint64, dictN)
		for i := range dict {
			dict[i] = uint64(i)*7 + 1
		}
		_ = d.init(data, w)
		for pos := 0; pos+n <= len(ref); pos += n {
			buf := make([]uint64, n)
			bad, err := decodeDict(&d, buf, dict)
			if err != nil {
				t.Fatalf("values %d..%d: %v", pos, pos+n, err)
			}
			first := int64(-1)
			for _, ix := range ref[pos : pos+n] {
				if int(ix) >= len(dict) {
					first = int64(ix)
					break
				}
			}
			if bad != first {
				t.Fatalf("values %d..%d: bad index %d, want %d", pos, pos+n, bad, first)
			}
			if bad >= 0 {
				break
			}
			for i, ix := range ref[pos : pos+n] {
				if buf[i] != dict[ix] {
					t.Fatalf("value %d: %d, want dict[%d] = %d", pos+i, buf[i], ix, dict[ix])
				}
			}
		}
	})
}

// TestSparse checks the row and run counts behind the sparse/dense
// choice on selections whose counts are known by construction.
func TestSparse(t *testing.T) {
	mk := func(n int, on func(i int) bool) []bool {
		s := make([]bool, n)
		for i := range s {
			s[i] = on(i)
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		sel       []bool
		dictBytes int
		want      bool
	}{
		{"none", mk(1000, func(int) bool { return false }), 10, true},
		{"all", mk(1000, func(int) bool { return true }), 10, false},
		{"quarter", mk(1000, func(i int) bool { return i%4 == 0 }), 10, false},
		{"every16-small-dict", mk(4096, func(i int) bool { return i%16 == 0 }), 1000, false},
		{"every16-1MiB-dict", mk(4096, func(i int) bool { return i%16 == 0 }), 1 << 20, false},
		{"every16-8MiB-dict", mk(4096, func(i int) bool { return i%16 == 0 }), 8 << 20, true},
		// 100 in 1000 as 4 runs of 25: 4 runs per 1000 rows.
		{"runs", mk(10000, func(i int) bool { return i%250 < 25 }), 1000, true},
		// 63 runs of one row in 4096 (just under 1 in 64), then 65.
		{"63-runs", mk(4096, func(i int) bool { return i%65 == 7 && i < 63*65 }), 1000, true},
		{"65-runs", mk(4096, func(i int) bool { return i%63 == 7 }), 1000, false},
		{"odd-length", mk(13, func(i int) bool { return i == 12 }), 1000, false},
		{"odd-length-one", mk(130, func(i int) bool { return i == 129 }), 1000, true},
	} {
		if got := sparse(tc.sel, tc.dictBytes); got != tc.want {
			t.Errorf("%s: sparse %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzDictSparse runs the sparse gather over arbitrary index bytes, NULL
// patterns and selections (a seed expands to runs of rows) and compares
// it with the one-value reader: selected non-NULL rows get their index's
// value, every other row zero, the first index past the dictionary among
// the selected rows (or an error, once the stream ends) stops it, and no
// panic. Unselected indices are skipped, not checked.
//
//	go test ./lake/parquetpage -run '^$' -fuzz FuzzDictSparse -fuzztime 60s
func FuzzDictSparse(f *testing.F) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, bw := range []int{1, 4, 10} {
		data, _ := randomHybrid(rng, bw, 600)
		f.Add(data, uint8(bw), uint16(1<<bw), uint64(12345), uint16(500))
	}
	f.Fuzz(func(t *testing.T, data []byte, bw uint8, dictN uint16, seed uint64, rows uint16) {
		w := int(bw % 33)
		n := int(rows % 2048)
		pr := rand.New(rand.NewPCG(seed, 1))
		defs := make([]byte, n)
		sel := make([]bool, n)
		nullable := seed&1 == 1
		for i := 0; i < n; {
			run := 1 + pr.IntN(40)
			on := pr.IntN(4) == 0
			for ; run > 0 && i < n; run-- {
				sel[i] = on
				defs[i] = 1
				if nullable && pr.IntN(5) == 0 {
					defs[i] = 0
				}
				i++
			}
		}
		if !nullable {
			defs = nil
		}
		dict := make([]uint64, dictN)
		for i := range dict {
			dict[i] = uint64(i)*3 + 1
		}
		var ref rleDecoder
		_ = ref.init(data, w)
		want := make([]uint64, n)
		wantBad, wantErr := int64(-1), false
		for i := 0; i < n; i++ {
			if defs != nil && defs[i] == 0 {
				continue
			}
			ix, err := ref.one()
			if err != nil {
				wantErr = true
				break
			}
			if !sel[i] {
				continue
			}
			if int(ix) >= len(dict) {
				wantBad = int64(ix)
				break
			}
			want[i] = dict[ix]
		}
		var d rleDecoder
		_ = d.init(data, w)
		got := make([]uint64, n)
		for i := range got {
			got[i] = 0xbad
		}
		bad, err := decodeDictSparse(&d, got, dict, defs, sel)
		switch {
		case wantErr:
			// The stream ended: an error, or a bad index met first.
			if err == nil && bad < 0 {
				t.Fatalf("no error from a stream that ends")
			}
		case wantBad >= 0:
			if err != nil || bad != wantBad {
				t.Fatalf("bad %d, error %v; want bad %d", bad, err, wantBad)
			}
		default:
			if err != nil || bad >= 0 {
				t.Fatalf("bad %d, error %v", bad, err)
			}
			same(t, "rows", got, want)
		}
	})
}
