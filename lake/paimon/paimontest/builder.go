package paimontest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// Builder writes small Paimon tables (Parquet data, or Avro data with
// file.format=avro; Avro metadata) the way
// Java Paimon lays them out, for tests and benchmarks of the reader: schema
// evolution, level-0 merge inputs, deletion vectors. It writes no value
// statistics (_VALUE_STATS_COLS = []), real key ranges, and one manifest per
// commit. Not safe for concurrent use.
type Builder struct {
	fs      fileio.FS
	path    string
	schema  *paimon.TableSchema
	snap    int64
	base    []paimon.ManifestFileMeta
	seq     map[string]int64
	n       int
	total   int64
	indexes []paimon.IndexManifestEntry

	// RowGroupRows caps the rows of a Parquet row group (0: 1<<20).
	RowGroupRows int64
	// ParquetOptions are added to the Parquet writer's properties (a
	// small dictionary limit, say, for a chunk falling back to PLAIN).
	ParquetOptions []parquet.WriterProperty
}

// NewBuilder writes schema-0 for the given table layout.
func NewBuilder(ctx context.Context, fsys fileio.FS, path string, fields []paimon.DataField, partitionKeys, primaryKeys []string, options map[string]string) (*Builder, error) {
	b := &Builder{fs: fsys, path: path, seq: map[string]int64{}}
	hi := 0
	for _, f := range fields {
		hi = max(hi, f.ID)
	}
	s := &paimon.TableSchema{Version: 3, ID: -1, Fields: fields, HighestFieldID: hi, PartitionKeys: partitionKeys, PrimaryKeys: primaryKeys, Options: options}
	if s.PartitionKeys == nil {
		s.PartitionKeys = []string{}
	}
	if s.PrimaryKeys == nil {
		s.PrimaryKeys = []string{}
	}
	return b, b.AlterSchema(ctx, s)
}

// AlterSchema writes the next schema version (fields keep their ids).
func (b *Builder) AlterSchema(ctx context.Context, s *paimon.TableSchema) error {
	next := int64(0)
	if b.schema != nil {
		next = b.schema.ID + 1
	}
	cp := *s
	cp.ID = next
	cp.Version = 3
	js, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return err
	}
	if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "schema", "schema-"+strconv.FormatInt(next, 10)), js); err != nil {
		return err
	}
	b.schema = &cp
	return nil
}

// Schema is the current schema.
func (b *Builder) Schema() *paimon.TableSchema { return b.schema }

// File is one data file to write in a commit.
type File struct {
	Partition []any // partition values in key order
	Bucket    int32
	Level     int32
	// Rows holds the table columns of the current schema, in schema order.
	// For primary-key tables they must be sorted by key and unique per key.
	Rows arrow.RecordBatch
	// Kinds are the row kinds (+I when nil) of a primary-key file.
	Kinds []int8
	// Deleted lists row positions to mark in a deletion vector.
	Deleted []uint32
	// Changelog writes a changelog file (changelog-producer=input): same
	// layout as a data file, listed only in the snapshot's
	// changelogManifestList.
	Changelog bool
}

func (b *Builder) name(prefix string) string {
	b.n++
	return fmt.Sprintf("%s-00000000-0000-0000-0000-%012d-0", prefix, b.n)
}

