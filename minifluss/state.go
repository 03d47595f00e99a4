package minifluss

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// catalogState is everything the coordinator knows, persisted as meta.json in
// the data directory. Bucket data lives in per-bucket directories (logstore,
// kvstore) and is found again from the ids kept here.
type catalogState struct {
	NextTableID     int64                `json:"next_table_id"`
	NextPartitionID int64                `json:"next_partition_id"`
	Databases       map[string]*database `json:"databases"`
}

type database struct {
	Name     string            `json:"name"`
	JSON     json.RawMessage   `json:"json,omitempty"`
	Created  int64             `json:"created"`
	Modified int64             `json:"modified"`
	Tables   map[string]*table `json:"tables"`
}

type table struct {
	ID         int64                `json:"id"`
	DB         string               `json:"db"`
	Name       string               `json:"name"`
	SchemaID   int32                `json:"schema_id"`
	Desc       *tableDescriptor     `json:"desc"`
	Created    int64                `json:"created"`
	Modified   int64                `json:"modified"`
	Partitions map[int64]*partition `json:"partitions,omitempty"`
	// Leaders of the buckets of a non-partitioned table (index = bucket).
	Leaders []bucketLeader `json:"leaders,omitempty"`
	// Lake is the tiering hook: the latest lake snapshot recorded for the table.
	Lake *lakeSnapshot `json:"lake,omitempty"`
	// Schemas holds the schema JSON of every earlier schema id (ALTER TABLE
	// ADD COLUMN); the current one is Desc.Schema under SchemaID.
	Schemas map[int32]json.RawMessage `json:"schemas,omitempty"`

	types    []typemap.DataType           // parsed column types, rebuilt on load
	oldTypes map[int16][]typemap.DataType // parsed Schemas, built on use
	keyRules *record.TableKeys            // built on first write
}

type partition struct {
	ID      int64          `json:"id"`
	Name    string         `json:"name"`
	Spec    [][2]string    `json:"spec"` // (key, value) in partition-key order
	Leaders []bucketLeader `json:"leaders"`
}

type bucketLeader struct {
	Leader int32 `json:"leader"`
	Epoch  int32 `json:"epoch"`
}

// lakeSnapshot is what GetLakeSnapshot answers: a lake snapshot id and, per
// (partition, bucket), the exclusive end offset of the Fluss log it holds.
type lakeSnapshot struct {
	SnapshotID int64            `json:"snapshot_id"`
	Readable   *int64           `json:"readable_snapshot_id,omitempty"`
	Offsets    []lakeBucketOffs `json:"offsets"`
	// ReadableOffsets, when set, are the offsets of the readable snapshot
	// (tiering can publish a latest snapshot that is not readable yet).
	ReadableOffsets []lakeBucketOffs `json:"readable_offsets,omitempty"`
}

type lakeBucketOffs struct {
	PartitionID *int64 `json:"partition_id,omitempty"`
	Bucket      int32  `json:"bucket"`
	LogOffset   int64  `json:"log_offset"`
	// PartitionName is kept so dropped (lake-only) partitions still answer it.
	PartitionName string `json:"partition_name,omitempty"`
}

func (t *table) path() string      { return t.DB + "." + t.Name }
func (t *table) isPK() bool        { return len(t.Desc.Schema.PrimaryKey) > 0 }
func (t *table) partitioned() bool { return len(t.Desc.PartitionKey) > 0 }
func (t *table) buckets() int32    { return *t.Desc.BucketCount }
func (t *table) lakeEnabled() bool { return t.Desc.boolProp("table.datalake.enabled") }
func (t *table) logFormat() string {
	f := upper(t.Desc.Properties["table.log.format"])
	if f == "" {
		return "ARROW"
	}
	return f
}

func (t *table) bindTypes() error {
	t.types = t.types[:0]
	for _, c := range t.Desc.Schema.Columns {
		ti, err := parseTypeJSON(c.DataType)
		if err != nil {
			return fmt.Errorf("table %s column %s: %w", t.path(), c.Name, err)
		}
		t.types = append(t.types, ti)
	}
	return nil
}

// leaders returns the leader slice for a (partition, bucket) owner, or an error
// naming what is missing.
func (t *table) leadersFor(partID *int64) ([]bucketLeader, *partition, error) {
	if !t.partitioned() {
		if partID != nil {
			return nil, nil, ferr(codeTableNotPartitioned, "table %s is not partitioned but partition id %d was given", t.path(), *partID)
		}
		return t.Leaders, nil, nil
	}
	if partID == nil {
		return nil, nil, ferr(codePartitionNotExists, "table %s is partitioned: a partition id is required", t.path())
	}
	p, ok := t.Partitions[*partID]
	if !ok {
		return nil, nil, ferr(codePartitionNotExists, "table %s has no partition id %d", t.path(), *partID)
	}
	return p.Leaders, p, nil
}

func (t *table) partitionByName(name string) *partition {
	for _, p := range t.Partitions {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (t *table) sortedPartitions() []*partition {
	return sortedValues(t.Partitions, func(a, b *partition) int { return cmp.Compare(a.ID, b.ID) })
}

func (s *catalogState) sortedDatabases() []*database {
	return sortedValues(s.Databases, func(a, b *database) int { return strings.Compare(a.Name, b.Name) })
}

func (d *database) sortedTables() []*table {
	return sortedValues(d.Tables, func(a, b *table) int { return strings.Compare(a.Name, b.Name) })
}

// sortedValues lists a map's values in the order compare gives: listings and
// persisted state must not follow Go's random map order.
func sortedValues[K comparable, V any](m map[K]V, compare func(a, b V) int) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, compare)
	return out
}

func (s *catalogState) tableByID(id int64) *table {
	for _, d := range s.Databases {
		for _, t := range d.Tables {
			if t.ID == id {
				return t
			}
		}
	}
	return nil
}

func (s *catalogState) lookup(db, name string) (*table, error) {
	d, ok := s.Databases[db]
	if !ok {
		return nil, ferr(codeDatabaseNotExist, "database %s does not exist", db)
	}
	t, ok := d.Tables[name]
	if !ok {
		return nil, ferr(codeTableNotExist, "table %s.%s does not exist", db, name)
	}
	return t, nil
}

// validName follows TablePath.detectInvalidName: 1-200 chars of [A-Za-z0-9_-],
// not "." or "..".
func validName(kind, s string) error {
	if s == "" || len(s) > 200 || s == "." || s == ".." {
		return fmt.Errorf("%s name %q must be 1-200 characters, not a dot or two dots", kind, s)
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Errorf("%s name %q contains %q; only [A-Za-z0-9_-] is allowed", kind, s, c)
		}
	}
	return nil
}

func loadCatalog(dir string) (*catalogState, error) {
	st := &catalogState{NextTableID: 1, NextPartitionID: 1, Databases: map[string]*database{}}
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("minifluss: %s: %v", filepath.Join(dir, "meta.json"), err)
	}
	for _, d := range st.Databases {
		if d.Tables == nil {
			d.Tables = map[string]*table{}
		}
		for _, t := range d.Tables {
			if t.Partitions == nil {
				t.Partitions = map[int64]*partition{}
			}
			if err := t.bindTypes(); err != nil {
				return nil, fmt.Errorf("minifluss: %s: %w", filepath.Join(dir, "meta.json"), err)
			}
		}
	}
	return st, nil
}

// save writes meta.json atomically (temp file + rename).
func (s *catalogState) save(dir string) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "meta.json.tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "meta.json"))
}

// partitionName joins partition values with '$' (spec §8).
func partitionName(values []string) string { return strings.Join(values, "$") }
