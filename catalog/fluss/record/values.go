package record

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/typemap"
)

// Row values are plain Go values chosen by the Fluss type of their field:
//
//	BOOLEAN bool            TINYINT int8          SMALLINT int16
//	INT int32               BIGINT int64          FLOAT float32
//	DOUBLE float64          CHAR, STRING string   BINARY, BYTES []byte
//	DECIMAL decimal128.Num (unscaled)             DATE int32 (days since epoch)
//	TIME int32 (ms of day)  TIMESTAMP, TIMESTAMP_LTZ Timestamp
//	ARRAY []any             MAP Map               ROW []any
//
// nil is NULL. Decoders always produce exactly these types; encoders accept
// exactly these types and say which field was wrong otherwise.

// Timestamp is a Fluss timestamp value: epoch millis plus nano-of-millisecond
// (0…999 999). For TIMESTAMP it is the local date-time read as UTC; for
// TIMESTAMP_LTZ an instant.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// Map is a MAP value: parallel key and value lists in entry order.
type Map struct {
	Keys   []any
	Values []any
}

// Types returns the types of cols, the form row codecs take.
func Types(cols []typemap.Column) []typemap.DataType {
	out := make([]typemap.DataType, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

// maxNesting bounds ARRAY/MAP/ROW recursion in decoders.
const maxNesting = 64

// cursor reads little-endian fields and varints with bounds checks; every
// error names the offset and what was being read.
type cursor struct {
	b []byte
	p int
}

func (c *cursor) need(n int, what string) error {
	if n < 0 || n > len(c.b)-c.p {
		return fmt.Errorf("%w: %s: need %d bytes at offset %d, %d left", ErrCorrupt, what, n, c.p, len(c.b)-c.p)
	}
	return nil
}

func (c *cursor) bytes(n int, what string) ([]byte, error) {
	if err := c.need(n, what); err != nil {
		return nil, err
	}
	v := c.b[c.p : c.p+n]
	c.p += n
	return v, nil
}

func (c *cursor) u8(what string) (byte, error) {
	if err := c.need(1, what); err != nil {
		return 0, err
	}
	v := c.b[c.p]
	c.p++
	return v, nil
}

func (c *cursor) u16(what string) (uint16, error) {
	if err := c.need(2, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint16(c.b[c.p:])
	c.p += 2
	return v, nil
}

func (c *cursor) u32(what string) (uint32, error) {
	if err := c.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(c.b[c.p:])
	c.p += 4
	return v, nil
}

func (c *cursor) u64(what string) (uint64, error) {
	if err := c.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(c.b[c.p:])
	c.p += 8
	return v, nil
}

// varint32 reads an unsigned LEB128 of the int32 bit pattern (≤ 5 bytes).
func (c *cursor) varint32(what string) (int32, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if c.p >= len(c.b) {
			return 0, fmt.Errorf("%w: %s: varint runs past the end at offset %d", ErrCorrupt, what, c.p)
		}
		x := c.b[c.p]
		c.p++
		v |= uint32(x&0x7f) << (7 * i)
		if x < 0x80 {
			return int32(v), nil
		}
	}
	return 0, fmt.Errorf("%w: %s: varint32 longer than 5 bytes at offset %d", ErrCorrupt, what, c.p-5)
}

// varint64 reads an unsigned LEB128 of the int64 bit pattern (≤ 10 bytes).
func (c *cursor) varint64(what string) (int64, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if c.p >= len(c.b) {
			return 0, fmt.Errorf("%w: %s: varint runs past the end at offset %d", ErrCorrupt, what, c.p)
		}
		x := c.b[c.p]
		c.p++
		v |= uint64(x&0x7f) << (7 * i)
		if x < 0x80 {
			return int64(v), nil
		}
	}
	return 0, fmt.Errorf("%w: %s: varint64 longer than 10 bytes at offset %d", ErrCorrupt, what, c.p-10)
}

// length reads a varint32 length and checks it against the bytes left.
func (c *cursor) length(what string) (int, error) {
	n, err := c.varint32(what)
	if err != nil {
		return 0, err
	}
	if n < 0 || int(n) > len(c.b)-c.p {
		return 0, fmt.Errorf("%w: %s: length %d at offset %d, %d bytes left", ErrCorrupt, what, n, c.p, len(c.b)-c.p)
	}
	return int(n), nil
}

func appendVarint32(dst []byte, v int32) []byte { return binary.AppendUvarint(dst, uint64(uint32(v))) }
func appendVarint64(dst []byte, v int64) []byte { return binary.AppendUvarint(dst, uint64(v)) }

// decimalBytes is Java BigInteger.toByteArray of an unscaled value: minimal
// big-endian two's complement.
func decimalBytes(n decimal128.Num) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:], uint64(n.HighBits()))
	binary.BigEndian.PutUint64(b[8:], n.LowBits())
	i := 0
	for i < 15 {
		if b[i] == 0x00 && b[i+1]&0x80 == 0 || b[i] == 0xff && b[i+1]&0x80 != 0 {
			i++
			continue
		}
		break
	}
	return append([]byte(nil), b[i:]...)
}

// decimalFromBytes reads big-endian two's complement (1–16 bytes).
func decimalFromBytes(b []byte, what string) (decimal128.Num, error) {
	if len(b) == 0 || len(b) > 16 {
		return decimal128.Num{}, fmt.Errorf("%w: %s: decimal of %d bytes (want 1–16)", ErrCorrupt, what, len(b))
	}
	var full [16]byte
	if b[0]&0x80 != 0 {
		for i := range full {
			full[i] = 0xff
		}
	}
	copy(full[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(full[:8])), binary.BigEndian.Uint64(full[8:])), nil
}

// decodedDecimal rejects a decoded unscaled value that does not fit the
// declared precision: such bytes are corrupt, and passing them on would
// produce a wrong answer.
func decodedDecimal(x decimal128.Num, t typemap.DataType, field string) (any, error) {
	if !x.FitsInPrecision(t.Precision) {
		return nil, fmt.Errorf("%w: %s: unscaled value %s does not fit %v", ErrCorrupt, field, x.BigInt(), t)
	}
	return x, nil
}

// checkDecimal verifies an unscaled value fits DECIMAL(p).
func checkDecimal(n decimal128.Num, p int32) bool { return n.FitsInPrecision(p) }

func invalid(field string, t typemap.DataType, v any) error {
	return fmt.Errorf("%w: %s: %T %v does not fit %v", ErrInvalid, field, v, v, t)
}

func floatBits(v float32) uint32  { return math.Float32bits(v) }
func doubleBits(v float64) uint64 { return math.Float64bits(v) }
