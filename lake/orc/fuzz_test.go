package orc

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzOpenAndRead feeds arbitrary bytes through Open and a full read; it
// must return errors, never panic, and release every buffer it allocates.
func FuzzOpenAndRead(f *testing.F) {
	files := fixtureFiles(f)
	files = append(files, fixtureFiles(f, "corrupt")...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 { // large seeds slow every iteration down
			continue
		}
		f.Add(b)
	}
	// Files of our own Writer: every type it writes, NULLs, each codec,
	// several stripes.
	for _, codec := range []string{"none", "zlib", "snappy", "lz4", "zstd"} {
		f.Add(writtenSeed(f, codec))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		file, err := Open(bytes.NewReader(b), int64(len(b)), WithName("fuzz.orc"))
		if err != nil {
			return
		}
		for _, s := range file.Stripes() {
			_ = s.Stats
		}
		rr, err := file.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: 100})
		if err != nil {
			return
		}
		defer rr.Release()
		// Seeds like demo-12-zlib.orc hold two million rows in 46 KB; stop
		// early so each input stays fast under coverage instrumentation.
		rows := int64(0)
		for rows < 20000 && rr.Next() {
			rec := rr.RecordBatch()
			rows += rec.NumRows()
			for _, c := range rec.Columns() {
				if c.Len() != int(rec.NumRows()) {
					t.Fatalf("column length %d, batch %d rows", c.Len(), rec.NumRows())
				}
			}
		}
	})
}

// FuzzDecoders drives each stream codec and tail parser directly with
// arbitrary bytes: errors are fine, panics and endless loops are not.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte{0x61, 0x00, 0x07})
	f.Add([]byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef})
	f.Add([]byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50,
		0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8})
	f.Add([]byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46})
	f.Add([]byte{0x11, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, signed := range []bool{false, true} {
			for _, v2 := range []bool{false, true} {
				// Decoded a value at a time and 100 at a time (runs then
				// land in place or go through the decoder's buffer), the
				// values and the point of failure must agree.
				one := newIntDecoder(b, signed, v2, "fuzz")
				var ref []int64
				v := make([]int64, 1)
				for len(ref) < 2000 && one.next(v) == nil {
					ref = append(ref, v[0])
				}
				d := newIntDecoder(b, signed, v2, "fuzz")
				buf := make([]int64, 100)
				var got []int64
				for range 20 {
					if d.next(buf) != nil {
						break
					}
					got = append(got, buf...)
				}
				if len(got) != len(ref)/100*100 || !slices.Equal(got, ref[:len(got)]) {
					t.Fatalf("signed=%v v2=%v: %d values in 100s, %d one by one; differ at the same positions: %v",
						signed, v2, len(got), len(ref), !slices.Equal(got, ref[:min(len(got), len(ref))]))
				}
			}
		}
		br := byteRLE{src: b, what: "fuzz"}
		_ = br.next(make([]byte, 300))
		bl := newBoolRLE(b, "fuzz")
		_ = bl.next(make([]bool, 700))
		_, _ = lzoDecompress(b, make([]byte, 4096))
		for _, k := range []CompressionKind{CompressionZlib, CompressionSnappy, CompressionLZO, CompressionLZ4, CompressionZstd} {
			d, err := newDecompressor(k, 4096)
			if err != nil {
				t.Fatal(err)
			}
			out, err := d.expand(nil, b, "fuzz")
			if err == nil && len(out) > 4096*(len(b)/3+1) {
				t.Fatalf("%s: %d bytes out of %d in", k, len(out), len(b))
			}
			d.close()
		}
		_, _ = parsePostScript(b)
		_, _ = parseFooter(b)
		_, _ = parseStripeFooter(b)
		_, _ = parseMetadata(b)
		_, _ = parseColumnStats(b, "fuzz")
	})
}

func writtenSeed(f *testing.F, codec string) []byte {
	var buf bytes.Buffer
	mem := memory.NewGoAllocator()
	sc := writerSchema()
	w, err := NewWriter(&buf, sc, WriterOptions{Mem: mem, Compression: codec, StripeSize: 2000, BlockSize: 1024})
	if err != nil {
		f.Fatal(err)
	}
	rec := buildRows(mem, sc, 0, 40)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}
