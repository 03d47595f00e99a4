package minifluss

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// KV write batch, the PutKv payload (DefaultKvRecordBatch), little-endian:
//
//	offset 0  length int32          bytes after this field
//	offset 4  magic int8            0
//	offset 5  crc uint32            CRC-32C over [9, end)
//	offset 9  schema_id int16
//	offset 11 attributes int8
//	offset 12 writer_id int64
//	offset 20 batch_sequence int32
//	offset 24 record_count int32
//	offset 28 records: [size int32 = bytes after it][key_len uvarint][key][row, empty = delete]
const kvBatchHeaderLen = 28

type kvBatch struct {
	schemaID int16
	writerID int64
	sequence int32
	records  []kvRecord
}

type kvRecord struct {
	key []byte
	row []byte // nil for a delete
}

// decodeKvBatch decodes and CRC-checks a KV batch. Slices alias b. Counts and
// lengths are checked against the bytes present before anything is allocated.
func decodeKvBatch(b []byte) (*kvBatch, error) {
	if len(b) < kvBatchHeaderLen {
		return nil, fmt.Errorf("kv batch of %d bytes is shorter than its %d-byte header", len(b), kvBatchHeaderLen)
	}
	length := int64(int32(binary.LittleEndian.Uint32(b)))
	if length+4 != int64(len(b)) {
		return nil, fmt.Errorf("kv batch length field %d does not match the %d bytes sent", length, len(b)-4)
	}
	if b[4] != 0 {
		return nil, fmt.Errorf("kv batch magic %d is not 0", b[4])
	}
	want := binary.LittleEndian.Uint32(b[5:])
	if got := crc32.Checksum(b[9:], crc32.MakeTable(crc32.Castagnoli)); got != want {
		return nil, fmt.Errorf("kv batch crc %#08x does not match computed %#08x", want, got)
	}
	kb := &kvBatch{
		schemaID: int16(binary.LittleEndian.Uint16(b[9:])),
		writerID: int64(binary.LittleEndian.Uint64(b[12:])),
		sequence: int32(binary.LittleEndian.Uint32(b[20:])),
	}
	n := int32(binary.LittleEndian.Uint32(b[24:]))
	// each record takes at least 4 (size) + 1 (key length) bytes
	if n < 0 || int64(n)*5 > int64(len(b)-kvBatchHeaderLen) {
		return nil, fmt.Errorf("kv batch record count %d does not fit in %d bytes", n, len(b)-kvBatchHeaderLen)
	}
	kb.records = make([]kvRecord, 0, n)
	pos := kvBatchHeaderLen
	for i := int32(0); i < n; i++ {
		if pos+4 > len(b) {
			return nil, fmt.Errorf("kv record %d at byte %d: size cut short", i, pos)
		}
		size := int(int32(binary.LittleEndian.Uint32(b[pos:])))
		pos += 4
		if size < 1 || size > len(b)-pos {
			return nil, fmt.Errorf("kv record %d at byte %d: size %d exceeds the %d bytes left", i, pos-4, size, len(b)-pos)
		}
		rec := b[pos : pos+size]
		kl, w := binary.Uvarint(rec)
		if w <= 0 || kl > uint64(len(rec)-w) {
			return nil, fmt.Errorf("kv record %d at byte %d: bad key length", i, pos)
		}
		r := kvRecord{key: rec[w : w+int(kl)]}
		if len(r.key) == 0 {
			return nil, fmt.Errorf("kv record %d at byte %d: empty key", i, pos)
		}
		if rest := rec[w+int(kl):]; len(rest) > 0 {
			r.row = rest
		}
		kb.records = append(kb.records, r)
		pos += size
	}
	if pos != len(b) {
		return nil, fmt.Errorf("kv batch has %d trailing bytes after %d records", len(b)-pos, n)
	}
	return kb, nil
}
