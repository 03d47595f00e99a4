package iceberg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// Table is one Iceberg table pinned to one metadata file. It is immutable:
// a newer commit is seen by opening the table again.
type Table struct {
	// Name names the table in errors (db.table, or the location).
	Name     string
	fs       fileio.FS
	rel      relocator
	tbl      *table.Table
	metaPath string
	dir      string
}

// Open reads the table whose metadata file is at metadataLocation.
func Open(ctx context.Context, fsys fileio.FS, metadataLocation string) (*Table, error) {
	return open(ctx, fsys, metadataLocation, "")
}

// OpenDir reads a table of a Hadoop (filesystem) catalog: dir holds
// metadata/v<N>.metadata.json, the highest N (or the one version-hint.text
// names, when that file exists) is current. The directory is the table's
// location: metadata recording another location (a table copied or moved
// with its files) is read relative to dir.
func OpenDir(ctx context.Context, fsys fileio.FS, dir string) (*Table, error) {
	dir = strings.TrimRight(dir, "/")
	meta, err := currentMetadata(ctx, fsys, dir)
	if err != nil {
		return nil, err
	}
	return open(ctx, fsys, meta, dir)
}

// OpenIn reads the metadata file metadataLocation of the table whose
// directory is dir, as OpenDir found it: a reader opens exactly the file
// the planner read, with the same relocation.
func OpenIn(ctx context.Context, fsys fileio.FS, metadataLocation, dir string) (*Table, error) {
	return open(ctx, fsys, metadataLocation, strings.TrimRight(dir, "/"))
}

var versionFile = regexp.MustCompile(`^v(\d+)(\.gz)?\.metadata\.json$|^(\d+)-[^/]*\.metadata\.json$`)

func currentMetadata(ctx context.Context, fsys fileio.FS, dir string) (string, error) {
	mdir := fileio.Join(dir, "metadata")
	if b, err := fileio.ReadAll(ctx, fsys, fileio.Join(mdir, "version-hint.text")); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			p := fileio.Join(mdir, fmt.Sprintf("v%d.metadata.json", n))
			if f, err := fsys.Open(ctx, p); err == nil {
				f.Close()
				return p, nil
			}
		}
	}
	l, ok := fsys.(fileio.Lister)
	if !ok {
		return "", fmt.Errorf("%w: Iceberg table %s: the file system cannot list its metadata directory", ErrUnsupported, dir)
	}
	ents, err := l.List(ctx, mdir)
	if err != nil {
		if fileio.IsNotExist(err) {
			return "", fmt.Errorf("%w: no Iceberg table at %s", ErrNotFound, dir)
		}
		return "", fmt.Errorf("iceberg table %s: %w", dir, err)
	}
	best, bestN := "", -1
	for _, e := range ents {
		m := versionFile.FindStringSubmatch(e.Name)
		if e.IsDir || m == nil {
			continue
		}
		digits := m[1]
		if digits == "" {
			digits = m[3]
		}
		n, err := strconv.Atoi(digits)
		if err == nil && n > bestN {
			best, bestN = e.Path, n
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w: no Iceberg table at %s (no metadata file)", ErrNotFound, dir)
	}
	return best, nil
}

// IsTableDir reports whether dir looks like an Iceberg table of a Hadoop
// catalog (a metadata directory holding a metadata file).
func IsTableDir(ctx context.Context, fsys fileio.FS, dir string) bool {
	_, err := currentMetadata(ctx, fsys, dir)
	return err == nil
}

