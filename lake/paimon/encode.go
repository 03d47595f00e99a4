package paimon

import (
	"bytes"
	"fmt"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
)

// Writer schemas for Paimon 1.x metadata files. They mirror what Java
// Paimon writes (record name "record" in namespace
// org.apache.paimon.avro.generated, nullable values as ["null", T]), so
// Java readers accept files written from them. Fields that only row
// tracking / data evolution use (_FIRST_ROW_ID, _WRITE_COLS, _MIN/_MAX_ROW_ID)
// are written as null.
const (
	statsSchema = `{"type":"record","name":"%s","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}`

	manifestEntrySchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},` +
		`{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[` +
		`{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},` +
		`{"name":"_KEY_STATS","type":STATS_KEY},{"name":"_VALUE_STATS","type":STATS_VALUE},` +
		`{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},` +
		`{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},` +
		`{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},` +
		`{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},` +
		`{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},` +
		`{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},` +
		`{"name":"_FILE_SOURCE","type":["null","int"],"default":null},` +
		`{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},` +
		`{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},` +
		`{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}`

	manifestListSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},` +
		`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
		`{"name":"_PARTITION_STATS","type":STATS_PARTITION},{"name":"_SCHEMA_ID","type":"long"},` +
		`{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},` +
		`{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},` +
		`{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}`

	indexManifestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},` +
		`{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[` +
		`{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},` +
		`{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}]}`
)

func withStats(schema string, names map[string]string) string {
	for ph, name := range names {
		schema = string(bytes.ReplaceAll([]byte(schema), []byte(ph), []byte(fmt.Sprintf(statsSchema, name))))
	}
	return schema
}

// EmptyStats are SimpleStats over zero columns, as Java writes for "no stats".
func EmptyStats() *SimpleStats {
	empty := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	nc := []*int64{}
	return &SimpleStats{MinValues: empty, MaxValues: append([]byte(nil), empty...), NullCounts: &nc}
}

func encodeAvro[T any](schemaJSON string, recs []T) ([]byte, error) {
	sch, err := avro.ParseWithCache(schemaJSON, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("paimon: writer schema: %w", err)
	}
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(sch, &buf, ocf.WithCodec(ocf.ZStandard), ocf.WithEncodingConfig(avroAPI()))
	if err != nil {
		return nil, fmt.Errorf("paimon: avro encoder: %w", err)
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return nil, fmt.Errorf("paimon: encode record %d: %w", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("paimon: avro encoder: %w", err)
	}
	return buf.Bytes(), nil
}

// EncodeManifestEntries writes a manifest file (Avro, zstandard). Entries
// get version 2; nil stats are written as EmptyStats.
func EncodeManifestEntries(entries []ManifestEntry) ([]byte, error) {
	recs := make([]ManifestEntry, len(entries))
	for i, e := range entries {
		if e.File == nil {
			return nil, fmt.Errorf("paimon: manifest entry %d has no file", i)
		}
		f := *e.File
		if f.KeyStats == nil {
			f.KeyStats = EmptyStats()
		}
		if f.ValueStats == nil {
			f.ValueStats = EmptyStats()
		}
		if f.ExtraFiles == nil {
			f.ExtraFiles = []string{}
		}
		e.Version, e.File = 2, &f
		recs[i] = e
	}
	return encodeAvro(withStats(manifestEntrySchema, map[string]string{"STATS_KEY": "record__FILE__KEY_STATS", "STATS_VALUE": "record__FILE__VALUE_STATS"}), recs)
}

// EncodeManifestList writes a manifest list (Avro, zstandard).
func EncodeManifestList(metas []ManifestFileMeta) ([]byte, error) {
	recs := make([]ManifestFileMeta, len(metas))
	for i, m := range metas {
		m.Version = 2
		if m.PartitionStats == nil {
			m.PartitionStats = EmptyStats()
		}
		recs[i] = m
	}
	return encodeAvro(withStats(manifestListSchema, map[string]string{"STATS_PARTITION": "record__PARTITION_STATS"}), recs)
}

// EncodeIndexManifest writes an index manifest (Avro, zstandard).
func EncodeIndexManifest(entries []IndexManifestEntry) ([]byte, error) {
	recs := make([]IndexManifestEntry, len(entries))
	for i, e := range entries {
		e.Version = 1
		recs[i] = e
	}
	return encodeAvro(indexManifestSchema, recs)
}
