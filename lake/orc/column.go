package orc

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A column reader decodes one ORC column (and its selected children) of one
// stripe. next(n, parent) returns n rows. parent, when not nil, marks the
// rows where the enclosing struct/union is present: only those rows have
// entries in this column's streams (ORC writes children of a null parent
// nowhere), and the others come out null.
type colReader interface {
	next(n int, parent []bool) (arrow.ArrayData, error)
}

// stripeCtx is what column readers need from the stripe being read.
type stripeCtx struct {
	mem     memory.Allocator
	streams map[streamKey][]byte
	enc     []columnEncoding
	loc     *time.Location // writer time zone for TIMESTAMP
	stripe  int
	version []uint32
	// maxValues caps list element counts per batch and dictionary sizes.
	maxValues int64
	unit      arrow.TimeUnit // of timestamp columns
	// scratch, when set, lends a buffer that lives until the stripe ends
	// (the reader's stream buffer pool).
	scratch func(n int) []byte
}

// stripeBuf is a buffer of length n for the current stripe only.
func (c *stripeCtx) stripeBuf(n int) []byte {
	if c.scratch != nil {
		return c.scratch(n)
	}
	return make([]byte, n)
}

type streamKey struct {
	col  uint32
	kind StreamKind
}

func (c *stripeCtx) stream(col int, kind StreamKind) ([]byte, bool) {
	b, ok := c.streams[streamKey{uint32(col), kind}]
	return b, ok
}

func (c *stripeCtx) what(col int, kind StreamKind) string {
	return fmt.Sprintf("stripe %d column %d stream %s", c.stripe, col, kind)
}

func (c *stripeCtx) need(col int, kind StreamKind) ([]byte, error) {
	b, ok := c.stream(col, kind)
	if !ok {
		return nil, fmt.Errorf("%w: stripe %d column %d: missing %s stream", ErrCorrupt, c.stripe, col, kind)
	}
	return b, nil
}

// presence decodes the PRESENT stream of a column.
type presence struct {
	bits  *boolRLE
	valid []bool
	tmp   []bool
}

func newPresence(c *stripeCtx, col int) presence {
	if b, ok := c.stream(col, StreamPresent); ok {
		return presence{bits: newBoolRLE(b, c.what(col, StreamPresent))}
	}
	return presence{}
}

// read returns the validity of n rows (nil: all valid) and how many are valid.
func (p *presence) read(n int, parent []bool) ([]bool, int, error) {
	if p.bits == nil {
		if parent == nil {
			return nil, n, nil
		}
		return parent, countTrue(parent), nil
	}
	if cap(p.valid) < n {
		p.valid = make([]bool, n)
	}
	valid := p.valid[:n]
	if parent == nil {
		if err := p.bits.next(valid); err != nil {
			return nil, 0, err
		}
	} else {
		k := countTrue(parent)
		if cap(p.tmp) < k {
			p.tmp = make([]bool, k)
		}
		tmp := p.tmp[:k]
		if err := p.bits.next(tmp); err != nil {
			return nil, 0, err
		}
		j := 0
		for i, pv := range parent {
			if pv {
				valid[i] = tmp[j]
				j++
			} else {
				valid[i] = false
			}
		}
	}
	k := countTrue(valid)
	if k == n {
		// a batch without NULLs takes the readers' no-NULL paths
		return nil, n, nil
	}
	return valid, k, nil
}

// boolBytes views a []bool as its bytes (each 0 or 1), so eight flags
// load as one uint64.
func boolBytes(b []bool) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// allValid8 is eight true flags loaded as one little-endian uint64.
const allValid8 = 0x0101010101010101

func countTrue(b []bool) int {
	bs := boolBytes(b)
	n, i := 0, 0
	for ; i+8 <= len(bs); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(bs[i:]))
	}
	for _, v := range bs[i:] {
		n += int(v)
	}
	return n
}

