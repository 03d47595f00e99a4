package parquetpage

import (
	"errors"
	"fmt"
)

// Page types and encodings, as numbered by parquet.thrift.
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3

	encPlain           = 0
	encPlainDict       = 2
	encRLE             = 3
	encBitPacked       = 4
	encDeltaBinary     = 5
	encDeltaLength     = 6
	encDeltaByteArray  = 7
	encRLEDict         = 8
	encByteStreamSplit = 9
)

// pageHeader holds the PageHeader fields this package reads.
type pageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32

	numValues int32 // data (v1, v2) or dictionary page
	encoding  int32
	defEnc    int32 // v1 only
	// v2 only
	numNulls     int32
	defLen       int32
	repLen       int32
	isCompressed bool
	v2           bool
}

var errShort = errors.New("truncated")

// thriftReader reads the thrift compact protocol from a byte slice.
type thriftReader struct {
	b     []byte
	pos   int
	depth int
}

func (t *thriftReader) byte1() (byte, error) {
	if t.pos >= len(t.b) {
		return 0, errShort
	}
	c := t.b[t.pos]
	t.pos++
	return c, nil
}

func (t *thriftReader) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := t.byte1()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint too long")
}

func (t *thriftReader) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (t *thriftReader) i32() (int32, error) {
	v, err := t.varint()
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, fmt.Errorf("i32 field out of range: %d", v)
	}
	return int32(v), nil
}

// Compact protocol field types.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tByte      = 3
	tI16       = 4
	tI32       = 5
	tI64       = 6
	tDouble    = 7
	tBinary    = 8
	tList      = 9
	tSet       = 10
	tMap       = 11
	tStruct    = 12
)

// fields calls fn for each field of the struct at the current position;
// fn returns false for a field it does not read, which is then skipped.
func (t *thriftReader) fields(fn func(id int16, typ byte) (bool, error)) error {
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > 16 {
		return errors.New("structs nested too deep")
	}
	var last int16
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		typ := h & 0x0f
		id := last + int16(h>>4)
		if h>>4 == 0 {
			v, err := t.varint()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		last = id
		read, err := fn(id, typ)
		if err != nil {
			return err
		}
		if !read {
			if err := t.skip(typ); err != nil {
				return err
			}
		}
	}
}

func (t *thriftReader) skip(typ byte) error {
	switch typ {
	case tBoolTrue, tBoolFalse:
		return nil
	case tByte:
		_, err := t.byte1()
		return err
	case tI16, tI32, tI64:
		_, err := t.uvarint()
		return err
	case tDouble:
		if len(t.b)-t.pos < 8 {
			return errShort
		}
		t.pos += 8
		return nil
	case tBinary:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		if n > uint64(len(t.b)-t.pos) {
			return errShort
		}
		t.pos += int(n)
		return nil
	case tList, tSet:
		h, err := t.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return err
			}
		}
		return t.skipN(n, h&0x0f, 0)
	case tMap:
		n, err := t.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := t.byte1()
		if err != nil {
			return err
		}
		return t.skipN(n, kv>>4, kv&0x0f)
	case tStruct:
		return t.fields(func(int16, byte) (bool, error) { return false, nil })
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}

// skipN skips n elements (pairs when v is set).
func (t *thriftReader) skipN(n uint64, k, v byte) error {
	if n > uint64(len(t.b)-t.pos) { // every element takes at least a byte
		return errShort
	}
	t.depth++
	defer func() { t.depth-- }()
	if t.depth > 16 {
		return errors.New("containers nested too deep")
	}
	for ; n > 0; n-- {
		if err := t.skip(k); err != nil {
			return err
		}
		if v != 0 {
			if err := t.skip(v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *thriftReader) boolField(typ byte) (bool, error) {
	switch typ {
	case tBoolTrue:
		return true, nil
	case tBoolFalse:
		return false, nil
	}
	return false, fmt.Errorf("thrift type %d for a bool field", typ)
}

// readPageHeader decodes a PageHeader at the start of b and returns it
// with its encoded length.
func readPageHeader(b []byte) (pageHeader, int, error) {
	t := thriftReader{b: b}
	h := pageHeader{typ: -1, uncompressed: -1, compressed: -1, isCompressed: true}
	var seenData bool
	i32 := func(typ byte, dst *int32) (bool, error) {
		if typ != tI32 {
			return false, fmt.Errorf("thrift type %d for an i32 field", typ)
		}
		v, err := t.i32()
		*dst = v
		return true, err
	}
	err := t.fields(func(id int16, typ byte) (bool, error) {
		switch id {
		case 1:
			return i32(typ, &h.typ)
		case 2:
			return i32(typ, &h.uncompressed)
		case 3:
			return i32(typ, &h.compressed)
		case 5, 7, 8: // data, dictionary, data v2 page headers
			if typ != tStruct {
				return false, fmt.Errorf("thrift type %d for a page header struct", typ)
			}
			seenData = true
			h.v2 = id == 8
			return true, t.fields(func(fid int16, ft byte) (bool, error) {
				switch {
				case fid == 1:
					return i32(ft, &h.numValues)
				case id == 5 && fid == 2, id == 7 && fid == 2, id == 8 && fid == 4:
					return i32(ft, &h.encoding)
				case id == 5 && fid == 3:
					return i32(ft, &h.defEnc)
				case id == 8 && fid == 2:
					return i32(ft, &h.numNulls)
				case id == 8 && fid == 5:
					return i32(ft, &h.defLen)
				case id == 8 && fid == 6:
					return i32(ft, &h.repLen)
				case id == 8 && fid == 7:
					v, err := t.boolField(ft)
					h.isCompressed = v
					return true, err
				}
				return false, nil
			})
		}
		return false, nil
	})
	if err != nil {
		return h, 0, fmt.Errorf("page header: %w", err)
	}
	if h.typ < 0 || h.uncompressed < 0 || h.compressed < 0 {
		return h, 0, errors.New("page header: type or sizes missing or negative")
	}
	if (h.typ == pageData || h.typ == pageDataV2 || h.typ == pageDictionary) && !seenData {
		return h, 0, fmt.Errorf("page header: page type %d without its header", h.typ)
	}
	if h.numValues < 0 || h.numNulls < 0 || h.defLen < 0 || h.repLen < 0 {
		return h, 0, errors.New("page header: negative count or length")
	}
	return h, t.pos, nil
}
