package minifluss

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// tableDescriptor is the table JSON of spec §2.3, with members in the order
// the Java serialiser writes them. Data types stay raw JSON: the emulator
// passes them through and reads only what it needs (typeInfo).
type tableDescriptor struct {
	Version          int          `json:"version"`
	Schema           schemaJSON   `json:"schema"`
	Comment          *string      `json:"comment,omitempty"`
	PartitionKey     []string     `json:"partition_key"`
	BucketKey        []string     `json:"bucket_key"`
	BucketCount      *int32       `json:"bucket_count,omitempty"`
	Properties       orderedProps `json:"properties"`
	CustomProperties orderedProps `json:"custom_properties"`
}

type schemaJSON struct {
	Version             int          `json:"version"`
	Columns             []columnJSON `json:"columns"`
	PrimaryKey          []string     `json:"primary_key,omitempty"`
	AutoIncrementColumn []string     `json:"auto_increment_column,omitempty"`
	HighestFieldID      *int32       `json:"highest_field_id,omitempty"`
}

type columnJSON struct {
	Name        string          `json:"name"`
	DataType    json.RawMessage `json:"data_type"`
	Comment     *string         `json:"comment,omitempty"`
	AggFunction json.RawMessage `json:"agg_function,omitempty"`
	ID          *int32          `json:"id,omitempty"`
}

// orderedProps is a string map written with sorted keys, so table JSON is
// stable across restarts (Java HashMap order carries no meaning).
type orderedProps map[string]string