// validityBuffer builds an Arrow validity bitmap; nil when all are valid.
func validityBuffer(mem memory.Allocator, valid []bool, n, count int) (*memory.Buffer, int) {
	if valid == nil || count == n {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	packBools(buf.Bytes(), valid[:n])
	return buf, n - count
}

// packBools writes flags as an LSB-first bitmap, eight at a time: the
// multiplication moves byte i's low bit to bit 56+i without carries (the
// partial products land on distinct bits).
func packBools(bm []byte, valid []bool) {
	bs := boolBytes(valid)
	i := 0
	for ; i+8 <= len(bs); i += 8 {
		bm[i>>3] = byte(binary.LittleEndian.Uint64(bs[i:]) * 0x0102040810204080 >> 56)
	}
	if i < len(bs) {
		var last byte
		for j, v := range bs[i:] {
			last |= v << j
		}
		bm[i>>3] = last
	}
}

// validRun returns the end of the run of flags equal to want that starts
// at i, stepping eight flags at a time through long runs.
func validRun(bs []byte, i int, want bool) int {
	var word uint64
	var one byte
	if want {
		word, one = allValid8, 1
	}
	for i+8 <= len(bs) && binary.LittleEndian.Uint64(bs[i:]) == word {
		i += 8
	}
	for i < len(bs) && bs[i] == one {
		i++
	}
	return i
}

// readPresent reads which of n rows are present and decodes the values of
// the present ones with next into the reader's scratch slice buf.
func readPresent[T any](p *presence, n int, parent []bool, buf *[]T, next func([]T) error) ([]bool, []T, error) {
	valid, k, err := p.read(n, parent)
	if err != nil {
		return nil, nil, err
	}
	vals := scratch(buf, k)
	if err := next(vals); err != nil {
		return nil, nil, err
	}
	return valid, vals, nil
}

// scratch returns the first k elements of a reader's scratch slice, growing it
// first when it is too small; the contents are the caller's to overwrite.
func scratch[T any](buf *[]T, k int) []T {
	if cap(*buf) < k {
		*buf = make([]T, k)
	}
	return (*buf)[:k]
}

func allocBuffer(mem memory.Allocator, nbytes int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(nbytes)
	return buf
}

// newData wraps buffers into ArrayData and drops this function's references.
func newData(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls int) arrow.ArrayData {
	d := array.NewData(dt, n, bufs, children, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	return d
}

func typedSlice[T any](b []byte) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	if len(b) < sz {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sz)
}

// ---- boolean ----

type boolReader struct {
	c    *stripeCtx
	p    presence
	data *boolRLE
	vals []bool
	rows []bool
}

func (r *boolReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, vals, err := readPresent(&r.p, n, parent, &r.vals, r.data.next)
	if err != nil {
		return nil, err
	}
	k := len(vals)
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	db := allocBuffer(r.c.mem, int(bitutil.BytesForBits(int64(n))))
	if valid != nil {
		// place the present rows' values at their rows, false elsewhere
		rows := scratch(&r.rows, n)
		j := 0
		for i, ok := range valid {
			rows[i] = ok && vals[j]
			if ok {
				j++
			}
		}
		vals = rows
	}
	packBools(db.Bytes(), vals)
	return newData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{vb, db}, nil, nulls), nil
}

// ---- integers of every width, dates ----

type intSource interface {
	next(dst []int64) error
}

// byteSource adapts byte RLE to the integer interface (tinyint).
type byteSource struct {
	d   byteRLE
	buf []byte
}

func (s *byteSource) next(dst []int64) error {
	if cap(s.buf) < len(dst) {
		s.buf = make([]byte, len(dst))
	}
	b := s.buf[:len(dst)]
	if err := s.d.next(b); err != nil {
		return err
	}
	for i, v := range b {
		dst[i] = int64(int8(v))
	}
	return nil
}

type intReader struct {
	c    *stripeCtx
	col  int
	p    presence
	data intSource
	dt   arrow.DataType
	vals []int64
}

