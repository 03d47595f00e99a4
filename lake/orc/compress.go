package orc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compressed ORC streams are a sequence of chunks, each preceded by a
// 3-byte little-endian header:
//
//	bit 0      1 = the chunk is stored uncompressed ("original")
//	bits 1-23  length of the chunk body in bytes
//
// A chunk body decompresses to at most the postscript's compression block
// size. A stream of a file with compression NONE has no headers at all.

// defaultBlockSize is used when the postscript omits compressionBlockSize.
const defaultBlockSize = 256 << 10

// maxBlockSize caps the block size a file may claim (the writer's buffer).
const maxBlockSize = 16 << 20

// decompressor expands chunked streams. It owns codec state (zstd and
// flate readers) and belongs to one goroutine.
type decompressor struct {
	kind      CompressionKind
	blockSize int
	flate     io.ReadCloser
	zstd      *zstd.Decoder
}

// zstdDecoders recycles zstd decoders (their window and literal buffers
// are the expensive part) across readers; a decoder only ever runs
// DecodeAll, so it holds no goroutines while pooled.
var zstdDecoders sync.Pool

func newDecompressor(kind CompressionKind, blockSize int) (*decompressor, error) {
	d := &decompressor{kind: kind, blockSize: blockSize}
	switch kind {
	case CompressionNone, CompressionZlib, CompressionSnappy, CompressionLZO, CompressionLZ4:
	case CompressionZstd:
		if z, ok := zstdDecoders.Get().(*zstd.Decoder); ok {
			d.zstd = z
			break
		}
		// The cap on a frame's decoded size is the largest block size a
		// file may claim (maxBlockSize), so one decoder serves every file;
		// chunk checks each file's own block size.
		z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(max(maxBlockSize, 8<<20))), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("%w: zstd decoder: %v", ErrUnsupported, err)
		}
		d.zstd = z
	default:
		return nil, fmt.Errorf("%w: compression kind %d", ErrUnsupported, int(kind))
	}
	return d, nil
}

func (d *decompressor) close() {
	if d.zstd != nil {
		zstdDecoders.Put(d.zstd)
		d.zstd = nil
	}
}

// zstdSlack is spare capacity kept after the last chunk of a stream so
// the zstd sequence decoder always has a full block of headroom and runs
// its fast (unchecked-copy) path rather than the bounds-checked one.
const zstdSlack = 128<<10 + 64

// maxExpansion caps the capacity expandedBound asks for per input byte:
// chunk headers alone could otherwise claim a block size each (16 MiB for
// 3 bytes). A stream that really expands further grows its buffer in
// expand instead.
const maxExpansion = 64

// expandedBound is the capacity to decompress src into: an original
// chunk's length, or the block size for a compressed one (plus
// zstdSlack), so expand into a buffer of that capacity never grows it,
// but at most maxExpansion times the input. Malformed headers end the
// scan; expand reports them.
func (d *decompressor) expandedBound(src []byte) int {
	if d.kind == CompressionNone {
		return len(src)
	}
	limit := min(maxExpansion*len(src), maxStreamBytes) + zstdSlack
	total := zstdSlack
	for off := 0; len(src)-off >= 3; {
		h := int(src[off]) | int(src[off+1])<<8 | int(src[off+2])<<16
		off += 3
		n := h >> 1
		if n > len(src)-off {
			break
		}
		if h&1 == 1 {
			total += n
		} else {
			total += d.blockSize
		}
		off += n
		if total > limit {
			return limit
		}
	}
	return total
}

// bufCache recycles stream buffers across stripes and readers: one free
// list per power-of-two capacity class from 64 KiB (a buffer in class c
// has a capacity of at least 1<<c), holding at most maxCachedBytes in all.
// Unlike a sync.Pool it survives garbage collections, which a scan that
// allocates its output batches triggers every few stripes.
var bufCache struct {
	sync.Mutex
	free  [32][][]byte
	bytes int
}

const (
	minPooledClass = 16
	maxCachedBytes = 64 << 20
)

// getBuf returns a buffer of length n from the cache or a new one.
func getBuf(n int) []byte {
	c := max(bits.Len(uint(max(n, 1)-1)), minPooledClass)
	if c >= len(bufCache.free) {
		return make([]byte, n)
	}
	bufCache.Lock()
	if l := bufCache.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		bufCache.free[c] = l[:len(l)-1]
		bufCache.bytes -= cap(b)
		bufCache.Unlock()
		return b[:n]
	}
	bufCache.Unlock()
	return make([]byte, n, 1<<c)
}

