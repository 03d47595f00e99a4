package writer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

var (
	// ErrTableExists is returned by CreateTable when schema-0 is already there.
	ErrTableExists = errors.New("paimon writer: table already exists")
	// ErrInvalid marks input the writer refuses (wrong columns, unsorted keys, ...).
	ErrInvalid = errors.New("paimon writer: invalid input")
)

// Options tune a Table writer. The zero value is usable.
type Options struct {
	// CommitUser is the snapshot's commitUser; default "inlet-writer".
	// The Fluss tiering service uses "__fluss_lake_tiering".
	CommitUser string
	// Now is the clock for snapshot and file times; default time.Now.
	Now func() time.Time
	// RowGroupRows caps the rows of one Parquet row group (the only data
	// a FileWriter buffers); default 131072.
	RowGroupRows int64
	// PageBytes is the Parquet data page size the writer aims at; 0:
	// arrow-go's default (1 MiB).
	PageBytes int64
}

func (o Options) withDefaults() Options {
	if o.CommitUser == "" {
		o.CommitUser = "inlet-writer"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RowGroupRows <= 0 {
		o.RowGroupRows = 128 << 10
	}
	return o
}

// CreateTable writes schema/schema-0 for s (id 0, version 3). Partition and
// primary keys must name fields; highestFieldId is computed. It returns
// ErrTableExists (wrapped) when the table already has a schema.
func CreateTable(ctx context.Context, fsys fileio.FS, path string, s *paimon.TableSchema, now time.Time) error {
	p := fileio.Join(path, "schema", "schema-0")
	if f, err := fsys.Open(ctx, p); err == nil {
		f.Close()
		return fmt.Errorf("%w: %s", ErrTableExists, path)
	} else if !fileio.IsNotExist(err) {
		return fmt.Errorf("paimon writer: table %s: %w", path, err)
	}
	cp := *s
	cp.ID, cp.Version, cp.TimeMillis = 0, 3, now.UnixMilli()
	if cp.PartitionKeys == nil {
		cp.PartitionKeys = []string{}
	}
	if cp.PrimaryKeys == nil {
		cp.PrimaryKeys = []string{}
	}
	if cp.Options == nil {
		cp.Options = map[string]string{}
	}
	hi := -1
	for _, f := range cp.Fields {
		hi = max(hi, maxFieldID(f))
	}
	cp.HighestFieldID = hi
	js, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return err
	}
	// Round-trip through the reader's parser: a schema it rejects is not written.
	if _, err := paimon.ParseSchema(js); err != nil {
		return fmt.Errorf("%w: table %s: %v", ErrInvalid, path, err)
	}
	return fileio.WriteFile(ctx, fsys, p, js)
}

func maxFieldID(f paimon.DataField) int {
	m := f.ID
	var walk func(t *paimon.DataType)
	walk = func(t *paimon.DataType) {
		if t == nil {
			return
		}
		for _, c := range t.Fields {
			m = max(m, c.ID)
			walk(&c.Type)
		}
		walk(t.Element)
		walk(t.Key)
		walk(t.Value)
	}
	walk(&f.Type)
	return m
}

// Table writes commits to one Paimon table. It remembers the state of the
// latest snapshot (live files, manifest metas, index entries) so commits
// need not re-read it.
type Table struct {
	fs     fileio.FS
	path   string
	pt     *paimon.Table
	schema *paimon.TableSchema
	mem    memory.Allocator
	opts   Options

	snap    *paimon.Snapshot
	metas   []paimon.ManifestFileMeta // base + delta of snap
	live    []paimon.ManifestEntry
	index   []paimon.IndexManifestEntry
	nextSeq map[string]int64
	total   int64

	uuid string
	n    int

	format  string // data files: "parquet" or "orc"
	orcOpts orc.WriterOptions
}

