package record

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// Batch statistics: the block a Fluss 1.0 writer puts after a V1/V2 header
// when the table sets table.statistics.columns (LogRecordBatchStatisticsWriter
// at apache/fluss 545c553). All integers little-endian:
//
//	version int8 (= 1) | column_count int16 | column_index int16 × N
//	| null_count int32 × N | min_size int32 | min row | max_size int32 | max row
//
// The min and max rows are "aligned" rows (Flink's BinaryRow layout) over the
// N statistics columns, in column_index order: a null bitset of
// ((N+63+8)/64)*8 bytes whose first 8 bits are the row kind (0), one 8-byte
// slot per field, then the variable part in 8-byte words. A fixed-width value
// sits at the start of its slot (booleans and TINYINT 1 byte, SMALLINT 2, INT,
// DATE, TIME and FLOAT 4, BIGINT and DOUBLE 8; DECIMAL with precision ≤ 18
// its unscaled long; TIMESTAMP[_LTZ] with precision ≤ 3 its millis). A
// string of at most 7 bytes sits in the slot itself with 0x80|length in the
// slot's top byte; a longer one lives in the variable part and the slot holds
// offset<<32|length (offset from the row start). A wider DECIMAL stores its
// big-endian two's-complement unscaled bytes in a 16-byte variable word and a
// wider timestamp its millis in an 8-byte word, the slot then holding
// offset<<32|nano-of-millisecond. A NULL field has its bit (index+8) set.

// StatisticsVersion is the only statistics layout Fluss 1.0 writes.
const StatisticsVersion = 1

// maxStatsColumns bounds decoding; a row type cannot have more columns than
// an int16 counts anyway.
const maxStatsColumns = math.MaxInt16

// BatchStatistics are one batch's per-column statistics.
type BatchStatistics struct {
	// Columns are the positions (in the batch's row type) that have
	// statistics, in the writer's order.
	Columns []int
	// NullCounts, Min and Max are parallel to Columns. Min and Max hold the
	// canonical values of the package (nil when every value was NULL).
	NullCounts []int32
	Min, Max   []any
}

// Column returns the index into Columns of row position pos, or -1.
func (s *BatchStatistics) Column(pos int) int {
	for i, c := range s.Columns {
		if c == pos {
			return i
		}
	}
	return -1
}

// StatisticsType reports whether Fluss collects statistics for t: BOOLEAN,
// the integer and floating types, CHAR, STRING, DECIMAL, DATE, TIME,
// TIMESTAMP and TIMESTAMP_LTZ (ConfigOptions.TABLE_STATISTICS_COLUMNS).
func StatisticsType(t typemap.DataType) bool {
	switch t.Root {
	case typemap.RootBoolean, typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt, typemap.RootBigInt,
		typemap.RootFloat, typemap.RootDouble, typemap.RootChar, typemap.RootString, typemap.RootDecimal,
		typemap.RootDate, typemap.RootTime, typemap.RootTimestamp, typemap.RootTimestampLTZ:
		return true
	}
	return false
}