func (p orderedProps) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(p[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// parseDescriptor decodes and validates a client's table JSON.
func parseDescriptor(raw []byte) (*tableDescriptor, error) {
	var d tableDescriptor
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&d); err != nil {
		return nil, ferr(codeInvalidTable, "table json: %v", err)
	}
	if len(d.Schema.Columns) == 0 {
		return nil, ferr(codeInvalidTable, "table json: schema has no columns")
	}
	names := map[string]int{}
	for i, c := range d.Schema.Columns {
		if c.Name == "" {
			return nil, ferr(codeInvalidTable, "table json: column %d has no name", i)
		}
		if _, dup := names[c.Name]; dup {
			return nil, ferr(codeInvalidTable, "table json: duplicate column %q", c.Name)
		}
		names[c.Name] = i
		if _, err := parseTypeJSON(c.DataType); err != nil {
			return nil, ferr(codeInvalidTable, "table json: column %q: %v", c.Name, err)
		}
	}
	check := func(what string, cols []string) error {
		for _, c := range cols {
			if _, ok := names[c]; !ok {
				return ferr(codeInvalidTable, "table json: %s column %q is not in the schema", what, c)
			}
		}
		return nil
	}
	for _, l := range []struct {
		what string
		cols []string
	}{{"primary key", d.Schema.PrimaryKey}, {"partition key", d.PartitionKey}, {"bucket key", d.BucketKey}} {
		if err := check(l.what, l.cols); err != nil {
			return nil, err
		}
	}
	if d.Properties == nil {
		d.Properties = orderedProps{}
	}
	if d.CustomProperties == nil {
		d.CustomProperties = orderedProps{}
	}
	if d.PartitionKey == nil {
		d.PartitionKey = []string{}
	}
	return &d, nil
}

// applySystemDefaults does what the coordinator does on creation (spec §2.3):
// column ids, bucket keys, bucket count, replication factor, the cluster's
// lake format, KV format version and standby flag for new PK tables.
func (d *tableDescriptor) applySystemDefaults(cfg *Config) error {
	for i := range d.Schema.Columns {
		if d.Schema.Columns[i].ID == nil {
			id := int32(i)
			d.Schema.Columns[i].ID = &id
		}
	}
	hi := int32(-1)
	for _, c := range d.Schema.Columns {
		if *c.ID > hi {
			hi = *c.ID
		}
	}
	d.Schema.HighestFieldID = &hi
	if d.Schema.Version == 0 {
		d.Schema.Version = 1
	}
	d.Version = 1
	phys := d.physicalPK()
	if len(d.BucketKey) == 0 && len(d.Schema.PrimaryKey) > 0 {
		d.BucketKey = phys
	}
	if d.BucketKey == nil {
		d.BucketKey = []string{}
	}
	if len(d.Schema.PrimaryKey) > 0 {
		in := map[string]bool{}
		for _, c := range phys {
			in[c] = true
		}
		for _, b := range d.BucketKey {
			if !in[b] {
				return ferr(codeInvalidTable, "bucket key %q must be part of the physical primary key %v", b, phys)
			}
		}
		for _, p := range d.PartitionKey {
			found := false
			for _, k := range d.Schema.PrimaryKey {
				found = found || k == p
			}
			if !found {
				return ferr(codeInvalidTable, "partition key %q of a primary-key table must be part of the primary key", p)
			}
		}
	}
	if d.BucketCount == nil {
		n := int32(cfg.DefaultBucketNumber)
		d.BucketCount = &n
	}
	if *d.BucketCount <= 0 || *d.BucketCount > 1024 {
		return ferr(codeInvalidTable, "bucket count %d outside [1, 1024]", *d.BucketCount)
	}
	if _, ok := d.Properties["table.replication.factor"]; !ok {
		d.Properties["table.replication.factor"] = "1"
	}
	if cfg.DatalakeFormat != "" {
		if _, ok := d.Properties["table.datalake.format"]; !ok {
			d.Properties["table.datalake.format"] = cfg.DatalakeFormat
		}
	}
	if len(d.Schema.PrimaryKey) > 0 {
		if _, ok := d.Properties["table.kv.format-version"]; !ok {
			d.Properties["table.kv.format-version"] = "2"
		}
		if _, ok := d.Properties["table.kv.standby-replica.enabled"]; !ok {
			d.Properties["table.kv.standby-replica.enabled"] = "true"
		}
		switch d.Properties["table.merge-engine"] {
		case "first_row", "versioned", "aggregation":
			if _, ok := d.Properties["table.delete.behavior"]; !ok {
				d.Properties["table.delete.behavior"] = "IGNORE"
			}
		}
	}
	if d.boolProp("table.auto-partition.enabled") && len(d.PartitionKey) > 1 {
		d.Properties["table.auto-partition.num-precreate"] = "0"
	}
	if f := d.Properties["table.log.format"]; f != "" {
		switch upper(f) {
		case "ARROW", "INDEXED", "COMPACTED":
		default:
			return ferr(codeInvalidConfig, "table.log.format %q is not ARROW, INDEXED or COMPACTED", f)
		}
	}
	if sc, ok := d.Properties["table.statistics.columns"]; ok {
		// As StatisticsConfigUtils.validateStatisticsConfig.
		if len(d.Schema.PrimaryKey) > 0 {
			return ferr(codeInvalidConfig, "statistics columns are not supported for primary key tables; remove 'table.statistics.columns'")
		}
		cols := make([]typemap.Column, len(d.Schema.Columns))
		for i, c := range d.Schema.Columns {
			ty, err := parseTypeJSON(c.DataType)
			if err != nil {
				return ferr(codeInvalidTable, "column %s: %v", c.Name, err)
			}
			cols[i] = typemap.Column{Name: c.Name, Type: ty}
		}
		if idx, err := record.StatisticsColumns(cols, sc); err != nil || len(idx) == 0 {
			if err == nil {
				err = fmt.Errorf("no column of a supported type")
			}
			return ferr(codeInvalidConfig, "table.statistics.columns %q: %v", sc, err)
		}
	}
	return nil
}

// physicalPK is the primary key without partition keys.
func (d *tableDescriptor) physicalPK() []string {
	part := map[string]bool{}
	for _, p := range d.PartitionKey {
		part[p] = true
	}
	var out []string
	for _, k := range d.Schema.PrimaryKey {
		if !part[k] {
			out = append(out, k)
		}
	}
	return out
}

func (d *tableDescriptor) columnIndex(name string) int {
	for i, c := range d.Schema.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func (d *tableDescriptor) marshal() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		// Every member is a plain value or already-validated raw JSON.
		return []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	return b
}

// schemaBytes is the schema JSON that GetTableSchema returns.
func (d *tableDescriptor) schemaBytes() []byte {
	b, _ := json.Marshal(d.Schema)
	return b
}

func (d *tableDescriptor) boolProp(key string) bool {
	v, _ := strconv.ParseBool(d.Properties[key])
	return v
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