// Open prepares commits to the table at path (its latest schema and
// snapshot). mem is used for Parquet buffers; nil means a Go allocator.
func Open(ctx context.Context, fsys fileio.FS, path string, mem memory.Allocator, opts Options) (*Table, error) {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	pt, err := paimon.OpenTable(ctx, fsys, path)
	if err != nil {
		return nil, err
	}
	s, err := pt.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	if v, set := s.Options["manifest.format"]; set && !strings.EqualFold(strings.TrimSpace(v), "avro") {
		return nil, fmt.Errorf("%w: table %s: option manifest.format=%s (the writer writes avro only)", paimon.ErrUnsupported, path, v)
	}
	format := "parquet"
	var orcOpts orc.WriterOptions
	if v, set := s.Options["file.format"]; set {
		format = strings.ToLower(strings.TrimSpace(v))
	}
	switch format {
	case "parquet":
	case "orc":
		if orcOpts, err = orcOptions(s.Options, path); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: table %s: option file.format=%s (the writer writes parquet or orc)", paimon.ErrUnsupported, path, s.Options["file.format"])
	}
	if v := s.Options["deletion-vectors.bitmap64"]; strings.EqualFold(v, "true") {
		return nil, fmt.Errorf("%w: table %s: option deletion-vectors.bitmap64=true", paimon.ErrUnsupported, path)
	}
	t := &Table{fs: fsys, path: path, pt: pt, schema: s, mem: mem, opts: opts.withDefaults(), nextSeq: map[string]int64{},
		format: format, orcOpts: orcOpts}
	if err := t.load(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Table) load(ctx context.Context) error {
	id, err := t.pt.LatestSnapshotID(ctx)
	if err != nil {
		return err
	}
	t.snap, t.metas, t.live, t.index, t.total = nil, nil, nil, nil, 0
	t.nextSeq = map[string]int64{}
	if id == 0 {
		return nil
	}
	snap, err := t.pt.Snapshot(ctx, id)
	if err != nil {
		return err
	}
	for _, l := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		m, err := t.pt.ManifestList(ctx, l)
		if err != nil {
			return err
		}
		t.metas = append(t.metas, m...)
	}
	live, err := t.pt.LiveFiles(ctx, snap)
	if err != nil {
		return err
	}
	t.live = live
	for _, e := range live {
		k := bucketID(e.Partition, e.Bucket)
		if e.File.MaxSequenceNumber+1 > t.nextSeq[k] {
			t.nextSeq[k] = e.File.MaxSequenceNumber + 1
		}
		t.total += e.File.RowCount
	}
	if snap.IndexManifest != nil && *snap.IndexManifest != "" {
		if t.index, err = t.pt.IndexManifest(ctx, *snap.IndexManifest); err != nil {
			return err
		}
	}
	t.snap = snap
	return nil
}

// Path is the table directory.
func (t *Table) Path() string { return t.path }

// Schema is the schema new files are written with.
func (t *Table) Schema() *paimon.TableSchema { return t.schema }

// SnapshotID is the latest snapshot (0 when none).
func (t *Table) SnapshotID() int64 {
	if t.snap == nil {
		return 0
	}
	return t.snap.ID
}

// Reader is the lake/paimon table, for reading what was written.
func (t *Table) Reader() *paimon.Table { return t.pt }

// LiveFiles are the data files of the latest snapshot.
func (t *Table) LiveFiles() []paimon.ManifestEntry { return t.live }

func bucketID(part []byte, bucket int32) string {
	return hex.EncodeToString(part) + "/" + strconv.Itoa(int(bucket))
}

func (t *Table) isPK() bool { return len(t.schema.PrimaryKeys) > 0 }

// totalBuckets is the bucket option (-1 when unset: dynamic / unaware).
func (t *Table) totalBuckets() int32 {
	n, err := strconv.Atoi(t.schema.Options["bucket"])
	if err != nil {
		return -1
	}
	return int32(n)
}

// maxLevel is the top LSM level (num-levels - 1); compaction writes there.
func (t *Table) maxLevel() int32 {
	if v, err := strconv.Atoi(t.schema.Options["num-levels"]); err == nil && v > 1 {
		return int32(v - 1)
	}
	trig := 5
	if v, err := strconv.Atoi(t.schema.Options["num-sorted-run.compaction-trigger"]); err == nil && v > 0 {
		trig = v
	}
	return int32(trig)
}

func (t *Table) name(prefix, suffix string) string {
	if t.uuid == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			// crypto/rand does not fail on supported platforms; fall back to time.
			binaryTime := t.opts.Now().UnixNano()
			for i := range b {
				b[i] = byte(binaryTime >> (8 * (i % 8)))
			}
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		h := hex.EncodeToString(b[:])
		t.uuid = h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	s := prefix + "-" + t.uuid + "-" + strconv.Itoa(t.n) + suffix
	t.n++
	return s
}

