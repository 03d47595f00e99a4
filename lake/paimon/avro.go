package paimon

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"

	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// Avro object container file, as Paimon writes manifests:
//
//	"Obj" 0x01 | metadata map<string,bytes> (avro.schema, avro.codec) | 16-byte sync
//	then blocks: count long | size long | size bytes (codec-compressed) | sync
//
// Longs are zig-zag varints. We decode blocks ourselves (rather than through
// hamba's ocf.Decoder) so that every length is capped before allocation and
// each file's schema is parsed in a private cache: all Paimon record types
// share the name "org.apache.paimon.avro.generated.record".

const (
	maxAvroBlock   = 64 << 20 // decompressed block cap
	maxAvroRecords = 1 << 22  // records plus array/map items per file
)

var avroMagic = []byte{'O', 'b', 'j', 1}

type avroReader struct {
	b   []byte
	off int
}

func (r *avroReader) long() (int64, error) {
	v, off, fault := zigzagLong(r.b, r.off)
	r.off = off
	switch fault {
	case varintShort:
		return 0, io.ErrUnexpectedEOF
	case varintLong:
		return 0, errors.New("varint too long")
	}
	return v, nil
}

// varintFault says why zigzagLong stopped early; each Avro reader words
// the error its own way.
type varintFault uint8

const (
	varintOK    varintFault = iota
	varintShort             // b ended inside the varint
	varintLong              // more than 64 bits of payload
)

// zigzagLong decodes Avro's zig-zag varint long at b[off:], returning the
// value and the offset after the bytes it consumed.
func zigzagLong(b []byte, off int) (int64, int, varintFault) {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if off >= len(b) {
			return 0, off, varintShort
		}
		if shift > 63 {
			return 0, off, varintLong
		}
		c := b[off]
		off++
		u |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), off, varintOK
}

func (r *avroReader) bytes(limit int64) ([]byte, error) {
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > limit || n > int64(len(r.b)-r.off) {
		return nil, fmt.Errorf("length %d out of range at offset %d", n, r.off)
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

// avroFile is a parsed container: its schema and its decompressed blocks.
type avroFile struct {
	schema avro.Schema
	blocks [][]byte
	counts []int64
}

func parseAvroFile(b []byte) (*avroFile, error) {
	if !bytes.HasPrefix(b, avroMagic) {
		return nil, fmt.Errorf("%w: not an Avro container (magic %q)", ErrCorrupt, b[:min(4, len(b))])
	}
	r := &avroReader{b: b, off: 4}
	meta := map[string][]byte{}
	for {
		n, err := r.long()
		if err != nil {
			return nil, fmt.Errorf("%w: avro header: %v", ErrCorrupt, err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := r.long(); err != nil {
				return nil, fmt.Errorf("%w: avro header: %v", ErrCorrupt, err)
			}
		}
		if n > 1024 {
			return nil, fmt.Errorf("%w: avro header: %d metadata entries", ErrCorrupt, n)
		}
		for i := int64(0); i < n; i++ {
			k, err := r.bytes(1 << 20)
			if err != nil {
				return nil, fmt.Errorf("%w: avro header key: %v", ErrCorrupt, err)
			}
			v, err := r.bytes(16 << 20)
			if err != nil {
				return nil, fmt.Errorf("%w: avro header value: %v", ErrCorrupt, err)
			}
			meta[string(k)] = v
		}
	}
	if len(b)-r.off < 16 {
		return nil, fmt.Errorf("%w: avro header: no sync marker", ErrCorrupt)
	}
	sync := b[r.off : r.off+16]
	r.off += 16
	sch, err := avro.ParseBytesWithCache(meta["avro.schema"], "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("%w: avro schema: %v", ErrCorrupt, err)
	}
	codec := string(meta["avro.codec"])
	f := &avroFile{schema: sch}
	var total int64
	for r.off < len(b) {
		count, err := r.long()
		if err != nil {
			return nil, fmt.Errorf("%w: avro block: %v", ErrCorrupt, err)
		}
		data, err := r.bytes(maxAvroBlock)
		if err != nil {
			return nil, fmt.Errorf("%w: avro block: %v", ErrCorrupt, err)
		}
		if len(b)-r.off < 16 || !bytes.Equal(b[r.off:r.off+16], sync) {
			return nil, fmt.Errorf("%w: avro block at offset %d: bad sync marker", ErrCorrupt, r.off)
		}
		r.off += 16
		if count < 0 || count > maxAvroRecords-total {
			return nil, fmt.Errorf("%w: avro block: record count %d", ErrCorrupt, count)
		}
		total += count
		if count == 0 {
			continue
		}
		raw, err := avroDecompress(codec, data)
		if err != nil {
			return nil, fmt.Errorf("%w: avro block (%s): %v", ErrCorrupt, codec, err)
		}
		f.blocks = append(f.blocks, raw)
		f.counts = append(f.counts, count)
	}
	return f, nil
}

func avroDecompress(codec string, data []byte) ([]byte, error) {
	switch codec {
	case "", "null":
		return data, nil
	case "deflate":
		return readCapped(flate.NewReader(bytes.NewReader(data)))
	case "snappy":
		if len(data) < 4 {
			return nil, errors.New("snappy block shorter than its checksum")
		}
		body := data[:len(data)-4]
		n, err := snappy.DecodedLen(body)
		if err != nil {
			return nil, err
		}
		if n > maxAvroBlock {
			return nil, fmt.Errorf("snappy block of %d bytes exceeds %d", n, maxAvroBlock)
		}
		out, err := snappy.Decode(nil, body)
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(out) != binary.BigEndian.Uint32(data[len(data)-4:]) {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case "zstandard":
		d, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxAvroBlock))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return readCapped(d)
	}
	return nil, fmt.Errorf("%w: avro codec %q", ErrUnsupported, codec)
}

func readCapped(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxAvroBlock+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxAvroBlock {
		return nil, fmt.Errorf("decompressed block exceeds %d bytes", maxAvroBlock)
	}
	return out, nil
}

// avroAPI configures hamba/avro for encoding (decoding uses avrodatum.go).
func avroAPI() avro.API {
	return avro.Config{MaxByteSliceSize: 64 << 20, MaxSliceAllocSize: 1 << 24}.Freeze()
}

// decodeAvro decodes every record of an Avro container into a T, matching
// fields by name (absent fields keep their zero value, unknown ones are
// skipped), as Paimon's own reader does. 0.9-era files declare the record
// (and nested records) as ["null", record] unions; a null record is corrupt.
func decodeAvro[T any](b []byte) ([]T, error) {
	f, err := parseAvroFile(b)
	if err != nil {
		return nil, err
	}
	var out []T
	budget := int64(maxAvroRecords)
	for i, blk := range f.blocks {
		r := &datumReader{b: blk, budget: budget}
		for j := int64(0); j < f.counts[i]; j++ {
			v, err := r.read(f.schema)
			if err != nil {
				return nil, fmt.Errorf("%w: avro record %d of block %d: %v", ErrCorrupt, j, i, err)
			}
			if v == nil {
				return nil, fmt.Errorf("%w: avro record %d of block %d is null", ErrCorrupt, j, i)
			}
			var t T
			if err := setGo(reflect.ValueOf(&t).Elem(), v); err != nil {
				return nil, fmt.Errorf("%w: avro record %d of block %d: %v", ErrCorrupt, j, i, err)
			}
			out = append(out, t)
		}
		budget = r.budget
	}
	return out, nil
}
