package paimon

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/inlet-db/inlet/fileio"
)

// Deletion vector (32-bit, BitmapDeletionVector) inside an index file:
//
//	index file: version byte (1) | DV | DV | ...
//	DV at range offset: int32 BE L | int32 BE magic 1581511376 | RoaringBitmap
//	                    portable serialization (L-4 bytes) | uint32 BE CRC32
//	                    over magic+bitmap
//
// The range length in the index manifest is L (it excludes the length field
// and the CRC).
//
// 64-bit DV (Bitmap64DeletionVector, deletion-vectors.bitmap64=true):
//
//	int32 BE L | int32 LE magic 1681511377 | int64 LE bitmap count |
//	per bitmap, keys ascending: int32 LE key (high 32 bits of the
//	position) | portable RoaringBitmap of the low 32 bits | ... |
//	uint32 BE CRC32 over magic+bitmaps (the L bytes)
//
// Its range length is the whole size (L + 8). The reader tells the two
// apart by the magic, as Java does.

const (
	dvMagic   = 1581511376
	dv64Magic = 1681511377
	maxDVSize = 256 << 20
)

// DeletionVector is a set of deleted row positions of one data file.
type DeletionVector struct {
	keys  []uint16
	conts [][]uint16 // sorted low 16 bits per container (bitmaps expanded)
	upper []dvPart   // 64-bit vectors: positions >= 2^32, by high 32 bits
}

type dvPart struct {
	key uint32
	dv  *DeletionVector
}

// Contains reports whether row position pos is deleted.
func (d *DeletionVector) Contains(pos int64) bool {
	if d == nil || pos < 0 {
		return false
	}
	if pos > 0xffffffff {
		hi := uint32(pos >> 32)
		i := sort.Search(len(d.upper), func(i int) bool { return d.upper[i].key >= hi })
		return i < len(d.upper) && d.upper[i].key == hi && d.upper[i].dv.Contains(pos&0xffffffff)
	}
	hi, lo := uint16(pos>>16), uint16(pos)
	i := sort.Search(len(d.keys), func(i int) bool { return d.keys[i] >= hi })
	if i == len(d.keys) || d.keys[i] != hi {
		return false
	}
	c := d.conts[i]
	j := sort.Search(len(c), func(j int) bool { return c[j] >= lo })
	return j < len(c) && c[j] == lo
}

// Cardinality is the number of deleted positions.
func (d *DeletionVector) Cardinality() int64 {
	var n int64
	for _, c := range d.conts {
		n += int64(len(c))
	}
	for _, u := range d.upper {
		n += u.dv.Cardinality()
	}
	return n
}

// ReadDeletionVector reads the DV a DeletionFile points at.
func ReadDeletionVector(ctx context.Context, fsys fileio.FS, df DeletionFile) (*DeletionVector, error) {
	if df.Length < 4 || df.Length > maxDVSize || df.Offset < 1 {
		return nil, fmt.Errorf("%w: deletion vector %s@%d: length %d", ErrCorrupt, df.Path, df.Offset, df.Length)
	}
	f, err := fsys.Open(ctx, df.Path)
	if err != nil {
		return nil, fmt.Errorf("deletion vector file %s: %w", df.Path, err)
	}
	defer f.Close()
	buf := make([]byte, df.Length+8)
	if _, err := f.ReadAt(buf, df.Offset); err != nil && err != io.EOF {
		return nil, fmt.Errorf("deletion vector %s@%d: %w", df.Path, df.Offset, err)
	}
	dv, err := DecodeDeletionVector(buf)
	if err != nil {
		return nil, fmt.Errorf("deletion vector %s@%d: %w", df.Path, df.Offset, err)
	}
	return dv, nil
}

// DecodeDeletionVector decodes one serialized DV (length, magic, bitmap, CRC).
func DecodeDeletionVector(b []byte) (*DeletionVector, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: deletion vector of %d bytes", ErrCorrupt, len(b))
	}
	l := int64(int32(binary.BigEndian.Uint32(b)))
	if l < 4 || l > int64(len(b)-4) {
		return nil, fmt.Errorf("%w: deletion vector length %d for %d bytes", ErrCorrupt, l, len(b))
	}
	body := b[4 : 4+l]
	m := binary.BigEndian.Uint32(body)
	m64 := binary.LittleEndian.Uint32(body) == dv64Magic
	if m != dvMagic && !m64 {
		return nil, fmt.Errorf("%w: deletion vector magic %d (want %d, or %d little-endian for 64-bit)", ErrCorrupt, m, dvMagic, dv64Magic)
	}
	if int64(len(b)) >= 8+l {
		if crc := binary.BigEndian.Uint32(b[4+l:]); crc != crc32.ChecksumIEEE(body) {
			return nil, fmt.Errorf("%w: deletion vector checksum mismatch", ErrCorrupt)
		}
	}
	if m64 {
		return decodeRoaring64(body[4:])
	}
	dv, _, err := decodeRoaring(body[4:])
	return dv, err
}

