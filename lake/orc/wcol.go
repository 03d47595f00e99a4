package orc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// colW encodes one ORC column (and owns its children). Streams, by kind:
//
//	PRESENT    every column, written only when the stripe has a NULL
//	DATA       boolean/byte RLE, int RLE v2, IEEE floats, string bytes,
//	           decimal varints, timestamp seconds since 2015-01-01 UTC
//	LENGTH     string/binary byte lengths, list/map child counts
//	SECONDARY  timestamp nanoseconds, decimal scales
type colW struct {
	wr       *Writer
	id       int
	kind     TypeKind
	dt       arrow.DataType
	unit     arrow.TimeUnit
	scale    int32
	children []*colW

	present   boolEnc
	presBuf   *abuf
	nulls     bool // in this stripe
	data      *abuf
	bools     boolEnc
	bytesEnc  byteEnc
	ints      intEnc // DATA ints
	length    *abuf
	lens      intEnc
	second    *abuf
	secs      intEnc
	stripe    colStats
	file      colStats
	scratchIx []int
}

type outStream struct {
	kind StreamKind
	buf  *abuf
}

func (c *colW) init(mem memory.Allocator) {
	c.presBuf = newABuf(mem)
	c.present = boolEnc{b: byteEnc{out: c.presBuf}}
	switch c.kind {
	case KindStruct:
		return
	case KindList, KindMap:
		c.length = newABuf(mem)
		c.lens = intEnc{out: c.length}
		return
	}
	c.data = newABuf(mem)
	switch c.kind {
	case KindBoolean:
		c.bools = boolEnc{b: byteEnc{out: c.data}}
	case KindByte:
		c.bytesEnc = byteEnc{out: c.data}
	case KindShort, KindInt, KindLong, KindDate:
		c.ints = intEnc{out: c.data, signed: true}
	case KindString, KindVarchar, KindChar, KindBinary:
		c.length = newABuf(mem)
		c.lens = intEnc{out: c.length}
	case KindTimestamp, KindTimestampInstant:
		c.ints = intEnc{out: c.data, signed: true}
		c.second = newABuf(mem)
		c.secs = intEnc{out: c.second}
	case KindDecimal:
		c.second = newABuf(mem)
		c.secs = intEnc{out: c.second, signed: true}
	}
}

func (c *colW) streams() []outStream {
	var out []outStream
	if c.nulls {
		out = append(out, outStream{StreamPresent, c.presBuf})
	}
	if c.data != nil {
		out = append(out, outStream{StreamData, c.data})
	}
	if c.length != nil {
		out = append(out, outStream{StreamLength, c.length})
	}
	if c.second != nil {
		out = append(out, outStream{StreamSecondary, c.second})
	}
	return out
}

func (c *colW) encoding() encodingKind {
	switch c.kind {
	case KindBoolean, KindByte, KindFloat, KindDouble, KindStruct:
		return encDirect
	}
	return encDirectV2
}

func (c *colW) size() int64 {
	var n int
	for _, b := range []*abuf{c.presBuf, c.data, c.length, c.second} {
		if b != nil {
			n += b.n
		}
	}
	return int64(n)
}

func (c *colW) flushEncoders() {
	c.present.flush()
	c.bools.flush()
	if c.bytesEnc.out != nil {
		c.bytesEnc.flush()
	}
	if c.ints.out != nil {
		c.ints.flush()
	}
	if c.lens.out != nil {
		c.lens.flush()
	}
	if c.secs.out != nil {
		c.secs.flush()
	}
}

func (c *colW) resetStreams() {
	for _, b := range []*abuf{c.presBuf, c.data, c.length, c.second} {
		if b != nil {
			b.reset()
		}
	}
	c.nulls = false
}

func (c *colW) release() {
	for _, b := range []*abuf{c.presBuf, c.data, c.length, c.second} {
		if b != nil {
			b.release()
		}
	}
}

