package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// ErrCorrupt marks a manifest or data file that cannot be decoded.
var ErrCorrupt = errors.New("corrupt internal catalog")

const manifestName = "manifest.json"

// manifestVersion changes when the format changes incompatibly. Version 2
// adds the commit log (LogGen, segments kept in a log file), load labels and
// commit sequences; a version 1 manifest is read as a version 2 one with an
// empty log.
const manifestVersion = 2

type manifest struct {
	Version int   `json:"version"`
	NextID  int64 `json:"next_id"`
	// NextTxn and NextSeq number load transactions and commits; Seq orders
	// the segments of a UNIQUE KEY table (the later commit wins).
	NextTxn int64 `json:"next_txn,omitempty"`
	NextSeq int64 `json:"next_seq,omitempty"`
	// LogGen names the commit log (wal/<LogGen>.log) whose records apply on
	// top of this manifest.
	LogGen    int64         `json:"log_gen,omitempty"`
	Databases []*dbManifest `json:"databases"`
}

type dbManifest struct {
	ID         int64             `json:"id"`
	Name       string            `json:"name"`
	CreatedMS  int64             `json:"created_ms"`
	Properties map[string]string `json:"properties,omitempty"`
	Tables     []*tableManifest  `json:"tables"`
	// Labels are the committed load labels of the database, oldest first,
	// bounded by maxLabels and labelKeep.
	Labels []labelInfo `json:"labels,omitempty"`
}

type labelInfo struct {
	Label string `json:"label"`
	Txn   int64  `json:"txn"`
	MS    int64  `json:"ms"`
}

type tableManifest struct {
	ID           int64             `json:"id"`
	Name         string            `json:"name"`
	CreatedMS    int64             `json:"created_ms"`
	Comment      string            `json:"comment,omitempty"`
	KeysType     string            `json:"keys_type,omitempty"`
	KeyColumns   []string          `json:"key_columns,omitempty"`
	Distribution string            `json:"distribution,omitempty"`
	Properties   map[string]string `json:"properties,omitempty"`
	Columns      []columnManifest  `json:"columns"`
	// ArrowSchema is the table's Arrow schema as an IPC stream with no
	// batches, so every Arrow type round-trips exactly.
	ArrowSchema []byte     `json:"arrow_schema"`
	NextFile    int64      `json:"next_file"`
	Files       []fileInfo `json:"files"`
	// Deletes are the DELETE predicates of a table without UNIQUE KEY, in
	// commit order; each applies to the segments committed before it.
	Deletes []deletePred `json:"deletes,omitempty"`
	// Stats are what the last ANALYZE TABLE computed (nil before one).
	Stats *catalog.TableStats `json:"stats,omitempty"`
	// StatsStored is the stored row count when Stats were computed: auto
	// analyze compares it with the current one (autoanalyze.go).
	StatsStored int64 `json:"stats_stored,omitempty"`
}

type columnManifest struct {
	Name     string  `json:"name"`
	TypeName string  `json:"type_name,omitempty"`
	Nullable bool    `json:"nullable"`
	Key      bool    `json:"key,omitempty"`
	Default  *string `json:"default,omitempty"`
	Comment  string  `json:"comment,omitempty"`
	Extra    string  `json:"extra,omitempty"`
}

type fileInfo struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
	// CRC32C is the CRC-32C (Castagnoli) of the whole file, checked before
	// the file is decoded; nil for files written before checksums, which
	// are read unchecked.
	CRC32C *uint32 `json:"crc32c,omitempty"`
	// Log: the bytes are the section [Offset, Offset+Bytes) of the commit
	// log wal/<Name> (a small load kept where it was committed).
	Log    bool  `json:"log,omitempty"`
	Offset int64 `json:"offset,omitempty"`
	// Seq is the commit that wrote the segment; Bucket its hash bucket
	// (UNIQUE KEY tables; 0 otherwise).
	Seq    int64 `json:"seq,omitempty"`
	Bucket int   `json:"bucket,omitempty"`
	// Delete: the segment's rows are tombstones for their keys.
	Delete bool `json:"delete,omitempty"`
	// Unique: no key occurs twice in the segment (a compaction output),
	// so a bucket made of it alone needs no merge.
	Unique bool `json:"unique,omitempty"`
	// Zones are the zone maps of the segment's record batches, in file
	// order (zone.go); nil for segments written before them.
	Zones []batchZone `json:"zones,omitempty"`
}

