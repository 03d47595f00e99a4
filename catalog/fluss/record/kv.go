package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// KV write batch (PutKv payload, REC/DefaultKvRecordBatch), all LE:
//
//	 0  length int32 = bytes after this field
//	 4  magic int8 (0)
//	 5  crc uint32 = CRC-32C of [9, end)
//	 9  schema_id int16
//	11  attributes int8
//	12  writer_id int64
//	20  batch_sequence int32
//	24  record_count int32
//	28  records: [size int32 = bytes after it][key length uvarint][key][value row]
//
// A record without value bytes is a delete. The value row is in the table's
// KV format, without the schema-id prefix (the header carries it).

// KvHeaderSize is the fixed KV batch header size.
const KvHeaderSize = 28

// KvRecord is one PutKv record; Value nil means delete.
type KvRecord struct {
	Key   []byte
	Value []byte
}

// KvBatch is a decoded KV write batch; record slices alias the input.
type KvBatch struct {
	Magic         int8
	CRC           uint32
	SchemaID      int16
	Attributes    int8
	WriterID      int64
	BatchSequence int32
	Records       []KvRecord
}

// DecodeKvBatch decodes the KV batch at the start of b and returns it with
// its size in bytes.
func DecodeKvBatch(b []byte, opts DecodeOptions) (KvBatch, int, error) {
	var kb KvBatch
	if len(b) < KvHeaderSize {
		return kb, 0, fmt.Errorf("%w: KV batch of %d bytes, header needs %d", ErrTruncated, len(b), KvHeaderSize)
	}
	le := binary.LittleEndian
	length := int64(int32(le.Uint32(b)))
	if length < KvHeaderSize-4 || length+4 > int64(opts.maxBatch()) {
		return kb, 0, fmt.Errorf("%w: KV batch length %d (header needs %d, limit %d)", ErrCorrupt, length, KvHeaderSize-4, opts.maxBatch())
	}
	size := int(length) + 4
	if size > len(b) {
		return kb, 0, fmt.Errorf("%w: KV batch needs %d bytes, %d available", ErrTruncated, size, len(b))
	}
	b = b[:size]
	kb.Magic = int8(b[4])
	if kb.Magic != 0 {
		return kb, 0, fmt.Errorf("%w: KV batch magic %d", ErrUnsupported, kb.Magic)
	}
	kb.CRC = le.Uint32(b[5:])
	if !opts.SkipCRC {
		if got := crc32.Checksum(b[9:], crc32.MakeTable(crc32.Castagnoli)); got != kb.CRC {
			return kb, 0, fmt.Errorf("%w: KV batch CRC-32C is %#08x, header says %#08x", ErrCorrupt, got, kb.CRC)
		}
	}
	kb.SchemaID = int16(le.Uint16(b[9:]))
	kb.Attributes = int8(b[11])
	kb.WriterID = int64(le.Uint64(b[12:]))
	kb.BatchSequence = int32(le.Uint32(b[20:]))
	n := int32(le.Uint32(b[24:]))
	// Each record takes at least 5 bytes (size + key length), so the count
	// is bounded by the bytes present before anything is allocated.
	if n < 0 || int64(n)*5 > int64(size-KvHeaderSize) {
		return kb, 0, fmt.Errorf("%w: KV batch record count %d for %d bytes of records", ErrCorrupt, n, size-KvHeaderSize)
	}
	kb.Records = make([]KvRecord, 0, n)
	c := &cursor{b: b, p: KvHeaderSize}
	for i := range int(n) {
		rs, err := c.u32(fmt.Sprintf("KV record %d size", i))
		if err != nil {
			return kb, 0, err
		}
		if int64(rs) > int64(len(b)-c.p) {
			return kb, 0, fmt.Errorf("%w: KV record %d size %d at offset %d, %d bytes left", ErrCorrupt, i, int32(rs), c.p-4, len(b)-c.p)
		}
		end := c.p + int(rs)
		rc := &cursor{b: b[:end], p: c.p}
		kl, err := rc.uvarintLen(fmt.Sprintf("KV record %d key length", i))
		if err != nil {
			return kb, 0, err
		}
		key, _ := rc.bytes(kl, "key")
		rec := KvRecord{Key: key}
		if rc.p < end {
			rec.Value = b[rc.p:end]
		}
		kb.Records = append(kb.Records, rec)
		c.p = end
	}
	if c.p != size {
		return kb, 0, fmt.Errorf("%w: %d bytes after the %d KV records", ErrCorrupt, size-c.p, n)
	}
	return kb, size, nil
}

// uvarintLen reads an unsigned varint length checked against the bytes left.
func (c *cursor) uvarintLen(what string) (int, error) {
	v, k := binary.Uvarint(c.b[c.p:])
	if k <= 0 {
		return 0, fmt.Errorf("%w: %s: bad varint at offset %d", ErrCorrupt, what, c.p)
	}
	c.p += k
	if v > uint64(len(c.b)-c.p) {
		return 0, fmt.Errorf("%w: %s %d at offset %d, %d bytes left", ErrCorrupt, what, v, c.p, len(c.b)-c.p)
	}
	return int(v), nil
}