func (r *intReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	width := r.dt.(arrow.FixedWidthDataType).BitWidth() / 8
	if valid == nil && width == 8 {
		// BIGINT without NULLs decodes straight into the batch.
		db := allocBuffer(r.c.mem, n*8)
		if err := r.data.next(typedSlice[int64](db.Bytes())[:n]); err != nil {
			db.Release()
			return nil, err
		}
		return newData(r.dt, n, []*memory.Buffer{nil, db}, nil, 0), nil
	}
	vals := scratch(&r.vals, k)
	if err := r.data.next(vals); err != nil {
		return nil, err
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	db := allocBuffer(r.c.mem, n*width)
	out := db.Bytes()
	var bad bool
	switch width {
	case 1:
		bad = scatter(typedSlice[int8](out), vals, valid, math.MinInt8, math.MaxInt8)
	case 2:
		bad = scatter(typedSlice[int16](out), vals, valid, math.MinInt16, math.MaxInt16)
	case 4:
		bad = scatter(typedSlice[int32](out), vals, valid, math.MinInt32, math.MaxInt32)
	default:
		bad = scatter(typedSlice[int64](out), vals, valid, math.MinInt64, math.MaxInt64)
	}
	if bad {
		if vb != nil {
			vb.Release()
		}
		db.Release()
		return nil, fmt.Errorf("%w: stripe %d column %d: value out of range for %s", ErrCorrupt, r.c.stripe, r.col, r.dt)
	}
	return newData(r.dt, n, []*memory.Buffer{vb, db}, nil, nulls), nil
}

// scatter places the k decoded values at the valid rows; reports a value
// outside [lo, hi].
func scatter[T int8 | int16 | int32 | int64](out []T, vals []int64, valid []bool, lo, hi int64) bool {
	if valid == nil {
		return narrow(out[:len(vals)], vals, lo, hi)
	}
	bad := false
	bs := boolBytes(valid)
	j := 0
	for i := 0; i < len(bs); {
		e := validRun(bs, i, true)
		if narrow(out[i:e], vals[j:j+e-i], lo, hi) {
			bad = true
		}
		j += e - i
		i = e
		e = validRun(bs, i, false)
		clear(out[i:e])
		i = e
	}
	return bad
}

// narrow converts vals into out (same length); reports a value outside
// [lo, hi]. Full-width values are one copy.
func narrow[T int8 | int16 | int32 | int64](out []T, vals []int64, lo, hi int64) bool {
	if o, ok := any(out).([]int64); ok {
		copy(o, vals)
		return false
	}
	bad := false
	for i, v := range vals {
		if v < lo || v > hi {
			bad = true
		}
		out[i] = T(v)
	}
	return bad
}

// ---- float, double ----

type floatReader struct {
	c     *stripeCtx
	col   int
	p     presence
	data  []byte
	pos   int
	width int
	dt    arrow.DataType
}

func (r *floatReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	if k*r.width > len(r.data)-r.pos {
		return nil, fmt.Errorf("%w: %s: %d values need %d bytes at stream offset %d, %d left", ErrCorrupt,
			r.c.what(r.col, StreamData), k, k*r.width, r.pos, len(r.data)-r.pos)
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	db := allocBuffer(r.c.mem, n*r.width)
	out := db.Bytes()
	src := r.data[r.pos : r.pos+k*r.width]
	r.pos += k * r.width
	switch {
	case valid == nil:
		copy(out, src)
	case r.width == 8:
		spreadValid(typedSlice[uint64](out)[:n], typedSlice[uint64](src), valid)
	default:
		spreadValid(typedSlice[uint32](out)[:n], typedSlice[uint32](src), valid)
	}
	return newData(r.dt, n, []*memory.Buffer{vb, db}, nil, nulls), nil
}

// spreadValid places the packed values of the valid rows at their rows;
// NULL rows get zero. Runs of valid rows move with one copy each.
func spreadValid[T uint32 | uint64](out, vals []T, valid []bool) {
	bs := boolBytes(valid)
	j := 0
	for i := 0; i < len(bs); {
		e := validRun(bs, i, true)
		j += copy(out[i:e], vals[j:])
		i = e
		e = validRun(bs, i, false)
		clear(out[i:e])
		i = e
	}
}

// ---- string, binary, char, varchar ----

// maxArrowBytes caps the bytes of one batch's string column: Arrow String
// offsets are int32.
const maxArrowBytes = math.MaxInt32

type stringReader struct {
	c    *stripeCtx
	col  int
	p    presence
	dt   arrow.DataType
	dict bool
	// direct
	blob    []byte
	blobPos int
	lengths intDecoder
	// dictionary
	index intDecoder
	dOffs []int64 // len = dictSize+1, offsets into dBlob
	dBlob []byte
	dPad  []byte // dBlob and dictPad zero bytes, so short entries copy as two words
	vals  []int64
}

func newStringReader(c *stripeCtx, col int, dt arrow.DataType) (*stringReader, error) {
	r := &stringReader{c: c, col: col, p: newPresence(c, col), dt: dt}
	enc := c.enc[col]
	v2 := enc.kind == encDirectV2 || enc.kind == encDictionaryV2
	switch enc.kind {
	case encDirect, encDirectV2:
		r.blob, _ = c.stream(col, StreamData)
		lb, _ := c.stream(col, StreamLength)
		r.lengths = newIntDecoder(lb, false, v2, c.what(col, StreamLength))
	case encDictionary, encDictionaryV2:
		r.dict = true
		data, err := c.need(col, StreamData)
		if err != nil {
			return nil, err
		}
		r.index = newIntDecoder(data, false, v2, c.what(col, StreamData))
		r.dBlob, _ = c.stream(col, StreamDictionaryData)
		lb, _ := c.stream(col, StreamLength)
		if enc.dictSize > 0 {
			if lb == nil {
				return nil, fmt.Errorf("%w: stripe %d column %d: dictionary of %d entries without LENGTH stream",
					ErrCorrupt, c.stripe, col, enc.dictSize)
			}
			if _, ok := c.stream(col, StreamDictionaryData); !ok {
				return nil, fmt.Errorf("%w: stripe %d column %d: dictionary of %d entries without DICTIONARY_DATA stream",
					ErrCorrupt, c.stripe, col, enc.dictSize)
			}
		}
		if err := r.readDict(lb, enc.dictSize, v2); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: stripe %d column %d: encoding %s for %s", ErrCorrupt, c.stripe, col, enc.kind, dt)
	}
	return r, nil
}

func (r *stringReader) readDict(lb []byte, size uint64, v2 bool) error {
	what := r.c.what(r.col, StreamLength)
	if size > uint64(r.c.maxValues) {
		return fmt.Errorf("%w: stripe %d column %d: dictionary size %d is impossible for a stripe of this size",
			ErrCorrupt, r.c.stripe, r.col, size)
	}
	dec := newIntDecoder(lb, false, v2, what)
	r.dOffs = append(r.dOffs[:0], 0)
	var chunk [1024]int64
	var total int64
	for left := size; left > 0; {
		k := min(left, uint64(len(chunk)))
		if err := dec.next(chunk[:k]); err != nil {
			return err
		}
		for _, l := range chunk[:k] {
			if l < 0 || l > int64(len(r.dBlob))-total {
				return fmt.Errorf("%w: %s: dictionary entry %d has length %d, dictionary blob has %d bytes left",
					ErrCorrupt, what, len(r.dOffs)-1, l, int64(len(r.dBlob))-total)
			}
			total += l
			r.dOffs = append(r.dOffs, total)
		}
		left -= k
	}
	r.dPad = r.c.stripeBuf(int(total) + dictPad)
	clear(r.dPad[copy(r.dPad, r.dBlob[:total]):])
	return nil
}

// dictPad is the slack after the padded dictionary and after a batch's
// string bytes that lets gatherDict move an entry of up to dictPad bytes
// as two unaligned 8-byte words instead of a copy call.
const dictPad = 16

func (r *stringReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	vals := scratch(&r.vals, k)
	if r.dict {
		if err := r.index.next(vals); err != nil {
			return nil, err
		}
	} else if k > 0 {
		if r.lengths == nil {
			return nil, fmt.Errorf("%w: stripe %d column %d: missing LENGTH stream", ErrCorrupt, r.c.stripe, r.col)
		}
		if err := r.lengths.next(vals); err != nil {
			return nil, err
		}
	}
	if r.dict {
		return r.gatherDict(n, valid, k, vals)
	}
	return r.sliceDirect(n, valid, k, vals)
}

// sliceDirect builds the batch of a DIRECT column: the present rows'
// strings follow each other in the DATA stream, so offsets come from the
// lengths and the bytes are one copy.
func (r *stringReader) sliceDirect(n int, valid []bool, k int, lens []int64) (arrow.ArrayData, error) {
	ob := allocBuffer(r.c.mem, (n+1)*4)
	offs := typedSlice[int32](ob.Bytes())
	left := int64(len(r.blob) - r.blobPos)
	var total int64
	j := 0
	offs[0] = 0
	if valid == nil {
		// No NULLs: offsets are the running sum of the lengths. Every
		// length is within [0, left] (so the sum of at most 2^31 of them
		// cannot overflow), and then the final sum bounds every prefix:
		// one check after the loop.
		bad := false
		for i, v := range lens[:n] {
			bad = bad || uint64(v) > uint64(left)
			total += v
			offs[i+1] = int32(total)
		}
		if !bad && total <= min(left, maxArrowBytes) {
			return r.directBatch(n, nil, k, ob, total)
		}
		total, j = 0, 0 // fall through to find and name the bad value
	}
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] {
			v := lens[j]
			j++
			if v < 0 || v > left-total {
				ob.Release()
				return nil, fmt.Errorf("%w: %s: string length %d at value %d exceeds the %d bytes left at stream offset %d",
					ErrCorrupt, r.c.what(r.col, StreamLength), v, j-1, left-total, r.blobPos)
			}
			total += v
			if total > maxArrowBytes {
				ob.Release()
				return nil, r.tooLarge(total)
			}
		}
		offs[i+1] = int32(total)
	}
	return r.directBatch(n, valid, k, ob, total)
}