func (t *Table) partitionTypes() []paimon.DataType {
	pf := t.schema.PartitionFields()
	out := make([]paimon.DataType, len(pf))
	for i, f := range pf {
		out[i] = f.Type
	}
	return out
}

// Commit collects the changes of one snapshot. Changes become visible only
// through Commit.Commit.
type Commit struct {
	t       *Table
	kind    string
	adds    []paimon.ManifestEntry
	dels    []paimon.ManifestEntry
	dvs     []paimon.IndexManifestEntry
	dropDV  map[string]bool // bucketID|file whose DV entries go away
	open    int
	nextSeq map[string]int64
	done    bool
}

// NewCommit starts a commit of kind APPEND (compactions turn it into COMPACT).
func (t *Table) NewCommit() *Commit {
	return &Commit{t: t, kind: "APPEND", dropDV: map[string]bool{}, nextSeq: map[string]int64{}}
}

func (c *Commit) seq(k string, n int64) int64 {
	s, ok := c.nextSeq[k]
	if !ok {
		s = c.t.nextSeq[k]
	}
	c.nextSeq[k] = s + n
	return s
}

// Commit writes the manifest, manifest lists, index manifest (when DVs
// changed), the snapshot with the given properties, then LATEST. An empty
// commit still writes a snapshot (Fluss commits empty rounds to record
// offsets). It returns the new snapshot id.
func (c *Commit) Commit(ctx context.Context, properties map[string]string) (int64, error) {
	t := c.t
	if c.done {
		return 0, fmt.Errorf("%w: table %s: commit already committed", ErrInvalid, t.path)
	}
	if c.open > 0 {
		return 0, fmt.Errorf("%w: table %s: %d file writers still open", ErrInvalid, t.path, c.open)
	}
	entries := append(append([]paimon.ManifestEntry{}, c.dels...), c.adds...)
	var delta []paimon.ManifestFileMeta
	var deltaRows int64
	if len(entries) > 0 {
		mb, err := paimon.EncodeManifestEntries(entries)
		if err != nil {
			return 0, err
		}
		mname := t.name("manifest", "")
		if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "manifest", mname), mb); err != nil {
			return 0, err
		}
		meta, err := t.manifestMeta(mname, int64(len(mb)), entries)
		if err != nil {
			return 0, err
		}
		delta = append(delta, meta)
	}
	for _, e := range c.adds {
		deltaRows += e.File.RowCount
	}
	for _, e := range c.dels {
		deltaRows -= e.File.RowCount
	}
	baseName, deltaName := t.name("manifest-list", ""), t.name("manifest-list", "")
	bb, err := paimon.EncodeManifestList(t.metas)
	if err != nil {
		return 0, err
	}
	db, err := paimon.EncodeManifestList(delta)
	if err != nil {
		return 0, err
	}
	if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "manifest", baseName), bb); err != nil {
		return 0, err
	}
	if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "manifest", deltaName), db); err != nil {
		return 0, err
	}
	index := t.index
	var indexName *string
	if t.snap != nil {
		indexName = t.snap.IndexManifest
	}
	if len(c.dvs) > 0 || len(c.dropDV) > 0 {
		index = c.nextIndex()
		if len(index) > 0 {
			ib, err := paimon.EncodeIndexManifest(index)
			if err != nil {
				return 0, err
			}
			n := t.name("index-manifest", "")
			if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "manifest", n), ib); err != nil {
				return 0, err
			}
			indexName = &n
		} else {
			indexName = nil
		}
	}
	id := int64(1)
	if t.snap != nil {
		id = t.snap.ID + 1
	}
	total := t.total + deltaRows
	bs, ds := int64(len(bb)), int64(len(db))
	zero := int64(0)
	snap := paimon.Snapshot{Version: 3, ID: id, SchemaID: t.schema.ID, BaseManifestList: baseName, BaseManifestListSize: &bs,
		DeltaManifestList: deltaName, DeltaManifestListSize: &ds, IndexManifest: indexName, CommitUser: t.opts.CommitUser,
		CommitIdentifier: math.MaxInt64, CommitKind: c.kind, TimeMillis: t.opts.Now().UnixMilli(),
		TotalRecordCount: &total, DeltaRecordCount: &deltaRows, ChangelogRecordCount: &zero, NextRowID: &zero}
	if len(properties) > 0 {
		snap.Properties = properties
	}
	js, err := json.MarshalIndent(&snap, "", "  ")
	if err != nil {
		return 0, err
	}
	sp := fileio.Join(t.path, "snapshot", "snapshot-"+strconv.FormatInt(id, 10))
	if f, err := t.fs.Open(ctx, sp); err == nil {
		f.Close()
		return 0, fmt.Errorf("paimon writer: table %s: snapshot %d was committed by another writer", t.path, id)
	}
	if err := fileio.WriteFile(ctx, t.fs, sp, js); err != nil {
		return 0, err
	}
	if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "snapshot", "LATEST"), []byte(strconv.FormatInt(id, 10))); err != nil {
		return 0, err
	}
	c.done = true
	// Advance the in-memory state to the new snapshot.
	t.metas = append(t.metas, delta...)
	gone := map[string]bool{}
	for _, e := range c.dels {
		gone[fileIdentity(e)] = true
	}
	live := t.live[:0:0]
	for _, e := range t.live {
		if !gone[fileIdentity(e)] {
			live = append(live, e)
		}
	}
	t.live = append(live, c.adds...)
	for k, v := range c.nextSeq {
		t.nextSeq[k] = v
	}
	t.index = index
	t.total = total
	t.snap = &snap
	return id, nil
}