// AppendKvBatch encodes a KV write batch. Keys must not be empty.
func AppendKvBatch(dst []byte, schemaID int16, writerID int64, batchSequence int32, recs []KvRecord) ([]byte, error) {
	start := len(dst)
	dst = append(dst, make([]byte, KvHeaderSize)...)
	le := binary.LittleEndian
	for i, r := range recs {
		if len(r.Key) == 0 {
			return dst[:start], fmt.Errorf("%w: KV record %d has an empty key", ErrInvalid, i)
		}
		size := len(r.Key) + len(r.Value) + len(binary.AppendUvarint(nil, uint64(len(r.Key))))
		dst = le.AppendUint32(dst, uint32(size))
		dst = binary.AppendUvarint(dst, uint64(len(r.Key)))
		dst = append(dst, r.Key...)
		dst = append(dst, r.Value...)
	}
	if len(dst)-start-4 > math.MaxInt32 {
		return dst[:start], fmt.Errorf("%w: KV batch of %d bytes", ErrInvalid, len(dst)-start)
	}
	h := dst[start:]
	le.PutUint32(h, uint32(len(h)-4))
	h[4] = 0
	le.PutUint16(h[9:], uint16(schemaID))
	le.PutUint64(h[12:], uint64(writerID))
	le.PutUint32(h[20:], uint32(batchSequence))
	le.PutUint32(h[24:], uint32(len(recs)))
	le.PutUint32(h[5:], crc32.Checksum(h[9:], crc32.MakeTable(crc32.Castagnoli)))
	return dst, nil
}

// KV value (ROW/encode/ValueEncoder): [schema_id int16 LE][row in table.kv.format].

// EncodeKvValue prefixes a row with its schema id.
func EncodeKvValue(dst []byte, schemaID int16, row []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, uint16(schemaID))
	return append(dst, row...)
}

// DecodeKvValue splits a KV value into schema id and row bytes.
func DecodeKvValue(v []byte) (int16, []byte, error) {
	if len(v) < 2 {
		return 0, nil, fmt.Errorf("%w: KV value of %d bytes has no schema id", ErrCorrupt, len(v))
	}
	return int16(binary.LittleEndian.Uint16(v)), v[2:], nil
}

// Value batch (LimitScan / ScanKv payload, REC/DefaultValueRecordBatch), LE,
// no CRC:
//
//	[length int32 = bytes after it][magic int8 = 0][record_count int32]
//	record_count × [length int32 = bytes after it][schema_id int16][row]

// ValueRecord is one value of a value batch; Row aliases the input.
type ValueRecord struct {
	SchemaID int16
	Row      []byte
}

// DecodeValueBatch decodes a whole value batch.
func DecodeValueBatch(b []byte) ([]ValueRecord, error) {
	c := &cursor{b: b}
	l, err := c.u32("value batch length")
	if err != nil {
		return nil, err
	}
	if int64(l) != int64(len(b)-4) {
		return nil, fmt.Errorf("%w: value batch length %d, %d bytes follow", ErrCorrupt, int32(l), len(b)-4)
	}
	magic, err := c.u8("value batch magic")
	if err != nil {
		return nil, err
	}
	if magic != 0 {
		return nil, fmt.Errorf("%w: value batch magic %d", ErrUnsupported, magic)
	}
	n, err := c.u32("value batch record count")
	if err != nil {
		return nil, err
	}
	if int64(n)*6 > int64(len(b)-c.p) {
		return nil, fmt.Errorf("%w: value batch record count %d for %d bytes", ErrCorrupt, int32(n), len(b)-c.p)
	}
	out := make([]ValueRecord, 0, n)
	for i := range int(n) {
		rl, err := c.u32(fmt.Sprintf("value record %d length", i))
		if err != nil {
			return nil, err
		}
		if rl < 2 || int64(rl) > int64(len(b)-c.p) {
			return nil, fmt.Errorf("%w: value record %d length %d at offset %d, %d bytes left", ErrCorrupt, i, int32(rl), c.p-4, len(b)-c.p)
		}
		body, _ := c.bytes(int(rl), "value record")
		out = append(out, ValueRecord{SchemaID: int16(binary.LittleEndian.Uint16(body)), Row: body[2:]})
	}
	if c.p != len(b) {
		return nil, fmt.Errorf("%w: %d bytes after %d value records", ErrCorrupt, len(b)-c.p, n)
	}
	return out, nil
}

// AppendValueBatch encodes a value batch.
func AppendValueBatch(dst []byte, recs []ValueRecord) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(recs)))
	for _, r := range recs {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(2+len(r.Row)))
		dst = binary.LittleEndian.AppendUint16(dst, uint16(r.SchemaID))
		dst = append(dst, r.Row...)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}