// Commit writes the files, a manifest, manifest lists and snapshot N+1.
func (b *Builder) Commit(ctx context.Context, files []File, mem memory.Allocator) error {
	s := b.schema
	pk := len(s.PrimaryKeys) > 0
	partFields := s.PartitionFields()
	partTypes := make([]paimon.DataType, len(partFields))
	for i, f := range partFields {
		partTypes[i] = f.Type
	}
	keys := s.TrimmedPrimaryKeys()
	var entries, changelog []paimon.ManifestEntry
	var delta, changelogRows int64
	for _, f := range files {
		part, err := paimon.SerializeRow(f.Partition, partTypes)
		if err != nil {
			return err
		}
		bucketKey := fmt.Sprintf("%x/%d", part, f.Bucket)
		n := f.Rows.NumRows()
		minSeq := b.seq[bucketKey]
		b.seq[bucketKey] += n
		cols := f.Rows.Columns()
		fields := f.Rows.Schema().Fields()
		meta := &paimon.DataFileMeta{RowCount: n, SchemaID: s.ID, Level: f.Level, MinSequenceNumber: minSeq, MaxSequenceNumber: minSeq + n - 1,
			ValueStatsCols: &[]string{}, MinKey: emptyRow(), MaxKey: emptyRow()}
		var release []arrow.Array
		if pk {
			var kcols []arrow.Array
			var kfields []arrow.Field
			keyTypes := make([]paimon.DataType, len(keys))
			for i, k := range keys {
				idx := fieldIndex(s, k.Name)
				kcols = append(kcols, cols[idx])
				kf := fields[idx]
				kf.Name = "_KEY_" + k.Name
				kf.Metadata = arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{strconv.Itoa(k.ID + 1073741823)})
				kfields = append(kfields, kf)
				keyTypes[i] = k.Type
			}
			sb := array.NewInt64Builder(mem)
			kb := array.NewInt8Builder(mem)
			var deletes int64
			for i := int64(0); i < n; i++ {
				sb.Append(minSeq + i)
				k := paimon.KindInsert
				if f.Kinds != nil {
					k = f.Kinds[i]
				}
				if k == paimon.KindDelete || k == paimon.KindUpdateBefore {
					deletes++
				}
				kb.Append(k)
			}
			sa, ka := sb.NewArray(), kb.NewArray()
			sb.Release()
			kb.Release()
			release = append(release, sa, ka)
			meta.DeleteRowCount = &deletes
			if meta.MinKey, err = keyRow(kcols, keyTypes, 0); err != nil {
				return err
			}
			if meta.MaxKey, err = keyRow(kcols, keyTypes, int(n-1)); err != nil {
				return err
			}
			cols = append(append(kcols, sa, ka), cols...)
			fields = append(append(kfields,
				arrow.Field{Name: paimon.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{"2147483646"})},
				arrow.Field{Name: paimon.ValueKindColumn, Type: arrow.PrimitiveTypes.Int8, Metadata: arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{"2147483645"})}),
				fields...)
		}
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
		prefix := "data"
		if f.Changelog {
			prefix = "changelog"
		}
		dir := fileio.Join(b.path, partitionDir(partFields, f.Partition), "bucket-"+strconv.Itoa(int(f.Bucket)))
		rg := b.RowGroupRows
		if rg <= 0 {
			rg = 1 << 20
		}
		var size int64
		if s.Options["file.format"] == "avro" {
			// RowGroupRows doubles as the Avro block length.
			meta.FileName = b.name(prefix) + ".avro"
			size, err = writeAvro(ctx, b.fs, fileio.Join(dir, meta.FileName), rec, int(min(rg, 1<<16)))
		} else {
			meta.FileName = b.name(prefix) + ".parquet"
			size, err = writeParquet(ctx, b.fs, fileio.Join(dir, meta.FileName), rec, rg, b.ParquetOptions, mem)
		}
		rec.Release()
		for _, a := range release {
			a.Release()
		}
		if err != nil {
			return err
		}
		meta.FileSize = size
		e := paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: part, Bucket: f.Bucket, TotalBuckets: totalBuckets(s), File: meta}
		if f.Changelog {
			changelogRows += n
			changelog = append(changelog, e)
			continue
		}
		delta += n
		entries = append(entries, e)
		if len(f.Deleted) > 0 {
			// deletion-vectors.bitmap64 tables get Bitmap64DeletionVector
			// bytes, whose range length covers the whole vector.
			dv := paimon.EncodeDeletionVector(f.Deleted)
			length := int32(len(dv) - 8)
			if s.Options["deletion-vectors.bitmap64"] == "true" {
				pos := make([]uint64, len(f.Deleted))
				for i, p := range f.Deleted {
					pos[i] = uint64(p)
				}
				dv = paimon.EncodeDeletionVector64(pos)
				length = int32(len(dv))
			}
			idx := b.name("index")
			if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "index", idx), append([]byte{1}, dv...)); err != nil {
				return err
			}
			card := int64(len(f.Deleted))
			rng := []*paimon.DVRange{{DataFile: meta.FileName, Offset: 1, Length: length, Cardinality: &card}}
			b.indexes = append(b.indexes, paimon.IndexManifestEntry{Partition: part, Bucket: f.Bucket, IndexType: "DELETION_VECTORS",
				FileName: idx, FileSize: int64(len(dv) + 1), RowCount: 1, DVRanges: &rng})
		}
	}
	mb, err := paimon.EncodeManifestEntries(entries)
	if err != nil {
		return err
	}
	mname := b.name("manifest")
	if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "manifest", mname), mb); err != nil {
		return err
	}
	baseName, deltaName := b.name("manifest-list"), b.name("manifest-list")
	bb, err := paimon.EncodeManifestList(b.base)
	if err != nil {
		return err
	}
	meta := paimon.ManifestFileMeta{FileName: mname, FileSize: int64(len(mb)), NumAddedFiles: int64(len(entries)), SchemaID: s.ID}
	db, err := paimon.EncodeManifestList([]paimon.ManifestFileMeta{meta})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{baseName: bb, deltaName: db} {
		if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "manifest", name), data); err != nil {
			return err
		}
	}
	b.base = append(b.base, meta)
	b.snap++
	b.total += delta
	snap := paimon.Snapshot{Version: 3, ID: b.snap, SchemaID: s.ID, BaseManifestList: baseName, DeltaManifestList: deltaName,
		CommitUser: "paimontest", CommitIdentifier: 9223372036854775807, CommitKind: "APPEND", TotalRecordCount: &b.total, DeltaRecordCount: &delta}
	if len(changelog) > 0 {
		cb, err := paimon.EncodeManifestEntries(changelog)
		if err != nil {
			return err
		}
		cname, lname := b.name("manifest"), b.name("manifest-list")
		lb, err := paimon.EncodeManifestList([]paimon.ManifestFileMeta{{FileName: cname, FileSize: int64(len(cb)), NumAddedFiles: int64(len(changelog)), SchemaID: s.ID}})
		if err != nil {
			return err
		}
		for name, data := range map[string][]byte{cname: cb, lname: lb} {
			if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "manifest", name), data); err != nil {
				return err
			}
		}
		snap.ChangelogManifestList = &lname
		snap.ChangelogRecordCount = &changelogRows
	}
	if len(b.indexes) > 0 {
		ib, err := paimon.EncodeIndexManifest(b.indexes)
		if err != nil {
			return err
		}
		iname := b.name("index-manifest")
		if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "manifest", iname), ib); err != nil {
			return err
		}
		snap.IndexManifest = &iname
	}
	js, err := json.MarshalIndent(&snap, "", "  ")
	if err != nil {
		return err
	}
	if err := fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "snapshot", "snapshot-"+strconv.FormatInt(b.snap, 10)), js); err != nil {
		return err
	}
	return fileio.WriteFile(ctx, b.fs, fileio.Join(b.path, "snapshot", "LATEST"), []byte(strconv.FormatInt(b.snap, 10)))
}