// putBuf hands a buffer back; the caller must hold no slice of it.
func putBuf(b []byte) {
	c := bits.Len(uint(cap(b))) - 1
	if c < minPooledClass || c >= len(bufCache.free) {
		return
	}
	bufCache.Lock()
	if bufCache.bytes+cap(b) <= maxCachedBytes {
		bufCache.free[c] = append(bufCache.free[c], b[:0])
		bufCache.bytes += cap(b)
	}
	bufCache.Unlock()
}

// expand decompresses a whole stream, appending to dst. what names the
// stream in errors.
func (d *decompressor) expand(dst, src []byte, what string) ([]byte, error) {
	if d.kind == CompressionNone {
		return append(dst, src...), nil
	}
	off := 0
	for off < len(src) {
		if len(src)-off < 3 {
			return nil, fmt.Errorf("%w: %s: truncated chunk header at stream offset %d", ErrCorrupt, what, off)
		}
		h := int(src[off]) | int(src[off+1])<<8 | int(src[off+2])<<16
		off += 3
		n := h >> 1
		if n > len(src)-off {
			return nil, fmt.Errorf("%w: %s: chunk at stream offset %d has length %d, only %d bytes left",
				ErrCorrupt, what, off-3, n, len(src)-off)
		}
		body := src[off : off+n]
		if h&1 == 1 {
			if n > d.blockSize {
				return nil, fmt.Errorf("%w: %s: original chunk at stream offset %d has %d bytes, block size is %d",
					ErrCorrupt, what, off-3, n, d.blockSize)
			}
			dst = append(dst, body...)
		} else {
			var err error
			dst, err = d.chunk(dst, body)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %s chunk at stream offset %d: %v", ErrCorrupt, what, d.kind, off-3, err)
			}
		}
		off += n
	}
	return dst, nil
}

var errChunkTooLarge = errors.New("decompresses beyond the compression block size")

// chunk decompresses one chunk body and appends it to dst.
func (d *decompressor) chunk(dst, body []byte) ([]byte, error) {
	start := len(dst)
	dst = grow(dst, d.blockSize)
	out := dst[start : start+d.blockSize]
	var n int
	switch d.kind {
	case CompressionZlib:
		r := bytes.NewReader(body)
		if d.flate == nil {
			d.flate = flate.NewReader(r)
		} else if err := d.flate.(flate.Resetter).Reset(r, nil); err != nil {
			return nil, err
		}
		for n < len(out) {
			m, err := d.flate.Read(out[n:])
			n += m
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
		}
		if n == len(out) {
			var one [1]byte
			if m, _ := d.flate.Read(one[:]); m > 0 {
				return nil, errChunkTooLarge
			}
		}
	case CompressionSnappy:
		l, err := snappy.DecodedLen(body)
		if err != nil {
			return nil, err
		}
		if l > len(out) {
			return nil, errChunkTooLarge
		}
		res, err := snappy.Decode(out, body)
		if err != nil {
			return nil, err
		}
		n = len(res)
	case CompressionLZ4:
		m, err := lz4.UncompressBlock(body, out)
		if err != nil {
			return nil, err
		}
		n = m
	case CompressionLZO:
		m, err := lzoDecompress(body, out)
		if err != nil {
			return nil, err
		}
		n = m
	case CompressionZstd:
		// Decode in place: DecodeAll appends to a zero-length slice at
		// out's start, using all the capacity after it (see zstdSlack).
		res, err := d.zstd.DecodeAll(body, dst[start:start])
		if err != nil {
			return nil, err
		}
		if len(res) > len(out) {
			return nil, errChunkTooLarge
		}
		if len(res) > 0 && &res[0] != &out[0] {
			copy(out, res) // the decoder had to allocate (a frame larger than the room left)
		}
		n = len(res)
	default:
		return nil, fmt.Errorf("compression kind %d not supported", int(d.kind))
	}
	return dst[:start+n], nil
}

// grow returns dst with capacity for n more bytes.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	nd := make([]byte, len(dst)+n, 2*cap(dst)+n)
	copy(nd, dst)
	return nd
}

var errLZO = errors.New("lzo: malformed input")

