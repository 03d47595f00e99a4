package paimon

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/fileio"
)

// TableSchema is one schema/schema-N version.
type TableSchema struct {
	Version        int               `json:"version"`
	ID             int64             `json:"id"`
	Fields         []DataField       `json:"fields"`
	HighestFieldID int               `json:"highestFieldId"`
	PartitionKeys  []string          `json:"partitionKeys"`
	PrimaryKeys    []string          `json:"primaryKeys"`
	Options        map[string]string `json:"options"`
	Comment        string            `json:"comment,omitempty"`
	TimeMillis     int64             `json:"timeMillis"`
}

// ParseSchema decodes a schema file and applies legacy defaults.
func ParseSchema(b []byte) (*TableSchema, error) {
	var s TableSchema
	s.Version = 1
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrCorrupt, err)
	}
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	if s.Version <= 1 {
		if _, ok := s.Options["bucket"]; !ok {
			s.Options["bucket"] = "1"
		}
	}
	if s.Version <= 2 {
		if _, ok := s.Options["file.format"]; !ok {
			s.Options["file.format"] = "orc"
		}
	}
	seen := map[string]bool{}
	for _, f := range s.Fields {
		if seen[f.Name] {
			return nil, fmt.Errorf("%w: schema %d: duplicate column %q", ErrCorrupt, s.ID, f.Name)
		}
		seen[f.Name] = true
	}
	for _, k := range append(append([]string{}, s.PartitionKeys...), s.PrimaryKeys...) {
		if !seen[k] {
			return nil, fmt.Errorf("%w: schema %d: key column %q is not a column", ErrCorrupt, s.ID, k)
		}
	}
	return &s, nil
}

// Field returns the field named name.
func (s *TableSchema) Field(name string) (DataField, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return DataField{}, false
}

func (s *TableSchema) fieldsNamed(names []string) []DataField {
	out := make([]DataField, 0, len(names))
	for _, n := range names {
		f, _ := s.Field(n)
		out = append(out, f)
	}
	return out
}

// PartitionFields are the partition columns in key order.
func (s *TableSchema) PartitionFields() []DataField { return s.fieldsNamed(s.PartitionKeys) }