// directBatch finishes a DIRECT batch whose offsets are in ob: its total
// bytes are the next ones of the DATA stream.
func (r *stringReader) directBatch(n int, valid []bool, k int, ob *memory.Buffer, total int64) (arrow.ArrayData, error) {
	db := allocBuffer(r.c.mem, int(total))
	copy(db.Bytes(), r.blob[r.blobPos:r.blobPos+int(total)])
	r.blobPos += int(total)
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	return newData(r.dt, n, []*memory.Buffer{vb, ob, db}, nil, nulls), nil
}

// gatherDict builds the batch of a DICTIONARY column: offsets from the
// dictionary entry lengths, then one copy per row from the stripe's
// dictionary blob into a value buffer allocated once.
func (r *stringReader) gatherDict(n int, valid []bool, k int, idx []int64) (arrow.ArrayData, error) {
	dOffs := r.dOffs
	ndict := uint64(len(dOffs) - 1)
	ob := allocBuffer(r.c.mem, (n+1)*4)
	offs := typedSlice[int32](ob.Bytes())
	var total int64
	j := 0
	offs[0] = 0
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] {
			v := idx[j]
			j++
			if uint64(v) >= ndict {
				ob.Release()
				return nil, fmt.Errorf("%w: %s: dictionary index %d out of range [0,%d) at value %d",
					ErrCorrupt, r.c.what(r.col, StreamData), v, ndict, j-1)
			}
			total += dOffs[v+1] - dOffs[v]
			if total > maxArrowBytes {
				ob.Release()
				return nil, r.tooLarge(total)
			}
		}
		offs[i+1] = int32(total)
	}
	db := allocBuffer(r.c.mem, int(total)+dictPad)
	out := db.Bytes()
	pad := r.dPad
	pos := 0
	for _, v := range idx {
		e, l := dOffs[v], dOffs[v+1]-dOffs[v]
		if l <= dictPad {
			// whole words: the bytes past the entry are overwritten by
			// the next one or lie in the slack cut off below
			binary.LittleEndian.PutUint64(out[pos:], binary.LittleEndian.Uint64(pad[e:]))
			binary.LittleEndian.PutUint64(out[pos+8:], binary.LittleEndian.Uint64(pad[e+8:]))
		} else {
			copy(out[pos:], pad[e:e+l])
		}
		pos += int(l)
	}
	clear(out[total:]) // the slack holds no stray dictionary bytes
	db.ResizeNoShrink(int(total))
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	return newData(r.dt, n, []*memory.Buffer{vb, ob, db}, nil, nulls), nil
}

