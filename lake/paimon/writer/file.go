package writer

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// Field ids of the PK system columns (paimon SpecialFields).
const (
	keyFieldIDOffset = 1073741823
	seqFieldID       = 2147483646
	kindFieldID      = 2147483645
)

// FileWriter streams Arrow batches into one Parquet data file of a
// (partition, bucket). Batches hold the table columns of the table's
// schema, in schema order, with the types paimon.ArrowSchema gives.
type FileWriter struct {
	c        *Commit
	part     []any
	partRow  []byte
	bucket   int32
	level    int32
	source   int32
	name     string
	path     string
	w        fileio.Writer
	cw       *countingWriter
	pw       *pqarrow.FileWriter
	colw     *columnWriter // instead of pw for INT96 layouts (int96.go)
	orcw     *orc.Writer   // instead of pw for file.format=orc (orcfile.go)
	schema   *arrow.Schema // file schema
	table    *arrow.Schema // expected input schema
	keyIdx   []int
	keyTypes []paimon.DataType
	rows     int64
	deletes  int64
	minSeq   int64
	maxSeq   int64
	minKey   []any
	lastKey  []any
	keyStats *statsAcc // over every key written
	valStats *statsAcc // over every row written, all table columns
	closed   bool
}

// NewFile starts a level-0 data file of (partition values, bucket). For
// bucket-unaware tables (bucket = -1) pass bucket 0, as Paimon does.
func (c *Commit) NewFile(ctx context.Context, part []any, bucket int32) (*FileWriter, error) {
	return c.newFile(ctx, part, bucket, 0, 0)
}