func totalBuckets(s *paimon.TableSchema) int32 {
	n, err := strconv.Atoi(s.Options["bucket"])
	if err != nil {
		return -1
	}
	return int32(n)
}

func fieldIndex(s *paimon.TableSchema, name string) int {
	for i, f := range s.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func emptyRow() []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} }

func partitionDir(fields []paimon.DataField, vals []any) string {
	var b bytes.Buffer
	for i, f := range fields {
		v := vals[i]
		s := "__DEFAULT_PARTITION__"
		if v != nil {
			s = fmt.Sprint(v)
		}
		b.WriteString(f.Name + "=" + s + "/")
	}
	return b.String()
}

// keyRow serializes row i of the key columns as a BinaryRow.
func keyRow(cols []arrow.Array, types []paimon.DataType, i int) ([]byte, error) {
	vals := make([]any, len(cols))
	for c, a := range cols {
		if a.IsNull(i) {
			continue
		}
		switch x := a.(type) {
		case *array.Int32:
			vals[c] = x.Value(i)
		case *array.Int64:
			vals[c] = x.Value(i)
		case *array.String:
			vals[c] = x.Value(i)
		case *array.Int16:
			vals[c] = x.Value(i)
		case *array.Int8:
			vals[c] = x.Value(i)
		default:
			return nil, fmt.Errorf("paimontest: key column of type %s", a.DataType())
		}
	}
	return paimon.SerializeRow(vals, types)
}

func writeParquet(ctx context.Context, fsys fileio.FS, path string, rec arrow.RecordBatch, rowGroup int64, opts []parquet.WriterProperty, mem memory.Allocator) (int64, error) {
	c, ok := fsys.(fileio.Creator)
	if !ok {
		return 0, fmt.Errorf("paimontest: file system cannot create files")
	}
	w, err := c.Create(ctx, path)
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithAllocator(mem),
		parquet.WithMaxRowGroupLength(rowGroup)}, opts...)...)
	fw, err := pqarrow.NewFileWriter(rec.Schema(), cw, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		w.Abort()
		return 0, err
	}
	if err := fw.Write(rec); err != nil {
		w.Abort()
		return 0, err
	}
	if err := fw.Close(); err != nil {
		w.Abort()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return cw.n, nil
}

type countingWriter struct {
	w fileio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Path is the table directory.
func (b *Builder) Path() string { return b.path }