func open(ctx context.Context, fsys fileio.FS, metaPath, dir string) (*Table, error) {
	t := &Table{Name: metaPath, fs: fsys, metaPath: metaPath, dir: dir}
	if dir != "" {
		t.Name = dir
	}
	// The adapter keeps the context of the first open for later metadata
	// reads: planning passes its own (see Plan).
	io0 := &ioAdapter{ctx: ctx, fsys: fsys}
	tbl, err := table.NewFromLocation(ctx, table.Identifier{t.Name}, metaPath,
		func(context.Context) (icebergio.IO, error) { return io0, nil }, nil)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, fmt.Errorf("%w: Iceberg metadata %s", ErrNotFound, metaPath)
		}
		return nil, fmt.Errorf("%w: Iceberg metadata %s: %v", ErrCorrupt, metaPath, err)
	}
	if dir != "" {
		loc := strings.TrimRight(tbl.Location(), "/")
		if loc != dir && strings.TrimPrefix(loc, "file:") != dir && strings.TrimPrefix(loc, "file://") != dir {
			t.rel = relocator{from: loc, to: dir}
		}
	}
	t.tbl = tbl
	if v := tbl.Metadata().Version(); v > 3 {
		return nil, fmt.Errorf("%w: Iceberg table %s: format version %d", ErrUnsupported, t.Name, v)
	}
	return t, nil
}

// io is the iceberg-go file IO of one planning call.
func (t *Table) io(ctx context.Context) table.FSysF {
	a := &ioAdapter{ctx: ctx, fsys: t.fs, rel: t.rel}
	return func(context.Context) (icebergio.IO, error) { return a, nil }
}

