package paimon

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
)

// System columns of primary-key data files.
const (
	SequenceNumberColumn = "_SEQUENCE_NUMBER"
	ValueKindColumn      = "_VALUE_KIND"
	sequenceNumberID     = 2147483646
	valueKindID          = 2147483645
)

// Row kinds stored in _VALUE_KIND.
const (
	KindInsert       int8 = 0
	KindUpdateBefore int8 = 1
	KindUpdateAfter  int8 = 2
	KindDelete       int8 = 3
)

// fileBatches reads one data file as batches shaped like `want` (table
// fields, matched to the file by field id, or by name when the file carries
// no ids), optionally followed by _SEQUENCE_NUMBER and _VALUE_KIND.
// Columns the file lacks come back as NULL. pos is the file row position of
// each batch's first row, needed to apply deletion vectors.
type fileBatches struct {
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, int64, error) // nil batch at end
	// filtered: batches hold only the rows that pass spec.pred and are not
	// in spec.dv; the dropped ones are already in the metrics.
	filtered bool
	close    func()
}

type fileReadSpec struct {
	fsys       fileio.FS
	path       string
	fileSchema *TableSchema // schema the file was written with
	want       []DataField  // table fields, current schema
	system     bool         // append _SEQUENCE_NUMBER, _VALUE_KIND
	pred       *bound       // optional, for row-group skipping
	batchSize  int
	mem        memory.Allocator
	metrics    *Metrics
	// dropRows: the caller applies pred to every row after the read, so
	// a reader may drop the rows failing it, with those dv deletes, and
	// count them itself (fileBatches.filtered says it did).
	dropRows bool
	dv       *DeletionVector
	pool     *readerPool // optional: page readers shared across a scan's files
	slice    *FileSlice  // optional: read only the row groups/stripes it owns
	// size is the file's length the manifest records (0: unknown). A file
	// of another length is damaged or replaced: cut short, a 0-byte ORC or
	// Parquet file would otherwise read as fewer rows, or none, silently.
	size int64
	// statsOnly: pred prunes row groups only; every row of the others is
	// materialised in full (no late materialisation), for a caller that
	// does not apply pred to the rows itself (OpenDataFile).
	statsOnly bool
	// filterOnly names the fields of want only pred reads: the caller
	// never looks at their values, so a reader that drops rows itself
	// does not gather them for the rows it keeps (pageColumns.unread).
	filterOnly map[string]bool
}

// checkSize compares the opened file's length with the manifest's.
func (s *fileReadSpec) checkSize(got int64) error {
	if s.size > 0 && got != s.size {
		return fmt.Errorf("%w: data file %s has %d bytes but the manifest records %d", ErrCorrupt, s.path, got, s.size)
	}
	return nil
}

func outSchema(want []DataField, system bool) (*arrow.Schema, error) {
	s, err := ArrowSchema(want)
	if err != nil {
		return nil, err
	}
	if !system {
		return s, nil
	}
	fs := append(s.Fields(),
		arrow.Field{Name: SequenceNumberColumn, Type: arrow.PrimitiveTypes.Int64, Metadata: fieldIDMeta(sequenceNumberID)},
		arrow.Field{Name: ValueKindColumn, Type: arrow.PrimitiveTypes.Int8, Metadata: fieldIDMeta(valueKindID)})
	return arrow.NewSchema(fs, nil), nil
}

func openDataFile(ctx context.Context, s fileReadSpec) (*fileBatches, error) {
	s.metrics.openedFile()
	ext := s.path[strings.LastIndexByte(s.path, '.')+1:]
	if s.slice != nil && !sliceableFormat(s.path) {
		return nil, fmt.Errorf("%w: slice %d/%d of data file %s: only Parquet and ORC files are sliced", ErrCorrupt, s.slice.Index, s.slice.Count, s.path)
	}
	switch strings.ToLower(ext) {
	case "parquet":
		return openParquet(ctx, s)
	case "orc":
		return openORC(ctx, s)
	case "avro":
		return openAvro(ctx, s)
	}
	return nil, fmt.Errorf("%w: data file format of %s", ErrUnsupported, s.path)
}

