package exec

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// A keyCol is one column of a group/join key: the key values of every group
// (by group id, typed, in first-seen order) and a typed view of the current
// batch's column. Rows are hashed column by column into a uint64 vector and
// compared against stored groups without boxing a value.
//
// NULL is a value of its own: it hashes to a constant and equals only NULL.
// Floats are normalised before hashing and comparing, so -0 = +0 and every
// NaN is one group (as Doris and MySQL group them).
type keyCol interface {
	// bind makes a (one batch's column) the column row arguments refer to.
	bind(a arrow.Array)
	// hash mixes every row's key into h (one entry per row).
	hash(h []uint64)
	// eq says whether row holds the key of group g.
	eq(row int, g uint32) bool
	// add stores row's key as the next group's.
	add(row int)
	// build returns the keys of all groups, in group-id order.
	build(mem memory.Allocator) arrow.Array
	// memBytes approximates the Go memory the stored keys hold.
	memBytes() int64
	// release drops what the column holds beyond Go memory.
	release()
	// view is a copy for lookups from another goroutine (parallel.go).
	view() keyCol
}

const (
	hashMul      = 0x9E3779B97F4A7C15
	nullKeyHash  = 0x6A09E667F3BCC909 // what a NULL contributes to a row's hash
	canonicalNaN = 0x7FF8000000000001
)

var keySeed = maphash.MakeSeed()

// mix64 is a 64-bit finaliser (murmur3's): every input bit reaches every
// output bit, so the table can take its slot from the top bits and its tag
// from the bottom ones.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xFF51AFD7ED558CCD
	x ^= x >> 33
	x *= 0xC4CEB9FE1A85EC53
	x ^= x >> 33
	return x
}

// newKeyCol picks the typed representation of a key column of type t.
func newKeyCol(t arrow.DataType) keyCol {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32,
		arrow.TIME64, arrow.DURATION:
		return &fixedKeyCol{typ: t}
	case arrow.DECIMAL128:
		return &decKeyCol{typ: t}
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY:
		return &strKeyCol{typ: t, offs: []int{0}}
	}
	return &genericKeyCol{strKeyCol: strKeyCol{typ: t, offs: []int{0}}}
}

// ---- fixed width: integers of every width, floats, bool, dates, times ----

// fixedKeyCol keeps every key as one normalised 64-bit word: integers
// sign- or zero-extended, floats as the bits of their canonical value.
type fixedKeyCol struct {
	typ   arrow.DataType
	vals  []uint64
	nulls []bool

	cur     []uint64 // the batch, normalised; 0 on NULL rows
	curNull []bool   // nil when the batch has no NULLs
}

func widen[T int8 | int16 | int32 | int64](dst []uint64, src []T) {
	for i, v := range src {
		dst[i] = uint64(int64(v))
	}
}

func widenU[T uint8 | uint16 | uint32 | uint64](dst []uint64, src []T) {
	for i, v := range src {
		dst[i] = uint64(v)
	}
}

func floatKey(f float64) uint64 {
	if f == 0 {
		return 0 // -0 = +0
	}
	if f != f {
		return canonicalNaN
	}
	return math.Float64bits(f)
}