// pinned is the table with the file IO of ctx, for planning snap: the
// delete manifests its manifest list names are read as delete manifests
// even when their own metadata does not say so (see contentPatched).
func (t *Table) pinned(ctx context.Context, snap *table.Snapshot) (*table.Table, error) {
	a := &ioAdapter{ctx: ctx, fsys: t.fs, rel: t.rel}
	if snap != nil && snap.ManifestList != "" && t.tbl.Metadata().Version() >= 2 {
		// Format v1 has no delete files. The scan opens the list again:
		// the adapter serves it from the bytes read here, or kept from
		// an earlier plan of the same snapshot (see mlCache).
		loc := t.rel.apply(snap.ManifestList)
		e, ok := manifestLists.get(loc)
		if !ok {
			b, err := a.ReadFile(snap.ManifestList)
			if err != nil {
				return nil, err
			}
			mfs, err := iceberg.ReadManifestList(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			e = &mlEntry{b: b}
			for _, m := range mfs {
				if m.ManifestContent() == iceberg.ManifestContentDeletes {
					if e.deletes == nil {
						e.deletes = map[string]bool{}
					}
					e.deletes[m.FilePath()] = true
				}
			}
			manifestLists.put(loc, e)
		}
		// Shared, never written: the adapter only reads both.
		a.held = map[string][]byte{snap.ManifestList: e.b}
		a.deletes = e.deletes
	}
	return table.New(t.tbl.Identifier(), t.tbl.Metadata(), t.metaPath, func(context.Context) (icebergio.IO, error) { return a, nil }, nil), nil
}

// Dir is the table directory given to OpenDir or OpenIn, "" otherwise.
func (t *Table) Dir() string { return t.dir }

// MetadataLocation is the metadata file the table was read from.
func (t *Table) MetadataLocation() string { return t.metaPath }

// Location is the table's location as its metadata records it.
func (t *Table) Location() string { return t.tbl.Location() }

// FormatVersion is the table's format version (1, 2 or 3).
func (t *Table) FormatVersion() int { return t.tbl.Metadata().Version() }

// Properties are the table's properties.
func (t *Table) Properties() map[string]string { return t.tbl.Properties() }

// Schema is the current schema.
func (t *Table) Schema() *iceberg.Schema { return t.tbl.Schema() }

// Fields is the current schema in lake/paimon's field model.
func (t *Table) Fields() ([]paimon.DataField, error) {
	fs, err := lakeFields(t.tbl.Schema())
	if err != nil {
		return nil, fmt.Errorf("iceberg table %s: %w", t.Name, err)
	}
	return fs, nil
}

// SchemaByID is one of the table's schemas, nil when unknown.
func (t *Table) SchemaByID(id int) *iceberg.Schema {
	for _, s := range t.tbl.Metadata().Schemas() {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// PartitionColumns are the source columns of the current spec's identity
// partition fields, in spec order; other transforms (bucket, day, ...) are
// not columns of their own.
func (t *Table) PartitionColumns() []string {
	var out []string
	spec := t.tbl.Spec()
	for _, f := range spec.Fields() {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok {
			continue
		}
		if sf, ok := t.tbl.Schema().FindFieldByID(f.SourceIDs[0]); ok {
			out = append(out, sf.Name)
		}
	}
	return out
}

// Snapshot is one snapshot as $snapshots shows it.
type Snapshot struct {
	ID           int64
	ParentID     *int64
	Sequence     int64
	TimestampMs  int64
	Operation    string
	ManifestList string
	Summary      map[string]string
	SchemaID     *int
}

// Snapshots lists the table's snapshots by commit time.
func (t *Table) Snapshots() []Snapshot {
	var out []Snapshot
	for _, s := range t.tbl.Metadata().Snapshots() {
		out = append(out, snapshotOf(&s))
	}
	slices.SortStableFunc(out, func(a, b Snapshot) int {
		if a.TimestampMs != b.TimestampMs {
			return int(sign(a.TimestampMs - b.TimestampMs))
		}
		return int(sign(a.Sequence - b.Sequence))
	})
	return out
}

func sign(x int64) int64 {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func snapshotOf(s *table.Snapshot) Snapshot {
	o := Snapshot{ID: s.SnapshotID, ParentID: s.ParentSnapshotID, Sequence: s.SequenceNumber, TimestampMs: s.TimestampMs,
		ManifestList: s.ManifestList, SchemaID: s.SchemaID, Summary: map[string]string{}}
	if s.Summary != nil {
		o.Operation = string(s.Summary.Operation)
		for k, v := range s.Summary.Properties {
			o.Summary[k] = v
		}
	}
	return o
}

// CurrentSnapshot is the current snapshot; ok is false for a table with
// no snapshot yet.
func (t *Table) CurrentSnapshot() (Snapshot, bool) {
	s := t.tbl.CurrentSnapshot()
	if s == nil {
		return Snapshot{}, false
	}
	return snapshotOf(s), true
}

// SnapshotByID finds a snapshot; the error wraps ErrNotFound.
func (t *Table) SnapshotByID(id int64) (Snapshot, error) {
	s := t.tbl.SnapshotByID(id)
	if s == nil {
		return Snapshot{}, fmt.Errorf("%w: Iceberg table %s has no snapshot %d", ErrNotFound, t.Name, id)
	}
	return snapshotOf(s), nil
}

// SnapshotAsOf is the current branch's snapshot that was current at
// millis (the latest ancestor committed at or before it).
func (t *Table) SnapshotAsOf(millis int64) (Snapshot, error) {
	cur := t.tbl.CurrentSnapshot()
	if cur == nil {
		return Snapshot{}, fmt.Errorf("%w: Iceberg table %s has no snapshots", ErrNotFound, t.Name)
	}
	md := t.tbl.Metadata()
	for _, s := range table.AncestorsOf(cur.SnapshotID, md.SnapshotByID) {
		if s.TimestampMs <= millis {
			return snapshotOf(&s), nil
		}
	}
	return Snapshot{}, fmt.Errorf("%w: Iceberg table %s has no snapshot at or before %d ms", ErrNotFound, t.Name, millis)
}

// SnapshotByRef resolves a branch or tag name.
func (t *Table) SnapshotByRef(name string) (Snapshot, error) {
	s := t.tbl.SnapshotByName(name)
	if s == nil {
		return Snapshot{}, fmt.Errorf("%w: Iceberg table %s has no branch or tag '%s'", ErrNotFound, t.Name, name)
	}
	return snapshotOf(s), nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
