package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
)

// Log batch magic values of Fluss 1.0.
const (
	MagicV0 int8 = 0 // all production writers
	MagicV1 int8 = 1 // V0 + statistics (Arrow writers with table.statistics.columns)
	MagicV2 int8 = 2 // V1 + leader epoch (no 1.0 writer emits it)
)

// Fixed header sizes and the common prefix size.
const (
	LogOverhead    = 12 // base_offset(8) + length(4)
	HeaderSizeV0   = 48
	HeaderSizeV1   = 52
	HeaderSizeV2   = 56
	appendOnlyFlag = 0x01

	// DefaultMaxBatchSize caps a single batch (length+12) unless
	// DecodeOptions says otherwise; Fluss's own fetch limit is far below.
	DefaultMaxBatchSize = 256 << 20
)

// ChangeType is the per-record change kind (REC/ChangeType.java).
type ChangeType int8

// Change types as stored on the wire.
const (
	AppendOnly   ChangeType = 0 // +A
	Insert       ChangeType = 1 // +I
	UpdateBefore ChangeType = 2 // -U
	UpdateAfter  ChangeType = 3 // +U
	Delete       ChangeType = 4 // -D
)

func (c ChangeType) String() string {
	switch c {
	case AppendOnly:
		return "+A"
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return fmt.Sprintf("ChangeType(%d)", int8(c))
}

// Valid reports a change type Fluss defines.
func (c ChangeType) Valid() bool { return c >= AppendOnly && c <= Delete }

// LogFormat is table.log.format.
type LogFormat uint8

// Log formats.
const (
	LogFormatArrow LogFormat = iota
	LogFormatIndexed
	LogFormatCompacted
)

func (f LogFormat) String() string {
	switch f {
	case LogFormatArrow:
		return "ARROW"
	case LogFormatIndexed:
		return "INDEXED"
	case LogFormatCompacted:
		return "COMPACTED"
	}
	return fmt.Sprintf("LogFormat(%d)", uint8(f))
}

// ParseLogFormat reads table.log.format (case-insensitive); "" means the
// default, ARROW.
func ParseLogFormat(s string) (LogFormat, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "ARROW":
		return LogFormatArrow, nil
	case "INDEXED":
		return LogFormatIndexed, nil
	case "COMPACTED":
		return LogFormatCompacted, nil
	}
	return 0, fmt.Errorf("%w: table.log.format %q (want ARROW, INDEXED or COMPACTED)", ErrUnsupported, s)
}

// KvFormat is table.kv.format, the row format of KV values.
type KvFormat uint8

// KV formats.
const (
	KvFormatCompacted KvFormat = iota
	KvFormatIndexed
)

func (f KvFormat) String() string {
	if f == KvFormatIndexed {
		return "INDEXED"
	}
	return "COMPACTED"
}

// ParseKvFormat reads table.kv.format; "" means COMPACTED.
func ParseKvFormat(s string) (KvFormat, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "COMPACTED":
		return KvFormatCompacted, nil
	case "INDEXED":
		return KvFormatIndexed, nil
	}
	return 0, fmt.Errorf("%w: table.kv.format %q (want COMPACTED or INDEXED)", ErrUnsupported, s)
}

// BatchHeader is the fixed header of a log batch. Layout (all little-endian):
//
//	offset  V0/V1  V2
//	 0  base_offset int64
//	 8  length int32 = bytes after this field (batch size - 12)
//	12  magic int8
//	13  commit_timestamp int64 (ms)
//	    –      21  leader_epoch int32
//	21  crc uint32     25   CRC-32C of [schema_id offset, end)
//	25  schema_id int16 29
//	27  attributes int8 31  bit 0 = append-only (no change-type vector)
//	28  last_offset_delta int32 32
//	32  writer_id int64 36
//	40  batch_sequence int32 44
//	44  record_count int32 48
//	    V1: 48 statistics_length int32, V2: 52
//	header ends at 48 (V0), 52 (V1), 56 (V2); V1/V2 statistics bytes follow.
type BatchHeader struct {
	BaseOffset       int64
	Length           int32
	Magic            int8
	CommitTimestamp  int64
	LeaderEpoch      int32 // V2 only; -1 for V0/V1
	CRC              uint32
	SchemaID         int16
	Attributes       int8
	LastOffsetDelta  int32
	WriterID         int64
	BatchSequence    int32
	RecordCount      int32
	StatisticsLength int32 // V1/V2 only
}