// write encodes rows of arr (all rows when rows is nil).
func (c *colW) write(arr arrow.Array, rows []int) error {
	n := arr.Len()
	if rows != nil {
		n = len(rows)
	}
	row := func(i int) int {
		if rows == nil {
			return i
		}
		return rows[i]
	}
	st := &c.stripe
	valid := c.scratchIx[:0]
	for i := 0; i < n; i++ {
		r := row(i)
		ok := arr.IsValid(r)
		c.present.add(ok)
		if ok {
			valid = append(valid, r)
		} else {
			c.nulls = true
			st.hasNull = true
		}
	}
	c.scratchIx = valid[:0]
	st.n += uint64(len(valid))
	switch a := arr.(type) {
	case *array.Boolean:
		for _, r := range valid {
			v := a.Value(r)
			c.bools.add(v)
			if v {
				st.trues++
			}
		}
	case *array.Int8:
		for _, r := range valid {
			v := a.Value(r)
			c.bytesEnc.add(byte(v))
			st.addInt(int64(v))
		}
	case *array.Int16:
		for _, r := range valid {
			v := int64(a.Value(r))
			c.ints.add(v)
			st.addInt(v)
		}
	case *array.Int32:
		for _, r := range valid {
			v := int64(a.Value(r))
			c.ints.add(v)
			st.addInt(v)
		}
	case *array.Time32:
		for _, r := range valid {
			v := int64(a.Value(r))
			c.ints.add(v)
			st.addInt(v)
		}
	case *array.Int64:
		for _, r := range valid {
			v := a.Value(r)
			c.ints.add(v)
			st.addInt(v)
		}
	case *array.Date32:
		for _, r := range valid {
			v := int64(a.Value(r))
			c.ints.add(v)
			st.addInt(v)
		}
	case *array.Float32:
		for _, r := range valid {
			v := a.Value(r)
			binary.LittleEndian.PutUint32(c.data.grow(4), math.Float32bits(v))
			st.addDouble(float64(v))
		}
	case *array.Float64:
		for _, r := range valid {
			v := a.Value(r)
			binary.LittleEndian.PutUint64(c.data.grow(8), math.Float64bits(v))
			st.addDouble(v)
		}
	case *array.String:
		for _, r := range valid {
			c.addBytes([]byte(a.Value(r)), true)
		}
	case *array.LargeString:
		for _, r := range valid {
			c.addBytes([]byte(a.Value(r)), true)
		}
	case *array.Binary:
		for _, r := range valid {
			c.addBytes(a.Value(r), false)
		}
	case *array.LargeBinary:
		for _, r := range valid {
			c.addBytes(a.Value(r), false)
		}
	case *array.Timestamp:
		for _, r := range valid {
			if err := c.addTimestamp(int64(a.Value(r))); err != nil {
				return fmt.Errorf("row %d: %w", r, err)
			}
		}
	case *array.Decimal128:
		for _, r := range valid {
			c.addDecimal(a.Value(r))
		}
	case *array.Map:
		keys, items := a.Keys(), a.Items()
		child := c.listRows(a, valid)
		if err := c.children[0].write(keys, child); err != nil {
			return err
		}
		return c.children[1].write(items, child)
	case *array.List:
		child := c.listRows(a, valid)
		return c.children[0].write(a.ListValues(), child)
	case *array.Struct:
		if len(valid) == a.Len() && rows == nil {
			valid = nil
		}
		for i, cc := range c.children {
			if err := cc.write(a.Field(i), valid); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: Arrow array %T", ErrUnsupported, arr)
	}
	return nil
}

// listRows writes the LENGTH stream of a list or map and returns the child
// rows of its non-null entries.
func (c *colW) listRows(a array.ListLike, valid []int) []int {
	var child []int
	for _, r := range valid {
		lo, hi := a.ValueOffsets(r)
		k := hi - lo
		c.lens.add(k)
		c.stripe.addChildren(uint64(k))
		for j := lo; j < hi; j++ {
			child = append(child, int(j))
		}
	}
	if child == nil {
		child = []int{}
	}
	return child
}

func (c *colW) addBytes(v []byte, str bool) {
	c.data.write(v)
	c.lens.add(int64(len(v)))
	st := &c.stripe
	st.sum += int64(len(v))
	if !str {
		return
	}
	st.addString(v)
}

// maxStatString is the longest string kept as a min/max statistic; a
// longer one drops both bounds (readers then cannot prune, never wrongly).
const maxStatString = 1024

// addTimestamp writes epoch value v (in c.unit; for ORC TIMESTAMP the UTC
// wall clock) as seconds relative to 2015-01-01 and nanoseconds.
func (c *colW) addTimestamp(v int64) error {
	per := int64(1)
	switch c.unit {
	case arrow.Millisecond:
		per = 1e3
	case arrow.Microsecond:
		per = 1e6
	case arrow.Nanosecond:
		per = 1e9
	}
	sec := floorDiv(v, per)
	ns := (v - sec*per) * (1e9 / per)
	// Readers treat seconds as truncated toward zero when the time is
	// negative and the nanos exceed 999999 (they subtract one second); in
	// (-1 s, 0) that cannot be expressed, so such values are refused
	// rather than read back a second off.
	stored := sec
	if sec < 0 && ns > 999999 {
		if sec == -1 {
			return fmt.Errorf("%w: timestamp %d.%09d s since the epoch (within the second before 1970 with a fraction of 1 ms or more) cannot be stored in ORC exactly",
				ErrUnsupported, sec, ns)
		}
		stored = sec + 1
	}
	c.ints.add(stored - orcEpoch)
	c.secs.add(formatNanos(ns))
	c.stripe.addTimestamp(sec, ns)
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (c *colW) addDecimal(v decimal128.Num) {
	// zigzag over 128 bits, then base-128 varint
	hi, lo := uint64(v.HighBits()), v.LowBits()
	sign := uint64(int64(hi) >> 63)
	zhi := (hi<<1 | lo>>63) ^ sign
	zlo := (lo << 1) ^ sign
	for zhi != 0 || zlo >= 0x80 {
		c.data.writeByte(byte(zlo) | 0x80)
		zlo = zlo>>7 | zhi<<57
		zhi >>= 7
	}
	c.data.writeByte(byte(zlo))
	c.secs.add(int64(c.scale))
	c.stripe.addDecimal(v)
}

// colStats accumulates ColumnStatistics of one column over a stripe or the
// file.
type colStats struct {
	n       uint64
	hasNull bool

	has        bool // a min/max was seen
	imin, imax int64
	isum       int64
	sumBad     bool // integer sum overflowed

	dmin, dmax, dsum float64
	nan              bool

	smin, smax []byte
	sum        int64 // total string/binary length
	long       bool  // a string too long to be a bound was seen

	trues uint64

	decMin, decMax, decSum decimal128.Num
	decSumBad              bool

	tsMinS, tsMaxS int64
	tsMinN, tsMaxN int64

	children           bool
	cmin, cmax, ctotal uint64
}

func (s *colStats) addInt(v int64) {
	if !s.has {
		s.has, s.imin, s.imax = true, v, v
	} else {
		s.imin, s.imax = min(s.imin, v), max(s.imax, v)
	}
	if !s.sumBad {
		r := s.isum + v
		if (v > 0 && r < s.isum) || (v < 0 && r > s.isum) {
			s.sumBad = true
		}
		s.isum = r
	}
}

func (s *colStats) addDouble(v float64) {
	if v != v {
		s.nan = true
		return
	}
	if !s.has {
		s.has, s.dmin, s.dmax = true, v, v
	} else {
		s.dmin, s.dmax = min(s.dmin, v), max(s.dmax, v)
	}
	s.dsum += v
}

func (s *colStats) addString(v []byte) {
	if len(v) > maxStatString {
		s.long = true
		return
	}
	if !s.has {
		s.has = true
		s.smin, s.smax = append([]byte(nil), v...), append([]byte(nil), v...)
		return
	}
	if bytes.Compare(v, s.smin) < 0 {
		s.smin = append(s.smin[:0], v...)
	}
	if bytes.Compare(v, s.smax) > 0 {
		s.smax = append(s.smax[:0], v...)
	}
}

func (s *colStats) addTimestamp(sec, ns int64) {
	less := func(as, an, bs, bn int64) bool { return as < bs || (as == bs && an < bn) }
	if !s.has {
		s.has, s.tsMinS, s.tsMinN, s.tsMaxS, s.tsMaxN = true, sec, ns, sec, ns
		return
	}
	if less(sec, ns, s.tsMinS, s.tsMinN) {
		s.tsMinS, s.tsMinN = sec, ns
	}
	if less(s.tsMaxS, s.tsMaxN, sec, ns) {
		s.tsMaxS, s.tsMaxN = sec, ns
	}
}

var decLimit = decimal128.GetMaxValue(38)

func (s *colStats) addDecimal(v decimal128.Num) {
	if !s.has {
		s.has, s.decMin, s.decMax = true, v, v
	} else {
		if v.Less(s.decMin) {
			s.decMin = v
		}
		if s.decMax.Less(v) {
			s.decMax = v
		}
	}
	if !s.decSumBad {
		s.decSum = s.decSum.Add(v)
		if s.decSum.Greater(decLimit) || s.decSum.Less(decLimit.Negate()) {
			s.decSumBad = true
		}
	}
}

func (s *colStats) addChildren(k uint64) {
	if !s.children {
		s.children, s.cmin, s.cmax = true, k, k
	} else {
		s.cmin, s.cmax = min(s.cmin, k), max(s.cmax, k)
	}
	s.ctotal += k
}

// merge folds a stripe's statistics into the file's.
func (s *colStats) merge(o *colStats, kind TypeKind) {
	s.n += o.n
	s.hasNull = s.hasNull || o.hasNull
	s.trues += o.trues
	s.sum += o.sum
	s.nan = s.nan || o.nan
	s.long = s.long || o.long
	if o.children {
		if !s.children {
			s.children, s.cmin, s.cmax = true, o.cmin, o.cmax
		} else {
			s.cmin, s.cmax = min(s.cmin, o.cmin), max(s.cmax, o.cmax)
		}
		s.ctotal += o.ctotal
	}
	if !o.has {
		return
	}
	first := !s.has
	s.has = true
	switch kind {
	case KindByte, KindShort, KindInt, KindLong, KindDate:
		if first {
			s.imin, s.imax = o.imin, o.imax
		} else {
			s.imin, s.imax = min(s.imin, o.imin), max(s.imax, o.imax)
		}
		r := s.isum + o.isum
		if (o.isum > 0 && r < s.isum) || (o.isum < 0 && r > s.isum) {
			s.sumBad = true
		}
		s.isum, s.sumBad = r, s.sumBad || o.sumBad
	case KindFloat, KindDouble:
		if first {
			s.dmin, s.dmax = o.dmin, o.dmax
		} else {
			s.dmin, s.dmax = min(s.dmin, o.dmin), max(s.dmax, o.dmax)
		}
		s.dsum += o.dsum
	case KindString, KindVarchar, KindChar:
		if first {
			s.smin, s.smax = append([]byte(nil), o.smin...), append([]byte(nil), o.smax...)
		} else {
			if bytes.Compare(o.smin, s.smin) < 0 {
				s.smin = append(s.smin[:0], o.smin...)
			}
			if bytes.Compare(o.smax, s.smax) > 0 {
				s.smax = append(s.smax[:0], o.smax...)
			}
		}
	case KindTimestamp, KindTimestampInstant:
		if first {
			s.tsMinS, s.tsMinN, s.tsMaxS, s.tsMaxN = o.tsMinS, o.tsMinN, o.tsMaxS, o.tsMaxN
		} else {
			s.addTimestamp(o.tsMinS, o.tsMinN)
			s.addTimestamp(o.tsMaxS, o.tsMaxN)
		}
	case KindDecimal:
		if first {
			s.decMin, s.decMax = o.decMin, o.decMax
		} else {
			if o.decMin.Less(s.decMin) {
				s.decMin = o.decMin
			}
			if s.decMax.Less(o.decMax) {
				s.decMax = o.decMax
			}
		}
		s.decSum = s.decSum.Add(o.decSum)
		s.decSumBad = s.decSumBad || o.decSumBad || s.decSum.Greater(decLimit) || s.decSum.Less(decLimit.Negate())
	}
}

// encode builds the ColumnStatistics message as Java's writer fills it.
func (s *colStats) encode(c *colW) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, s.n)
	sub := func(field protowire.Number, m []byte) {
		b = protowire.AppendTag(b, field, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	sint := func(m []byte, f protowire.Number, v int64) []byte {
		m = protowire.AppendTag(m, f, protowire.VarintType)
		return protowire.AppendVarint(m, protowire.EncodeZigZag(v))
	}
	str := func(m []byte, f protowire.Number, v string) []byte {
		m = protowire.AppendTag(m, f, protowire.BytesType)
		return protowire.AppendString(m, v)
	}
	switch c.kind {
	case KindBoolean:
		var m []byte
		m = protowire.AppendTag(m, 1, protowire.BytesType)
		m = protowire.AppendBytes(m, protowire.AppendVarint(nil, s.trues))
		sub(5, m)
	case KindByte, KindShort, KindInt, KindLong:
		var m []byte
		if s.has {
			m = sint(m, 1, s.imin)
			m = sint(m, 2, s.imax)
			if !s.sumBad {
				m = sint(m, 3, s.isum)
			}
		}
		sub(2, m)
	case KindDate:
		var m []byte
		if s.has {
			m = sint(m, 1, s.imin)
			m = sint(m, 2, s.imax)
		}
		sub(7, m)
	case KindFloat, KindDouble:
		var m []byte
		if s.has && !s.nan {
			for _, f := range []struct {
				n protowire.Number
				v float64
			}{{1, s.dmin}, {2, s.dmax}, {3, s.dsum}} {
				m = protowire.AppendTag(m, f.n, protowire.Fixed64Type)
				m = protowire.AppendFixed64(m, math.Float64bits(f.v))
			}
		}
		sub(3, m)
	case KindString, KindVarchar, KindChar:
		var m []byte
		if s.has && !s.long {
			m = str(m, 1, string(s.smin))
			m = str(m, 2, string(s.smax))
		}
		m = sint(m, 3, s.sum)
		sub(4, m)
	case KindBinary:
		sub(8, sint(nil, 1, s.sum))
	case KindTimestamp, KindTimestampInstant:
		var m []byte
		if s.has {
			minMs, minNs := msSplit(s.tsMinS, s.tsMinN)
			maxMs, maxNs := msSplit(s.tsMaxS, s.tsMaxN)
			// local (UTC for ORC TIMESTAMP here) and UTC bounds in ms,
			// the sub-millisecond nanos + 1 beside them
			m = sint(m, 1, minMs)
			m = sint(m, 2, maxMs)
			m = sint(m, 3, minMs)
			m = sint(m, 4, maxMs)
			if minNs != 0 {
				m = protowire.AppendTag(m, 5, protowire.VarintType)
				m = protowire.AppendVarint(m, uint64(minNs+1))
			}
			if maxNs != 0 {
				m = protowire.AppendTag(m, 6, protowire.VarintType)
				m = protowire.AppendVarint(m, uint64(maxNs+1))
			}
		}
		sub(9, m)
	case KindDecimal:
		var m []byte
		if s.has {
			m = str(m, 1, decString(s.decMin, c.scale))
			m = str(m, 2, decString(s.decMax, c.scale))
			if !s.decSumBad {
				m = str(m, 3, decString(s.decSum, c.scale))
			}
		}
		sub(6, m)
	case KindList, KindMap:
		var m []byte
		if s.children {
			for _, f := range []struct {
				n protowire.Number
				v uint64
			}{{1, s.cmin}, {2, s.cmax}, {3, s.ctotal}} {
				m = protowire.AppendTag(m, f.n, protowire.VarintType)
				m = protowire.AppendVarint(m, f.v)
			}
		}
		sub(12, m)
	}
	b = protowire.AppendTag(b, 10, protowire.VarintType)
	b = protowire.AppendVarint(b, protowire.EncodeBool(s.hasNull))
	return b
}

func msSplit(sec, ns int64) (int64, int64) {
	return sec*1000 + ns/1e6, ns % 1e6
}

// decString formats an unscaled value as Hive's HiveDecimal does: plain
// digits, no exponent, trailing fractional zeros dropped.
func decString(v decimal128.Num, scale int32) string {
	bi := v.BigInt()
	neg := bi.Sign() < 0
	digits := new(big.Int).Abs(bi).String()
	if scale > 0 {
		for len(digits) <= int(scale) {
			digits = "0" + digits
		}
		ip, fp := digits[:len(digits)-int(scale)], digits[len(digits)-int(scale):]
		for len(fp) > 0 && fp[len(fp)-1] == '0' {
			fp = fp[:len(fp)-1]
		}
		digits = ip
		if fp != "" {
			digits += "." + fp
		}
	}
	if neg && digits != "0" {
		return "-" + digits
	}
	return digits
}