func (c *fixedKeyCol) bind(a arrow.Array) {
	n := a.Len()
	if cap(c.cur) < n {
		c.cur = make([]uint64, n)
	}
	c.cur = c.cur[:n]
	switch x := a.(type) {
	case *array.Int64:
		widen(c.cur, x.Int64Values())
	case *array.Int32:
		widen(c.cur, x.Int32Values())
	case *array.Int16:
		widen(c.cur, x.Int16Values())
	case *array.Int8:
		widen(c.cur, x.Int8Values())
	case *array.Uint64:
		widenU(c.cur, x.Uint64Values())
	case *array.Uint32:
		widenU(c.cur, x.Uint32Values())
	case *array.Uint16:
		widenU(c.cur, x.Uint16Values())
	case *array.Uint8:
		widenU(c.cur, x.Uint8Values())
	case *array.Date32:
		widen(c.cur, arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(x.Date32Values())))
	case *array.Date64:
		widen(c.cur, arrow.Int64Traits.CastFromBytes(arrow.Date64Traits.CastToBytes(x.Date64Values())))
	case *array.Timestamp:
		widen(c.cur, arrow.Int64Traits.CastFromBytes(arrow.TimestampTraits.CastToBytes(x.TimestampValues())))
	case *array.Time32:
		widen(c.cur, arrow.Int32Traits.CastFromBytes(arrow.Time32Traits.CastToBytes(x.Time32Values())))
	case *array.Time64:
		widen(c.cur, arrow.Int64Traits.CastFromBytes(arrow.Time64Traits.CastToBytes(x.Time64Values())))
	case *array.Duration:
		widen(c.cur, arrow.Int64Traits.CastFromBytes(arrow.DurationTraits.CastToBytes(x.DurationValues())))
	case *array.Float64:
		for i, f := range x.Float64Values() {
			c.cur[i] = floatKey(f)
		}
	case *array.Float32:
		for i, f := range x.Float32Values() {
			c.cur[i] = floatKey(float64(f))
		}
	case *array.Boolean:
		for i := range c.cur {
			c.cur[i] = 0
			if x.Value(i) {
				c.cur[i] = 1
			}
		}
	}
	c.curNull = c.curNull[:0]
	if a.NullN() > 0 {
		if cap(c.curNull) < n {
			c.curNull = make([]bool, n)
		}
		c.curNull = c.curNull[:n]
		for i := range c.curNull {
			c.curNull[i] = a.IsNull(i)
			if c.curNull[i] {
				c.cur[i] = 0
			}
		}
	}
}

func (c *fixedKeyCol) hash(h []uint64) {
	if len(c.curNull) == 0 {
		for i, v := range c.cur {
			h[i] = mix64(h[i]*hashMul ^ v)
		}
		return
	}
	for i, v := range c.cur {
		if c.curNull[i] {
			v = nullKeyHash
		}
		h[i] = mix64(h[i]*hashMul ^ v)
	}
}

func (c *fixedKeyCol) isNull(row int) bool { return len(c.curNull) > 0 && c.curNull[row] }

func (c *fixedKeyCol) eq(row int, g uint32) bool {
	return c.cur[row] == c.vals[g] && c.isNull(row) == c.nulls[g]
}

func (c *fixedKeyCol) add(row int) {
	c.vals = append(c.vals, c.cur[row])
	c.nulls = append(c.nulls, c.isNull(row))
}

func (c *fixedKeyCol) memBytes() int64 { return int64(cap(c.vals))*8 + int64(cap(c.nulls)) }
func (c *fixedKeyCol) release()        {}

func buildFixed[T any](b interface {
	Append(T)
	AppendNull()
	Reserve(int)
}, vals []uint64, nulls []bool, conv func(uint64) T) {
	b.Reserve(len(vals))
	for g, v := range vals {
		if nulls[g] {
			b.AppendNull()
			continue
		}
		b.Append(conv(v))
	}
}