func (r *stringReader) tooLarge(total int64) error {
	return fmt.Errorf("%w: stripe %d column %d: batch holds %d bytes of strings, more than an Arrow string array can; use a smaller BatchSize",
		ErrUnsupported, r.c.stripe, r.col, total)
}

// ---- timestamp ----

// orcEpoch is 2015-01-01 00:00:00 UTC, the base of ORC timestamp seconds.
const orcEpoch = 1420070400

type timestampReader struct {
	c       *stripeCtx
	col     int
	p       presence
	secs    intDecoder
	nanos   intDecoder
	instant bool
	dt      arrow.DataType
	base    int64 // epoch seconds of 2015-01-01 00:00 in the writer zone
	vs, vn  []int64
}

func newTimestampReader(c *stripeCtx, col int, instant bool, dt arrow.DataType) (*timestampReader, error) {
	enc := c.enc[col].kind
	if enc != encDirect && enc != encDirectV2 {
		return nil, fmt.Errorf("%w: stripe %d column %d: encoding %s for timestamp", ErrCorrupt, c.stripe, col, enc)
	}
	v2 := enc == encDirectV2
	data, _ := c.stream(col, StreamData)
	sec, _ := c.stream(col, StreamSecondary)
	r := &timestampReader{c: c, col: col, p: newPresence(c, col), instant: instant, dt: dt,
		secs:  newIntDecoder(data, true, v2, c.what(col, StreamData)),
		nanos: newIntDecoder(sec, false, v2, c.what(col, StreamSecondary)),
		base:  orcEpoch,
	}
	if !instant && c.loc != nil {
		r.base = time.Date(2015, 1, 1, 0, 0, 0, 0, c.loc).Unix()
	}
	return r, nil
}