func (c *Commit) newFile(ctx context.Context, part []any, bucket, level, source int32) (*FileWriter, error) {
	t := c.t
	if c.done {
		return nil, fmt.Errorf("%w: table %s: commit already committed", ErrInvalid, t.path)
	}
	partRow, err := paimon.SerializeRow(part, t.partitionTypes())
	if err != nil {
		return nil, fmt.Errorf("%w: table %s partition %v: %v", ErrInvalid, t.path, part, err)
	}
	if tb := t.totalBuckets(); bucket < 0 || (tb > 0 && bucket >= tb) || (tb <= 0 && !t.isPK() && bucket != 0) {
		return nil, fmt.Errorf("%w: table %s has bucket option %d; bucket %d is out of range", ErrInvalid, t.path, tb, bucket)
	}
	dir, err := t.pt.BucketDir(t.schema, part, bucket)
	if err != nil {
		return nil, err
	}
	table, err := paimon.ArrowSchema(t.schema.Fields)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path, err)
	}
	fw := &FileWriter{c: c, part: part, partRow: partRow, bucket: bucket, level: level, source: source, table: table}
	fields := table.Fields()
	if t.isPK() {
		var kf []arrow.Field
		for _, k := range t.schema.TrimmedPrimaryKeys() {
			idx := -1
			for i, f := range t.schema.Fields {
				if f.Name == k.Name {
					idx = i
				}
			}
			fw.keyIdx = append(fw.keyIdx, idx)
			fw.keyTypes = append(fw.keyTypes, k.Type)
			f := fields[idx]
			f.Name = "_KEY_" + k.Name
			f.Metadata = arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{strconv.Itoa(k.ID + keyFieldIDOffset)})
			kf = append(kf, f)
		}
		kf = append(kf,
			arrow.Field{Name: paimon.SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{strconv.Itoa(seqFieldID)})},
			arrow.Field{Name: paimon.ValueKindColumn, Type: arrow.PrimitiveTypes.Int8, Metadata: arrow.NewMetadata([]string{paimon.FieldIDKey}, []string{strconv.Itoa(kindFieldID)})})
		fields = append(kf, fields...)
	}
	fw.schema = arrow.NewSchema(fields, nil)
	fw.keyStats = newStatsAcc(fw.keyTypes, false)
	colTypes := make([]paimon.DataType, len(t.schema.Fields))
	for i, f := range t.schema.Fields {
		colTypes[i] = f.Type
	}
	fw.valStats = newStatsAcc(colTypes, true)
	cr, ok := t.fs.(fileio.Creator)
	if !ok {
		return nil, fmt.Errorf("%w: table %s: file system cannot create files", ErrInvalid, t.path)
	}
	if t.format == "orc" {
		fw.name = t.name("data", ".orc")
	} else {
		fw.name = t.name("data", ".parquet")
	}
	fw.path = fileio.Join(dir, fw.name)
	if fw.w, err = cr.Create(ctx, fw.path); err != nil {
		return nil, err
	}
	fw.cw = &countingWriter{w: fw.w}
	if t.format == "orc" {
		types := make([]*paimon.DataType, 0, fw.schema.NumFields())
		if t.isPK() {
			for i := range fw.keyTypes {
				types = append(types, &fw.keyTypes[i])
			}
			types = append(types, nil, nil)
		}
		for i := range t.schema.Fields {
			types = append(types, &t.schema.Fields[i].Type)
		}
		o := t.orcOpts
		o.Mem = t.mem
		fw.orcw, err = orc.NewWriter(fw.cw, orcSchema(fw.schema, types), o)
	} else {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithAllocator(t.mem),
			parquet.WithMaxRowGroupLength(t.opts.RowGroupRows), parquet.WithCreatedBy("inlet paimon writer"),
			// DECIMAL p<=9 as INT32 and p<=18 as INT64, as Paimon's ParquetSchemaConverter writes them.
			parquet.WithStoreDecimalAsInteger(true))
		if t.opts.PageBytes > 0 {
			props = parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithAllocator(t.mem),
				parquet.WithMaxRowGroupLength(t.opts.RowGroupRows), parquet.WithCreatedBy("inlet paimon writer"),
				parquet.WithStoreDecimalAsInteger(true), parquet.WithDataPageSize(t.opts.PageBytes))
		}
		arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(t.mem))
		if int96Layout(fw.schema) {
			fw.colw, err = newColumnWriter(fw.schema, fw.cw, props, t.opts.RowGroupRows, arrProps)
		} else {
			fw.pw, err = pqarrow.NewFileWriter(fw.schema, fw.cw, props, arrProps)
		}
	}
	if err != nil {
		fw.w.Abort()
		return nil, fmt.Errorf("table %s file %s: %w", t.path, fw.path, err)
	}
	c.open++
	return fw, nil
}

// Name is the data file name.
func (fw *FileWriter) Name() string { return fw.name }

// Rows is the number of rows written so far.
func (fw *FileWriter) Rows() int64 { return fw.rows }

