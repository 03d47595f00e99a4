package unionread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrKeyType: a key column has a type whose values cannot be compared
// exactly byte for byte (or that this package does not encode).
var ErrKeyType = errors.New("unionread: unsupported key column type")

// KeyEncoder turns the key columns of a batch into canonical bytes: one
// field per column, a null marker then the value in a fixed layout chosen by
// the Arrow type. Two rows get equal bytes exactly when every key column
// holds equal values of the same Arrow type, so both sides of a union must
// be cast to the same types before their keys are compared (never through
// fmt or a text form, which is not exact).
//
// A KeyEncoder belongs to one goroutine; Bind it to each batch before Append
// or AppendAll.
type KeyEncoder struct {
	cols   []int
	encs   []func(dst []byte, row int) []byte
	fills  []func(dst []byte, stride, off, n int)
	widths []int
	stride int // bytes of every key of the bound batch; 0 when they vary
}

// NewKeyEncoder encodes the columns at positions cols (in that order).
func NewKeyEncoder(cols []int) *KeyEncoder {
	n := len(cols)
	return &KeyEncoder{cols: append([]int(nil), cols...), encs: make([]func([]byte, int) []byte, n),
		fills: make([]func([]byte, int, int, int), n), widths: make([]int, n)}
}

// Bind prepares the encoder for rec's columns.
func (e *KeyEncoder) Bind(rec arrow.RecordBatch) error {
	e.stride = 0
	fixed := true
	for i, c := range e.cols {
		if c < 0 || c >= int(rec.NumCols()) {
			return fmt.Errorf("unionread: key column position %d out of %d columns", c, rec.NumCols())
		}
		a := rec.Column(c)
		ce, err := columnEncoder(a)
		if err != nil {
			return fmt.Errorf("%w: column %q (%s)", err, rec.ColumnName(c), a.DataType())
		}
		e.encs[i], e.fills[i], e.widths[i] = ce.row, ce.fill, ce.width
		if ce.fill == nil || a.NullN() > 0 {
			fixed = false
		} else {
			e.stride += 1 + ce.width
		}
	}
	if !fixed || len(e.cols) == 0 {
		e.stride = 0
	}
	return nil
}

// Stride is the length of every key of the bound batch when AppendAll lays
// them out back to back at a fixed width (every key column fixed-width and
// without nulls), else 0.
func (e *KeyEncoder) Stride() int { return e.stride }

// AppendAll appends the keys of rows [0, n) of the bound batch, Stride bytes
// each, column by column (no per-row call); the bytes equal those Append
// gives row by row. It requires Stride() > 0.
func (e *KeyEncoder) AppendAll(dst []byte, n int) []byte {
	base := len(dst)
	dst = slices.Grow(dst, n*e.stride)[:base+n*e.stride]
	out := dst[base:]
	off := 0
	for i, fill := range e.fills {
		fill(out, e.stride, off, n)
		off += 1 + e.widths[i]
	}
	return dst
}

// Append appends the key of row to dst.
func (e *KeyEncoder) Append(dst []byte, row int) []byte {
	for _, enc := range e.encs {
		dst = enc(dst, row)
	}
	return dst
}