// decodeRoaring64 decodes OptimizedRoaringBitmap64's portable form: a
// bitmap count, then (key, 32-bit bitmap) pairs with ascending keys.
func decodeRoaring64(b []byte) (*DeletionVector, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: 64-bit roaring bitmap: short header", ErrCorrupt)
	}
	n := binary.LittleEndian.Uint64(b)
	b = b[8:]
	// Each bitmap takes at least a 4-byte key and an 8-byte header.
	if n > uint64(len(b)/12) {
		return nil, fmt.Errorf("%w: 64-bit roaring bitmap: %d bitmaps in %d bytes", ErrCorrupt, n, len(b))
	}
	out := &DeletionVector{}
	last := int64(-1)
	for i := uint64(0); i < n; i++ {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: 64-bit roaring bitmap: short key", ErrCorrupt)
		}
		key := int64(int32(binary.LittleEndian.Uint32(b)))
		if key < 0 || key > 0x7ffffffe || key <= last {
			return nil, fmt.Errorf("%w: 64-bit roaring bitmap: key %d after %d", ErrCorrupt, key, last)
		}
		last = key
		dv, used, err := decodeRoaring(b[4:])
		if err != nil {
			return nil, err
		}
		b = b[4+used:]
		if key == 0 {
			out.keys, out.conts = dv.keys, dv.conts
		} else if len(dv.keys) > 0 {
			out.upper = append(out.upper, dvPart{key: uint32(key), dv: dv})
		}
	}
	return out, nil
}

// decodeRoaring decodes the RoaringBitmap portable format (32-bit) and
// returns the bytes it used.
func decodeRoaring(b []byte) (*DeletionVector, int, error) {
	bad := func(what string) (*DeletionVector, int, error) {
		return nil, 0, fmt.Errorf("%w: roaring bitmap: %s", ErrCorrupt, what)
	}
	if len(b) < 4 {
		return bad("short header")
	}
	cookie := binary.LittleEndian.Uint32(b)
	var n int
	var runFlags []byte
	off := 0
	switch {
	case cookie&0xffff == 12347: // SERIAL_COOKIE: has run containers
		n = int(cookie>>16) + 1
		off = 4
		fl := (n + 7) / 8
		if len(b) < off+fl {
			return bad("short run flags")
		}
		runFlags = b[off : off+fl]
		off += fl
	case cookie == 12346: // SERIAL_COOKIE_NO_RUNCONTAINER
		if len(b) < 8 {
			return bad("short header")
		}
		n = int(binary.LittleEndian.Uint32(b[4:]))
		off = 8
	default:
		return bad(fmt.Sprintf("cookie %d", cookie))
	}
	if n > 1<<16 || len(b) < off+4*n {
		return bad(fmt.Sprintf("%d containers", n))
	}
	dv := &DeletionVector{keys: make([]uint16, n), conts: make([][]uint16, n)}
	cards := make([]int, n)
	for i := 0; i < n; i++ {
		dv.keys[i] = binary.LittleEndian.Uint16(b[off+4*i:])
		cards[i] = int(binary.LittleEndian.Uint16(b[off+4*i+2:])) + 1
		if i > 0 && dv.keys[i] <= dv.keys[i-1] {
			return bad("container keys not increasing")
		}
	}
	off += 4 * n
	isRun := func(i int) bool { return runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0 }
	// Offsets section: present without runs, or with runs when n >= 4.
	if runFlags == nil || n >= 4 {
		if len(b) < off+4*n {
			return bad("short offsets")
		}
		off += 4 * n
	}
	for i := 0; i < n; i++ {
		var vals []uint16
		switch {
		case isRun(i):
			if len(b) < off+2 {
				return bad("short run container")
			}
			runs := int(binary.LittleEndian.Uint16(b[off:]))
			off += 2
			if len(b) < off+4*runs {
				return bad("short run container")
			}
			for r := 0; r < runs; r++ {
				start := int(binary.LittleEndian.Uint16(b[off+4*r:]))
				length := int(binary.LittleEndian.Uint16(b[off+4*r+2:]))
				if start+length > 0xffff {
					return bad("run overflows container")
				}
				for v := start; v <= start+length; v++ {
					vals = append(vals, uint16(v))
				}
			}
			off += 4 * runs
		case cards[i] > 4096:
			if len(b) < off+8192 {
				return bad("short bitmap container")
			}
			for w := 0; w < 1024; w++ {
				word := binary.LittleEndian.Uint64(b[off+8*w:])
				for bit := 0; bit < 64; bit++ {
					if word&(1<<bit) != 0 {
						vals = append(vals, uint16(w*64+bit))
					}
				}
			}
			off += 8192
		default:
			if len(b) < off+2*cards[i] {
				return bad("short array container")
			}
			vals = make([]uint16, cards[i])
			for j := range vals {
				vals[j] = binary.LittleEndian.Uint16(b[off+2*j:])
			}
			off += 2 * cards[i]
		}
		if !sort.SliceIsSorted(vals, func(a, c int) bool { return vals[a] < vals[c] }) {
			return bad("container values not sorted")
		}
		dv.conts[i] = vals
	}
	return dv, off, nil
}