func (r *timestampReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	db := allocBuffer(r.c.mem, n*8)
	vs := typedSlice[int64](db.Bytes())[:n]
	if valid != nil {
		vs = scratch(&r.vs, k)
	}
	// Without NULLs the values are decoded and combined in the batch itself.
	vn := scratch(&r.vn, k)
	if err := r.secs.next(vs); err != nil {
		db.Release()
		return nil, err
	}
	if err := r.nanos.next(vn); err != nil {
		db.Release()
		return nil, err
	}
	if err := r.combine(vs, vn); err != nil {
		db.Release()
		return nil, err
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	if valid != nil {
		scatter(typedSlice[int64](db.Bytes()), vs, valid, math.MinInt64, math.MaxInt64)
	}
	return newData(r.dt, n, []*memory.Buffer{vb, db}, nil, nulls), nil
}

// combine turns the seconds and encoded nanoseconds of k values into
// instants of the output unit, in vs. Loop invariants (the unit's factors
// and bounds, the writer zone's current offset) are hoisted: only a value
// outside the zone period of the previous one looks the zone up again.
func (r *timestampReader) combine(vs, vn []int64) error {
	per, div := unitScale(r.c.unit)
	hiS, loS := math.MaxInt64/per-1, math.MinInt64/per+1
	zoned := !r.instant && r.c.loc != nil && r.c.loc != time.UTC
	// [zoneLo, zoneHi) are the epoch seconds sharing offset zoneOff.
	var zoneLo, zoneHi, zoneOff int64 = 1, 0, 0
	for i, ns := range vn[:len(vs)] {
		if ns != 0 {
			z := ns & 7
			ns = int64(uint64(ns) >> 3)
			if z != 0 {
				// z+1 trailing decimal zeros were dropped
				if ns > 999999999/pow10[z+1] {
					return fmt.Errorf("%w: %s: nanoseconds %d×10^%d out of range", ErrCorrupt, r.c.what(r.col, StreamSecondary), ns, z+1)
				}
				ns *= pow10[z+1]
			}
			if ns < 0 || ns > 999999999 {
				return fmt.Errorf("%w: %s: nanoseconds %d out of range", ErrCorrupt, r.c.what(r.col, StreamSecondary), ns)
			}
		}
		s := vs[i]
		if s > math.MaxInt64/2 || s < math.MinInt64/2 {
			return fmt.Errorf("%w: %s: seconds %d out of range", ErrCorrupt, r.c.what(r.col, StreamData), s)
		}
		s += r.base
		// Writers truncate negative times toward zero and keep the nanos
		// positive; undo that.
		if s < 0 && ns > 999999 {
			s--
		}
		if zoned {
			if s < zoneLo || s >= zoneHi {
				zoneLo, zoneHi, zoneOff = zoneAt(s, r.c.loc)
			}
			s += zoneOff
		}
		if s > hiS || s < loS {
			_, err := r.scale(s, ns)
			return err
		}
		switch div {
		case 1:
			vs[i] = s*1e9 + ns
		case 1e3:
			if ns%1e3 != 0 {
				_, err := r.scale(s, ns)
				return err
			}
			vs[i] = s*1e6 + ns/1e3
		default:
			if ns%1e6 != 0 {
				_, err := r.scale(s, ns)
				return err
			}
			vs[i] = s*1e3 + ns/1e6
		}
	}
	return nil
}

// zoneAt is the offset of loc at epoch second s and the seconds
// [lo, hi) that share it (unbounded ends as the int64 extremes).
func zoneAt(s int64, loc *time.Location) (lo, hi, off int64) {
	t := time.Unix(s, 0).In(loc)
	_, o := t.Zone()
	start, end := t.ZoneBounds()
	lo, hi = math.MinInt64, math.MaxInt64
	if !start.IsZero() {
		lo = start.Unix()
	}
	if !end.IsZero() {
		hi = end.Unix()
	}
	if s < lo || s >= hi { // not expected; never trust a cached period that excludes s
		lo, hi = s, s+1
	}
	return lo, hi, int64(o)
}

// unitScale is the number of units per second and nanoseconds per unit.
func unitScale(u arrow.TimeUnit) (per, div int64) {
	switch u {
	case arrow.Microsecond:
		return 1e6, 1e3
	case arrow.Millisecond:
		return 1e3, 1e6
	}
	return 1e9, 1
}

// scale expresses epoch seconds s and nanoseconds ns in the output unit.
func (r *timestampReader) scale(s, ns int64) (int64, error) {
	per, div := unitScale(r.c.unit)
	if ns%div != 0 {
		return 0, fmt.Errorf("%w: %s: timestamp %d.%09d s has digits finer than %s; read with Nanoseconds",
			ErrUnsupported, r.c.what(r.col, StreamSecondary), s, ns, r.c.unit)
	}
	if s > math.MaxInt64/per-1 || s < math.MinInt64/per+1 {
		return 0, fmt.Errorf("%w: %s: timestamp %d s does not fit Arrow %s; read with a coarser TimestampUnit",
			ErrUnsupported, r.c.what(r.col, StreamData), s, r.c.unit)
	}
	return s*per + ns/div, nil
}

// ---- decimal ----

type decimalReader struct {
	c       *stripeCtx
	col     int
	p       presence
	dt      *arrow.Decimal128Type
	dec64   intDecoder // DECIMAL_64: scaled int64 values, scale fixed
	data    []byte     // otherwise: signed varints of up to 128 bits
	pos     int
	scales  intDecoder
	vals    []decimal128.Num
	sc, i64 []int64
}

func newDecimalReader(c *stripeCtx, col int, t orcType, dt *arrow.Decimal128Type) (*decimalReader, error) {
	r := &decimalReader{c: c, col: col, p: newPresence(c, col), dt: dt}
	enc := c.enc[col].kind
	data, _ := c.stream(col, StreamData)
	preV2 := len(c.version) == 2 && c.version[0] == 1 && c.version[1] == 9999
	switch {
	case enc == encDecimal64 || (preV2 && t.precision <= 18 && t.precision > 0 && (enc == encDirect || enc == encDirectV2)):
		// UNSTABLE-PRE-2.0 files store short decimals as scaled integers,
		// always in RLE v2 (the Java writer marks the column DIRECT).
		r.dec64 = newIntDecoder(data, true, true, c.what(col, StreamData))
	case enc == encDirect || enc == encDirectV2:
		r.data = data
		sec, _ := c.stream(col, StreamSecondary)
		r.scales = newIntDecoder(sec, true, enc == encDirectV2, c.what(col, StreamSecondary))
	default:
		return nil, fmt.Errorf("%w: stripe %d column %d: encoding %s for decimal", ErrCorrupt, c.stripe, col, enc)
	}
	return r, nil
}

// varint128 reads a zigzag base-128 varint of up to 128 bits.
func (r *decimalReader) varint128() (decimal128.Num, error) {
	var lo, hi uint64
	for shift := uint(0); ; shift += 7 {
		if r.pos >= len(r.data) {
			return decimal128.Num{}, fmt.Errorf("%w: %s: truncated decimal at stream offset %d", ErrCorrupt,
				r.c.what(r.col, StreamData), r.pos)
		}
		if shift >= 128 {
			return decimal128.Num{}, fmt.Errorf("%w: %s: decimal longer than 128 bits at stream offset %d",
				ErrCorrupt, r.c.what(r.col, StreamData), r.pos)
		}
		b := uint64(r.data[r.pos] & 0x7f)
		more := r.data[r.pos]&0x80 != 0
		r.pos++
		switch {
		case shift < 64:
			lo |= b << shift
			if shift > 57 {
				hi |= b >> (64 - shift)
			}
		default:
			hi |= b << (shift - 64)
		}
		if !more {
			break
		}
	}
	// zigzag: value = (u >> 1) ^ -(u & 1) over 128 bits
	neg := lo&1 == 1
	lo = lo>>1 | hi<<63
	hi >>= 1
	if neg {
		lo, hi = ^lo, ^hi
	}
	return decimal128.New(int64(hi), lo), nil
}

func (r *decimalReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	if cap(r.vals) < k {
		r.vals = make([]decimal128.Num, k)
		r.sc = make([]int64, k)
		r.i64 = make([]int64, k)
	}
	vals := r.vals[:k]
	target := r.dt.Scale
	if r.dec64 != nil {
		iv := r.i64[:k]
		if err := r.dec64.next(iv); err != nil {
			return nil, err
		}
		for i, v := range iv {
			vals[i] = decimal128.FromI64(v)
		}
	} else {
		sc := r.sc[:k]
		for i := range vals {
			if vals[i], err = r.varint128(); err != nil {
				return nil, err
			}
		}
		if k > 0 && r.scales == nil {
			return nil, fmt.Errorf("%w: stripe %d column %d: missing SECONDARY stream", ErrCorrupt, r.c.stripe, r.col)
		}
		if err := r.scales.next(sc); err != nil {
			return nil, err
		}
		for i, s := range sc {
			if s < 0 || s > 38 {
				return nil, fmt.Errorf("%w: %s: decimal scale %d out of range", ErrCorrupt, r.c.what(r.col, StreamSecondary), s)
			}
			if d := target - int32(s); d != 0 {
				v, ok := rescale(vals[i], d)
				if !ok {
					return nil, fmt.Errorf("%w: %s: decimal value at scale %d does not fit %s", ErrCorrupt,
						r.c.what(r.col, StreamData), s, r.dt)
				}
				vals[i] = v
			}
		}
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	db := allocBuffer(r.c.mem, n*16)
	out := db.Bytes()
	clear(out)
	j := 0
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] {
			binary.LittleEndian.PutUint64(out[16*i:], vals[j].LowBits())
			binary.LittleEndian.PutUint64(out[16*i+8:], uint64(vals[j].HighBits()))
			j++
		}
	}
	return newData(r.dt, n, []*memory.Buffer{vb, db}, nil, nulls), nil
}

