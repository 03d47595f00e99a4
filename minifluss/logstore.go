package minifluss

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/inlet-db/inlet/proto/flussapi"
)

// Log batch header fields the store needs (spec §3.1-§3.2), all little-endian:
//
//	offset 0  base_offset int64      (assigned here on append)
//	offset 8  length int32           (bytes after this field)
//	offset 12 magic int8             0, 1 or 2
//	offset 13 commit_timestamp int64 (assigned here on append; before the CRC, so the CRC stays valid)
//	last_offset_delta int32 at 28 (V0/V1) or 32 (V2)
//	record_count int32      at 44 (V0/V1) or 48 (V2)
//	fixed header 48 / 52 / 56 bytes for V0 / V1 / V2
//
// fetchFromEarliest as a fetch offset means the log start.
const fetchFromEarliest = flussapi.FetchFromEarliest

const (
	logOverhead   = 12
	maxBatchBytes = 64 << 20
)

type batchHeader struct {
	baseOffset      int64
	size            int // whole batch, length + 12
	magic           byte
	commitTimestamp int64
	lastOffsetDelta int32
	recordCount     int32
}

func (h batchHeader) nextOffset() int64 { return h.baseOffset + int64(h.lastOffsetDelta) + 1 }

func headerLen(magic byte) int {
	switch magic {
	case 0:
		return 48
	case 1:
		return 52
	case 2:
		return 56
	}
	return -1
}

// parseBatchHeader reads the header of the batch at the start of b. It needs
// the whole batch to be present.
func parseBatchHeader(b []byte) (batchHeader, error) {
	if len(b) < logOverhead+1 {
		return batchHeader{}, fmt.Errorf("batch of %d bytes is shorter than the %d-byte prefix", len(b), logOverhead+1)
	}
	var h batchHeader
	h.baseOffset = int64(binary.LittleEndian.Uint64(b[0:]))
	length := int32(binary.LittleEndian.Uint32(b[8:]))
	h.magic = b[12]
	hl := headerLen(h.magic)
	if hl < 0 {
		return h, fmt.Errorf("unknown batch magic %d", h.magic)
	}
	if length < int32(hl-logOverhead) || int64(length) > maxBatchBytes {
		return h, fmt.Errorf("batch length %d outside [%d, %d] for magic %d", length, hl-logOverhead, maxBatchBytes, h.magic)
	}
	h.size = int(length) + logOverhead
	if len(b) < h.size {
		return h, fmt.Errorf("batch declares %d bytes but only %d are present", h.size, len(b))
	}
	h.commitTimestamp = int64(binary.LittleEndian.Uint64(b[13:]))
	lo, rc := 28, 44
	if h.magic == 2 {
		lo, rc = 32, 48
	}
	h.lastOffsetDelta = int32(binary.LittleEndian.Uint32(b[lo:]))
	h.recordCount = int32(binary.LittleEndian.Uint32(b[rc:]))
	if h.recordCount < 0 || h.lastOffsetDelta < 0 {
		return h, fmt.Errorf("negative record count %d or last offset delta %d", h.recordCount, h.lastOffsetDelta)
	}
	if h.recordCount > 0 && h.lastOffsetDelta != h.recordCount-1 {
		return h, fmt.Errorf("last offset delta %d does not match record count %d", h.lastOffsetDelta, h.recordCount)
	}
	return h, nil
}

// splitBatches walks a records blob (batches back to back) and returns each
// batch's header. A short tail is an error here: producers send whole batches.
func splitBatches(b []byte) ([]batchHeader, error) {
	var out []batchHeader
	for pos := 0; pos < len(b); {
		h, err := parseBatchHeader(b[pos:])
		if err != nil {
			return nil, fmt.Errorf("batch at byte %d: %w", pos, err)
		}
		out = append(out, h)
		pos += h.size
	}
	return out, nil
}

type batchIndex struct {
	base, next int64
	commitTs   int64
	pos        int64
	size       int32
	records    int32
}

// remoteSegment is an archived piece of the log in the §6 layout.
type remoteSegment struct {
	ID           string `json:"segment_id"`
	StartOffset  int64  `json:"start_offset"`
	EndOffset    int64  `json:"end_offset"`
	MaxTimestamp int64  `json:"max_timestamp"`
	SizeInBytes  int64  `json:"size_in_bytes"`
}

// bucketLogMeta is the persisted part of a bucket log besides the batches.
type bucketLogMeta struct {
	LogStart   int64           `json:"log_start_offset"`
	LocalStart int64           `json:"local_log_start_offset"`
	Remote     []remoteSegment `json:"remote_segments,omitempty"`
	ManifestID string          `json:"manifest_id,omitempty"`
}

// bucketLog is one bucket's log: a single append-only file of batches with
// server-assigned offsets, and an index kept in memory. Batches below
// LocalStart are only served through remote segments; below LogStart not at
// all. All methods are called with the cluster lock held.
type bucketLog struct {
	dir     string
	f       *os.File
	end     int64 // file size
	batches []batchIndex
	meta    bucketLogMeta
}