// StatisticsColumns resolves a table.statistics.columns value against the
// row type: "" gives nil (no statistics), "*" every column of a supported
// type, otherwise the comma-separated names (which must exist and have a
// supported type), in row order.
func StatisticsColumns(cols []typemap.Column, prop string) ([]int, error) {
	prop = strings.TrimSpace(prop)
	if prop == "" {
		return nil, nil
	}
	var out []int
	if prop == "*" {
		for i, c := range cols {
			if StatisticsType(c.Type) {
				out = append(out, i)
			}
		}
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(prop, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%w: table.statistics.columns %q names no column", ErrInvalid, prop)
	}
	for i, c := range cols {
		if want[c.Name] {
			if !StatisticsType(c.Type) {
				return nil, fmt.Errorf("%w: column %q of type %s does not support statistics", ErrInvalid, c.Name, c.Type.Root)
			}
			out = append(out, i)
			delete(want, c.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("%w: statistics column %q does not exist", ErrInvalid, n)
	}
	return out, nil
}

// CollectStatistics computes the statistics of rows (canonical values) for
// the given column positions, as Fluss's collector does: NULLs are counted,
// min and max are taken over the other values. CHAR columns get null counts
// only: the 1.0 collector has no CHAR case and leaves their min and max NULL.
func CollectStatistics(types []typemap.DataType, cols []int, rows [][]any) BatchStatistics {
	s := BatchStatistics{Columns: cols, NullCounts: make([]int32, len(cols)), Min: make([]any, len(cols)), Max: make([]any, len(cols))}
	for _, row := range rows {
		for i, c := range cols {
			v := row[c]
			if v == nil {
				s.NullCounts[i]++
				continue
			}
			if types[c].Root == typemap.RootChar {
				continue
			}
			if s.Min[i] == nil || CompareValues(types[c], v, s.Min[i]) < 0 {
				s.Min[i] = v
			}
			if s.Max[i] == nil || CompareValues(types[c], v, s.Max[i]) > 0 {
				s.Max[i] = v
			}
		}
	}
	return s
}

// CompareValues orders two non-NULL canonical values of a statistics type
// the way Fluss's collector and predicates do: numbers numerically (floats by
// Java's Float.compare/Double.compare: -0 < +0, NaN largest), strings by
// their UTF-8 bytes, booleans false < true, timestamps by millis then nanos.
// Values of another type compare as equal (callers check types first).
func CompareValues(t typemap.DataType, a, b any) int {
	switch x := a.(type) {
	case bool:
		y, _ := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int8:
		y, _ := b.(int8)
		return cmp.Compare(x, y)
	case int16:
		y, _ := b.(int16)
		return cmp.Compare(x, y)
	case int32:
		y, _ := b.(int32)
		return cmp.Compare(x, y)
	case int64:
		y, _ := b.(int64)
		return cmp.Compare(x, y)
	case float32:
		y, _ := b.(float32)
		return javaFloatCompare(float64(x), float64(y))
	case float64:
		y, _ := b.(float64)
		return javaFloatCompare(x, y)
	case string:
		y, _ := b.(string)
		return strings.Compare(x, y)
	case decimal128.Num:
		y, _ := b.(decimal128.Num)
		return x.Cmp(y)
	case Timestamp:
		y, _ := b.(Timestamp)
		if c := cmp.Compare(x.Millis, y.Millis); c != 0 {
			return c
		}
		return cmp.Compare(x.NanoOfMilli, y.NanoOfMilli)
	case []byte:
		y, _ := b.([]byte)
		return bytes.Compare(x, y)
	}
	return 0
}

// javaFloatCompare is Double.compare: NaN equals NaN and is above +Inf,
// -0.0 is below +0.0.
func javaFloatCompare(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	xs, ys := math.Signbit(x), math.Signbit(y)
	switch {
	case xs == ys:
		return 0
	case xs:
		return -1
	}
	return 1
}

// AppendStatistics appends the statistics block of s (over a batch whose row
// type is types) to dst.
func AppendStatistics(dst []byte, types []typemap.DataType, s BatchStatistics) ([]byte, error) {
	n := len(s.Columns)
	if n == 0 || n > maxStatsColumns || len(s.NullCounts) != n || len(s.Min) != n || len(s.Max) != n {
		return dst, fmt.Errorf("%w: statistics of %d columns with %d null counts, %d minima, %d maxima", ErrInvalid, n, len(s.NullCounts), len(s.Min), len(s.Max))
	}
	st := make([]typemap.DataType, n)
	for i, c := range s.Columns {
		if c < 0 || c >= len(types) || !StatisticsType(types[c]) {
			return dst, fmt.Errorf("%w: statistics column position %d", ErrInvalid, c)
		}
		st[i] = types[c]
	}
	le := binary.LittleEndian
	dst = append(dst, StatisticsVersion)
	dst = le.AppendUint16(dst, uint16(n))
	for _, c := range s.Columns {
		dst = le.AppendUint16(dst, uint16(c))
	}
	for _, nc := range s.NullCounts {
		dst = le.AppendUint32(dst, uint32(nc))
	}
	for _, vals := range [][]any{s.Min, s.Max} {
		row, err := appendAlignedRow(nil, st, vals)
		if err != nil {
			return dst, err
		}
		dst = le.AppendUint32(dst, uint32(len(row)))
		dst = append(dst, row...)
	}
	return dst, nil
}

// DecodeStatistics parses a statistics block of a batch whose row type is
// types.
func DecodeStatistics(b []byte, types []typemap.DataType) (BatchStatistics, error) {
	var s BatchStatistics
	c := &cursor{b: b}
	if err := c.need(3, "statistics header"); err != nil {
		return s, err
	}
	if b[0] != StatisticsVersion {
		return s, fmt.Errorf("%w: statistics version %d", ErrUnsupported, b[0])
	}
	le := binary.LittleEndian
	n := int(int16(le.Uint16(b[1:])))
	if n <= 0 || n > len(types) {
		return s, fmt.Errorf("%w: statistics column count %d for a row of %d columns", ErrCorrupt, n, len(types))
	}
	c.p = 3
	if err := c.need(6*n+4, "statistics column indexes and null counts"); err != nil {
		return s, err
	}
	s.Columns = make([]int, n)
	st := make([]typemap.DataType, n)
	for i := range s.Columns {
		p := int(int16(le.Uint16(b[c.p:])))
		c.p += 2
		if p < 0 || p >= len(types) || !StatisticsType(types[p]) {
			return s, fmt.Errorf("%w: statistics column index %d at byte %d", ErrCorrupt, p, c.p-2)
		}
		s.Columns[i], st[i] = p, types[p]
	}
	s.NullCounts = make([]int32, n)
	for i := range s.NullCounts {
		s.NullCounts[i] = int32(le.Uint32(b[c.p:]))
		c.p += 4
	}
	for k := 0; k < 2; k++ {
		if err := c.need(4, "statistics row size"); err != nil {
			return s, err
		}
		size := int(int32(le.Uint32(b[c.p:])))
		c.p += 4
		if err := c.need(size, "statistics row"); err != nil {
			return s, err
		}
		vals := make([]any, n)
		if size > 0 {
			var err error
			if vals, err = decodeAlignedRow(b[c.p:c.p+size], st); err != nil {
				return s, err
			}
		}
		c.p += size
		if k == 0 {
			s.Min = vals
		} else {
			s.Max = vals
		}
	}
	return s, nil
}

func alignedNullBytes(n int) int { return (n + 63 + 8) / 64 * 8 }

func compactTimestamp(p int32) bool { return p <= 3 }

func compactDecimal(p int32) bool { return p <= 18 }

// appendAlignedRow writes vals (canonical, one per type) as an aligned row.
func appendAlignedRow(dst []byte, types []typemap.DataType, vals []any) ([]byte, error) {
	n := len(types)
	nb := alignedNullBytes(n)
	row := make([]byte, nb+8*n)
	le := binary.LittleEndian
	bad := func(i int) error {
		return fmt.Errorf("%w: statistics value %T for %s field %d", ErrInvalid, vals[i], types[i].Root, i)
	}
	for i, t := range types {
		slot := nb + 8*i
		v := vals[i]
		if v == nil {
			bit := i + 8
			row[bit>>3] |= 1 << (bit & 7)
			continue
		}
		switch t.Root {
		case typemap.RootBoolean:
			x, ok := v.(bool)
			if !ok {
				return dst, bad(i)
			}
			if x {
				row[slot] = 1
			}
		case typemap.RootTinyInt:
			x, ok := v.(int8)
			if !ok {
				return dst, bad(i)
			}
			row[slot] = byte(x)
		case typemap.RootSmallInt:
			x, ok := v.(int16)
			if !ok {
				return dst, bad(i)
			}
			le.PutUint16(row[slot:], uint16(x))
		case typemap.RootInt, typemap.RootDate, typemap.RootTime:
			x, ok := v.(int32)
			if !ok {
				return dst, bad(i)
			}
			le.PutUint32(row[slot:], uint32(x))
		case typemap.RootBigInt:
			x, ok := v.(int64)
			if !ok {
				return dst, bad(i)
			}
			le.PutUint64(row[slot:], uint64(x))
		case typemap.RootFloat:
			x, ok := v.(float32)
			if !ok {
				return dst, bad(i)
			}
			le.PutUint32(row[slot:], math.Float32bits(x))
		case typemap.RootDouble:
			x, ok := v.(float64)
			if !ok {
				return dst, bad(i)
			}
			le.PutUint64(row[slot:], math.Float64bits(x))
		case typemap.RootChar, typemap.RootString:
			x, ok := v.(string)
			if !ok {
				return dst, bad(i)
			}
			if len(x) <= 7 {
				copy(row[slot:slot+7], x)
				row[slot+7] = 0x80 | byte(len(x))
			} else {
				le.PutUint64(row[slot:], uint64(len(row))<<32|uint64(len(x)))
				row = append(row, x...)
				row = append(row, make([]byte, (8-len(x)%8)%8)...)
			}
		case typemap.RootDecimal:
			x, ok := v.(decimal128.Num)
			if !ok {
				return dst, bad(i)
			}
			if compactDecimal(t.Precision) {
				le.PutUint64(row[slot:], x.LowBits())
			} else {
				be := bigEndianTwos(x.BigInt())
				le.PutUint64(row[slot:], uint64(len(row))<<32|uint64(len(be)))
				word := make([]byte, 16)
				copy(word, be)
				row = append(row, word...)
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			x, ok := v.(Timestamp)
			if !ok {
				return dst, bad(i)
			}
			if compactTimestamp(t.Precision) {
				le.PutUint64(row[slot:], uint64(x.Millis))
			} else {
				le.PutUint64(row[slot:], uint64(len(row))<<32|uint64(uint32(x.NanoOfMilli)))
				row = le.AppendUint64(row, uint64(x.Millis))
			}
		default:
			return dst, fmt.Errorf("%w: no statistics for %s", ErrUnsupported, t.Root)
		}
	}
	return append(dst, row...), nil
}

// bigEndianTwos is Java's BigInteger.toByteArray: the shortest big-endian
// two's-complement form.
func bigEndianTwos(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -v - 1 has the complement bits of v.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func fromBigEndianTwos(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// decodeAlignedRow reads an aligned row of the given field types.
func decodeAlignedRow(row []byte, types []typemap.DataType) ([]any, error) {
	n := len(types)
	nb := alignedNullBytes(n)
	if len(row) < nb+8*n {
		return nil, fmt.Errorf("%w: statistics row of %d bytes is shorter than its %d-byte fixed part", ErrCorrupt, len(row), nb+8*n)
	}
	le := binary.LittleEndian
	// varPart returns the bytes a slot points at (offset<<32 | size).
	varPart := func(i, slot int, size int) ([]byte, int, error) {
		off := int(le.Uint32(row[slot+4:]))
		if off < nb+8*n || size < 0 || size > len(row)-off || off > len(row) {
			return nil, 0, fmt.Errorf("%w: statistics field %d points at bytes [%d, +%d) of a %d-byte row", ErrCorrupt, i, off, size, len(row))
		}
		return row[off : off+size], off, nil
	}
	out := make([]any, n)
	for i, t := range types {
		bit := i + 8
		if row[bit>>3]&(1<<(bit&7)) != 0 {
			continue
		}
		slot := nb + 8*i
		switch t.Root {
		case typemap.RootBoolean:
			out[i] = row[slot] != 0
		case typemap.RootTinyInt:
			out[i] = int8(row[slot])
		case typemap.RootSmallInt:
			out[i] = int16(le.Uint16(row[slot:]))
		case typemap.RootInt, typemap.RootDate, typemap.RootTime:
			out[i] = int32(le.Uint32(row[slot:]))
		case typemap.RootBigInt:
			out[i] = int64(le.Uint64(row[slot:]))
		case typemap.RootFloat:
			out[i] = math.Float32frombits(le.Uint32(row[slot:]))
		case typemap.RootDouble:
			out[i] = math.Float64frombits(le.Uint64(row[slot:]))
		case typemap.RootChar, typemap.RootString:
			if top := row[slot+7]; top&0x80 != 0 {
				l := int(top & 0x7f)
				if l > 7 {
					return nil, fmt.Errorf("%w: statistics field %d: inline string of %d bytes", ErrCorrupt, i, l)
				}
				out[i] = string(row[slot : slot+l])
			} else {
				b, _, err := varPart(i, slot, int(le.Uint32(row[slot:])))
				if err != nil {
					return nil, err
				}
				out[i] = string(b)
			}
		case typemap.RootDecimal:
			if compactDecimal(t.Precision) {
				out[i] = decimal128.FromI64(int64(le.Uint64(row[slot:])))
			} else {
				size := int(le.Uint32(row[slot:]))
				if size == 0 || size > 16 {
					return nil, fmt.Errorf("%w: statistics field %d: decimal of %d bytes", ErrCorrupt, i, size)
				}
				b, _, err := varPart(i, slot, size)
				if err != nil {
					return nil, err
				}
				out[i] = decimal128.FromBigInt(fromBigEndianTwos(b))
			}
		case typemap.RootTimestamp, typemap.RootTimestampLTZ:
			if compactTimestamp(t.Precision) {
				out[i] = Timestamp{Millis: int64(le.Uint64(row[slot:]))}
			} else {
				nano := int32(le.Uint32(row[slot:]))
				if nano < 0 || nano > 999_999 {
					return nil, fmt.Errorf("%w: statistics field %d: nano-of-millisecond %d", ErrCorrupt, i, nano)
				}
				b, _, err := varPart(i, slot, 8)
				if err != nil {
					return nil, err
				}
				out[i] = Timestamp{Millis: int64(le.Uint64(b)), NanoOfMilli: nano}
			}
		default:
			return nil, fmt.Errorf("%w: no statistics for %s", ErrUnsupported, t.Root)
		}
	}
	return out, nil
}
