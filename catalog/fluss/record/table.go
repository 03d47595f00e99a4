package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/typemap"
)

// Table descriptor JSON (TableDescriptorJsonSerde, SchemaJsonSerde,
// ColumnJsonSerde), key order as Java writes it:
//
//	{"version":1,"schema":{"version":1,"columns":[column...],
//	   "primary_key":[..] (PK tables),"auto_increment_column":[..] (if any),
//	   "highest_field_id":N},
//	 "comment":".." (if set),"partition_key":[..],
//	 "bucket_key":[..] (if distributed),"bucket_count":N (if known),
//	 "properties":{..},"custom_properties":{..}}
//	column: {"name":..,"data_type":{..},"comment":.. (if set),
//	         "agg_function":{"type":..,"parameters":{..}} (if set),"id":N}

// Table option keys a reader needs.
const (
	PropLogFormat        = "table.log.format"
	PropKvFormat         = "table.kv.format"
	PropKvFormatVersion  = "table.kv.format-version"
	PropArrowCompression = "table.log.arrow.compression.type"
	PropZstdLevel        = "table.log.arrow.compression.zstd.level"
	PropDatalakeEnabled  = "table.datalake.enabled"
	PropDatalakeFormat   = "table.datalake.format"
	PropMergeEngine      = "table.merge-engine"
	PropChangelogImage   = "table.changelog.image"
	PropStatsColumns     = "table.statistics.columns"
	PropAutoPartition    = "table.auto-partition.enabled"
)

// MaxDescriptorJSON caps the table JSON accepted by ParseTableDescriptor.
const MaxDescriptorJSON = 16 << 20

// AggFunction is a column's aggregation-merge-engine function.
type AggFunction struct {
	Type       string
	Parameters map[string]string
}

// TableColumn is one column of a table schema. ID is -1 when unknown.
type TableColumn struct {
	Name        string
	Type        typemap.DataType
	Comment     string
	AggFunction *AggFunction
	ID          int32
}

// Schema is a Fluss table schema.
type Schema struct {
	Columns              []TableColumn
	PrimaryKey           []string
	AutoIncrementColumns []string
	HighestFieldID       int32
}

// Distribution is the bucketing of a table. BucketCount 0 means unknown.
type Distribution struct {
	BucketKeys  []string
	BucketCount int32
}

// TableDescriptor is a decoded table_json.
type TableDescriptor struct {
	Schema           Schema
	Comment          string
	PartitionKeys    []string
	Distribution     *Distribution
	Properties       map[string]string
	CustomProperties map[string]string
}