func openBucketLog(dir string) (*bucketLog, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := &bucketLog{dir: dir}
	if b, err := os.ReadFile(filepath.Join(dir, "state.json")); err == nil {
		if err := json.Unmarshal(b, &l.meta); err != nil {
			return nil, fmt.Errorf("minifluss: %s: %v", filepath.Join(dir, "state.json"), err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "00000000000000000000.log"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	l.f = f
	if err := l.recover(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// recover rebuilds the index by walking the file; a torn tail (crash during
// append) is cut off.
func (l *bucketLog) recover() error {
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	var pos int64
	hdr := make([]byte, 56)
	for pos < size {
		n, _ := l.f.ReadAt(hdr, pos)
		if n < logOverhead+1 {
			break
		}
		length := int64(int32(binary.LittleEndian.Uint32(hdr[8:])))
		if length <= 0 || pos+logOverhead+length > size || length > maxBatchBytes {
			break
		}
		whole := make([]byte, logOverhead+length)
		if _, err := l.f.ReadAt(whole, pos); err != nil {
			break
		}
		h, err := parseBatchHeader(whole)
		if err != nil {
			break
		}
		l.batches = append(l.batches, batchIndex{base: h.baseOffset, next: h.nextOffset(), commitTs: h.commitTimestamp, pos: pos, size: int32(h.size), records: h.recordCount})
		pos += int64(h.size)
	}
	if pos < size {
		if err := l.f.Truncate(pos); err != nil {
			return err
		}
	}
	l.end = pos
	return nil
}

func (l *bucketLog) close() error { return l.f.Close() }

// highWatermark is the log end offset: there is no replication lag here.
func (l *bucketLog) highWatermark() int64 {
	if len(l.batches) == 0 {
		return l.meta.LocalStart
	}
	return l.batches[len(l.batches)-1].next
}

// append stamps base offsets and the commit timestamp into the batches of
// blob (the caller's copy is modified) and writes them. It returns the base
// offset of the first batch.
func (l *bucketLog) append(blob []byte, commitTs int64) (int64, error) {
	hs, err := splitBatches(blob)
	if err != nil {
		return 0, err
	}
	first := l.highWatermark()
	next := first
	pos := 0
	for _, h := range hs {
		b := blob[pos : pos+h.size]
		binary.LittleEndian.PutUint64(b[0:], uint64(next))
		binary.LittleEndian.PutUint64(b[13:], uint64(commitTs))
		h.baseOffset = next
		l.batches = append(l.batches, batchIndex{base: next, next: h.nextOffset(), commitTs: commitTs, pos: l.end + int64(pos), size: int32(h.size), records: h.recordCount})
		next = h.nextOffset()
		pos += h.size
	}
	if _, err := l.f.WriteAt(blob, l.end); err != nil {
		l.batches = l.batches[:len(l.batches)-len(hs)]
		return 0, err
	}
	l.end += int64(len(blob))
	return first, nil
}

// find returns the index of the batch holding offset (base <= off < next), or
// of the first batch after it.
func (l *bucketLog) find(off int64) int {
	return sort.Search(len(l.batches), func(i int) bool { return l.batches[i].next > off })
}

// read returns whole batches starting with the one holding off, up to maxBytes
// (at least one batch when any exists).
func (l *bucketLog) read(off int64, maxBytes int) ([]byte, error) {
	i := l.find(off)
	if i >= len(l.batches) {
		return nil, nil
	}
	j := i
	total := 0
	for j < len(l.batches) {
		sz := int(l.batches[j].size)
		if j > i && total+sz > maxBytes {
			break
		}
		total += sz
		j++
	}
	buf := make([]byte, total)
	if _, err := l.f.ReadAt(buf, l.batches[i].pos); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}

// readRange returns the bytes of all batches in [from, to), from and to being
// batch boundaries.
func (l *bucketLog) readRange(from, to int64) ([]byte, []batchIndex, error) {
	i, j := l.find(from), l.find(to)
	if i >= j {
		return nil, nil, nil
	}
	start, stop := l.batches[i].pos, l.batches[j-1].pos+int64(l.batches[j-1].size)
	buf := make([]byte, stop-start)
	if _, err := l.f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return buf, l.batches[i:j], nil
}

// offsetForTimestamp is the first offset whose batch commit timestamp is >= ts,
// or the high watermark when none is.
func (l *bucketLog) offsetForTimestamp(ts int64) int64 {
	for _, b := range l.batches {
		if b.next <= l.meta.LogStart {
			continue
		}
		if b.commitTs >= ts {
			if b.base < l.meta.LogStart {
				return l.meta.LogStart
			}
			return b.base
		}
	}
	return l.highWatermark()
}

// boundaryAtOrBefore rounds off down to the base of the batch holding it.
func (l *bucketLog) boundaryAtOrBefore(off int64) int64 {
	i := l.find(off)
	if i < len(l.batches) && l.batches[i].base <= off {
		return l.batches[i].base
	}
	return off
}

func (l *bucketLog) saveMeta() error {
	b, err := json.Marshal(l.meta)
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, "state.json.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(l.dir, "state.json"))
}

// expire moves the log start to the batch boundary at or before off, as TTL
// does, dropping remote segments that end at or before it.
func (l *bucketLog) expire(off int64) error {
	hw := l.highWatermark()
	if off > hw {
		off = hw
	}
	start := l.boundaryAtOrBefore(off)
	if start <= l.meta.LogStart {
		return nil
	}
	l.meta.LogStart = start
	if l.meta.LocalStart < start {
		l.meta.LocalStart = start
	}
	kept := l.meta.Remote[:0]
	for _, s := range l.meta.Remote {
		if s.EndOffset > start {
			kept = append(kept, s)
		}
	}
	l.meta.Remote = kept
	return l.saveMeta()
}

// count is the number of records still retained (high watermark - log start).
func (l *bucketLog) count() int64 { return l.highWatermark() - l.meta.LogStart }
