package orc

import (
	"errors"
	"slices"
	"testing"
)

// Examples from the encoding section of the ORC v1 specification.
func TestIntRLE(t *testing.T) {
	seq := func(from, to, step int64) []int64 {
		var out []int64
		for v := from; v != to+step; v += step {
			out = append(out, v)
		}
		return out
	}
	rep := func(v int64, n int) []int64 { return slices.Repeat([]int64{v}, n) }
	tests := []struct {
		name   string
		v2     bool
		signed bool
		in     []byte
		want   []int64
	}{
		{"v1 run", false, false, []byte{0x61, 0x00, 0x07}, rep(7, 100)},
		{"v1 descending run", false, false, []byte{0x61, 0xff, 0x64}, seq(100, 1, -1)},
		{"v1 literals", false, false, []byte{0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b}, []int64{2, 3, 6, 7, 11}},
		{"v1 signed literal", false, true, []byte{0xfe, 0x03, 0x04}, []int64{-2, 2}},
		{"v2 short repeat", true, false, []byte{0x0a, 0x27, 0x10}, rep(10000, 5)},
		{"v2 direct", true, false, []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef},
			[]int64{23713, 43806, 57005, 48879}},
		{"v2 patched base", true, false, []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70,
			0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe,
			0xfc, 0xe8},
			[]int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130,
				2140, 2150, 2160, 2170, 2180, 2190}},
		{"v2 delta", true, false, []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46},
			[]int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
		{"v2 fixed delta signed", true, true, []byte{0xc0, 0x04, 0x01, 0x03}, []int64{-1, -3, -5, -7, -9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Read in uneven pieces to cross run boundaries.
			d := newIntDecoder(tc.in, tc.signed, tc.v2, "test")
			var got []int64
			for len(got) < len(tc.want) {
				n := min(3, len(tc.want)-len(got))
				buf := make([]int64, n)
				if err := d.next(buf); err != nil {
					t.Fatal(err)
				}
				got = append(got, buf...)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
			if err := d.next(make([]int64, 1)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read past end: err %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestByteAndBoolRLE(t *testing.T) {
	d := byteRLE{src: []byte{0x61, 0x00, 0xfe, 0x44, 0x45}, what: "test"}
	got := make([]byte, 102)
	if err := d.next(got); err != nil {
		t.Fatal(err)
	}
	want := append(make([]byte, 100), 0x44, 0x45)
	if !slices.Equal(got, want) {
		t.Fatalf("byte RLE got %v", got)
	}
	b := newBoolRLE([]byte{0xff, 0x80}, "test")
	bits := make([]bool, 8)
	if err := b.next(bits[:3]); err != nil {
		t.Fatal(err)
	}
	if err := b.next(bits[3:]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bits, []bool{true, false, false, false, false, false, false, false}) {
		t.Fatalf("bool RLE got %v", bits)
	}
	if err := b.next(make([]bool, 9)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("read past end: %v", err)
	}
}

func TestDecompressErrors(t *testing.T) {
	for _, kind := range []CompressionKind{CompressionZlib, CompressionSnappy, CompressionLZ4, CompressionLZO, CompressionZstd} {
		d, err := newDecompressor(kind, 1024)
		if err != nil {
			t.Fatal(err)
		}
		// original chunk of 3 bytes, then a compressed chunk of garbage
		_, err = d.expand(nil, []byte{0x07, 0x00, 0x00, 'a', 'b', 'c', 0x08, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff}, "test stream")
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: garbage chunk: err %v, want ErrCorrupt", kind, err)
		}
		out, err := d.expand(nil, []byte{0x07, 0x00, 0x00, 'a', 'b', 'c'}, "test stream")
		if err != nil || string(out) != "abc" {
			t.Errorf("%s: original chunk: %q %v", kind, out, err)
		}
		if _, err := d.expand(nil, []byte{0x09, 0x00, 0x00, 'a'}, "test stream"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: truncated chunk: %v", kind, err)
		}
		d.close()
	}
	if _, err := newDecompressor(CompressionKind(9), 1024); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown codec: %v", err)
	}
}
