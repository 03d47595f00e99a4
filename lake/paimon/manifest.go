package paimon

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// SimpleStats are min/max rows and null counts over a set of columns
// (serialized BinaryRows, see binaryrow.go).
type SimpleStats struct {
	MinValues  []byte    `avro:"_MIN_VALUES"`
	MaxValues  []byte    `avro:"_MAX_VALUES"`
	NullCounts *[]*int64 `avro:"_NULL_COUNTS"`
}

// ManifestFileMeta is one record of a manifest list.
type ManifestFileMeta struct {
	Version         int32        `avro:"_VERSION"`
	FileName        string       `avro:"_FILE_NAME"`
	FileSize        int64        `avro:"_FILE_SIZE"`
	NumAddedFiles   int64        `avro:"_NUM_ADDED_FILES"`
	NumDeletedFiles int64        `avro:"_NUM_DELETED_FILES"`
	PartitionStats  *SimpleStats `avro:"_PARTITION_STATS"`
	SchemaID        int64        `avro:"_SCHEMA_ID"`
	MinBucket       *int32       `avro:"_MIN_BUCKET"`
	MaxBucket       *int32       `avro:"_MAX_BUCKET"`
	MinLevel        *int32       `avro:"_MIN_LEVEL"`
	MaxLevel        *int32       `avro:"_MAX_LEVEL"`
	MinRowID        *int64       `avro:"_MIN_ROW_ID"`
	MaxRowID        *int64       `avro:"_MAX_ROW_ID"`
}

// DataFileMeta describes one data file (DataFileMeta in Java).
type DataFileMeta struct {
	FileName          string       `avro:"_FILE_NAME"`
	FileSize          int64        `avro:"_FILE_SIZE"`
	RowCount          int64        `avro:"_ROW_COUNT"`
	MinKey            []byte       `avro:"_MIN_KEY"`
	MaxKey            []byte       `avro:"_MAX_KEY"`
	KeyStats          *SimpleStats `avro:"_KEY_STATS"`
	ValueStats        *SimpleStats `avro:"_VALUE_STATS"`
	MinSequenceNumber int64        `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64        `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64        `avro:"_SCHEMA_ID"`
	Level             int32        `avro:"_LEVEL"`
	ExtraFiles        []string     `avro:"_EXTRA_FILES"`
	CreationTime      *time.Time   `avro:"_CREATION_TIME"`
	DeleteRowCount    *int64       `avro:"_DELETE_ROW_COUNT"`
	EmbeddedFileIndex *[]byte      `avro:"_EMBEDDED_FILE_INDEX"`
	FileSource        *int32       `avro:"_FILE_SOURCE"`
	ValueStatsCols    *[]string    `avro:"_VALUE_STATS_COLS"`
	ExternalPath      *string      `avro:"_EXTERNAL_PATH"`
	FirstRowID        *int64       `avro:"_FIRST_ROW_ID"`
	WriteCols         *[]string    `avro:"_WRITE_COLS"`
}

// HasDeleteRows reports whether the file may hold -U/-D records.
func (f *DataFileMeta) HasDeleteRows() bool {
	return f.DeleteRowCount != nil && *f.DeleteRowCount > 0
}

// FileKind of a manifest entry.
const (
	FileKindAdd    int32 = 0
	FileKindDelete int32 = 1
)

// ManifestEntry is one ADD or DELETE of a data file.
type ManifestEntry struct {
	Version      int32         `avro:"_VERSION"`
	Kind         int32         `avro:"_KIND"`
	Partition    []byte        `avro:"_PARTITION"`
	Bucket       int32         `avro:"_BUCKET"`
	TotalBuckets int32         `avro:"_TOTAL_BUCKETS"`
	File         *DataFileMeta `avro:"_FILE"`
}

// identity is the key that cancels an ADD against a DELETE: level is part of
// it because a level upgrade deletes and re-adds the same file name.
func (e *ManifestEntry) identity() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%x|%d|%d|%s|%q|", e.Partition, e.Bucket, e.File.Level, e.File.FileName, e.File.ExtraFiles)
	if e.File.EmbeddedFileIndex != nil {
		fmt.Fprintf(&b, "%x", *e.File.EmbeddedFileIndex)
	}
	b.WriteByte('|')
	if e.File.ExternalPath != nil {
		b.WriteString(*e.File.ExternalPath)
	}
	return b.String()
}

// DVRange locates one data file's deletion vector inside an index file.
type DVRange struct {
	DataFile    string `avro:"f0"`
	Offset      int32  `avro:"f1"`
	Length      int32  `avro:"f2"`
	Cardinality *int64 `avro:"_CARDINALITY"`
}