// TrimmedPrimaryKeys are the primary-key columns that are not partition keys:
// the columns of _MIN_KEY/_MAX_KEY and of _KEY_* in data files.
func (s *TableSchema) TrimmedPrimaryKeys() []DataField {
	part := map[string]bool{}
	for _, p := range s.PartitionKeys {
		part[p] = true
	}
	var out []DataField
	for _, f := range s.fieldsNamed(s.PrimaryKeys) {
		if !part[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// Snapshot is one snapshot/snapshot-N file. Unknown keys are ignored and
// every key added after Paimon 0.9 is optional.
type Snapshot struct {
	Version               int               `json:"version"`
	ID                    int64             `json:"id"`
	SchemaID              int64             `json:"schemaId"`
	BaseManifestList      string            `json:"baseManifestList"`
	BaseManifestListSize  *int64            `json:"baseManifestListSize,omitempty"`
	DeltaManifestList     string            `json:"deltaManifestList"`
	DeltaManifestListSize *int64            `json:"deltaManifestListSize,omitempty"`
	ChangelogManifestList *string           `json:"changelogManifestList"`
	IndexManifest         *string           `json:"indexManifest,omitempty"`
	CommitUser            string            `json:"commitUser"`
	CommitIdentifier      int64             `json:"commitIdentifier"`
	CommitKind            string            `json:"commitKind"`
	TimeMillis            int64             `json:"timeMillis"`
	LogOffsets            map[string]int64  `json:"logOffsets,omitempty"`
	TotalRecordCount      *int64            `json:"totalRecordCount"`
	DeltaRecordCount      *int64            `json:"deltaRecordCount"`
	ChangelogRecordCount  *int64            `json:"changelogRecordCount,omitempty"`
	Watermark             *int64            `json:"watermark,omitempty"`
	Statistics            *string           `json:"statistics,omitempty"`
	Properties            map[string]string `json:"properties,omitempty"`
	NextRowID             *int64            `json:"nextRowId,omitempty"`
}

// ParseSnapshot decodes a snapshot file.
func ParseSnapshot(b []byte) (*Snapshot, error) {
	var s Snapshot
	s.Version = 1
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: snapshot: %v", ErrCorrupt, err)
	}
	if s.BaseManifestList == "" || s.DeltaManifestList == "" {
		return nil, fmt.Errorf("%w: snapshot %d: missing manifest list", ErrCorrupt, s.ID)
	}
	for _, n := range []string{s.BaseManifestList, s.DeltaManifestList} {
		if strings.ContainsAny(n, "/\\") {
			return nil, fmt.Errorf("%w: snapshot %d: manifest list name %q", ErrCorrupt, s.ID, n)
		}
	}
	return &s, nil
}

// Table is a Paimon table directory. It caches nothing that can change: each
// call re-reads the metadata it needs, so a Table is safe for concurrent use.
type Table struct {
	fs   fileio.FS
	path string
	name string
}

// OpenTable opens the table at path (a directory such as
// /wh/db.db/t or s3://bucket/wh/db.db/t). It checks that a schema exists.
func OpenTable(ctx context.Context, fsys fileio.FS, path string) (*Table, error) {
	t := &Table{fs: fsys, path: strings.TrimRight(path, "/"), name: path}
	if _, err := t.LatestSchema(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// OpenTableInWarehouse opens warehouse/<db>.db/<table>.
func OpenTableInWarehouse(ctx context.Context, fsys fileio.FS, warehouse, db, table string) (*Table, error) {
	t, err := OpenTable(ctx, fsys, fileio.Join(warehouse, db+".db", table))
	if err != nil {
		return nil, err
	}
	t.name = db + "." + table
	return t, nil
}

// Path returns the table directory.
func (t *Table) Path() string { return t.path }

// FS returns the file system the table is read through.
func (t *Table) FS() fileio.FS { return t.fs }

func (t *Table) read(ctx context.Context, elems ...string) ([]byte, error) {
	return fileio.ReadAll(ctx, t.fs, fileio.Join(t.path, elems...))
}

// listIDs lists dir for files named prefix<N> and returns the ids sorted.
func (t *Table) listIDs(ctx context.Context, dir, prefix string) ([]int64, error) {
	l, ok := t.fs.(fileio.Lister)
	if !ok {
		return nil, fmt.Errorf("%w: table %s: file system cannot list %s", ErrUnsupported, t.name, dir)
	}
	ents, err := l.List(ctx, fileio.Join(t.path, dir))
	if err != nil {
		return nil, fmt.Errorf("table %s: list %s: %w", t.name, dir, err)
	}
	var ids []int64
	for _, e := range ents {
		if e.IsDir || !strings.HasPrefix(e.Name, prefix) {
			continue
		}
		if id, err := strconv.ParseInt(e.Name[len(prefix):], 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// Schema reads schema-<id>.
func (t *Table) Schema(ctx context.Context, id int64) (*TableSchema, error) {
	b, err := t.read(ctx, "schema", "schema-"+strconv.FormatInt(id, 10))
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, fmt.Errorf("%w: table %s: schema %d", ErrNotFound, t.name, id)
		}
		return nil, fmt.Errorf("table %s: schema %d: %w", t.name, id, err)
	}
	s, err := ParseSchema(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: schema-%d: %w", t.name, id, err)
	}
	return s, nil
}

// LatestSchema reads the schema with the highest id.
func (t *Table) LatestSchema(ctx context.Context) (*TableSchema, error) {
	ids, err := t.listIDs(ctx, "schema", "schema-")
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: table %s: no schema at %s", ErrNotFound, t.name, t.path)
	}
	return t.Schema(ctx, ids[len(ids)-1])
}

// Snapshot reads snapshot-<id>.
func (t *Table) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	b, err := t.read(ctx, "snapshot", "snapshot-"+strconv.FormatInt(id, 10))
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, fmt.Errorf("%w: table %s: snapshot %d", ErrNotFound, t.name, id)
		}
		return nil, fmt.Errorf("table %s: snapshot %d: %w", t.name, id, err)
	}
	s, err := ParseSnapshot(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: snapshot-%d: %w", t.name, id, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("%w: table %s: snapshot-%d says id %d", ErrCorrupt, t.name, id, s.ID)
	}
	return s, nil
}

func (t *Table) exists(ctx context.Context, elems ...string) bool {
	f, err := t.fs.Open(ctx, fileio.Join(t.path, elems...))
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// LatestSnapshotID returns the newest snapshot id, or 0 when the table has
// no snapshot. The LATEST hint is trusted only if snapshot-(hint+1) does not
// exist; otherwise the snapshot directory is listed.
func (t *Table) LatestSnapshotID(ctx context.Context) (int64, error) {
	if b, err := t.read(ctx, "snapshot", "LATEST"); err == nil {
		if h, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && h > 0 &&
			t.exists(ctx, "snapshot", "snapshot-"+strconv.FormatInt(h, 10)) &&
			!t.exists(ctx, "snapshot", "snapshot-"+strconv.FormatInt(h+1, 10)) {
			return h, nil
		}
	}
	ids, err := t.listIDs(ctx, "snapshot", "snapshot-")
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[len(ids)-1], nil
}

// EarliestSnapshotID returns the oldest snapshot id (0 when none), using the
// EARLIEST hint when the snapshot it names exists.
func (t *Table) EarliestSnapshotID(ctx context.Context) (int64, error) {
	if b, err := t.read(ctx, "snapshot", "EARLIEST"); err == nil {
		if h, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && h > 0 &&
			t.exists(ctx, "snapshot", "snapshot-"+strconv.FormatInt(h, 10)) {
			return h, nil
		}
	}
	ids, err := t.listIDs(ctx, "snapshot", "snapshot-")
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// ManifestList reads a manifest list by file name.
func (t *Table) ManifestList(ctx context.Context, name string) ([]ManifestFileMeta, error) {
	b, err := t.read(ctx, "manifest", name)
	if err != nil {
		return nil, fmt.Errorf("table %s: manifest list %s: %w", t.name, name, err)
	}
	l, err := t.decodeManifestList(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: manifest list %s: %w", t.name, name, err)
	}
	return l, nil
}

// Manifest reads a manifest file by name.
func (t *Table) Manifest(ctx context.Context, name string) ([]ManifestEntry, error) {
	b, err := t.read(ctx, "manifest", name)
	if err != nil {
		return nil, fmt.Errorf("table %s: manifest %s: %w", t.name, name, err)
	}
	l, err := t.decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: manifest %s: %w", t.name, name, err)
	}
	return l, nil
}

// IndexManifest reads an index manifest by name.
func (t *Table) IndexManifest(ctx context.Context, name string) ([]IndexManifestEntry, error) {
	b, err := t.read(ctx, "manifest", name)
	if err != nil {
		return nil, fmt.Errorf("table %s: index manifest %s: %w", t.name, name, err)
	}
	l, err := t.decodeIndexManifest(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: index manifest %s: %w", t.name, name, err)
	}
	return l, nil
}

// LiveFiles computes the live data files of a snapshot: ADD entries of the
// base and delta manifest lists whose identity (partition, bucket, level,
// name, extra files, embedded index, external path) has no DELETE.
func (t *Table) LiveFiles(ctx context.Context, snap *Snapshot) ([]ManifestEntry, error) {
	live, _, err := t.liveFiles(ctx, snap, nil)
	return live, err
}

// liveFiles is LiveFiles reading only the manifests keep accepts. Skipping
// is sound only when every entry of a skipped manifest (ADD or DELETE) would
// also be dropped by the caller's per-entry filters: then a DELETE not seen
// only leaves an ADD alive that the caller discards anyway.
func (t *Table) liveFiles(ctx context.Context, snap *Snapshot, keep func(*ManifestFileMeta) bool) ([]ManifestEntry, int, error) {
	var metas []ManifestFileMeta
	for _, l := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		m, err := t.ManifestList(ctx, l)
		if err != nil {
			return nil, 0, err
		}
		metas = append(metas, m...)
	}
	skipped := 0
	deleted := map[string]bool{}
	var adds []ManifestEntry
	for i := range metas {
		m := &metas[i]
		if keep != nil && !keep(m) {
			skipped++
			continue
		}
		ents, err := t.Manifest(ctx, m.FileName)
		if err != nil {
			return nil, 0, err
		}
		for _, e := range ents {
			if e.Kind == FileKindDelete {
				deleted[e.identity()] = true
			} else {
				adds = append(adds, e)
			}
		}
	}
	seen := map[string]bool{}
	live := adds[:0]
	for _, e := range adds {
		id := e.identity()
		if deleted[id] {
			continue
		}
		if seen[id] {
			return nil, 0, fmt.Errorf("%w: table %s snapshot %d: file %s added twice", ErrCorrupt, t.name, snap.ID, e.File.FileName)
		}
		seen[id] = true
		live = append(live, e)
	}
	return live, skipped, nil
}