// Write appends rec. For primary-key tables kinds gives each row's
// RowKind (paimon.KindInsert ... KindDelete; nil = all +I) and rows must
// continue the file in strictly ascending key order.
func (fw *FileWriter) Write(rec arrow.RecordBatch, kinds []int8) error {
	if fw.closed {
		return fmt.Errorf("%w: file %s is closed", ErrInvalid, fw.path)
	}
	if err := fw.checkSchema(rec); err != nil {
		return err
	}
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	t := fw.c.t
	if !t.isPK() {
		if kinds != nil {
			return fmt.Errorf("%w: table %s is an append table: row kinds are not stored", ErrInvalid, t.path)
		}
		if err := fw.addValueStats(rec); err != nil {
			return err
		}
		fw.noteSeq(fw.c.seq(bucketID(fw.partRow, fw.bucket), n), n)
		fw.rows += n
		return fw.write(rec)
	}
	if kinds != nil && int64(len(kinds)) != n {
		return fmt.Errorf("%w: table %s: %d row kinds for %d rows", ErrInvalid, t.path, len(kinds), n)
	}
	for i := 0; i < int(n); i++ {
		if kinds != nil && (kinds[i] < paimon.KindInsert || kinds[i] > paimon.KindDelete) {
			return fmt.Errorf("%w: table %s: row kind %d of row %d", ErrInvalid, t.path, kinds[i], i)
		}
	}
	// Check the whole batch before any of it counts: a refused batch
	// leaves the file's keys and statistics as they were.
	keys := make([][]any, n)
	prev := fw.lastKey
	for i := 0; i < int(n); i++ {
		key := make([]any, len(fw.keyIdx))
		for k, idx := range fw.keyIdx {
			v, err := Value(rec.Column(idx), i)
			if err != nil {
				return fmt.Errorf("table %s key column %s: %w", t.path, t.schema.Fields[idx].Name, err)
			}
			key[k] = own(v)
		}
		if prev != nil && compareRows(prev, key) >= 0 {
			return fmt.Errorf("%w: table %s file %s: key %v at row %d does not follow key %v (rows must be sorted by key, one per key)",
				ErrInvalid, t.path, fw.name, key, fw.rows+int64(i), prev)
		}
		keys[i], prev = key, key
	}
	if err := fw.addValueStats(rec); err != nil {
		return err
	}
	for _, key := range keys {
		fw.keyStats.add(key)
	}
	if fw.minKey == nil {
		fw.minKey = keys[0]
	}
	fw.lastKey = keys[n-1]
	mem := t.mem
	sb := array.NewInt64Builder(mem)
	kb := array.NewInt8Builder(mem)
	defer sb.Release()
	defer kb.Release()
	sb.Reserve(int(n))
	kb.Reserve(int(n))
	first := fw.c.seq(bucketID(fw.partRow, fw.bucket), n)
	fw.noteSeq(first, n)
	for i := int64(0); i < n; i++ {
		sb.UnsafeAppend(first + i)
		k := paimon.KindInsert
		if kinds != nil {
			k = kinds[i]
		}
		if k == paimon.KindUpdateBefore || k == paimon.KindDelete {
			fw.deletes++
		}
		kb.UnsafeAppend(k)
	}
	sa, ka := sb.NewArray(), kb.NewArray()
	defer sa.Release()
	defer ka.Release()
	cols := make([]arrow.Array, 0, fw.schema.NumFields())
	for _, idx := range fw.keyIdx {
		cols = append(cols, rec.Column(idx))
	}
	cols = append(cols, sa, ka)
	cols = append(cols, rec.Columns()...)
	out := array.NewRecordBatch(fw.schema, cols, n)
	defer out.Release()
	fw.rows += n
	return fw.write(out)
}

func (fw *FileWriter) addValueStats(rec arrow.RecordBatch) error {
	for i, col := range rec.Columns() {
		if err := fw.valStats.addColumn(i, col); err != nil {
			return fmt.Errorf("table %s file %s column %s: statistics: %w", fw.c.t.path, fw.name, fw.c.t.schema.Fields[i].Name, err)
		}
	}
	return nil
}

func (fw *FileWriter) noteSeq(first, n int64) {
	if fw.rows == 0 {
		fw.minSeq = first
	}
	fw.maxSeq = first + n - 1
}

func (fw *FileWriter) write(rec arrow.RecordBatch) error {
	var write func(arrow.RecordBatch) error
	switch {
	case fw.orcw != nil:
		write = fw.orcw.Write
	case fw.colw != nil:
		write = fw.colw.write
	default:
		write = fw.pw.WriteBuffered
	}
	if err := write(rec); err != nil {
		return fmt.Errorf("table %s file %s: %w", fw.c.t.path, fw.path, err)
	}
	return nil
}