func fieldID(f *arrow.Field) (int, bool) {
	if f == nil {
		return 0, false
	}
	v, ok := f.Metadata.GetValue(FieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil && id >= 0
}

func leaves(sf pqarrow.SchemaField, out []int) []int {
	if sf.IsLeaf() {
		return append(out, sf.ColIndex)
	}
	for _, c := range sf.Children {
		out = leaves(c, out)
	}
	return out
}

func openParquet(ctx context.Context, s fileReadSpec) (*fileBatches, error) {
	f, err := s.fsys.Open(ctx, s.path)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", s.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	if err := s.checkSize(f.Size()); err != nil {
		return nil, err
	}
	props := parquet.NewReaderProperties(s.mem)
	pf, err := openParquetFile(s.path, f, f.Size(), file.WithReadProps(props))
	if err != nil {
		return nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, s.path, err)
	}
	bs := s.batchSize
	if bs <= 0 {
		bs = 8192
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(bs)}, s.mem)
	if err != nil {
		return nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, s.path, err)
	}
	out, err := outSchema(s.want, s.system)
	if err != nil {
		return nil, err
	}
	// Resolve each wanted column to a top-level Parquet field: by field id
	// when the file has ids, else by the name the file's schema gives it.
	nameOfID := map[int]string{}
	for _, f := range s.fileSchema.Fields {
		nameOfID[f.ID] = f.Name
	}
	byID, byName := map[int]int{}, map[string]int{}
	for i, sf := range fr.Manifest.Fields {
		if id, ok := fieldID(sf.Field); ok {
			byID[id] = i
		}
		byName[sf.Field.Name] = i
	}
	find := func(id int, name string) int {
		if i, ok := byID[id]; ok {
			return i
		}
		if len(byID) == 0 || id >= sequenceNumberID-10 {
			if i, ok := byName[name]; ok {
				return i
			}
		}
		return -1
	}
	src := make([]int, len(out.Fields())) // top-level parquet field per output column, -1 = missing
	for i, w := range s.want {
		name, inFile := nameOfID[w.ID]
		src[i] = -1
		if inFile {
			src[i] = find(w.ID, name)
		}
	}
	if s.system {
		n := len(s.want)
		src[n] = find(sequenceNumberID, SequenceNumberColumn)
		src[n+1] = find(valueKindID, ValueKindColumn)
		if src[n] < 0 || src[n+1] < 0 {
			return nil, fmt.Errorf("%w: data file %s: no %s/%s columns in a primary-key file", ErrCorrupt, s.path, SequenceNumberColumn, ValueKindColumn)
		}
	}
	var cols []int
	order := map[int]int{} // parquet top-level index → position among selected
	{
		sel := map[int]bool{}
		for _, i := range src {
			if i >= 0 {
				sel[i] = true
			}
		}
		pos := 0
		for i := range fr.Manifest.Fields {
			if sel[i] {
				order[i] = pos
				pos++
			}
		}
	}
	md := pf.MetaData()
	// INT96 columns are read beside pqarrow (see int96.go); the rest
	// through it.
	var i96 []int96Col
	for i := range fr.Manifest.Fields {
		if _, ok := order[i]; !ok {
			continue
		}
		sf := fr.Manifest.Fields[i]
		var isI96 bool
		for _, leaf := range leaves(sf, nil) {
			if md.Schema.Column(leaf).PhysicalType() != parquet.Types.Int96 {
				continue
			}
			if !sf.IsLeaf() {
				return nil, fmt.Errorf("%w: data file %s: INT96 timestamps inside the nested column %s", ErrUnsupported, s.path, sf.Field.Name)
			}
			isI96 = true
		}
		if !isI96 {
			cols = leaves(sf, cols)
			continue
		}
		typ := &arrow.TimestampType{Unit: arrow.Nanosecond}
		for j, w := range src {
			if w == i {
				if t, ok := out.Field(j).Type.(*arrow.TimestampType); ok {
					typ = &arrow.TimestampType{Unit: t.Unit, TimeZone: t.TimeZone}
				}
			}
		}
		i96 = append(i96, int96Col{pos: order[i], name: sf.Field.Name, leaf: sf.ColIndex, maxDef: md.Schema.Column(sf.ColIndex).MaxDefinitionLevel(), typ: typ})
	}
	rgStart := make([]int64, pf.NumRowGroups())
	for rg := 1; rg < pf.NumRowGroups(); rg++ {
		rgStart[rg] = rgStart[rg-1] + md.RowGroup(rg-1).NumRows()
	}
	pl, pn, pt := pageLeaves(fr, order, i96)
	noCols := len(cols) == 0 && len(i96) == 0
	// splittable: a row group of this file may be split by rows among
	// slices (rowsplit.go). Decided from the file and the columns read
	// alone, never from which row groups this slice reads, so that
	// every slice of the file decides alike: reads of no column, and
	// files the page decoder reads in every row group.
	splittable := -1
	canSplit := func() bool {
		if splittable < 0 {
			splittable = 0
			all := make([]int, pf.NumRowGroups())
			for i := range all {
				all[i] = i
			}
			if noCols {
				splittable = 1
			} else if pc := planPageColumns(s.path, pf, pl, pn, pt, all); pc != nil && (localFile(s.path) || pc.indexed()) {
				// A remote file's pages are listed from its offset
				// indexes: walking the headers would be a request each.
				splittable = 1
			}
		}
		return splittable == 1
	}
	parts := make([]rgPart, 0, pf.NumRowGroups())
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		part := rgPart{rg: rg, to: md.RowGroup(rg).NumRows()}
		owner := true
		if s.slice != nil && s.slice.Count > 1 {
			lo, hi, err := rowGroupSpan(md.RowGroup(rg))
			if err != nil {
				return nil, fmt.Errorf("%w: data file %s row group %d: %v", ErrCorrupt, s.path, rg, err)
			}
			owner = s.slice.owns(lo, hi, f.Size())
			part.from, part.to, part.split = s.slice.rowRange(lo, hi, f.Size(), part.to, canSplit)
			if part.from == part.to {
				continue
			}
		}
		if s.pred != nil && !rowGroupMayMatch(s.pred, md.RowGroup(rg), fr, s.want, src) {
			if owner {
				// Counted once, by the slice holding the group's middle.
				s.metrics.skippedGroup()
			}
			continue
		}
		parts = append(parts, part)
	}
	rgs := make([]int, len(parts))
	for i := range parts {
		rgs[i] = parts[i].rg
	}
	if pc := planPageColumns(s.path, pf, pl, pn, pt, rgs); pc != nil {
		for i := range parts {
			if err := alignPart(ctx, f, pc, &parts[i], md.RowGroup(parts[i].rg).NumRows()); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
		}
		return openPageColumns(ctx, s, f, out, src, order, pc, parts, rgStart, bs, &ok)
	}
	for _, p := range parts {
		if !p.split {
			continue
		}
		if !noCols {
			// canSplit said the page decoder reads every row group.
			return nil, fmt.Errorf("%w: data file %s row group %d: a row range outside the page decoder", ErrUnsupported, s.path, p.rg)
		}
		splitParts.Add(1)
	}
	// One pqarrow reader per run of consecutive unpruned row groups, not
	// per row group: a reader allocates fresh page and decompression
	// buffers, and batch positions stay contiguous within a run. INT96
	// reads and reads of no file column stay one row group per unit.
	runs := rowGroupRuns(rgs, !noCols)
	ok = true
	return unitBatches(ctx, s, f, out, noCols, src, order, unitReads{
		count: len(runs),
		// A run of no column is one part (rowGroupRuns joins none):
		// parts[i].
		start: func(i int) int64 {
			if noCols {
				return rgStart[parts[i].rg] + parts[i].from
			}
			return rgStart[runs[i][0]]
		},
		rows: func(i int) int64 {
			if noCols {
				return parts[i].to - parts[i].from
			}
			return md.RowGroup(runs[i][0]).NumRows()
		},
		open: func(i int) (array.RecordReader, error) {
			var r array.RecordReader
			if len(cols) > 0 {
				pr, err := fr.GetRecordReader(ctx, cols, runs[i])
				if err != nil {
					return nil, fmt.Errorf("%w: data file %s row groups %d-%d: %v", ErrCorrupt, s.path, runs[i][0], runs[i][len(runs[i])-1], err)
				}
				r = pr
			}
			if len(i96) == 0 {
				return r, nil
			}
			// On error the reader has released r.
			ir, err := newInt96Reader(s.path, pf, runs[i][0], r, i96, len(order), int64(bs), s.mem)
			if err != nil {
				return nil, err
			}
			return ir, nil
		},
		eofEnds: true,
	}), nil
}