func fileIdentity(e paimon.ManifestEntry) string {
	return bucketID(e.Partition, e.Bucket) + "|" + strconv.Itoa(int(e.File.Level)) + "|" + e.File.FileName
}

func (c *Commit) nextIndex() []paimon.IndexManifestEntry {
	var out []paimon.IndexManifestEntry
	for _, e := range c.t.index {
		if e.IndexType != "DELETION_VECTORS" || e.DVRanges == nil {
			out = append(out, e)
			continue
		}
		var keep []*paimon.DVRange
		for _, r := range *e.DVRanges {
			if r != nil && !c.dropDV[bucketID(e.Partition, e.Bucket)+"|"+r.DataFile] {
				keep = append(keep, r)
			}
		}
		if len(keep) == len(*e.DVRanges) {
			out = append(out, e)
		} else if len(keep) > 0 {
			// Java rewrites the bucket's index file; pointing the kept
			// ranges at the old file is equivalent for readers.
			e.DVRanges = &keep
			e.RowCount = int64(len(keep))
			out = append(out, e)
		}
	}
	return append(out, c.dvs...)
}

// manifestMeta summarises a written manifest as Java's ManifestEntryWriter
// does: ADD/DELETE counts, partition stats over every partition column,
// bucket and level ranges, max schema id.
func (t *Table) manifestMeta(name string, size int64, entries []paimon.ManifestEntry) (paimon.ManifestFileMeta, error) {
	m := paimon.ManifestFileMeta{FileName: name, FileSize: size, SchemaID: t.schema.ID}
	types := t.partitionTypes()
	ps := newStatsAcc(types, false)
	var minB, maxB, minL, maxL int32
	for i, e := range entries {
		if e.Kind == paimon.FileKindAdd {
			m.NumAddedFiles++
		} else {
			m.NumDeletedFiles++
		}
		if e.File.SchemaID > m.SchemaID {
			m.SchemaID = e.File.SchemaID
		}
		if i == 0 {
			minB, maxB, minL, maxL = e.Bucket, e.Bucket, e.File.Level, e.File.Level
		}
		minB, maxB = min(minB, e.Bucket), max(maxB, e.Bucket)
		minL, maxL = min(minL, e.File.Level), max(maxL, e.File.Level)
		vals, err := paimon.DeserializeRow(e.Partition, types)
		if err != nil {
			return m, fmt.Errorf("paimon writer: table %s: partition of %s: %w", t.path, e.File.FileName, err)
		}
		ps.add(vals)
	}
	st, err := ps.stats()
	if err != nil {
		return m, err
	}
	m.PartitionStats = st
	m.MinBucket, m.MaxBucket, m.MinLevel, m.MaxLevel = &minB, &maxB, &minL, &maxL
	return m, nil
}