// ---- struct ----

type structReader struct {
	c        *stripeCtx
	p        presence
	dt       *arrow.StructType
	children []colReader
}

func (r *structReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	var mask []bool
	if valid != nil && k != n {
		mask = append([]bool(nil), valid...)
	}
	kids := make([]arrow.ArrayData, 0, len(r.children))
	release := func() {
		for _, c := range kids {
			c.Release()
		}
	}
	for _, ch := range r.children {
		d, err := ch.next(n, mask)
		if err != nil {
			release()
			return nil, err
		}
		kids = append(kids, d)
	}
	vb, nulls := validityBuffer(r.c.mem, mask, n, k)
	return newData(r.dt, n, []*memory.Buffer{vb}, kids, nulls), nil
}

// ---- list, map ----

type listReader struct {
	c       *stripeCtx
	col     int
	p       presence
	dt      arrow.DataType
	lengths intDecoder
	elems   []colReader // one child for list; key, value for map
	vals    []int64
}

func (r *listReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, k, err := r.p.read(n, parent)
	if err != nil {
		return nil, err
	}
	vals := scratch(&r.vals, k)
	if k > 0 && r.lengths == nil {
		return nil, fmt.Errorf("%w: stripe %d column %d: missing LENGTH stream", ErrCorrupt, r.c.stripe, r.col)
	}
	if k > 0 {
		if err := r.lengths.next(vals); err != nil {
			return nil, err
		}
	}
	ob := allocBuffer(r.c.mem, (n+1)*4)
	offs := typedSlice[int32](ob.Bytes())
	var total int64
	j := 0
	offs[0] = 0
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] {
			l := vals[j]
			j++
			if l < 0 || l > r.c.maxValues-total {
				ob.Release()
				return nil, fmt.Errorf("%w: %s: element count %d out of range", ErrCorrupt, r.c.what(r.col, StreamLength), l)
			}
			total += l
		}
		offs[i+1] = int32(total)
	}
	var kids []arrow.ArrayData
	for _, e := range r.elems {
		d, err := e.next(int(total), nil)
		if err != nil {
			ob.Release()
			for _, c := range kids {
				c.Release()
			}
			return nil, err
		}
		kids = append(kids, d)
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	if m, ok := r.dt.(*arrow.MapType); ok {
		entries := newData(m.Elem(), int(total), []*memory.Buffer{nil}, kids, 0)
		kids = []arrow.ArrayData{entries}
	}
	return newData(r.dt, n, []*memory.Buffer{vb, ob}, kids, nulls), nil
}