// colEnc encodes one key column: row appends one row's field (marker and
// value); fill, for fixed-width types, writes the fields of rows [0, n) at
// dst[i*stride+off:] (the column must have no nulls), width being the value
// bytes after the marker.
type colEnc struct {
	row   func(dst []byte, i int) []byte
	fill  func(dst []byte, stride, off, n int)
	width int
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// intEnc encodes integers as 8 big-endian bytes of their uint64 conversion
// (the layout Append has always used, so sets built before stay valid).
func intEnc[T integer](a arrow.Array, vals []T) colEnc {
	return colEnc{
		row: func(d []byte, i int) []byte {
			if a.IsNull(i) {
				return append(d, 0)
			}
			return binary.BigEndian.AppendUint64(append(d, 1), uint64(vals[i]))
		},
		fill: func(d []byte, stride, off, n int) {
			vals := vals[:n]
			for i, v := range vals {
				p := d[i*stride+off : i*stride+off+9]
				p[0] = 1
				binary.BigEndian.PutUint64(p[1:], uint64(v))
			}
		},
		width: 8,
	}
}

func columnEncoder(a arrow.Array) (colEnc, error) {
	wrap := func(f func([]byte, int) []byte) func([]byte, int) []byte {
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return append(dst, 0)
			}
			return f(append(dst, 1), i)
		}
	}
	// fixed derives the column-wise fill of a fixed-width field from its
	// row encoder, for the types without a dedicated loop.
	fixed := func(f func([]byte, int) []byte, width int) colEnc {
		return colEnc{row: wrap(f), width: width, fill: func(d []byte, stride, off, n int) {
			for i := 0; i < n; i++ {
				p := d[i*stride+off : i*stride+off+1+width]
				p[0] = 1
				f(p[1:1], i)
			}
		}}
	}
	u64 := func(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }
	switch x := a.(type) {
	case *array.Boolean:
		return fixed(func(d []byte, i int) []byte {
			if x.Value(i) {
				return append(d, 1)
			}
			return append(d, 0)
		}, 1), nil
	case *array.Int8:
		return intEnc(a, x.Int8Values()), nil
	case *array.Int16:
		return intEnc(a, x.Int16Values()), nil
	case *array.Int32:
		return intEnc(a, x.Int32Values()), nil
	case *array.Int64:
		return intEnc(a, x.Int64Values()), nil
	case *array.Uint8:
		return intEnc(a, x.Uint8Values()), nil
	case *array.Uint16:
		return intEnc(a, x.Uint16Values()), nil
	case *array.Uint32:
		return intEnc(a, x.Uint32Values()), nil
	case *array.Uint64:
		return intEnc(a, x.Uint64Values()), nil
	case *array.Date32:
		return intEnc(a, x.Date32Values()), nil
	case *array.Date64:
		return intEnc(a, x.Date64Values()), nil
	case *array.Timestamp:
		return intEnc(a, x.TimestampValues()), nil
	case *array.Time32:
		return intEnc(a, x.Time32Values()), nil
	case *array.Time64:
		return intEnc(a, x.Time64Values()), nil
	case *array.Float32:
		return fixed(func(d []byte, i int) []byte { return u64(d, floatBits(float64(x.Value(i)))) }, 8), nil
	case *array.Float64:
		return fixed(func(d []byte, i int) []byte { return u64(d, floatBits(x.Value(i))) }, 8), nil
	case *array.Decimal128:
		return fixed(func(d []byte, i int) []byte {
			v := x.Value(i)
			return u64(u64(d, uint64(v.HighBits())), v.LowBits())
		}, 16), nil
	case *array.String:
		offs, data := x.ValueOffsets(), x.ValueBytes()
		base := offs[0]
		return colEnc{row: wrap(func(d []byte, i int) []byte { return appendBytes(d, data[offs[i]-base:offs[i+1]-base]) })}, nil
	case *array.LargeString:
		return colEnc{row: wrap(func(d []byte, i int) []byte { s := x.Value(i); return appendBytes(d, []byte(s)) })}, nil
	case *array.Binary:
		return colEnc{row: wrap(func(d []byte, i int) []byte { return appendBytes(d, x.Value(i)) })}, nil
	case *array.LargeBinary:
		return colEnc{row: wrap(func(d []byte, i int) []byte { return appendBytes(d, x.Value(i)) })}, nil
	case *array.FixedSizeBinary:
		w := x.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		return fixed(func(d []byte, i int) []byte { return append(d, x.Value(i)...) }, w), nil
	}
	return colEnc{}, ErrKeyType
}

// floatBits maps -0 to 0 and every NaN to one NaN so equal SQL values
// encode alike (key columns of floating type are refused by the planner;
// this only keeps the encoding total).
func floatBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// KeySet is a set of encoded keys held in one arena: the key bytes back to
// back in one slice, and an open-addressing table of ids with one tag byte
// per slot (eight more hash bits, 0 = empty) so a probe rarely touches key
// bytes that cannot match. While every key has the same length (the usual
// case: fixed-width key columns without nulls) ids index the arena
// directly; otherwise their end offsets are kept too. No per-key heap
// object exists, so memory is the key bytes plus 7 to 14 bytes per key
// (slots and tags at a load between 3/8 and 3/4), 4 more when key lengths
// vary. Ids are dense and follow insertion order (first-seen order). Not
// safe for concurrent writes; concurrent Contains calls on a set nobody
// writes any more are safe.
type KeySet struct {
	seed  maphash.Seed
	s0    uint64 // seeds of the short-key hash
	s1    uint64
	arena []byte
	n     int
	width int      // length of every key while ends is nil
	ends  []uint32 // end offsets, once keys of different lengths exist
	slots []uint32 // id per slot, valid where tags != 0
	tags  []uint8
}

// NewKeySet makes an empty set.
func NewKeySet() *KeySet {
	return &KeySet{seed: maphash.MakeSeed(), s0: rand.Uint64() | 1, s1: rand.Uint64() | 1}
}

