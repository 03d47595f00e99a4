package parquetpage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// A ZSTD page whose frame holds more than its header says is refused, and
// the decompressor keeps the buffer it was given rather than one the
// decoder grew.
func TestZstdOutputBounded(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	page := bytes.Repeat([]byte("inlet-page-"), 1000)
	frame := enc.EncodeAll(page, nil)
	cases := []struct {
		name string
		size int
		want string // error text; "" = decodes
	}{
		{"exact", len(page), ""},
		{"header says less", len(page) / 2, "zstd frame of"},
		{"header says more", len(page) + 10, "header says"},
	}
	for _, c := range cases {
		buf := make([]byte, c.size+slack)
		d := decompressor{codec: compress.Codecs.Zstd, buf: buf}
		out, err := d.decode(frame, c.size)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && !bytes.Equal(out, page):
			t.Errorf("%s: decoded %d bytes, not the page", c.name, len(out))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if &d.buf[:1][0] != &buf[0] || cap(d.buf) != cap(buf) {
			t.Errorf("%s: decompressor buffer replaced (cap %d, was %d)", c.name, cap(d.buf), cap(buf))
		}
	}
}
