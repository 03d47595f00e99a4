package local

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// The commit log: every load, INSERT, compaction and DELETE commits as one
// record appended to data/wal/<gen>.log and fsynced; the manifest is a checkpoint
// of the state, written on DDL and when the log grows past a bound, after
// which a new log generation starts. A small load's data lives inside its
// record (a segment whose fileInfo has Log set), so a one-row INSERT costs
// one append and one fsync, shared by every commit in the same group.
//
// Record layout (little endian):
//
//	magic u32 | dataLen u32 | metaLen u32 | crc u32 | data | meta (JSON logRecord)
//
// crc is the CRC-32C of data and meta. A record whose bytes run past the end
// of the log is a torn write of an unacknowledged commit and is cut off at
// Open; a complete record that fails its checksum is corruption and stops
// Open with ErrCorrupt naming the log and offset.

const (
	// walDirName: the logs live under data/ with the tables' files: they
	// hold rows too, and whatever guards table data (the missing-manifest
	// check, backups of data/) must see them.
	walDirName  = "data/wal"
	recMagic    = 0x314c4e49 // "INL1"
	recHeader   = 16
	maxRecMeta  = 64 << 20
	maxLogBytes = 32 << 20 // checkpoint past this log size
	maxLogRecs  = 4096     // or this many records
)

func logName(gen int64) string { return fmt.Sprintf("%08d.log", gen) }

// logRecord is one commit.
type logRecord struct {
	Seq   int64 `json:"seq"`
	Txn   int64 `json:"txn,omitempty"`
	DB    int64 `json:"db,omitempty"`
	Table int64 `json:"table"`
	// Add are the new segments; Remove the keys (segKey) of segments the
	// commit replaces (compaction, DELETE on a DUPLICATE table).
	Add    []fileInfo `json:"add,omitempty"`
	Remove []string   `json:"remove,omitempty"`
	Label  string     `json:"label,omitempty"`
	// Deletes is a DELETE ... WHERE on a table without UNIQUE KEY.
	Deletes []predicateText `json:"deletes,omitempty"`
	// Replace (INSERT OVERWRITE) drops every segment and delete predicate
	// of the table before Add is applied.
	Replace bool  `json:"replace,omitempty"`
	MS      int64 `json:"ms"`
}

// segKey identifies a segment within its table.
func segKey(f fileInfo) string {
	if f.Log {
		return fmt.Sprintf("%s@%d", f.Name, f.Offset)
	}
	return f.Name
}

// logWriter appends to the current log generation.
type logWriter struct {
	dir   string
	gen   int64
	f     *os.File
	size  int64
	recs  int
	syncs int // appends (fsyncs) made; group commit makes it less than the commits
}

func (c *Catalog) walDir() string { return filepath.Join(c.dir, walDirName) }

// createLog makes an empty, durable log file for gen.
func createLog(dir string, gen int64) (*logWriter, error) {
	p := filepath.Join(dir, logName(gen))
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("internal catalog: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("internal catalog: sync %s: %w", p, err)
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, fmt.Errorf("internal catalog: sync %s: %w", dir, err)
	}
	return &logWriter{dir: dir, gen: gen, f: f}, nil
}

// encodeRecord frames rec with its data; offsets of Log segments in rec.Add
// must already be set relative to base, the log offset the record starts at.
func encodeRecord(rec *logRecord, data []byte) ([]byte, error) {
	meta, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	out := make([]byte, recHeader, recHeader+len(data)+len(meta))
	binary.LittleEndian.PutUint32(out[0:], recMagic)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(data)))
	binary.LittleEndian.PutUint32(out[8:], uint32(len(meta)))
	crc := crc32.Update(0, castagnoli, data)
	crc = crc32.Update(crc, castagnoli, meta)
	binary.LittleEndian.PutUint32(out[12:], crc)
	out = append(out, data...)
	return append(out, meta...), nil
}

// append writes b at the end of the log and fsyncs it. On failure the log
// is cut back to its previous end, so no half record stays behind a later
// good one; if even that fails the log is unusable (the caller stops
// committing).
func (w *logWriter) append(b []byte, recs int) (fatal, err error) {
	if _, err := w.f.WriteAt(b, w.size); err != nil {
		return w.undo(err)
	}
	if err := w.f.Sync(); err != nil {
		return w.undo(err)
	}
	w.size += int64(len(b))
	w.recs += recs
	w.syncs++
	return nil, nil
}

