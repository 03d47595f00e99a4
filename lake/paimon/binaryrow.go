package paimon

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
)

// BinaryRow layout (Paimon's compact row, always little-endian here):
//
//	+-----------------------------+------------------------+-----------------------+
//	| header + null bits: W bytes | N fixed slots, 8 bytes | variable part (8-byte |
//	| byte 0 = RowKind            | each                   | aligned)              |
//	+-----------------------------+------------------------+-----------------------+
//	W = ((N + 63 + 8) / 64) * 8; null bit of field i = bit (i+8), LSB first.
//
// Serialized in manifests as a 4-byte big-endian arity followed by the row.
// Fixed slot encodings:
//
//	BOOLEAN/TINYINT 1 byte; SMALLINT 2; INT/DATE/TIME 4; BIGINT/FLOAT/DOUBLE 8 (LE)
//	DECIMAL p<=18: unscaled int64
//	DECIMAL p>18:  (offset<<32)|len, 16 reserved bytes of big-endian two's complement
//	TIMESTAMP p<=3: epoch millis int64
//	TIMESTAMP p>3: (offset<<32)|nanoOfMilli, 8 bytes of epoch millis at offset
//	strings/bytes len<=7: inline in the slot, byte 7 = 0x80|len
//	strings/bytes len>7:  (offset<<32)|len, bytes at offset (zero padded to 8)
//
// Offsets are relative to the row start. Null non-compact DECIMAL/TIMESTAMP
// fields still reserve their variable bytes (Java's RowHelper does so).

// MaxRowBytes caps a BinaryRow read from metadata; partitions, keys and
// stats rows are small, so anything larger is corruption.
const MaxRowBytes = 64 << 20

// DecimalValue is an exact decimal: Unscaled × 10^-Scale.
type DecimalValue struct {
	Unscaled *big.Int
	Scale    int
}

