package minifluss

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Remote log layout (spec §6.1), under Config.RemoteDataDir:
//
//	log/{db}/{table}-{tableId}/{bucket}/                              non-partitioned tablet dir
//	log/{db}/{table}-{tableId}/{partitionName}-p{partitionId}/{bucket}/ partitioned
//	    {segmentUUID}/{startOffset %020d}.log    the batches, byte-identical to the local log
//	    metadata/{manifestUUID}.manifest         the manifest JSON (§6.2)
//
// Only .log files are written; the offset and time indexes and writer
// snapshots of a real tablet server are not (nothing reads them remotely:
// first_start_pos carries the byte position).

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func remoteTabletDir(root string, t *table, p *partition, bucket int32) string {
	d := filepath.Join(root, "log", t.DB, t.Name+"-"+strconv.FormatInt(t.ID, 10))
	if p != nil {
		d = filepath.Join(d, p.Name+"-p"+strconv.FormatInt(p.ID, 10))
	}
	return filepath.Join(d, strconv.Itoa(int(bucket)))
}

func remoteSegmentFile(tabletDir string, s remoteSegment) string {
	return filepath.Join(tabletDir, s.ID, fmt.Sprintf("%020d.log", s.StartOffset))
}

type manifestJSON struct {
	Version       int             `json:"version"`
	Database      string          `json:"database"`
	Table         string          `json:"table"`
	PartitionName *string         `json:"partition_name,omitempty"`
	TableID       int64           `json:"table_id"`
	PartitionID   *int64          `json:"partition_id,omitempty"`
	BucketID      int32           `json:"bucket_id"`
	Segments      []remoteSegment `json:"remote_log_segments"`
}

func manifestPath(tabletDir, id string) string {
	return filepath.Join(tabletDir, "metadata", id+".manifest")
}

// archive copies the local batches in [LocalStart, upTo) (upTo rounded down to a
// batch boundary) into one new remote segment, rewrites the manifest, and
// moves the local start to the segment's end.
func (l *bucketLog) archive(tabletDir string, t *table, p *partition, bucket int32, upTo int64) (remoteSegment, error) {
	hw := l.highWatermark()
	if upTo > hw {
		upTo = hw
	}
	end := l.boundaryAtOrBefore(upTo)
	start := l.meta.LocalStart
	if end <= start {
		return remoteSegment{}, fmt.Errorf("minifluss: %s bucket %d: nothing to archive below offset %d (local log starts at %d)", t.path(), bucket, upTo, start)
	}
	data, idx, err := l.readRange(start, end)
	if err != nil {
		return remoteSegment{}, err
	}
	seg := remoteSegment{ID: newUUID(), StartOffset: idx[0].base, EndOffset: end, SizeInBytes: int64(len(data))}
	if seg.StartOffset < start {
		// the first batch straddles the local start; the segment starts at its base
		seg.StartOffset = idx[0].base
	}
	for _, b := range idx {
		if b.commitTs > seg.MaxTimestamp {
			seg.MaxTimestamp = b.commitTs
		}
	}
	f := remoteSegmentFile(tabletDir, seg)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return seg, err
	}
	if err := os.WriteFile(f, data, 0o644); err != nil {
		return seg, err
	}
	l.meta.Remote = append(l.meta.Remote, seg)
	l.meta.LocalStart = end
	if err := l.writeManifest(tabletDir, t, p, bucket); err != nil {
		return seg, err
	}
	return seg, l.saveMeta()
}

func (l *bucketLog) writeManifest(tabletDir string, t *table, p *partition, bucket int32) error {
	m := manifestJSON{Version: 1, Database: t.DB, Table: t.Name, TableID: t.ID, BucketID: bucket, Segments: l.meta.Remote}
	if p != nil {
		m.PartitionName, m.PartitionID = &p.Name, &p.ID
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	id := newUUID()
	path := manifestPath(tabletDir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	if l.meta.ManifestID != "" {
		_ = os.Remove(manifestPath(tabletDir, l.meta.ManifestID))
	}
	l.meta.ManifestID = id
	return nil
}

// remoteFetch describes where offset off lives in remote storage: the segments
// from the one holding it onwards and the byte position of its batch in the
// first segment. ok is false when no remote segment holds off.
func (l *bucketLog) remoteFetch(off int64) (segs []remoteSegment, firstPos int64, ok bool) {
	for i, s := range l.meta.Remote {
		if off >= s.StartOffset && off < s.EndOffset {
			j := l.find(off)
			if j < len(l.batches) {
				k := l.find(s.StartOffset)
				firstPos = l.batches[j].pos - l.batches[k].pos
			}
			return l.meta.Remote[i:], firstPos, true
		}
	}
	return nil, 0, false
}

// remoteEnd is the exclusive end offset of the remote tier (0 when empty).
func (l *bucketLog) remoteEnd() int64 {
	if n := len(l.meta.Remote); n > 0 {
		return l.meta.Remote[n-1].EndOffset
	}
	return 0
}