func encodeSchema(s *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeSchema(b []byte, mem memory.Allocator) (*arrow.Schema, error) {
	r, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

// schemaOf rebuilds the catalog schema of a table from its manifest entry.
func (t *tableManifest) schema(mem memory.Allocator) (catalog.Schema, error) {
	as, err := decodeSchema(t.ArrowSchema, mem)
	if err != nil {
		return catalog.Schema{}, fmt.Errorf("%w: table %s: arrow schema: %v", ErrCorrupt, t.Name, err)
	}
	if as.NumFields() != len(t.Columns) {
		return catalog.Schema{}, fmt.Errorf("%w: table %s: %d columns but arrow schema has %d fields", ErrCorrupt, t.Name, len(t.Columns), as.NumFields())
	}
	s := catalog.Schema{Columns: make([]catalog.Column, len(t.Columns))}
	for i, c := range t.Columns {
		s.Columns[i] = catalog.Column{
			Name: c.Name, Type: as.Field(i).Type, TypeName: c.TypeName, Nullable: c.Nullable,
			Key: c.Key, Default: c.Default, Comment: c.Comment, Extra: c.Extra,
		}
	}
	return s, nil
}

func readManifest(dir string) (*manifest, error) {
	p := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		// A first start has no manifest and no data. A manifest is written
		// before any data file is (CREATE DATABASE writes it), so data files
		// without one mean the manifest was lost: starting empty would
		// treat every table as an orphan and delete it.
		if f, ok := firstDataFile(filepath.Join(dir, "data")); ok {
			return nil, fmt.Errorf("%w: %s is missing but table data exists (%s); "+
				"refusing to start rather than delete it: restore the manifest, or move %s aside to start empty",
				ErrCorrupt, p, f, filepath.Join(dir, "data"))
		}
		return &manifest{Version: manifestVersion, NextID: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("internal catalog: read %s: %w", p, err)
	}
	return parseManifest(p, b, memory.NewGoAllocator())
}

// firstDataFile names a file under a table directory of dataDir, if any.
// Empty table directories (a CREATE TABLE that never committed) hold
// nothing to lose. It looks at one file per directory, so it is bounded by
// the number of tables.
func firstDataFile(dataDir string) (string, bool) {
	ents, err := os.ReadDir(dataDir)
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		if !e.IsDir() {
			return filepath.Join(dataDir, e.Name()), true
		}
		d, err := os.Open(filepath.Join(dataDir, e.Name()))
		if err != nil {
			return filepath.Join(dataDir, e.Name()), true // unreadable: do not assume empty
		}
		names, _ := d.Readdirnames(1)
		d.Close()
		if len(names) > 0 {
			return filepath.Join(dataDir, e.Name(), names[0]), true
		}
	}
	return "", false
}

// maxManifestBytes bounds the manifest we agree to decode.
const maxManifestBytes = 256 << 20

// parseManifest decodes and checks a manifest: pure, so it can be fuzzed.
// Every table's schema must decode and agree with its column list, names
// must be unique, and file names must be plain names.
func parseManifest(path string, b []byte, mem memory.Allocator) (*manifest, error) {
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes exceeds %d", ErrCorrupt, path, len(b), maxManifestBytes)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if m.Version == 1 {
		m.Version = manifestVersion
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%w: %s: version %d, this build reads %d", ErrCorrupt, path, m.Version, manifestVersion)
	}
	dbs := map[string]bool{}
	ids := map[int64]bool{}
	for _, d := range m.Databases {
		if d == nil || d.Name == "" || dbs[d.Name] || ids[d.ID] || d.ID <= 0 || d.ID >= m.NextID {
			return nil, fmt.Errorf("%w: %s: bad or duplicate database entry", ErrCorrupt, path)
		}
		dbs[d.Name], ids[d.ID] = true, true
		tables := map[string]bool{}
		for _, t := range d.Tables {
			if t == nil || t.Name == "" || tables[t.Name] || ids[t.ID] || t.ID <= 0 || t.ID >= m.NextID {
				return nil, fmt.Errorf("%w: %s: database %s: bad or duplicate table entry", ErrCorrupt, path, d.Name)
			}
			tables[t.Name], ids[t.ID] = true, true
			for _, f := range t.Files {
				if f.Name == "" || filepath.Base(f.Name) != f.Name || f.Name == "." || f.Name == ".." || f.Rows < 0 || f.Offset < 0 || f.Bytes < 0 || f.Bucket < 0 {
					return nil, fmt.Errorf("%w: %s: table %s: bad data file entry %q", ErrCorrupt, path, t.Name, f.Name)
				}
			}
			if _, err := t.schema(mem); err != nil {
				return nil, err
			}
		}
	}
	return &m, nil
}

// writeManifest replaces the manifest atomically.
func writeManifest(dir string, m *manifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, manifestName, b)
}

func writeFileAtomic(dir, name string, b []byte) error {
	tmp, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return fmt.Errorf("internal catalog: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("internal catalog: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("internal catalog: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("internal catalog: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