// HeaderSize is the fixed header size of a magic, or 0 for an unknown one.
func HeaderSize(magic int8) int {
	switch magic {
	case MagicV0:
		return HeaderSizeV0
	case MagicV1:
		return HeaderSizeV1
	case MagicV2:
		return HeaderSizeV2
	}
	return 0
}

// crcOffset is where the CRC field sits; the CRC covers [crcOffset+4, end).
func crcOffset(magic int8) int {
	if magic == MagicV2 {
		return 25
	}
	return 21
}

// AppendOnly reports the append-only attribute (every record is +A).
func (h *BatchHeader) AppendOnly() bool { return h.Attributes&appendOnlyFlag != 0 }

// Size is the whole batch size in bytes.
func (h *BatchHeader) Size() int { return int(h.Length) + LogOverhead }

// LastOffset is base_offset + last_offset_delta.
func (h *BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// NextOffset is the offset after this batch; a 0-record batch still consumes one.
func (h *BatchHeader) NextOffset() int64 { return h.LastOffset() + 1 }

// LogBatch is one decoded log batch. Its slices alias the input.
type LogBatch struct {
	Header BatchHeader
	// Position is the byte offset of the batch in the slice it was read from.
	Position int
	// Statistics holds the raw V1/V2 statistics block (may be empty).
	Statistics []byte
	// Records is the records section: for ARROW the change-type vector
	// (absent when append-only) then the Arrow IPC message; for
	// INDEXED/COMPACTED the framed records.
	Records []byte
	// Raw is the whole batch.
	Raw []byte
}

// DecodeOptions tune batch decoding. The zero value verifies CRCs and uses
// DefaultMaxBatchSize.
type DecodeOptions struct {
	// SkipCRC turns off CRC verification. Projected fetches need it: the
	// server rewrites the records but keeps the original CRC.
	SkipCRC bool
	// MaxBatchSize caps length+12 of one batch; 0 means DefaultMaxBatchSize.
	MaxBatchSize int
}

func (o DecodeOptions) maxBatch() int {
	if o.MaxBatchSize > 0 {
		return o.MaxBatchSize
	}
	return DefaultMaxBatchSize
}

// ComputeCRC returns the CRC-32C a batch should carry (over the bytes after
// the CRC field).
func ComputeCRC(batch []byte) (uint32, error) {
	if len(batch) < LogOverhead+1 {
		return 0, fmt.Errorf("%w: batch of %d bytes has no magic", ErrCorrupt, len(batch))
	}
	magic := int8(batch[12])
	hs := HeaderSize(magic)
	if hs == 0 {
		return 0, fmt.Errorf("%w: log batch magic %d", ErrUnsupported, magic)
	}
	if len(batch) < hs {
		return 0, fmt.Errorf("%w: batch of %d bytes is shorter than the %d-byte V%d header", ErrCorrupt, len(batch), hs, magic)
	}
	return crc32.Checksum(batch[crcOffset(magic)+4:], crc32.MakeTable(crc32.Castagnoli)), nil
}

// DecodeLogBatch decodes the batch at the start of b. It returns
// ErrTruncated (wrapped) when b ends before the batch does.
func DecodeLogBatch(b []byte, opts DecodeOptions) (LogBatch, error) {
	var lb LogBatch
	if len(b) < LogOverhead+1 {
		return lb, fmt.Errorf("%w: %d bytes, need %d for the batch prefix", ErrTruncated, len(b), LogOverhead+1)
	}
	h := &lb.Header
	h.BaseOffset = int64(binary.LittleEndian.Uint64(b[0:]))
	h.Length = int32(binary.LittleEndian.Uint32(b[8:]))
	h.Magic = int8(b[12])
	hs := HeaderSize(h.Magic)
	if hs == 0 {
		return lb, fmt.Errorf("%w: log batch magic %d at base offset %d (want 0, 1 or 2)", ErrUnsupported, h.Magic, h.BaseOffset)
	}
	size := int64(h.Length) + LogOverhead
	if size < int64(hs) {
		return lb, fmt.Errorf("%w: batch length %d is smaller than the V%d header (%d bytes)", ErrCorrupt, h.Length, h.Magic, hs-LogOverhead)
	}
	if size > int64(opts.maxBatch()) {
		return lb, fmt.Errorf("%w: batch length %d exceeds the limit of %d bytes", ErrCorrupt, h.Length, opts.maxBatch())
	}
	if int64(len(b)) < size {
		return lb, fmt.Errorf("%w: batch at base offset %d needs %d bytes, %d available", ErrTruncated, h.BaseOffset, size, len(b))
	}
	raw := b[:size]
	lb.Raw = raw
	h.CommitTimestamp = int64(binary.LittleEndian.Uint64(raw[13:]))
	p := 21
	h.LeaderEpoch = -1
	if h.Magic == MagicV2 {
		h.LeaderEpoch = int32(binary.LittleEndian.Uint32(raw[21:]))
		p = 25
	}
	h.CRC = binary.LittleEndian.Uint32(raw[p:])
	h.SchemaID = int16(binary.LittleEndian.Uint16(raw[p+4:]))
	h.Attributes = int8(raw[p+6])
	h.LastOffsetDelta = int32(binary.LittleEndian.Uint32(raw[p+7:]))
	h.WriterID = int64(binary.LittleEndian.Uint64(raw[p+11:]))
	h.BatchSequence = int32(binary.LittleEndian.Uint32(raw[p+19:]))
	h.RecordCount = int32(binary.LittleEndian.Uint32(raw[p+23:]))
	body := hs
	if h.Magic != MagicV0 {
		h.StatisticsLength = int32(binary.LittleEndian.Uint32(raw[p+27:]))
		if h.StatisticsLength < 0 || int64(h.StatisticsLength) > size-int64(hs) {
			return lb, fmt.Errorf("%w: statistics length %d at byte %d exceeds the %d bytes after the header", ErrCorrupt, h.StatisticsLength, p+27, size-int64(hs))
		}
		lb.Statistics = raw[hs : hs+int(h.StatisticsLength)]
		body += int(h.StatisticsLength)
	}
	if h.RecordCount < 0 {
		return lb, fmt.Errorf("%w: record count %d at base offset %d", ErrCorrupt, h.RecordCount, h.BaseOffset)
	}
	if h.LastOffsetDelta < 0 {
		return lb, fmt.Errorf("%w: last offset delta %d at base offset %d", ErrCorrupt, h.LastOffsetDelta, h.BaseOffset)
	}
	lb.Records = raw[body:]
	if !opts.SkipCRC {
		got := crc32.Checksum(raw[p+4:], crc32.MakeTable(crc32.Castagnoli))
		if got != h.CRC {
			return lb, fmt.Errorf("%w: CRC-32C of batch at base offset %d is %#08x, header says %#08x", ErrCorrupt, h.BaseOffset, got, h.CRC)
		}
	}
	return lb, nil
}

// BatchIterator walks concatenated batches (a FetchLog records blob or a
// segment file). A partial last batch is not an error: Next stops and
// Truncated reports it, so the caller can resume from NextPosition.
type BatchIterator struct {
	b         []byte
	pos       int
	opts      DecodeOptions
	cur       LogBatch
	err       error
	truncated bool
}

// ReadBatches iterates over the batches in b.
func ReadBatches(b []byte, opts DecodeOptions) *BatchIterator {
	return &BatchIterator{b: b, opts: opts}
}

// Next advances to the next whole batch.
func (it *BatchIterator) Next() bool {
	if it.err != nil || it.truncated || it.pos >= len(it.b) {
		return false
	}
	lb, err := DecodeLogBatch(it.b[it.pos:], it.opts)
	if err != nil {
		if isTruncated(err) {
			it.truncated = true
			return false
		}
		it.err = fmt.Errorf("batch at byte %d: %w", it.pos, err)
		return false
	}
	lb.Position = it.pos
	it.cur = lb
	it.pos += len(lb.Raw)
	return true
}

func isTruncated(err error) bool { return errors.Is(err, ErrTruncated) }

// Batch is the current batch; valid until the next call to Next.
func (it *BatchIterator) Batch() *LogBatch { return &it.cur }

// Err is the first decoding error (never a truncated tail).
func (it *BatchIterator) Err() error { return it.err }

// Truncated reports that iteration stopped at a partial batch.
func (it *BatchIterator) Truncated() bool { return it.truncated }

// NextPosition is the byte offset after the last whole batch returned.
func (it *BatchIterator) NextPosition() int { return it.pos }

// BatchParams are the header fields an encoder chooses; Length, CRC,
// StatisticsLength and the layout follow from the magic and the content.
type BatchParams struct {
	Magic           int8
	BaseOffset      int64
	CommitTimestamp int64
	LeaderEpoch     int32 // V2 only
	SchemaID        int16
	AppendOnly      bool
	WriterID        int64 // -1 = none
	BatchSequence   int32 // -1 = none
	RecordCount     int32
	Statistics      []byte // V1/V2 only
}

// AppendLogBatch appends a complete batch (header, statistics, records) to
// dst, filling in length, last_offset_delta (record_count-1, or 0 for an
// empty batch) and the CRC.
func AppendLogBatch(dst []byte, p BatchParams, records []byte) ([]byte, error) {
	hs := HeaderSize(p.Magic)
	if hs == 0 {
		return dst, fmt.Errorf("%w: log batch magic %d", ErrUnsupported, p.Magic)
	}
	if p.Magic == MagicV0 && len(p.Statistics) > 0 {
		return dst, fmt.Errorf("%w: V0 batches carry no statistics (%d bytes given)", ErrInvalid, len(p.Statistics))
	}
	if p.RecordCount < 0 {
		return dst, fmt.Errorf("%w: record count %d", ErrInvalid, p.RecordCount)
	}
	total := int64(hs) + int64(len(p.Statistics)) + int64(len(records))
	if total-LogOverhead > math.MaxInt32 {
		return dst, fmt.Errorf("%w: batch of %d bytes exceeds int32 length", ErrInvalid, total)
	}
	start := len(dst)
	dst = append(dst, make([]byte, hs)...)
	h := dst[start:]
	le := binary.LittleEndian
	le.PutUint64(h[0:], uint64(p.BaseOffset))
	le.PutUint32(h[8:], uint32(total-LogOverhead))
	h[12] = byte(p.Magic)
	le.PutUint64(h[13:], uint64(p.CommitTimestamp))
	q := 21
	if p.Magic == MagicV2 {
		le.PutUint32(h[21:], uint32(p.LeaderEpoch))
		q = 25
	}
	le.PutUint16(h[q+4:], uint16(p.SchemaID))
	if p.AppendOnly {
		h[q+6] = appendOnlyFlag
	}
	lastDelta := int32(0)
	if p.RecordCount > 0 {
		lastDelta = p.RecordCount - 1
	}
	le.PutUint32(h[q+7:], uint32(lastDelta))
	le.PutUint64(h[q+11:], uint64(p.WriterID))
	le.PutUint32(h[q+19:], uint32(p.BatchSequence))
	le.PutUint32(h[q+23:], uint32(p.RecordCount))
	if p.Magic != MagicV0 {
		le.PutUint32(h[q+27:], uint32(len(p.Statistics)))
	}
	dst = append(dst, p.Statistics...)
	dst = append(dst, records...)
	crc := crc32.Checksum(dst[start+q+4:], crc32.MakeTable(crc32.Castagnoli))
	le.PutUint32(dst[start+q:], crc)
	return dst, nil
}

// SetBaseOffsetAndTimestamp stamps a batch as the server does on append
// (LogTablet.assignOffsetAndTimestamp): neither field is covered by the CRC.
func SetBaseOffsetAndTimestamp(batch []byte, baseOffset, commitTimestamp int64) error {
	if len(batch) < 21 {
		return fmt.Errorf("%w: batch of %d bytes is too short to stamp", ErrCorrupt, len(batch))
	}
	binary.LittleEndian.PutUint64(batch[0:], uint64(baseOffset))
	binary.LittleEndian.PutUint64(batch[13:], uint64(commitTimestamp))
	return nil
}
