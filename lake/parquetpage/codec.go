package parquetpage

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// zstd decoders are goroutine-safe for DecodeAll; one shared by every
// reader. Its concurrency is GOMAXPROCS: DecodeAll calls beyond that many
// wait for a free inner decoder, so with 1 two scanners decoding pages at
// once took turns (a two-goroutine scan ran at one goroutine's speed).
var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(false),
			// Bounds what a frame without a content size can make the
			// decoder allocate: no page is larger (maxPageBytes).
			zstd.WithDecoderMaxMemory(1<<30))
	})
	return zstdDec, zstdErr
}

func codecSupported(c compress.Compression) bool {
	switch c {
	case compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd, compress.Codecs.Lz4Raw:
		return true
	}
	return false
}

// decompressor decodes pages of one codec into a reused buffer.
type decompressor struct {
	codec compress.Compression
	buf   []byte
	gz    *gzip.Reader
	br    bytes.Reader
}

// slack is spare capacity past a page's size: ZSTD's fast decoder needs
// room to over-write, and without it takes the bounds-checked path.
const slack = 64

// decode returns src decompressed to exactly size bytes; the result is
// valid until the next call.
func (d *decompressor) decode(src []byte, size int) ([]byte, error) {
	if d.codec == compress.Codecs.Uncompressed {
		if len(src) != size {
			return nil, fmt.Errorf("uncompressed page of %d bytes, header says %d", len(src), size)
		}
		return src, nil
	}
	if cap(d.buf) < size+slack {
		d.buf = make([]byte, size+slack+size/4)
	}
	out := d.buf[:size]
	var n int
	switch d.codec {
	case compress.Codecs.Snappy:
		l, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if l != size {
			return nil, fmt.Errorf("snappy page decodes to %d bytes, header says %d", l, size)
		}
		r, err := snappy.Decode(out, src)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		n = len(r)
	case compress.Codecs.Zstd:
		dec, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		// A frame that declares more than the page's size is refused
		// before decoding, so the decoder never grows an output past it.
		var fh zstd.Header
		if err := fh.Decode(src); err == nil && fh.HasFCS && fh.FrameContentSize > uint64(size) {
			return nil, fmt.Errorf("zstd frame of %d bytes, page header says %d", fh.FrameContentSize, size)
		}
		r, err := dec.DecodeAll(src, d.buf[:0])
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		if len(r) != size {
			return nil, fmt.Errorf("zstd page decodes to %d bytes, header says %d", len(r), size)
		}
		// d.buf holds size+slack bytes, so the decoder only grows a
		// buffer for a frame longer than the header says, an error
		// above: d.buf stays the caller's (allocator-charged) buffer.
		return r, nil
	case compress.Codecs.Gzip:
		d.br.Reset(src)
		var err error
		if d.gz == nil {
			d.gz, err = gzip.NewReader(&d.br)
		} else {
			err = d.gz.Reset(&d.br)
		}
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		n, err = io.ReadFull(d.gz, out)
		if err != nil {
			return nil, fmt.Errorf("gzip: page decodes to less than the %d bytes its header says: %w", size, err)
		}
		var one [1]byte
		if k, _ := d.gz.Read(one[:]); k != 0 {
			return nil, fmt.Errorf("gzip: page decodes to more than the %d bytes its header says", size)
		}
	case compress.Codecs.Lz4Raw:
		var err error
		n, err = lz4.UncompressBlock(src, out)
		if err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
	default:
		return nil, fmt.Errorf("codec %s", d.codec)
	}
	if n != size {
		return nil, fmt.Errorf("page decodes to %d bytes, header says %d", n, size)
	}
	return out, nil
}