// TypeColumns is the schema as typemap columns (the row type of the table).
func (s *Schema) TypeColumns() []typemap.Column {
	out := make([]typemap.Column, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = typemap.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

// ColumnIDs are the column ids, in column order. Batches and KV values of
// an older schema map onto this one by them (schema evolution).
func (s *Schema) ColumnIDs() []int32 {
	out := make([]int32, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.ID
	}
	return out
}

// ColumnIndex is the position of a named column, or -1.
func (s *Schema) ColumnIndex(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// HasPrimaryKey reports a primary-key table.
func (d *TableDescriptor) HasPrimaryKey() bool { return len(d.Schema.PrimaryKey) > 0 }

// PhysicalPrimaryKey is the primary key minus the partition keys.
func (d *TableDescriptor) PhysicalPrimaryKey() []string {
	var out []string
	for _, k := range d.Schema.PrimaryKey {
		if !slices.Contains(d.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// BucketKeys are the effective bucket keys: the declared ones, or for a PK
// table without declared keys the physical primary key.
func (d *TableDescriptor) BucketKeys() []string {
	if d.Distribution != nil && len(d.Distribution.BucketKeys) > 0 {
		return d.Distribution.BucketKeys
	}
	if d.HasPrimaryKey() {
		return d.PhysicalPrimaryKey()
	}
	return nil
}

// BucketCount is the number of buckets, 0 when unknown.
func (d *TableDescriptor) BucketCount() int32 {
	if d.Distribution == nil {
		return 0
	}
	return d.Distribution.BucketCount
}

// IsDefaultBucketKey: bucket keys equal the physical PK (PK tables) or are
// empty (log tables).
func (d *TableDescriptor) IsDefaultBucketKey() bool {
	if d.HasPrimaryKey() {
		return slices.Equal(d.BucketKeys(), d.PhysicalPrimaryKey())
	}
	return len(d.BucketKeys()) == 0
}

// LogFormat is table.log.format (default ARROW).
func (d *TableDescriptor) LogFormat() (LogFormat, error) {
	return ParseLogFormat(d.Properties[PropLogFormat])
}

// KvFormat is table.kv.format (default COMPACTED).
func (d *TableDescriptor) KvFormat() (KvFormat, error) {
	return ParseKvFormat(d.Properties[PropKvFormat])
}

// ArrowCompression is table.log.arrow.compression.type (default ZSTD).
func (d *TableDescriptor) ArrowCompression() (ArrowCompression, error) {
	return ParseArrowCompression(d.Properties[PropArrowCompression])
}

// KvFormatVersion is table.kv.format-version; absent means 1.
func (d *TableDescriptor) KvFormatVersion() (int, error) {
	s, ok := d.Properties[PropKvFormatVersion]
	if !ok {
		return 1, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 || v > 2 {
		return 0, fmt.Errorf("%w: %s = %q (want 1 or 2)", ErrUnsupported, PropKvFormatVersion, s)
	}
	return v, nil
}

// LakeFormat is table.datalake.format in lower case ("" when unset). It
// matters for key encoding even when the lake is not enabled.
func (d *TableDescriptor) LakeFormat() (LakeFormat, error) {
	return ParseLakeFormat(d.Properties[PropDatalakeFormat])
}

// DatalakeEnabled is table.datalake.enabled.
func (d *TableDescriptor) DatalakeEnabled() bool {
	return strings.EqualFold(strings.TrimSpace(d.Properties[PropDatalakeEnabled]), "true")
}

// ParseTableDescriptor decodes table_json. Missing column ids (older JSON)
// are assigned as Fluss does: top-level columns 0..n-1, then nested ROW
// fields; primary-key columns are forced NOT NULL.
func ParseTableDescriptor(b []byte) (*TableDescriptor, error) {
	if len(b) > MaxDescriptorJSON {
		return nil, fmt.Errorf("%w: table JSON of %d bytes exceeds %d", ErrCorrupt, len(b), MaxDescriptorJSON)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("%w: table JSON: %v", ErrCorrupt, err)
	}
	if err := checkVersion(obj, "table JSON"); err != nil {
		return nil, err
	}
	d := &TableDescriptor{Properties: map[string]string{}, CustomProperties: map[string]string{}}
	raw, ok := obj["schema"]
	if !ok {
		return nil, fmt.Errorf("%w: table JSON lacks \"schema\"", ErrCorrupt)
	}
	s, err := ParseSchema(raw)
	if err != nil {
		return nil, err
	}
	d.Schema = *s
	if err := jsonField(obj, "comment", &d.Comment, "table JSON"); err != nil {
		return nil, err
	}
	if err := jsonField(obj, "partition_key", &d.PartitionKeys, "table JSON"); err != nil {
		return nil, err
	}
	if _, ok := obj["bucket_key"]; ok {
		d.Distribution = &Distribution{BucketKeys: []string{}}
		if err := jsonField(obj, "bucket_key", &d.Distribution.BucketKeys, "table JSON"); err != nil {
			return nil, err
		}
	}
	if _, ok := obj["bucket_count"]; ok {
		if d.Distribution == nil {
			d.Distribution = &Distribution{}
		}
		if err := jsonField(obj, "bucket_count", &d.Distribution.BucketCount, "table JSON"); err != nil {
			return nil, err
		}
		if d.Distribution.BucketCount < 1 {
			return nil, fmt.Errorf("%w: table JSON bucket_count %d", ErrCorrupt, d.Distribution.BucketCount)
		}
	}
	if err := jsonField(obj, "properties", &d.Properties, "table JSON"); err != nil {
		return nil, err
	}
	if err := jsonField(obj, "custom_properties", &d.CustomProperties, "table JSON"); err != nil {
		return nil, err
	}
	if d.Properties == nil {
		d.Properties = map[string]string{}
	}
	if d.CustomProperties == nil {
		d.CustomProperties = map[string]string{}
	}
	if d.PartitionKeys == nil {
		d.PartitionKeys = []string{}
	}
	for _, k := range d.PartitionKeys {
		if d.Schema.ColumnIndex(k) < 0 {
			return nil, fmt.Errorf("%w: partition key %q is not a column", ErrCorrupt, k)
		}
	}
	if d.Distribution != nil {
		for _, k := range d.Distribution.BucketKeys {
			if d.Schema.ColumnIndex(k) < 0 {
				return nil, fmt.Errorf("%w: bucket key %q is not a column", ErrCorrupt, k)
			}
		}
	}
	return d, nil
}

func checkVersion(obj map[string]json.RawMessage, what string) error {
	var v int
	if err := jsonField(obj, "version", &v, what); err != nil {
		return err
	}
	if _, ok := obj["version"]; ok && v != 1 {
		return fmt.Errorf("%w: %s version %d (want 1)", ErrUnsupported, what, v)
	}
	return nil
}

func jsonField(obj map[string]json.RawMessage, key string, dst any, what string) error {
	raw, ok := obj[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: %s key %q: %v", ErrCorrupt, what, key, err)
	}
	return nil
}

// ParseSchema decodes schema JSON (GET_TABLE_SCHEMA returns it alone).
func ParseSchema(b []byte) (*Schema, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("%w: schema JSON: %v", ErrCorrupt, err)
	}
	if err := checkVersion(obj, "schema JSON"); err != nil {
		return nil, err
	}
	var rawCols []json.RawMessage
	if err := jsonField(obj, "columns", &rawCols, "schema JSON"); err != nil {
		return nil, err
	}
	s := &Schema{}
	missingID := false
	for i, rc := range rawCols {
		var co map[string]json.RawMessage
		if err := json.Unmarshal(rc, &co); err != nil {
			return nil, fmt.Errorf("%w: schema column %d: %v", ErrCorrupt, i, err)
		}
		c := TableColumn{ID: -1}
		what := fmt.Sprintf("schema column %d", i)
		if err := jsonField(co, "name", &c.Name, what); err != nil {
			return nil, err
		}
		if c.Name == "" {
			return nil, fmt.Errorf("%w: %s has no name", ErrCorrupt, what)
		}
		dt, ok := co["data_type"]
		if !ok {
			return nil, fmt.Errorf("%w: column %q has no data_type", ErrCorrupt, c.Name)
		}
		t, err := typemap.ParseDataType(dt)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		c.Type = t
		if err := jsonField(co, "comment", &c.Comment, what); err != nil {
			return nil, err
		}
		if ar, ok := co["agg_function"]; ok {
			var ao struct {
				Type       string            `json:"type"`
				Parameters map[string]string `json:"parameters"`
			}
			if err := json.Unmarshal(ar, &ao); err != nil {
				return nil, fmt.Errorf("%w: column %q agg_function: %v", ErrCorrupt, c.Name, err)
			}
			c.AggFunction = &AggFunction{Type: ao.Type, Parameters: ao.Parameters}
		}
		if _, ok := co["id"]; ok {
			if err := jsonField(co, "id", &c.ID, what); err != nil {
				return nil, err
			}
		} else {
			missingID = true
		}
		if s.ColumnIndex(c.Name) >= 0 {
			return nil, fmt.Errorf("%w: column %q appears twice", ErrCorrupt, c.Name)
		}
		s.Columns = append(s.Columns, c)
	}
	if err := jsonField(obj, "primary_key", &s.PrimaryKey, "schema JSON"); err != nil {
		return nil, err
	}
	if err := jsonField(obj, "auto_increment_column", &s.AutoIncrementColumns, "schema JSON"); err != nil {
		return nil, err
	}
	for _, k := range append(slices.Clone(s.PrimaryKey), s.AutoIncrementColumns...) {
		if s.ColumnIndex(k) < 0 {
			return nil, fmt.Errorf("%w: key column %q is not a column", ErrCorrupt, k)
		}
	}
	for _, k := range s.PrimaryKey {
		i := s.ColumnIndex(k)
		s.Columns[i].Type = s.Columns[i].Type.NotNull()
	}
	_, hasHighest := obj["highest_field_id"]
	if err := jsonField(obj, "highest_field_id", &s.HighestFieldID, "schema JSON"); err != nil {
		return nil, err
	}
	if missingID {
		s.assignIDs()
	} else if !hasHighest {
		s.HighestFieldID = s.maxID()
	}
	return s, nil
}

// assignIDs numbers top-level columns 0..n-1, then nested ROW fields in
// column order, as Fluss's Schema builder does for JSON without ids.
func (s *Schema) assignIDs() {
	next := int32(0)
	for i := range s.Columns {
		s.Columns[i].ID = next
		next++
	}
	var walk func(t *typemap.DataType)
	walk = func(t *typemap.DataType) {
		switch t.Root {
		case typemap.RootRow:
			for i := range t.Fields {
				t.Fields[i].ID = next
				next++
				walk(&t.Fields[i].Type)
			}
		case typemap.RootArray:
			walk(t.Elem)
		case typemap.RootMap:
			walk(t.Key)
			walk(t.Value)
		}
	}
	for i := range s.Columns {
		walk(&s.Columns[i].Type)
	}
	s.HighestFieldID = next - 1
}

func (s *Schema) maxID() int32 {
	m := int32(-1)
	for _, c := range s.Columns {
		m = max(m, c.ID)
	}
	return m
}

// MarshalSchema writes schema JSON exactly as SchemaJsonSerde does.
func MarshalSchema(s *Schema) ([]byte, error) {
	var b bytes.Buffer
	if err := appendSchema(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func appendSchema(b *bytes.Buffer, s *Schema) error {
	b.WriteString(`{"version":1,"columns":[`)
	for i, c := range s.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		typemap.WriteJSONString(b, c.Name)
		b.WriteString(`,"data_type":`)
		if err := c.Type.AppendJSON(b); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
		if c.Comment != "" {
			b.WriteString(`,"comment":`)
			typemap.WriteJSONString(b, c.Comment)
		}
		if c.AggFunction != nil {
			b.WriteString(`,"agg_function":{"type":`)
			typemap.WriteJSONString(b, c.AggFunction.Type)
			if len(c.AggFunction.Parameters) > 0 {
				b.WriteString(`,"parameters":`)
				appendStringMap(b, c.AggFunction.Parameters)
			}
			b.WriteByte('}')
		}
		fmt.Fprintf(b, `,"id":%d}`, c.ID)
	}
	b.WriteByte(']')
	if len(s.PrimaryKey) > 0 {
		b.WriteString(`,"primary_key":`)
		appendStrings(b, s.PrimaryKey)
	}
	if len(s.AutoIncrementColumns) > 0 {
		b.WriteString(`,"auto_increment_column":`)
		appendStrings(b, s.AutoIncrementColumns)
	}
	fmt.Fprintf(b, `,"highest_field_id":%d}`, s.HighestFieldID)
	return nil
}

// MarshalTableDescriptor writes table JSON in Java's key order; map members
// (properties, custom_properties) are sorted by key.
func MarshalTableDescriptor(d *TableDescriptor) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"version":1,"schema":`)
	if err := appendSchema(&b, &d.Schema); err != nil {
		return nil, err
	}
	if d.Comment != "" {
		b.WriteString(`,"comment":`)
		typemap.WriteJSONString(&b, d.Comment)
	}
	b.WriteString(`,"partition_key":`)
	appendStrings(&b, d.PartitionKeys)
	if d.Distribution != nil {
		b.WriteString(`,"bucket_key":`)
		appendStrings(&b, d.Distribution.BucketKeys)
		if d.Distribution.BucketCount > 0 {
			fmt.Fprintf(&b, `,"bucket_count":%d`, d.Distribution.BucketCount)
		}
	}
	b.WriteString(`,"properties":`)
	appendStringMap(&b, d.Properties)
	b.WriteString(`,"custom_properties":`)
	appendStringMap(&b, d.CustomProperties)
	b.WriteByte('}')
	return b.Bytes(), nil
}

func appendStrings(b *bytes.Buffer, ss []string) {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		typemap.WriteJSONString(b, s)
	}
	b.WriteByte(']')
}

func appendStringMap(b *bytes.Buffer, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		typemap.WriteJSONString(b, k)
		b.WriteByte(':')
		typemap.WriteJSONString(b, m[k])
	}
	b.WriteByte('}')
}