func (c *fixedKeyCol) build(mem memory.Allocator) arrow.Array {
	b := array.NewBuilder(mem, c.typ)
	defer b.Release()
	v, nl := c.vals, c.nulls
	switch bb := b.(type) {
	case *array.Int64Builder:
		buildFixed(bb, v, nl, func(x uint64) int64 { return int64(x) })
	case *array.Int32Builder:
		buildFixed(bb, v, nl, func(x uint64) int32 { return int32(x) })
	case *array.Int16Builder:
		buildFixed(bb, v, nl, func(x uint64) int16 { return int16(x) })
	case *array.Int8Builder:
		buildFixed(bb, v, nl, func(x uint64) int8 { return int8(x) })
	case *array.Uint64Builder:
		buildFixed(bb, v, nl, func(x uint64) uint64 { return x })
	case *array.Uint32Builder:
		buildFixed(bb, v, nl, func(x uint64) uint32 { return uint32(x) })
	case *array.Uint16Builder:
		buildFixed(bb, v, nl, func(x uint64) uint16 { return uint16(x) })
	case *array.Uint8Builder:
		buildFixed(bb, v, nl, func(x uint64) uint8 { return uint8(x) })
	case *array.Float64Builder:
		buildFixed(bb, v, nl, math.Float64frombits)
	case *array.Float32Builder:
		buildFixed(bb, v, nl, func(x uint64) float32 { return float32(math.Float64frombits(x)) })
	case *array.BooleanBuilder:
		buildFixed(bb, v, nl, func(x uint64) bool { return x != 0 })
	case *array.Date32Builder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Date32 { return arrow.Date32(int32(x)) })
	case *array.Date64Builder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Date64 { return arrow.Date64(int64(x)) })
	case *array.TimestampBuilder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Timestamp { return arrow.Timestamp(int64(x)) })
	case *array.Time32Builder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Time32 { return arrow.Time32(int32(x)) })
	case *array.Time64Builder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Time64 { return arrow.Time64(int64(x)) })
	case *array.DurationBuilder:
		buildFixed(bb, v, nl, func(x uint64) arrow.Duration { return arrow.Duration(int64(x)) })
	}
	return b.NewArray()
}

// ---- DECIMAL(p,s): the 128-bit unscaled value ----

type decKeyCol struct {
	typ   arrow.DataType
	vals  []decimal128.Num
	nulls []bool

	cur []decimal128.Num
	arr arrow.Array
}

func (c *decKeyCol) bind(a arrow.Array) {
	c.arr = a
	c.cur = a.(*array.Decimal128).Values()
}

func (c *decKeyCol) isNull(row int) bool { return c.arr.IsNull(row) }

func (c *decKeyCol) hash(h []uint64) {
	nulls := c.arr.NullN() > 0
	for i, d := range c.cur {
		if nulls && c.arr.IsNull(i) {
			h[i] = mix64(h[i]*hashMul ^ nullKeyHash)
			continue
		}
		h[i] = mix64(mix64(h[i]*hashMul^d.LowBits())*hashMul ^ uint64(d.HighBits()))
	}
}

func (c *decKeyCol) eq(row int, g uint32) bool {
	if n := c.isNull(row); n || c.nulls[g] {
		return n == c.nulls[g]
	}
	return c.cur[row] == c.vals[g]
}

func (c *decKeyCol) add(row int) {
	n := c.isNull(row)
	v := decimal128.Num{}
	if !n {
		v = c.cur[row]
	}
	c.vals = append(c.vals, v)
	c.nulls = append(c.nulls, n)
}

func (c *decKeyCol) memBytes() int64 { return int64(cap(c.vals))*16 + int64(cap(c.nulls)) }
func (c *decKeyCol) release()        {}

func (c *decKeyCol) build(mem memory.Allocator) arrow.Array {
	b := array.NewDecimal128Builder(mem, c.typ.(*arrow.Decimal128Type))
	defer b.Release()
	valid := make([]bool, len(c.nulls))
	for i, n := range c.nulls {
		valid[i] = !n
	}
	b.AppendValues(c.vals, valid)
	return b.NewArray()
}

// ---- strings and binaries: bytes in one arena ----

