package minifluss

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// bucketKV is one bucket's key-value state, standing in for RocksDB: keys are
// the §4.6 primary-key bytes, values the §4.7 bytes (schema id int16 LE + row).
// It is persisted as an append-only operation file replayed on open:
//
//	[key_len uint32 LE][key][value_len int32 LE, -1 = delete][value]
//
// All methods are called with the cluster lock held.
type bucketKV struct {
	f    *os.File
	w    *bufio.Writer
	data map[string][]byte

	snapshots []kvSnapshot
}

// kvSnapshot records a KV snapshot taken through the Go API: the changelog
// offset it reflects and the files written for it.
type kvSnapshot struct {
	ID        int64    `json:"snapshot_id"`
	LogOffset int64    `json:"log_offset"`
	Files     []string `json:"files"`
	RowCount  int64    `json:"row_count"`
}

func openBucketKV(dir string) (*bucketKV, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "kv.ops")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	kv := &bucketKV{f: f, data: map[string][]byte{}}
	good, err := kv.replay(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("minifluss: %s: %w", path, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	kv.w = bufio.NewWriter(f)
	return kv, nil
}

// replay applies the operation file; a torn final record is ignored and its
// offset returned so it can be cut.
func (kv *bucketKV) replay(r io.Reader) (int64, error) {
	var pos int64
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return pos, nil
		}
		kl := binary.LittleEndian.Uint32(hdr[:])
		if kl > 1<<20 {
			return pos, nil
		}
		key := make([]byte, kl)
		if _, err := io.ReadFull(r, key); err != nil {
			return pos, nil
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return pos, nil
		}
		vl := int32(binary.LittleEndian.Uint32(hdr[:]))
		if vl < -1 || vl > maxBatchBytes {
			return pos, nil
		}
		if vl == -1 {
			delete(kv.data, string(key))
			pos += 8 + int64(kl)
			continue
		}
		val := make([]byte, vl)
		if _, err := io.ReadFull(r, val); err != nil {
			return pos, nil
		}
		kv.data[string(key)] = val
		pos += 8 + int64(kl) + int64(vl)
	}
}

func (kv *bucketKV) get(key []byte) ([]byte, bool) {
	v, ok := kv.data[string(key)]
	return v, ok
}

// put stores value for key; a nil value deletes.
func (kv *bucketKV) put(key, value []byte) error {
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(key)))
	kv.w.Write(hdr[:])
	kv.w.Write(key)
	if value == nil {
		binary.LittleEndian.PutUint32(hdr[:], uint32(0xffffffff))
		kv.w.Write(hdr[:])
		delete(kv.data, string(key))
	} else {
		binary.LittleEndian.PutUint32(hdr[:], uint32(len(value)))
		kv.w.Write(hdr[:])
		kv.w.Write(value)
		kv.data[string(key)] = append([]byte(nil), value...)
	}
	return nil
}

func (kv *bucketKV) flush() error { return kv.w.Flush() }

func (kv *bucketKV) close() error {
	err := kv.w.Flush()
	if cerr := kv.f.Close(); err == nil {
		err = cerr
	}
	return err
}

type kvEntry struct{ key, value []byte }

// sorted returns a point-in-time copy of the state in key order (bytewise, as
// RocksDB's default comparator).
func (kv *bucketKV) sorted() []kvEntry {
	out := make([]kvEntry, 0, len(kv.data))
	for k, v := range kv.data {
		out = append(out, kvEntry{[]byte(k), v})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].key, out[j].key) < 0 })
	return out
}

// prefix returns the values whose key starts with p, in key order.
func (kv *bucketKV) prefix(p []byte) [][]byte {
	var out [][]byte
	for _, e := range kv.sorted() {
		if bytes.HasPrefix(e.key, p) {
			out = append(out, e.value)
		}
	}
	return out
}

// appendValueBatch appends a DefaultValueRecordBatch (spec §5.3) holding vals:
//
//	[length int32 = bytes after it][magic int8 = 0][record_count int32]
//	per record: [length int32][value bytes = schema_id int16 + row]
func appendValueBatch(dst []byte, vals [][]byte) []byte {
	n := 1 + 4
	for _, v := range vals {
		n += 4 + len(v)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vals)))
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	return dst
}