// ---- union ----

type unionReader struct {
	c        *stripeCtx
	col      int
	p        presence
	dt       *arrow.StructType
	tags     byteRLE
	children []colReader // nil entries for variants not selected
	tagBuf   []byte
}

func (r *unionReader) next(n int, parent []bool) (arrow.ArrayData, error) {
	valid, tags, err := readPresent(&r.p, n, parent, &r.tagBuf, r.tags.next)
	if err != nil {
		return nil, err
	}
	k := len(tags)
	rowTag := make([]int, n)
	j := 0
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] {
			t := int(tags[j])
			j++
			if t >= len(r.children) {
				return nil, fmt.Errorf("%w: %s: union tag %d, type has %d variants", ErrCorrupt,
					r.c.what(r.col, StreamData), t, len(r.children))
			}
			rowTag[i] = t
		} else {
			rowTag[i] = -1
		}
	}
	tb := allocBuffer(r.c.mem, n)
	tv := typedSlice[int8](tb.Bytes())
	for i, t := range rowTag {
		tv[i] = int8(max(t, 0))
	}
	kids := []arrow.ArrayData{newData(arrow.PrimitiveTypes.Int8, n, []*memory.Buffer{nil, tb}, nil, 0)}
	mask := make([]bool, n)
	for v, ch := range r.children {
		if ch == nil {
			continue
		}
		for i, t := range rowTag {
			mask[i] = t == v
		}
		d, err := ch.next(n, mask)
		if err != nil {
			for _, c := range kids {
				c.Release()
			}
			return nil, err
		}
		kids = append(kids, d)
	}
	// the tag child shares the union's validity
	tagValid := kids[0]
	if valid != nil && k != n {
		vb, nulls := validityBuffer(r.c.mem, valid, n, k)
		tb.Retain()
		kids[0] = newData(arrow.PrimitiveTypes.Int8, n, []*memory.Buffer{vb, tb}, nil, nulls)
		tagValid.Release()
	}
	vb, nulls := validityBuffer(r.c.mem, valid, n, k)
	return newData(r.dt, n, []*memory.Buffer{vb}, kids, nulls), nil
}

var pow10 = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18}

// rescale multiplies v by 10^d (d > 0) or divides it, truncating toward
// zero as the ORC C++ reader does (d < 0); false when the result does not
// fit 128 bits.
func rescale(v decimal128.Num, d int32) (decimal128.Num, bool) {
	lo, hi := v.LowBits(), v.HighBits()
	if x := int64(lo); hi == x>>63 && d >= -18 && d <= 18 {
		if d < 0 {
			return decimal128.FromI64(x / pow10[-d]), true
		}
		if p := pow10[d]; x <= math.MaxInt64/p && x >= math.MinInt64/p {
			return decimal128.FromI64(x * p), true
		}
	}
	b := v.BigInt()
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(d, -d))), nil)
	if d > 0 {
		b.Mul(b, p)
	} else {
		b.Quo(b, p)
	}
	if b.BitLen() > 127 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(b), true
}