func (fw *FileWriter) checkSchema(rec arrow.RecordBatch) error {
	want := fw.table.Fields()
	if int(rec.NumCols()) != len(want) {
		return fmt.Errorf("%w: table %s: batch has %d columns, the schema %d", ErrInvalid, fw.c.t.path, rec.NumCols(), len(want))
	}
	for i, f := range rec.Schema().Fields() {
		if !arrow.TypeEqual(f.Type, want[i].Type) {
			return fmt.Errorf("%w: table %s column %d (%s): Arrow type %s, the schema needs %s", ErrInvalid, fw.c.t.path, i, want[i].Name, f.Type, want[i].Type)
		}
	}
	return nil
}

// Close finishes the file and adds it to the commit. A file without rows
// is removed instead.
func (fw *FileWriter) Close(ctx context.Context) error {
	if fw.closed {
		return nil
	}
	fw.closed = true
	fw.c.open--
	t := fw.c.t
	if fw.rows == 0 {
		fw.closeParquet()
		if r, ok := t.fs.(fileio.Remover); ok {
			r.Remove(ctx, fw.path)
		}
		return nil
	}
	if err := fw.closeParquet(); err != nil {
		fw.w.Abort()
		return fmt.Errorf("table %s file %s: %w", t.path, fw.path, err)
	}
	// pqarrow closes the sink it was given.
	if fw.cw.err != nil {
		return fmt.Errorf("table %s file %s: %w", t.path, fw.path, fw.cw.err)
	}
	now := t.opts.Now()
	ct := now.UTC()
	src := fw.source
	valueStats, err := fw.valStats.stats()
	if err != nil {
		return fmt.Errorf("table %s file %s: value statistics: %w", t.path, fw.name, err)
	}
	// _VALUE_STATS_COLS null: the value statistics cover every table column.
	meta := &paimon.DataFileMeta{FileName: fw.name, FileSize: fw.cw.n, RowCount: fw.rows, MinSequenceNumber: fw.minSeq,
		MaxSequenceNumber: fw.maxSeq, SchemaID: t.schema.ID, Level: fw.level, ExtraFiles: []string{}, CreationTime: &ct,
		FileSource: &src, MinKey: emptyRow(), MaxKey: emptyRow(), KeyStats: paimon.EmptyStats(), ValueStats: valueStats}
	if t.isPK() {
		if meta.MinKey, err = paimon.SerializeRow(fw.minKey, fw.keyTypes); err != nil {
			return fmt.Errorf("table %s file %s: min key: %w", t.path, fw.name, err)
		}
		if meta.MaxKey, err = paimon.SerializeRow(fw.lastKey, fw.keyTypes); err != nil {
			return fmt.Errorf("table %s file %s: max key: %w", t.path, fw.name, err)
		}
		if meta.KeyStats, err = fw.keyStats.stats(); err != nil {
			return fmt.Errorf("table %s file %s: key statistics: %w", t.path, fw.name, err)
		}
		d := fw.deletes
		meta.DeleteRowCount = &d
	} else {
		z := int64(0)
		meta.DeleteRowCount = &z
	}
	fw.c.adds = append(fw.c.adds, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: fw.partRow, Bucket: fw.bucket,
		TotalBuckets: t.totalBuckets(), File: meta})
	return nil
}

func (fw *FileWriter) closeParquet() error {
	if fw.orcw != nil {
		// The ORC writer leaves its sink open; pqarrow closes it.
		err := fw.orcw.Close()
		if err != nil {
			return err
		}
		return fw.cw.Close()
	}
	if fw.colw != nil {
		return fw.colw.close()
	}
	return fw.pw.Close()
}

// Abort drops the file; the commit forgets it.
func (fw *FileWriter) Abort() {
	if fw.closed {
		return
	}
	fw.closed = true
	fw.c.open--
	if fw.orcw != nil {
		fw.orcw.Abort()
	}
	fw.w.Abort()
}

func emptyRow() []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} }

type countingWriter struct {
	w   fileio.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

func (c *countingWriter) Close() error {
	err := c.w.Close()
	if err != nil && c.err == nil {
		c.err = err
	}
	return err
}