// IndexManifestEntry is one record of an index manifest.
type IndexManifestEntry struct {
	Version      int32       `avro:"_VERSION"`
	Kind         int32       `avro:"_KIND"`
	Partition    []byte      `avro:"_PARTITION"`
	Bucket       int32       `avro:"_BUCKET"`
	IndexType    string      `avro:"_INDEX_TYPE"`
	FileName     string      `avro:"_FILE_NAME"`
	FileSize     int64       `avro:"_FILE_SIZE"`
	RowCount     int64       `avro:"_ROW_COUNT"`
	DVRanges     *[]*DVRange `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string     `avro:"_EXTERNAL_PATH"`
}

// Manifest file formats, sniffed from the first bytes.
const (
	formatAvro    = "avro"
	formatORC     = "orc"
	formatParquet = "parquet"
)

func sniffFormat(b []byte) string {
	switch {
	case bytes.HasPrefix(b, avroMagic):
		return formatAvro
	case bytes.HasPrefix(b, []byte("ORC")):
		return formatORC
	case bytes.HasPrefix(b, []byte("PAR1")):
		return formatParquet
	}
	return ""
}

func checkManifestFormat(b []byte, what string) error {
	switch f := sniffFormat(b); f {
	case formatAvro:
		return nil
	case formatORC:
		return fmt.Errorf("%w: %s is an ORC file (read it through a Table)", ErrUnsupported, what)
	case "":
		return fmt.Errorf("%w: %s: unknown file format", ErrCorrupt, what)
	default:
		return fmt.Errorf("%w: %s: %s manifests", ErrUnsupported, what, f)
	}
}

// DecodeManifestList decodes a manifest list file (Avro).
func DecodeManifestList(b []byte) ([]ManifestFileMeta, error) {
	if err := checkManifestFormat(b, "manifest list"); err != nil {
		return nil, err
	}
	out, err := decodeAvro[ManifestFileMeta](b)
	if err != nil {
		return nil, err
	}
	return out, validateList(out)
}

func validateList(out []ManifestFileMeta) error {
	for i := range out {
		if out[i].Version != 2 {
			return fmt.Errorf("%w: manifest list record %d: version %d (want 2)", ErrUnsupported, i, out[i].Version)
		}
		if out[i].FileName == "" || strings.ContainsAny(out[i].FileName, "/\\") {
			return fmt.Errorf("%w: manifest list record %d: file name %q", ErrCorrupt, i, out[i].FileName)
		}
	}
	return nil
}

// DecodeManifestEntries decodes a manifest file (Avro).
func DecodeManifestEntries(b []byte) ([]ManifestEntry, error) {
	if err := checkManifestFormat(b, "manifest"); err != nil {
		return nil, err
	}
	out, err := decodeAvro[ManifestEntry](b)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if err := out[i].validate(); err != nil {
			return nil, fmt.Errorf("manifest entry %d: %w", i, err)
		}
	}
	return out, nil
}

func (e *ManifestEntry) validate() error {
	if e.Version != 2 {
		return fmt.Errorf("%w: version %d (want 2)", ErrUnsupported, e.Version)
	}
	if e.File == nil {
		return fmt.Errorf("%w: entry without a data file", ErrCorrupt)
	}
	if e.Kind != FileKindAdd && e.Kind != FileKindDelete {
		return fmt.Errorf("%w: file kind %d", ErrCorrupt, e.Kind)
	}
	if e.File.FileName == "" || bytes.ContainsAny([]byte(e.File.FileName), "/\\") && e.File.ExternalPath == nil {
		return fmt.Errorf("%w: data file name %q", ErrCorrupt, e.File.FileName)
	}
	if e.File.RowCount < 0 || e.File.FileSize < 0 || e.Bucket < -2 {
		return fmt.Errorf("%w: file %s: negative row count, size or bucket", ErrCorrupt, e.File.FileName)
	}
	if _, err := SerializedArity(e.Partition); err != nil {
		return fmt.Errorf("file %s partition: %w", e.File.FileName, err)
	}
	return nil
}

// DecodeIndexManifest decodes an index manifest file (Avro).
func DecodeIndexManifest(b []byte) ([]IndexManifestEntry, error) {
	if err := checkManifestFormat(b, "index manifest"); err != nil {
		return nil, err
	}
	out, err := decodeAvro[IndexManifestEntry](b)
	if err != nil {
		return nil, err
	}
	return out, validateIndex(out)
}

func validateIndex(out []IndexManifestEntry) error {
	for i := range out {
		if out[i].Version != 1 {
			return fmt.Errorf("%w: index manifest record %d: version %d (want 1)", ErrUnsupported, i, out[i].Version)
		}
		if out[i].FileName == "" || strings.ContainsAny(out[i].FileName, "/\\") && out[i].ExternalPath == nil {
			return fmt.Errorf("%w: index manifest record %d: file name %q", ErrCorrupt, i, out[i].FileName)
		}
	}
	return nil
}