// lzoDecompress expands an LZO1X block into out and returns the length.
//
// Instruction set (the state is the number of literals copied after the
// previous instruction, 4 meaning "a long literal run"):
//
//	0000LLLL state 0: literal run of 3+L bytes (L=0: 18 + 255*zeros + next)
//	0000DDSS state 1-3: match len 2, dist 1 + D + 4*next
//	0000DDSS state 4: match len 3, dist 2049 + D + 4*next
//	0001HLLL match len 2+L (L=0: 9 + 255*zeros + next), then le16 DS:
//	         dist 16384 + 16384*H + DS>>2; dist 16384 ends the stream
//	001LLLLL match len 2+L (L=0: 33 + 255*zeros + next), le16 DS: dist 1 + DS>>2
//	01LDDDSS match len 3+L, dist 1 + D + 8*next
//	1LLDDDSS match len 5+L, dist 1 + D + 8*next
//
// SS (the low two bits of the last distance byte) is the number of literals
// that follow a match. The first byte may be 18..255: a literal run of
// byte-17 bytes.
func lzoDecompress(in, out []byte) (int, error) {
	ip, op := 0, 0
	state := 0
	next := func() (int, error) {
		if ip >= len(in) {
			return 0, errLZO
		}
		b := int(in[ip])
		ip++
		return b, nil
	}
	extLen := func(base int) (int, error) {
		n := 0
		for {
			b, err := next()
			if err != nil {
				return 0, err
			}
			if b != 0 {
				return n + base + b, nil
			}
			n += 255
			if n > len(out) {
				return 0, errLZO
			}
		}
	}
	// matchLen reads the length of a long match: the low bits of t under
	// mask, or an extended length when they are zero; plus 2.
	matchLen := func(t, mask int) (int, error) {
		n := t & mask
		if n == 0 {
			var err error
			if n, err = extLen(mask); err != nil {
				return 0, err
			}
		}
		return n + 2, nil
	}
	// next16 reads the little-endian 16-bit distance field of a long match.
	next16 := func() (int, error) {
		lo, err := next()
		if err != nil {
			return 0, err
		}
		hi, err := next()
		if err != nil {
			return 0, err
		}
		return lo | hi<<8, nil
	}
	copyLit := func(n int) error {
		if n > len(in)-ip || n > len(out)-op {
			return errLZO
		}
		copy(out[op:], in[ip:ip+n])
		ip += n
		op += n
		return nil
	}
	copyMatch := func(dist, n int) error {
		if dist > op || dist <= 0 || n > len(out)-op {
			return errLZO
		}
		src := op - dist
		for i := 0; i < n; i++ {
			out[op+i] = out[src+i]
		}
		op += n
		return nil
	}
	if len(in) > 0 && in[0] > 17 {
		t := int(in[0]) - 17
		ip++
		if err := copyLit(t); err != nil {
			return 0, err
		}
		if t < 4 {
			state = t
		} else {
			state = 4
		}
	}
	for {
		t, err := next()
		if err != nil {
			return 0, err
		}
		var dist, length, s int
		switch {
		case t < 16:
			if state == 0 {
				n := t + 3
				if t == 0 {
					if n, err = extLen(18); err != nil {
						return 0, err
					}
				}
				if err := copyLit(n); err != nil {
					return 0, err
				}
				state = 4
				continue
			}
			h, err := next()
			if err != nil {
				return 0, err
			}
			s = t & 3
			if state < 4 {
				dist, length = 1+(t>>2)+(h<<2), 2
			} else {
				dist, length = 2049+(t>>2)+(h<<2), 3
			}
		case t < 32:
			if length, err = matchLen(t, 7); err != nil {
				return 0, err
			}
			ds, err := next16()
			if err != nil {
				return 0, err
			}
			s = ds & 3
			dist = 16384 + ((t & 8) << 11) + (ds >> 2)
			if dist == 16384 {
				return op, nil
			}
		case t < 64:
			if length, err = matchLen(t, 31); err != nil {
				return 0, err
			}
			ds, err := next16()
			if err != nil {
				return 0, err
			}
			s = ds & 3
			dist = 1 + (ds >> 2)
		case t < 128:
			h, err := next()
			if err != nil {
				return 0, err
			}
			length = 3 + ((t >> 5) & 1)
			dist = 1 + ((t >> 2) & 7) + (h << 3)
			s = t & 3
		default:
			h, err := next()
			if err != nil {
				return 0, err
			}
			length = 5 + ((t >> 5) & 3)
			dist = 1 + ((t >> 2) & 7) + (h << 3)
			s = t & 3
		}
		if err := copyMatch(dist, length); err != nil {
			return 0, err
		}
		if err := copyLit(s); err != nil {
			return 0, err
		}
		state = s
	}
}