// String renders the value with exactly Scale fraction digits.
func (d DecimalValue) String() string {
	if d.Unscaled == nil {
		return "<nil>"
	}
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale > 0 {
		for len(s) <= d.Scale {
			s = "0" + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// TimestampValue is a Paimon timestamp: epoch milliseconds plus the
// nanoseconds within that millisecond (0..999999).
type TimestampValue struct {
	Millis      int64
	NanoOfMilli int32
}

// Nanos returns nanoseconds since the epoch (valid for years 1677-2262).
func (t TimestampValue) Nanos() int64 { return t.Millis*1e6 + int64(t.NanoOfMilli) }

func isCompactDecimal(t DataType) bool   { return t.Root == Decimal && t.Precision <= 18 }
func isCompactTimestamp(t DataType) bool { return t.Precision <= 3 }

func rowHeaderWidth(n int) int { return ((n + 63 + 8) / 64) * 8 }

// DeserializeRow decodes the manifest form (4-byte BE arity + row) of a
// BinaryRow whose fields have the given types. Values are nil (NULL), bool,
// int8, int16, int32 (INT, DATE, TIME), int64, float32, float64, string,
// []byte, DecimalValue or TimestampValue.
func DeserializeRow(b []byte, types []DataType) ([]any, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: binary row: %d bytes, need 4 for the arity", ErrCorrupt, len(b))
	}
	arity := int(int32(binary.BigEndian.Uint32(b)))
	if arity != len(types) {
		return nil, fmt.Errorf("%w: binary row: arity %d, expected %d fields", ErrCorrupt, arity, len(types))
	}
	return DecodeRow(b[4:], types)
}

// SerializedArity returns the arity of a manifest-form BinaryRow.
func SerializedArity(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, fmt.Errorf("%w: binary row: %d bytes, need 4 for the arity", ErrCorrupt, len(b))
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 || int(n) > len(b) {
		return 0, fmt.Errorf("%w: binary row: arity %d for %d bytes", ErrCorrupt, n, len(b))
	}
	return int(n), nil
}

// DecodeRow decodes row bytes (without the arity prefix).
func DecodeRow(b []byte, types []DataType) ([]any, error) {
	if len(b) > MaxRowBytes {
		return nil, fmt.Errorf("%w: binary row of %d bytes exceeds %d", ErrCorrupt, len(b), MaxRowBytes)
	}
	n := len(types)
	w := rowHeaderWidth(n)
	if len(b) < w+8*n {
		return nil, fmt.Errorf("%w: binary row: %d bytes, need %d for %d fields", ErrCorrupt, len(b), w+8*n, n)
	}
	out := make([]any, n)
	for i, t := range types {
		if b[(i+8)/8]&(1<<((i+8)%8)) != 0 {
			continue
		}
		v, err := decodeField(b, w+8*i, t)
		if err != nil {
			return nil, fmt.Errorf("field %d (%s): %w", i, t, err)
		}
		out[i] = v
	}
	return out, nil
}

func varPart(b []byte, slot uint64) ([]byte, error) {
	off, ln := slot>>32, slot&0xffffffff
	if off > uint64(len(b)) || ln > uint64(len(b))-off {
		return nil, fmt.Errorf("%w: binary row: variable part [%d,+%d) outside %d bytes", ErrCorrupt, off, ln, len(b))
	}
	return b[off : off+ln], nil
}

func decodeField(b []byte, pos int, t DataType) (any, error) {
	s := b[pos : pos+8]
	slot := binary.LittleEndian.Uint64(s)
	switch t.Root {
	case Boolean:
		return s[0] != 0, nil
	case TinyInt:
		return int8(s[0]), nil
	case SmallInt:
		return int16(binary.LittleEndian.Uint16(s)), nil
	case Int, Date, Time:
		return int32(binary.LittleEndian.Uint32(s)), nil
	case BigInt:
		return int64(slot), nil
	case Float:
		return math.Float32frombits(binary.LittleEndian.Uint32(s)), nil
	case Double:
		return math.Float64frombits(slot), nil
	case Decimal:
		if isCompactDecimal(t) {
			return DecimalValue{Unscaled: big.NewInt(int64(slot)), Scale: t.Scale}, nil
		}
		raw, err := varPart(b, slot)
		if err != nil {
			return nil, err
		}
		if len(raw) > 16 {
			return nil, fmt.Errorf("%w: binary row: decimal of %d bytes exceeds 16", ErrCorrupt, len(raw))
		}
		return DecimalValue{Unscaled: fromTwosComplement(raw), Scale: t.Scale}, nil
	case Timestamp, TimestampLTZ:
		if isCompactTimestamp(t) {
			return TimestampValue{Millis: int64(slot)}, nil
		}
		off := slot >> 32
		if off > uint64(len(b)) || uint64(len(b))-off < 8 {
			return nil, fmt.Errorf("%w: binary row: timestamp offset %d outside %d bytes", ErrCorrupt, off, len(b))
		}
		nano := int32(slot & 0xffffffff)
		if nano < 0 || nano > 999999 {
			return nil, fmt.Errorf("%w: binary row: nano-of-millisecond %d", ErrCorrupt, nano)
		}
		return TimestampValue{Millis: int64(binary.LittleEndian.Uint64(b[off:])), NanoOfMilli: nano}, nil
	case Char, VarChar, Binary, VarBinary:
		var raw []byte
		if s[7]&0x80 != 0 {
			ln := int(s[7] & 0x7f)
			if ln > 7 {
				return nil, fmt.Errorf("%w: binary row: inline length %d > 7", ErrCorrupt, ln)
			}
			raw = s[:ln]
		} else {
			var err error
			if raw, err = varPart(b, slot); err != nil {
				return nil, err
			}
		}
		if t.Root == Char || t.Root == VarChar {
			return string(raw), nil
		}
		return append([]byte(nil), raw...), nil
	}
	return nil, fmt.Errorf("%w: binary row field of type %s", ErrUnsupported, t)
}

func fromTwosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

func toTwosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// Minimal-length two's complement, as Java BigInteger.toByteArray.
	n := (v.BitLen()+7)/8 + 1
	m := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	b := m.Bytes()
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

// SerializeRow encodes values in the manifest form (4-byte BE arity + row),
// byte-identical to Java's BinaryRowWriter output for the supported types.
// Accepted Go values per type are those DeserializeRow returns; int, int64
// etc. are also accepted for integer types where they fit.
func SerializeRow(vals []any, types []DataType) ([]byte, error) {
	row, err := EncodeRow(vals, types)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4+len(row))
	binary.BigEndian.PutUint32(out, uint32(len(types)))
	copy(out[4:], row)
	return out, nil
}

// EncodeRow encodes values as row bytes (no arity prefix), RowKind +I.
func EncodeRow(vals []any, types []DataType) ([]byte, error) {
	if len(vals) != len(types) {
		return nil, fmt.Errorf("paimon: encode row: %d values for %d fields", len(vals), len(types))
	}
	n := len(types)
	w := rowHeaderWidth(n)
	b := make([]byte, w+8*n)
	appendVar := func(data []byte, reserve int) uint64 {
		off := len(b)
		sz := len(data)
		if reserve > sz {
			sz = reserve
		}
		padded := (sz + 7) &^ 7
		b = append(b, make([]byte, padded)...)
		copy(b[off:], data)
		return uint64(off) << 32
	}
	for i, t := range types {
		pos := w + 8*i
		v := vals[i]
		if v == nil {
			b[(i+8)/8] |= 1 << ((i + 8) % 8)
			switch {
			case t.Root == Decimal && !isCompactDecimal(t):
				slot := appendVar(nil, 16)
				binary.LittleEndian.PutUint64(b[pos:], slot)
			case (t.Root == Timestamp || t.Root == TimestampLTZ) && !isCompactTimestamp(t):
				slot := appendVar(nil, 8)
				binary.LittleEndian.PutUint64(b[pos:], slot)
			}
			continue
		}
		switch t.Root {
		case Boolean:
			x, ok := v.(bool)
			if !ok {
				return nil, encTypeErr(i, t, v)
			}
			if x {
				b[pos] = 1
			}
		case TinyInt, SmallInt, Int, Date, Time, BigInt:
			x, ok := toInt64(v)
			if !ok {
				return nil, encTypeErr(i, t, v)
			}
			switch t.Root {
			case TinyInt:
				b[pos] = byte(x)
			case SmallInt:
				binary.LittleEndian.PutUint16(b[pos:], uint16(x))
			case BigInt:
				binary.LittleEndian.PutUint64(b[pos:], uint64(x))
			default:
				binary.LittleEndian.PutUint32(b[pos:], uint32(x))
			}
		case Float:
			x, ok := v.(float32)
			if !ok {
				return nil, encTypeErr(i, t, v)
			}
			binary.LittleEndian.PutUint32(b[pos:], math.Float32bits(x))
		case Double:
			x, ok := v.(float64)
			if !ok {
				return nil, encTypeErr(i, t, v)
			}
			binary.LittleEndian.PutUint64(b[pos:], math.Float64bits(x))
		case Decimal:
			d, ok := v.(DecimalValue)
			if !ok || d.Unscaled == nil || d.Scale != t.Scale {
				return nil, encTypeErr(i, t, v)
			}
			if isCompactDecimal(t) {
				if !d.Unscaled.IsInt64() {
					return nil, fmt.Errorf("paimon: encode row field %d: decimal %s overflows %s", i, d, t)
				}
				binary.LittleEndian.PutUint64(b[pos:], uint64(d.Unscaled.Int64()))
			} else {
				raw := toTwosComplement(d.Unscaled)
				if len(raw) > 16 {
					return nil, fmt.Errorf("paimon: encode row field %d: decimal %s overflows %s", i, d, t)
				}
				slot := appendVar(raw, 16) | uint64(len(raw))
				binary.LittleEndian.PutUint64(b[pos:], slot)
			}
		case Timestamp, TimestampLTZ:
			ts, ok := v.(TimestampValue)
			if !ok {
				return nil, encTypeErr(i, t, v)
			}
			if isCompactTimestamp(t) {
				binary.LittleEndian.PutUint64(b[pos:], uint64(ts.Millis))
			} else {
				var ms [8]byte
				binary.LittleEndian.PutUint64(ms[:], uint64(ts.Millis))
				slot := appendVar(ms[:], 8) | uint64(uint32(ts.NanoOfMilli))
				binary.LittleEndian.PutUint64(b[pos:], slot)
			}
		case Char, VarChar, Binary, VarBinary:
			var raw []byte
			switch x := v.(type) {
			case string:
				raw = []byte(x)
			case []byte:
				raw = x
			default:
				return nil, encTypeErr(i, t, v)
			}
			if len(raw) <= 7 {
				copy(b[pos:], raw)
				b[pos+7] = 0x80 | byte(len(raw))
			} else {
				slot := appendVar(raw, 0) | uint64(len(raw))
				binary.LittleEndian.PutUint64(b[pos:], slot)
			}
		default:
			return nil, fmt.Errorf("%w: encode row field %d of type %s", ErrUnsupported, i, t)
		}
	}
	return b, nil
}

func encTypeErr(i int, t DataType, v any) error {
	return fmt.Errorf("paimon: encode row field %d: %T is not a %s value", i, v, t)
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}