// EncodeDeletionVector serializes deleted row positions (each < 2^32) in
// the 32-bit DV layout: int32 BE length, magic, portable RoaringBitmap
// (array containers up to 4096 values, bitmap containers above), CRC32 BE.
// The index-manifest range length for it is len(result)-8.
func EncodeDeletionVector(positions []uint32) []byte {
	body := binary.BigEndian.AppendUint32(nil, dvMagic)
	body = append(body, encodeRoaring(positions)...)
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

// EncodeDeletionVector64 serializes deleted row positions (each < 2^63) in
// the 64-bit DV layout of Bitmap64DeletionVector: one 32-bit bitmap per key
// from 0 to the highest key (empty ones included, as Java's dense bitmap
// array is written). The index-manifest range length for it is
// len(result).
func EncodeDeletionVector64(positions []uint64) []byte {
	byKey := map[uint32][]uint32{}
	var maxKey uint32
	for _, p := range positions {
		k := uint32(p >> 32)
		byKey[k] = append(byKey[k], uint32(p))
		maxKey = max(maxKey, k)
	}
	n := uint64(0)
	if len(positions) > 0 {
		n = uint64(maxKey) + 1
	}
	body := binary.LittleEndian.AppendUint32(nil, dv64Magic)
	body = binary.LittleEndian.AppendUint64(body, n)
	for k := uint64(0); k < n; k++ {
		body = binary.LittleEndian.AppendUint32(body, uint32(k))
		body = append(body, encodeRoaring(byKey[uint32(k)])...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

// encodeRoaring writes the portable RoaringBitmap form without run
// containers.
func encodeRoaring(positions []uint32) []byte {
	sorted := append([]uint32(nil), positions...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var keys []uint16
	var conts [][]uint16
	for i, p := range sorted {
		if i > 0 && p == sorted[i-1] {
			continue
		}
		hi := uint16(p >> 16)
		if len(keys) == 0 || keys[len(keys)-1] != hi {
			keys = append(keys, hi)
			conts = append(conts, nil)
		}
		conts[len(conts)-1] = append(conts[len(conts)-1], uint16(p))
	}
	var bm []byte
	bm = binary.LittleEndian.AppendUint32(bm, 12346)
	bm = binary.LittleEndian.AppendUint32(bm, uint32(len(keys)))
	for i, k := range keys {
		bm = binary.LittleEndian.AppendUint16(bm, k)
		bm = binary.LittleEndian.AppendUint16(bm, uint16(len(conts[i])-1))
	}
	off := uint32(len(bm) + 4*len(keys))
	for _, c := range conts {
		bm = binary.LittleEndian.AppendUint32(bm, off)
		if len(c) > 4096 {
			off += 8192
		} else {
			off += uint32(2 * len(c))
		}
	}
	for _, c := range conts {
		if len(c) > 4096 {
			var words [1024]uint64
			for _, v := range c {
				words[v/64] |= 1 << (v % 64)
			}
			for _, w := range words {
				bm = binary.LittleEndian.AppendUint64(bm, w)
			}
			continue
		}
		for _, v := range c {
			bm = binary.LittleEndian.AppendUint16(bm, v)
		}
	}
	return bm
}