func (w *logWriter) undo(cause error) (fatal, err error) {
	err = fmt.Errorf("internal catalog: commit log %s: %w", filepath.Join(w.dir, logName(w.gen)), cause)
	if terr := w.f.Truncate(w.size); terr != nil {
		return err, err
	}
	if serr := w.f.Sync(); serr != nil {
		return err, err
	}
	return nil, err
}

func (w *logWriter) close() error {
	if w == nil || w.f == nil {
		return nil
	}
	return w.f.Close()
}

// replayLog applies every complete record of log gen to m via apply, cuts a
// torn tail off, and returns the log opened for appending.
func replayLog(dir string, gen int64, apply func(*logRecord) error) (*logWriter, error) {
	p := filepath.Join(dir, logName(gen))
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		// A checkpoint creates its log before naming it, so a missing log
		// means it was lost: its acknowledged commits with it.
		return nil, fmt.Errorf("%w: commit log %s named by the manifest is missing", ErrCorrupt, p)
	}
	if err != nil {
		return nil, fmt.Errorf("internal catalog: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	end := st.Size()
	var off int64
	recs := 0
	hdr := make([]byte, recHeader)
	buf := make([]byte, 256<<10)
	for off < end {
		if end-off < recHeader {
			break // torn header
		}
		if _, err := f.ReadAt(hdr, off); err != nil {
			f.Close()
			return nil, fmt.Errorf("internal catalog: read %s at %d: %w", p, off, err)
		}
		if binary.LittleEndian.Uint32(hdr) != recMagic {
			if allZero(f, off, end) {
				break // preallocated or torn: nothing was acknowledged here
			}
			f.Close()
			return nil, fmt.Errorf("%w: commit log %s: bad record header at offset %d", ErrCorrupt, p, off)
		}
		dataLen := int64(binary.LittleEndian.Uint32(hdr[4:]))
		metaLen := int64(binary.LittleEndian.Uint32(hdr[8:]))
		want := binary.LittleEndian.Uint32(hdr[12:])
		if metaLen > maxRecMeta {
			f.Close()
			return nil, fmt.Errorf("%w: commit log %s: record at offset %d has %d bytes of metadata", ErrCorrupt, p, off, metaLen)
		}
		recEnd := off + recHeader + dataLen + metaLen
		if recEnd > end {
			break // torn write of a commit never acknowledged
		}
		var crc uint32
		for pos := off + recHeader; pos < off+recHeader+dataLen; {
			n := min(int64(len(buf)), off+recHeader+dataLen-pos)
			if _, err := f.ReadAt(buf[:n], pos); err != nil {
				f.Close()
				return nil, fmt.Errorf("internal catalog: read %s at %d: %w", p, pos, err)
			}
			crc = crc32.Update(crc, castagnoli, buf[:n])
			pos += n
		}
		meta := make([]byte, metaLen)
		if _, err := f.ReadAt(meta, off+recHeader+dataLen); err != nil {
			f.Close()
			return nil, fmt.Errorf("internal catalog: read %s at %d: %w", p, off, err)
		}
		crc = crc32.Update(crc, castagnoli, meta)
		if crc != want {
			if recEnd == end {
				break // the last record, torn in place
			}
			f.Close()
			return nil, fmt.Errorf("%w: commit log %s: checksum mismatch in record at offset %d", ErrCorrupt, p, off)
		}
		var rec logRecord
		if err := json.Unmarshal(meta, &rec); err != nil {
			f.Close()
			return nil, fmt.Errorf("%w: commit log %s: record at offset %d: %v", ErrCorrupt, p, off, err)
		}
		if err := apply(&rec); err != nil {
			f.Close()
			return nil, fmt.Errorf("%w: commit log %s: record at offset %d: %v", ErrCorrupt, p, off, err)
		}
		off = recEnd
		recs++
	}
	if off < end {
		if err := f.Truncate(off); err != nil {
			f.Close()
			return nil, fmt.Errorf("internal catalog: truncate %s: %w", p, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &logWriter{dir: dir, gen: gen, f: f, size: off, recs: recs}, nil
}

// allZero reports whether f holds only zero bytes in [off, end).
func allZero(f *os.File, off, end int64) bool {
	buf := make([]byte, 64<<10)
	for off < end {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), end-off)], off)
		for _, b := range buf[:n] {
			if b != 0 {
				return false
			}
		}
		off += int64(n)
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
	return true
}
