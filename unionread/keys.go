package unionread

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"

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
// A KeyEncoder belongs to one goroutine; Bind it to each batch before Append.
type KeyEncoder struct {
	cols []int
	encs []func(dst []byte, row int) []byte
}

// NewKeyEncoder encodes the columns at positions cols (in that order).
func NewKeyEncoder(cols []int) *KeyEncoder {
	return &KeyEncoder{cols: append([]int(nil), cols...), encs: make([]func([]byte, int) []byte, len(cols))}
}

// Bind prepares the encoder for rec's columns.
func (e *KeyEncoder) Bind(rec arrow.RecordBatch) error {
	for i, c := range e.cols {
		if c < 0 || c >= int(rec.NumCols()) {
			return fmt.Errorf("unionread: key column position %d out of %d columns", c, rec.NumCols())
		}
		enc, err := columnEncoder(rec.Column(c))
		if err != nil {
			return fmt.Errorf("%w: column %q (%s)", err, rec.ColumnName(c), rec.Column(c).DataType())
		}
		e.encs[i] = enc
	}
	return nil
}

// Append appends the key of row to dst.
func (e *KeyEncoder) Append(dst []byte, row int) []byte {
	for _, enc := range e.encs {
		dst = enc(dst, row)
	}
	return dst
}

func columnEncoder(a arrow.Array) (func([]byte, int) []byte, error) {
	wrap := func(f func([]byte, int) []byte) func([]byte, int) []byte {
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return append(dst, 0)
			}
			return f(append(dst, 1), i)
		}
	}
	u64 := func(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }
	switch x := a.(type) {
	case *array.Boolean:
		return wrap(func(d []byte, i int) []byte {
			if x.Value(i) {
				return append(d, 1)
			}
			return append(d, 0)
		}), nil
	case *array.Int8:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Int16:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Int32:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Int64:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Uint8:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Uint16:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Uint32:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Uint64:
		return wrap(func(d []byte, i int) []byte { return u64(d, x.Value(i)) }), nil
	case *array.Date32:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Date64:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Timestamp:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Time32:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Time64:
		return wrap(func(d []byte, i int) []byte { return u64(d, uint64(x.Value(i))) }), nil
	case *array.Float32:
		return wrap(func(d []byte, i int) []byte { return u64(d, floatBits(float64(x.Value(i)))) }), nil
	case *array.Float64:
		return wrap(func(d []byte, i int) []byte { return u64(d, floatBits(x.Value(i))) }), nil
	case *array.Decimal128:
		return wrap(func(d []byte, i int) []byte {
			v := x.Value(i)
			return u64(u64(d, uint64(v.HighBits())), v.LowBits())
		}), nil
	case *array.String:
		offs, data := x.ValueOffsets(), x.ValueBytes()
		base := offs[0]
		return wrap(func(d []byte, i int) []byte { return appendBytes(d, data[offs[i]-base:offs[i+1]-base]) }), nil
	case *array.LargeString:
		return wrap(func(d []byte, i int) []byte { s := x.Value(i); return appendBytes(d, []byte(s)) }), nil
	case *array.Binary:
		return wrap(func(d []byte, i int) []byte { return appendBytes(d, x.Value(i)) }), nil
	case *array.LargeBinary:
		return wrap(func(d []byte, i int) []byte { return appendBytes(d, x.Value(i)) }), nil
	case *array.FixedSizeBinary:
		return wrap(func(d []byte, i int) []byte { return append(d, x.Value(i)...) }), nil
	}
	return nil, ErrKeyType
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
// back in one slice, their end offsets in another, and an open-addressing
// table of ids. No per-key heap object exists, so memory is about the key
// bytes plus 12 bytes per key. Ids are dense and follow insertion order
// (first-seen order). Not safe for concurrent writes; concurrent Contains
// calls on a set nobody writes any more are safe.
type KeySet struct {
	seed  maphash.Seed
	arena []byte
	ends  []uint32
	slots []uint32 // id+1, 0 = empty
}

// NewKeySet makes an empty set.
func NewKeySet() *KeySet { return &KeySet{seed: maphash.MakeSeed()} }

// Len is the number of distinct keys.
func (s *KeySet) Len() int { return len(s.ends) }

// MemoryBytes is the memory the set holds.
func (s *KeySet) MemoryBytes() int {
	return cap(s.arena) + 4*cap(s.ends) + 4*cap(s.slots)
}

func (s *KeySet) key(id int) []byte {
	start := uint32(0)
	if id > 0 {
		start = s.ends[id-1]
	}
	return s.arena[start:s.ends[id]]
}

// Find returns the id of key, if present.
func (s *KeySet) Find(key []byte) (int, bool) {
	if len(s.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(s.slots) - 1)
	for i := maphash.Bytes(s.seed, key) & mask; ; i = (i + 1) & mask {
		v := s.slots[i]
		if v == 0 {
			return 0, false
		}
		if bytes.Equal(s.key(int(v-1)), key) {
			return int(v - 1), true
		}
	}
}

// Contains reports whether key is in the set.
func (s *KeySet) Contains(key []byte) bool {
	_, ok := s.Find(key)
	return ok
}

// Insert adds key and returns its id; added is false when it was there.
func (s *KeySet) Insert(key []byte) (id int, added bool, err error) {
	if id, ok := s.Find(key); ok {
		return id, false, nil
	}
	if uint64(len(s.arena))+uint64(len(key)) > math.MaxUint32 || len(s.ends) >= math.MaxUint32/2 {
		return 0, false, fmt.Errorf("unionread: key set over 4 GiB or 2^31 keys")
	}
	if (len(s.ends)+1)*4 > len(s.slots)*3 {
		s.grow()
	}
	s.arena = append(s.arena, key...)
	s.ends = append(s.ends, uint32(len(s.arena)))
	id = len(s.ends) - 1
	s.place(key, uint32(id+1))
	return id, true, nil
}

func (s *KeySet) place(key []byte, v uint32) {
	mask := uint64(len(s.slots) - 1)
	for i := maphash.Bytes(s.seed, key) & mask; ; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			s.slots[i] = v
			return
		}
	}
}

func (s *KeySet) grow() {
	n := len(s.slots) * 2
	if n < 64 {
		n = 64
	}
	s.slots = make([]uint32, n)
	for id := range s.ends {
		s.place(s.key(id), uint32(id+1))
	}
}