// strKeyCol keeps group g's bytes at arena[offs[g]:offs[g+1]], and beside
// them its length and first 8 bytes (zero-padded): a key of up to 8 bytes
// (most codes, names, dates as text) is compared and hashed as two words,
// a longer one compares its head before its tail in the arena. A NULL has
// the length nullLen, which no value has.
type strKeyCol struct {
	typ   arrow.DataType
	arena []byte
	offs  []int
	keys  []strHead // by group: length and head side by side, one cache line

	// the batch: data with 32- or 64-bit offsets (rebased by base), or
	// fixed-size binary
	data    []byte
	o32     []int32
	o64     []int64
	base    int64
	fsb     *array.FixedSizeBinary
	arr     arrow.Array
	curLen  []uint32
	curHead []uint64
}

const nullLen = math.MaxUint32

type strHead struct {
	head uint64
	n    uint32
}

// head8 is the first 8 bytes of data[from:to], zero-padded.
func head8(data []byte, from, to int) uint64 {
	n := to - from
	if n >= 8 {
		return binary.LittleEndian.Uint64(data[from:])
	}
	if from+8 <= len(data) {
		return binary.LittleEndian.Uint64(data[from:]) & (1<<(8*uint(n)) - 1)
	}
	var x uint64
	for i, b := range data[from:to] {
		x |= uint64(b) << (8 * uint(i))
	}
	return x
}

func (c *strKeyCol) bind(a arrow.Array) {
	c.bindRaw(a)
	c.fillHeads(a)
}

// bindRaw is bind without the rows' lengths and heads (packed keys read
// the offsets themselves).
func (c *strKeyCol) bindRaw(a arrow.Array) {
	c.arr, c.o32, c.o64, c.fsb = a, nil, nil, nil
	switch x := a.(type) {
	case *array.String:
		c.data, c.o32 = x.ValueBytes(), x.ValueOffsets()
	case *array.Binary:
		c.data, c.o32 = x.ValueBytes(), x.ValueOffsets()
	case *array.LargeString:
		c.data, c.o64 = x.ValueBytes(), x.ValueOffsets()
	case *array.LargeBinary:
		c.data, c.o64 = x.ValueBytes(), x.ValueOffsets()
	case *array.FixedSizeBinary:
		c.fsb = x
	}
	switch {
	case c.o32 != nil:
		c.base = int64(c.o32[0])
	case c.o64 != nil:
		c.base = c.o64[0]
	}
}

// fillHeads computes every row's length and head.
func (c *strKeyCol) fillHeads(a arrow.Array) {
	n := a.Len()
	if cap(c.curLen) < n {
		c.curLen, c.curHead = make([]uint32, n), make([]uint64, n)
	}
	c.curLen, c.curHead = c.curLen[:n], c.curHead[:n]
	if o, d, base := c.o32, c.data, c.base; o != nil {
		for i := range c.curLen {
			from, to := int(int64(o[i])-base), int(int64(o[i+1])-base)
			c.curLen[i] = uint32(to - from)
			c.curHead[i] = head8(d, from, to)
		}
	} else {
		for i := range c.curLen {
			b := c.at(i)
			c.curLen[i] = uint32(len(b))
			c.curHead[i] = head8(b, 0, len(b))
		}
	}
	if a.NullN() > 0 {
		for i := range c.curLen {
			if a.IsNull(i) {
				c.curLen[i], c.curHead[i] = nullLen, 0
			}
		}
	}
}

func (c *strKeyCol) at(i int) []byte {
	switch {
	case c.o32 != nil:
		return c.data[int64(c.o32[i])-c.base : int64(c.o32[i+1])-c.base]
	case c.o64 != nil:
		return c.data[c.o64[i]-c.base : c.o64[i+1]-c.base]
	}
	return c.fsb.Value(i)
}

func (c *strKeyCol) hash(h []uint64) {
	for i, n := range c.curLen {
		if n <= 8 || n == nullLen {
			h[i] = mix64(h[i]*hashMul ^ c.curHead[i] ^ uint64(n)<<56 ^ uint64(n))
			continue
		}
		h[i] = h[i]*hashMul ^ maphash.Bytes(keySeed, c.at(i))
	}
}

