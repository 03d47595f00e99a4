package record

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/inlet-db/inlet/typemap"
)

// Remote log manifest JSON (remote/RemoteLogManifestJsonSerde), key order:
//
//	{"version":1,"database":..,"table":..,"partition_name":.. (partitioned),
//	 "table_id":..,"partition_id":.. (partitioned),"bucket_id":..,
//	 "highest_copied_end_offset":.. (1.0, optional),
//	 "remote_log_segments":[{"segment_id":"<uuid>","start_offset":..,
//	   "end_offset":..,"logical_start_offset":.. (1.0, optional),
//	   "logical_end_offset":.. (optional),"max_timestamp":..,"size_in_bytes":..}]}

// RemoteLogSegment is one archived segment of a bucket.
type RemoteLogSegment struct {
	SegmentID   string `json:"segment_id"`
	StartOffset int64  `json:"start_offset"`
	EndOffset   int64  `json:"end_offset"`
	// LogicalStartOffset/LogicalEndOffset, when set, hide a prefix/suffix of
	// the physical segment that is no longer exposed (e.g. after TTL).
	LogicalStartOffset *int64 `json:"logical_start_offset,omitempty"`
	LogicalEndOffset   *int64 `json:"logical_end_offset,omitempty"`
	MaxTimestamp       int64  `json:"max_timestamp"`
	SizeInBytes        int32  `json:"size_in_bytes"`
}

// RemoteLogManifest lists the archived segments of one bucket.
type RemoteLogManifest struct {
	Database               string
	Table                  string
	PartitionName          string // "" for non-partitioned tables
	TableID                int64
	PartitionID            *int64
	BucketID               int32
	HighestCopiedEndOffset *int64
	Segments               []RemoteLogSegment
}

// ParseRemoteLogManifest decodes manifest JSON.
func ParseRemoteLogManifest(b []byte) (*RemoteLogManifest, error) {
	if len(b) > MaxDescriptorJSON {
		return nil, fmt.Errorf("%w: manifest JSON of %d bytes exceeds %d", ErrCorrupt, len(b), MaxDescriptorJSON)
	}
	var raw struct {
		Version                *int               `json:"version"`
		Database               *string            `json:"database"`
		Table                  *string            `json:"table"`
		PartitionName          string             `json:"partition_name"`
		TableID                *int64             `json:"table_id"`
		PartitionID            *int64             `json:"partition_id"`
		BucketID               *int32             `json:"bucket_id"`
		HighestCopiedEndOffset *int64             `json:"highest_copied_end_offset"`
		Segments               []RemoteLogSegment `json:"remote_log_segments"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%w: remote log manifest JSON: %v", ErrCorrupt, err)
	}
	switch {
	case raw.Version == nil || *raw.Version != 1:
		return nil, fmt.Errorf("%w: remote log manifest version missing or not 1", ErrUnsupported)
	case raw.Database == nil || raw.Table == nil || raw.TableID == nil || raw.BucketID == nil:
		return nil, fmt.Errorf("%w: remote log manifest lacks database, table, table_id or bucket_id", ErrCorrupt)
	}
	for i, s := range raw.Segments {
		if s.SegmentID == "" || s.StartOffset < 0 || s.EndOffset < s.StartOffset || s.SizeInBytes < 0 {
			return nil, fmt.Errorf("%w: remote log segment %d (%q): offsets [%d, %d], size %d", ErrCorrupt, i, s.SegmentID, s.StartOffset, s.EndOffset, s.SizeInBytes)
		}
	}
	return &RemoteLogManifest{Database: *raw.Database, Table: *raw.Table, PartitionName: raw.PartitionName,
		TableID: *raw.TableID, PartitionID: raw.PartitionID, BucketID: *raw.BucketID,
		HighestCopiedEndOffset: raw.HighestCopiedEndOffset, Segments: raw.Segments}, nil
}

// MarshalRemoteLogManifest writes manifest JSON in Java's key order.
func MarshalRemoteLogManifest(m *RemoteLogManifest) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"database":`)
	typemap.WriteJSONString(&b, m.Database)
	b.WriteString(`,"table":`)
	typemap.WriteJSONString(&b, m.Table)
	if m.PartitionName != "" {
		b.WriteString(`,"partition_name":`)
		typemap.WriteJSONString(&b, m.PartitionName)
	}
	fmt.Fprintf(&b, `,"table_id":%d`, m.TableID)
	if m.PartitionID != nil {
		fmt.Fprintf(&b, `,"partition_id":%d`, *m.PartitionID)
	}
	fmt.Fprintf(&b, `,"bucket_id":%d`, m.BucketID)
	if m.HighestCopiedEndOffset != nil {
		fmt.Fprintf(&b, `,"highest_copied_end_offset":%d`, *m.HighestCopiedEndOffset)
	}
	b.WriteString(`,"remote_log_segments":[`)
	for i, s := range m.Segments {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"segment_id":`)
		typemap.WriteJSONString(&b, s.SegmentID)
		fmt.Fprintf(&b, `,"start_offset":%d,"end_offset":%d`, s.StartOffset, s.EndOffset)
		if s.LogicalStartOffset != nil {
			fmt.Fprintf(&b, `,"logical_start_offset":%d`, *s.LogicalStartOffset)
		}
		if s.LogicalEndOffset != nil {
			fmt.Fprintf(&b, `,"logical_end_offset":%d`, *s.LogicalEndOffset)
		}
		fmt.Fprintf(&b, `,"max_timestamp":%d,"size_in_bytes":%d}`, s.MaxTimestamp, s.SizeInBytes)
	}
	b.WriteString(`]}`)
	return b.Bytes(), nil
}

// SegmentFileName is the name of a remote segment's log file inside its
// segment directory: the start offset as 20 zero-padded digits + ".log".
func SegmentFileName(startOffset int64) string { return fmt.Sprintf("%020d.log", startOffset) }