// hash hashes a key. Keys of up to 16 bytes (every single fixed-width key
// column: 9 bytes) take a multiply-mix of two words, several times cheaper
// than the general hash whose per-call cost dominates such short keys; the
// choice depends only on the length, so equal keys always hash alike.
func (s *KeySet) hash(key []byte) uint64 {
	n := len(key)
	if n > 16 {
		return maphash.Bytes(s.seed, key)
	}
	var a, b uint64
	switch {
	case n >= 8:
		a = binary.LittleEndian.Uint64(key)
		b = tailWord(key[8:])
	default:
		a = tailWord(key)
	}
	hi, lo := bits.Mul64(a^s.s0, b^s.s1^uint64(n)<<59)
	hi, lo = bits.Mul64(hi^lo^s.s1, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// tailWord packs up to 8 bytes into a word.
func tailWord(b []byte) uint64 {
	if len(b) == 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return w
}

// Len is the number of distinct keys.
func (s *KeySet) Len() int { return s.n }

// MemoryBytes is the memory the set holds.
func (s *KeySet) MemoryBytes() int {
	return cap(s.arena) + 4*cap(s.ends) + 4*cap(s.slots) + cap(s.tags)
}

func (s *KeySet) key(id int) []byte {
	if s.ends == nil {
		return s.arena[id*s.width : (id+1)*s.width]
	}
	start := uint32(0)
	if id > 0 {
		start = s.ends[id-1]
	}
	return s.arena[start:s.ends[id]]
}

// tagOf is the slot tag of hash h: its top byte, never 0 (0 marks empty).
func tagOf(h uint64) uint8 {
	if t := uint8(h >> 56); t != 0 {
		return t
	}
	return 1
}

// Find returns the id of key, if present.
func (s *KeySet) Find(key []byte) (int, bool) {
	if s.n == 0 {
		return 0, false
	}
	return s.find(key, s.hash(key))
}

func (s *KeySet) find(key []byte, h uint64) (int, bool) {
	mask := uint64(len(s.slots) - 1)
	t := tagOf(h)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.tags[i] {
		case 0:
			return 0, false
		case t:
			if id := int(s.slots[i]); bytes.Equal(s.key(id), key) {
				return id, true
			}
		}
	}
}

// Contains reports whether key is in the set.
func (s *KeySet) Contains(key []byte) bool {
	_, ok := s.Find(key)
	return ok
}

// Absent sets keep[i] to whether the i-th key of keys (laid out back to
// back, stride bytes each, len(keep) of them) is absent from the set, and
// returns how many are present.
func (s *KeySet) Absent(keys []byte, stride int, keep []bool) int {
	if s.n == 0 {
		for i := range keep {
			keep[i] = true
		}
		return 0
	}
	present := 0
	for i := range keep {
		k := keys[i*stride : (i+1)*stride]
		_, hit := s.find(k, s.hash(k))
		keep[i] = !hit
		if hit {
			present++
		}
	}
	return present
}

// Insert adds key and returns its id; added is false when it was there.
func (s *KeySet) Insert(key []byte) (id int, added bool, err error) {
	h := s.hash(key)
	if s.n > 0 {
		if id, ok := s.find(key, h); ok {
			return id, false, nil
		}
	}
	if uint64(len(s.arena))+uint64(len(key)) > math.MaxUint32 || s.n >= math.MaxUint32/2 {
		return 0, false, fmt.Errorf("unionread: key set over 4 GiB or 2^31 keys")
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	switch {
	case s.n == 0:
		s.width = len(key)
	case s.ends == nil && len(key) != s.width:
		s.ends = make([]uint32, s.n, max(2*s.n, 64))
		for i := range s.ends {
			s.ends[i] = uint32((i + 1) * s.width)
		}
	}
	s.arena = append(s.arena, key...)
	if s.ends != nil {
		s.ends = append(s.ends, uint32(len(s.arena)))
	}
	id = s.n
	s.n++
	s.place(h, uint32(id))
	return id, true, nil
}

func (s *KeySet) place(h uint64, id uint32) {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s.tags[i] == 0 {
			s.slots[i], s.tags[i] = id, tagOf(h)
			return
		}
	}
}

func (s *KeySet) grow() {
	n := len(s.slots) * 2
	if n < 64 {
		n = 64
	}
	s.slots, s.tags = make([]uint32, n), make([]uint8, n)
	for id := 0; id < s.n; id++ {
		s.place(s.hash(s.key(id)), uint32(id))
	}
}