func (c *strKeyCol) eq(row int, g uint32) bool {
	n := c.curLen[row]
	if k := &c.keys[g]; n != k.n || c.curHead[row] != k.head {
		return false
	}
	if n <= 8 || n == nullLen {
		return true
	}
	return bytes.Equal(c.at(row)[8:], c.arena[c.offs[g]+8:c.offs[g+1]])
}

func (c *strKeyCol) add(row int) {
	n := c.curLen[row]
	if n != nullLen && n > 8 {
		c.arena = append(c.arena, c.at(row)...)
	}
	c.offs = append(c.offs, len(c.arena))
	c.keys = append(c.keys, strHead{c.curHead[row], n})
}

// value is group g's bytes (nil for NULL: check keys[g].n).
func (c *strKeyCol) value(g int, buf []byte) []byte {
	n := c.keys[g].n
	if n == nullLen {
		return nil
	}
	if n > 8 {
		return c.arena[c.offs[g]:c.offs[g+1]]
	}
	return binary.LittleEndian.AppendUint64(buf[:0], c.keys[g].head)[:n]
}

func (c *strKeyCol) memBytes() int64 {
	return int64(cap(c.arena)) + int64(cap(c.offs))*8 + int64(cap(c.keys))*16
}
func (c *strKeyCol) release() {}

func (c *strKeyCol) build(mem memory.Allocator) arrow.Array {
	b := array.NewBuilder(mem, c.typ)
	defer b.Release()
	var app func([]byte)
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.ReserveData(len(c.arena))
		app = bb.BinaryBuilder.Append
	case *array.LargeStringBuilder:
		bb.ReserveData(len(c.arena))
		app = bb.BinaryBuilder.Append
	case *array.BinaryBuilder:
		bb.ReserveData(len(c.arena))
		app = bb.Append
	case *array.FixedSizeBinaryBuilder:
		app = bb.Append
	}
	b.Reserve(len(c.keys))
	var buf []byte
	for g, k := range c.keys {
		n := k.n
		if n == nullLen {
			b.AppendNull()
			continue
		}
		buf = c.value(g, buf)
		app(buf)
	}
	return b.NewArray()
}

// ---- everything else (lists, maps, structs, NULL): canonical text ----

// genericKeyCol compares the canonical text of each value (expr.KeyString)
// in a strKeyCol and keeps the values themselves in a builder. It boxes a
// value per row; only nested and NULL-typed keys take it.
type genericKeyCol struct {
	strKeyCol
	b     array.Builder
	app   func(any) // appends to b, made on the first add
	get   func(int) any
	buf   []byte
	boffs []int32
	src   arrow.Array
}

func (c *genericKeyCol) bind(a arrow.Array) {
	c.src = a
	c.get = expr.Getter(a)
	c.buf, c.boffs = c.buf[:0], append(c.boffs[:0], 0)
	for i := 0; i < a.Len(); i++ {
		if v := c.get(i); v != nil {
			c.buf = append(c.buf, expr.KeyString(v, c.typ)...)
		}
		c.boffs = append(c.boffs, int32(len(c.buf)))
	}
	c.strKeyCol.arr, c.strKeyCol.data, c.strKeyCol.o32, c.strKeyCol.o64, c.base, c.fsb = a, c.buf, c.boffs, nil, 0, nil
	c.fillHeads(a)
}

func (c *genericKeyCol) add(row int) {
	c.strKeyCol.add(row)
	if c.b != nil {
		if c.app == nil {
			c.app = expr.Appender(c.b)
		}
		c.app(c.get(row))
	}
}

func (c *genericKeyCol) build(mem memory.Allocator) arrow.Array {
	if c.b == nil {
		return array.MakeArrayOfNull(mem, c.typ, len(c.keys))
	}
	return c.b.NewArray()
}

func (c *genericKeyCol) release() {
	if c.b != nil {
		c.b.Release()
		c.b, c.app = nil, nil
	}
}