// rowGroupSpan is the byte range a row group's column chunks occupy. It
// is computed from the chunks rather than the row group's optional
// file_offset, which some writers leave unset or wrong.
func rowGroupSpan(rg *metadata.RowGroupMetaData) (lo, hi int64, err error) {
	lo = -1
	for c := 0; c < rg.NumColumns(); c++ {
		cc, err := rg.ColumnChunk(c)
		if err != nil {
			return 0, 0, err
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		end := start + cc.TotalCompressedSize()
		if start < 0 || end < start {
			return 0, 0, fmt.Errorf("column chunk %d spans bytes %d..%d", c, start, end)
		}
		if lo < 0 || start < lo {
			lo = start
		}
		hi = max(hi, end)
	}
	return max(lo, 0), hi, nil
}

// rowGroupRuns splits the ascending row groups rgs into runs of
// consecutive ones (join) or into single row groups.
func rowGroupRuns(rgs []int, join bool) [][]int {
	var runs [][]int
	for i, rg := range rgs {
		if join && i > 0 && rgs[i-1] == rg-1 {
			runs[len(runs)-1] = append(runs[len(runs)-1], rg)
			continue
		}
		runs = append(runs, []int{rg})
	}
	return runs
}

// unitReads are the parts of one data file a scan reads in turn (Parquet row
// groups, ORC stripes), already pruned by statistics.
type unitReads struct {
	count int
	start func(i int) int64 // file position of unit i's first row
	rows  func(i int) int64 // unit i's row count, for reads of no file column
	open  func(i int) (array.RecordReader, error)
	// eofEnds: the reader reports a clean end as io.EOF from Err (pqarrow).
	eofEnds bool
}

// unitBatches reads u's units one after another, conforming each batch to
// out; with noCols set nothing is read from the file and every unit becomes
// one all-NULL batch. Closing releases the current reader and closes f.
func unitBatches(ctx context.Context, s fileReadSpec, f io.Closer, out *arrow.Schema, noCols bool, src []int, order map[int]int, u unitReads) *fileBatches {
	fb := &fileBatches{schema: out}
	var rr array.RecordReader
	var pos int64
	ui := 0
	fb.close = func() {
		if rr != nil {
			rr.Release()
			rr = nil
		}
		f.Close()
	}
	// The schema of the last batch and how it maps onto out: a file's
	// batches share their schema, so the check runs once a file, not
	// once a batch.
	var last *arrow.Schema
	var lastShape batchShape
	fb.next = func() (arrow.RecordBatch, int64, error) {
		for {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if rr == nil {
				if ui >= u.count {
					return nil, 0, nil
				}
				i := ui
				ui++
				pos = u.start(i)
				if noCols {
					rec, err := nullBatch(out, u.rows(i), s.mem)
					return rec, pos, err
				}
				r, err := u.open(i)
				if err != nil {
					return nil, 0, err
				}
				rr = r
			}
			if !rr.Next() {
				err := rr.Err()
				rr.Release()
				rr = nil
				if err != nil && !(u.eofEnds && err == io.EOF) {
					return nil, 0, fmt.Errorf("data file %s: %w", s.path, err)
				}
				continue
			}
			in := rr.RecordBatch()
			if sc := in.Schema(); sc != last {
				last, lastShape = sc, shapeOf(sc, out, src, order)
			}
			var rec arrow.RecordBatch
			switch lastShape {
			case shapeAsIs:
				// Already the output: passed on, not rebuilt (a
				// batch's projection and type checks cost more than
				// its ZSTD share on narrow reads).
				in.Retain()
				rec = in
			case shapeRelabel:
				rec = array.NewRecordBatch(out, in.Columns(), in.NumRows())
			default:
				var err error
				if rec, err = conform(ctx, in, out, src, order, s.mem); err != nil {
					return nil, 0, fmt.Errorf("data file %s: %w", s.path, err)
				}
			}
			p := pos
			pos += in.NumRows()
			return rec, p, nil
		}
	}
	return fb
}

func nullBatch(out *arrow.Schema, n int64, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(out.Fields()))
	for i, f := range out.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
	}
	rec := array.NewRecordBatch(out, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// batchShape says what conform would do to a batch of a file schema.
type batchShape int8

const (
	shapeConform batchShape = iota // columns reordered, added or retyped
	shapeAsIs                      // nothing: the schema is out
	shapeRelabel                   // only out's names, nullability and field metadata put on
)

// shapeOf is the shape of in's batches for out: relabelled when every
// column of out is in's column at the same position with the same type
// (what conform keeps unchanged), as is when the fields are equal too.
func shapeOf(in, out *arrow.Schema, src []int, order map[int]int) batchShape {
	if in.NumFields() != out.NumFields() {
		return shapeConform
	}
	for i := range out.NumFields() {
		if src[i] < 0 {
			return shapeConform
		}
		if j, ok := order[src[i]]; !ok || j != i || !arrow.TypeEqual(in.Field(i).Type, out.Field(i).Type) {
			return shapeConform
		}
	}
	if in.Equal(out) {
		return shapeAsIs
	}
	return shapeRelabel
}

// conform reshapes a file batch into the output schema: columns reordered,
// missing ones NULL, types relabelled or cast to the table types.
func conform(ctx context.Context, in arrow.RecordBatch, out *arrow.Schema, src []int, order map[int]int, mem memory.Allocator) (arrow.RecordBatch, error) {
	n := in.NumRows()
	cols := make([]arrow.Array, len(out.Fields()))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range out.Fields() {
		if src[i] < 0 {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
			continue
		}
		a, err := retype(ctx, in.Column(order[src[i]]), f.Type, mem)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols[i] = a
	}
	return array.NewRecordBatch(out, cols, n), nil
}

// retype returns arr as type dst (a new reference): unchanged when equal,
// relabelled when only names, zones or nullability differ, else cast.
func retype(ctx context.Context, arr arrow.Array, dst arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dst) {
		arr.Retain()
		return arr, nil
	}
	if d, ok := relabel(arr.Data(), dst); ok {
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	c, err := compute.CastArray(compute.WithAllocator(ctx, mem), arr, compute.SafeCastOptions(dst))
	if err != nil {
		return nil, fmt.Errorf("%w: cannot convert %s to %s: %v", ErrUnsupported, arr.DataType(), dst, err)
	}
	return c, nil
}

func relabel(d arrow.ArrayData, dst arrow.DataType) (arrow.ArrayData, bool) {
	st := d.DataType()
	switch s := st.(type) {
	case *arrow.TimestampType:
		t, ok := dst.(*arrow.TimestampType)
		if !ok || t.Unit != s.Unit {
			return nil, false
		}
		return array.NewData(dst, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()), true
	case *arrow.MapType, *arrow.ListType:
		// Map to map or list to list: the one child is relabelled.
		t, ok := dst.(arrow.ListLikeType)
		if !ok || dst.ID() != st.ID() {
			return nil, false
		}
		c, ok := relabel(d.Children()[0], t.Elem())
		if !ok {
			return nil, false
		}
		defer c.Release()
		return array.NewData(dst, d.Len(), d.Buffers(), []arrow.ArrayData{c}, d.NullN(), d.Offset()), true
	case *arrow.StructType:
		t, ok := dst.(*arrow.StructType)
		if !ok || t.NumFields() != s.NumFields() {
			return nil, false
		}
		var kids []arrow.ArrayData
		defer func() {
			for _, k := range kids {
				k.Release()
			}
		}()
		for i := range s.Fields() {
			c, ok := relabel(d.Children()[i], t.Field(i).Type)
			if !ok {
				return nil, false
			}
			kids = append(kids, c)
		}
		return array.NewData(dst, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset()), true
	}
	if arrow.TypeEqual(st, dst) {
		d.Retain()
		return d, true
	}
	return nil, false
}

// pageLeaves lists the selected top-level columns in selected order for
// planPageColumns: leaf index (-1 for a nested column), name and output
// type (pqarrow's; an INT96 column's at the table's unit).
func pageLeaves(fr *pqarrow.FileReader, order map[int]int, i96 []int96Col) (leaves []int, names []string, types []arrow.DataType) {
	leaves = make([]int, len(order))
	names = make([]string, len(order))
	types = make([]arrow.DataType, len(order))
	for i, pos := range order {
		sf := fr.Manifest.Fields[i]
		leaves[pos], names[pos], types[pos] = -1, sf.Field.Name, sf.Field.Type
		if sf.IsLeaf() {
			leaves[pos] = sf.ColIndex
		}
	}
	for _, c := range i96 {
		types[c.pos] = c.typ
	}
	return leaves, names, types
}

// openPageColumns reads the file through lake/parquetpage: one reader per
// column for the whole file, one unit per run of consecutive row groups.
func openPageColumns(ctx context.Context, s fileReadSpec, f fileio.File, out *arrow.Schema, src []int, order map[int]int, pc *pageColumns,
	parts []rgPart, rgStart []int64, bs int, ok *bool) (*fileBatches, error) {
	prs, err := newPageReaders(pc, s.mem, s.pool)
	if err != nil {
		return nil, err
	}
	if s.pred != nil && !s.statsOnly {
		pc.lateFilter(s.pred, s.want, src, order, out)
		if pc.pred != nil && s.dropRows {
			pc.drop, pc.dv, pc.metrics = true, s.dv, s.metrics
			dropFiles.Add(1)
			pc.markUnread(s.want, src, order, s.filterOnly)
		}
	}
	runs := partRuns(parts)
	pageFiles.Add(1)
	*ok = true
	fb := unitBatches(ctx, s, f, out, false, src, order, unitReads{
		count: len(runs),
		start: func(i int) int64 { p := runs[i][0]; return rgStart[p.rg] + p.from },
		rows:  func(i int) int64 { p := runs[i][0]; return p.to - p.from },
		open: func(i int) (array.RecordReader, error) {
			return &pageRecordReader{refs: 1, ctx: ctx, path: s.path, f: f, pc: pc, prs: prs, parts: runs[i],
				start: func(rg int) int64 { return rgStart[rg] }, mem: s.mem, batch: int64(bs)}, nil
		},
	})
	fb.filtered = pc.drop
	closeFile := fb.close
	fb.close = func() {
		closeFile()
		prs.release()
	}
	return fb, nil
}

// partRuns groups parts into runs whose rows are consecutive in the file:
// whole row groups one after another; a part of a row group ends a run
// and starts the next.
func partRuns(parts []rgPart) [][]rgPart {
	var runs [][]rgPart
	for i, p := range parts {
		if i > 0 && !p.split && !parts[i-1].split && parts[i-1].rg == p.rg-1 {
			runs[len(runs)-1] = append(runs[len(runs)-1], p)
			continue
		}
		runs = append(runs, parts[i:i+1:i+1])
	}
	return runs
}
