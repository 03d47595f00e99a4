package iceberg

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// ORC type attributes Iceberg writers set (Iceberg spec, ORC appendix).
const (
	orcIDAttr   = "iceberg.id"
	orcLongType = "iceberg.long-type"
)

// fileReader is one data or delete file being read: paimon's Parquet path
// or orcFile.
type fileReader interface {
	Next() (arrow.RecordBatch, int64, error)
	Close()
}

// fileRead is what openFile needs of one file.
type fileRead struct {
	path string // as the metadata records it (errors name it)
	size int64
	// records is the manifest's record_count (0: unknown).
	records int64
	format  string // manifest file_format; "" is Parquet (older planners)
	want    []paimon.DataField
	// fileFields are the fields a Parquet file is matched by (see
	// paimon.DataFileRead); want when nil.
	fileFields []paimon.DataField
	// consts are identity partition values for columns the file lacks.
	consts []IdentityValue
	pred   *paimon.Predicate
	batch  int
	bufs   *paimon.ScanBuffers
	// slice: the part of a data file read (Parquet row groups or row
	// ranges, ORC stripes).
	slice *paimon.FileSlice
}

// openFile opens one file of the split in the format its manifest entry
// names.
func (p *Plan) openFile(ctx context.Context, mem memory.Allocator, r fileRead) (fileReader, error) {
	switch iceberg.FileFormat(r.format) {
	case "", iceberg.ParquetFile:
		return p.openParquet(ctx, mem, r)
	case iceberg.OrcFile:
		return p.openORC(ctx, mem, r)
	}
	return nil, fmt.Errorf("%w: Iceberg table %s: file %s is %s; only Parquet and ORC files are read", ErrUnsupported, p.Table.Name, r.path, r.format)
}

// orcFile reads one Iceberg ORC file: top-level columns matched to the
// wanted fields by the iceberg.id type attribute, or, in a file without
// ids (a migrated Hive table), by the table's name mapping
// (schema.name-mapping.default, else the current schema's names, as Java
// Iceberg does); struct fields likewise, list and map children by
// position. A wanted column the file lacks is its identity partition value
// when the split has one, else NULL. Types are promoted to the table's
// (int→long, float→double, decimal precision widening) by cast.
type orcFile struct {
	ctx     context.Context
	path    string
	f       fileio.File
	of      *orc.File
	out     *arrow.Schema
	want    []paimon.DataField
	src     []int // per wanted field: position in the read batch, or -1
	cols    []int // file root field indexes read, in batch order
	consts  []scalar.Scalar
	mem     memory.Allocator
	mapped  []iceberg.MappedField // name mapping of a file without ids
	byID    bool
	unit    orc.TimestampUnit
	batch   int
	stripes []int
	starts  []int64
	si      int
	rr      array.RecordReader
	// nullLeft counts the rows of the current stripe still to emit when
	// no column is read.
	nullLeft int64
	pos      int64
}

func (p *Plan) openORC(ctx context.Context, mem memory.Allocator, r fileRead) (*orcFile, error) {
	name := p.Table.rel.apply(r.path)
	f, err := p.Table.fs.Open(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("iceberg table %s: ORC file %s: %w", p.Table.Name, r.path, err)
	}
	o := &orcFile{ctx: ctx, path: r.path, f: f, mem: mem, want: r.want, batch: r.batch}
	ok := false
	defer func() {
		if !ok {
			o.Close()
		}
	}()
	if r.size > 0 && f.Size() != r.size {
		return nil, fmt.Errorf("%w: Iceberg table %s: ORC file %s has %d bytes, its manifest records %d", ErrCorrupt, p.Table.Name, r.path, f.Size(), r.size)
	}
	if o.of, err = orc.Open(f, f.Size(), orc.WithName(r.path)); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: Iceberg table %s: ORC file %s: %v", orcKind(err), p.Table.Name, r.path, err)
	}
	// The manifest's record_count is required: a file holding another
	// number of rows is not the file the metadata describes (and a footer
	// claiming rows it has no data for is not believed).
	if r.records > 0 && o.of.NumRows() != r.records {
		return nil, fmt.Errorf("%w: Iceberg table %s: ORC file %s holds %d rows, its manifest records %d", ErrCorrupt, p.Table.Name, r.path, o.of.NumRows(), r.records)
	}
	if o.out, err = paimon.ArrowSchema(r.want); err != nil {
		return nil, err
	}
	fields := o.of.Schema().Fields()
	for _, fl := range fields {
		if _, has := fl.Metadata.GetValue(orcIDAttr); has {
			o.byID = true
			break
		}
	}
	if !o.byID {
		o.mapped = p.Table.nameMapping()
	}
	o.src = make([]int, len(r.want))
	o.consts = make([]scalar.Scalar, len(r.want))
	used := map[int]int{}
	for i, w := range r.want {
		o.src[i] = -1
		c := o.fileColumn(fields, w.ID)
		if c < 0 {
			for _, cv := range r.consts {
				if cv.ID == w.ID {
					if o.consts[i], err = constScalar(cv, o.out.Field(i).Type); err != nil {
						return nil, fmt.Errorf("iceberg table %s: ORC file %s: column %s: %w", p.Table.Name, r.path, w.Name, err)
					}
				}
			}
			continue
		}
		if b, seen := used[c]; seen {
			o.src[i] = b
			continue
		}
		used[c] = len(o.cols)
		o.src[i] = len(o.cols)
		o.cols = append(o.cols, c)
	}
	o.unit = timestampUnit(r.want)
	var start int64
	var b *stripeBound
	if r.pred != nil {
		all := r.fileFields
		if all == nil {
			all = r.want
		}
		b = &stripeBound{of: o.of, fields: all, column: func(id int) int { return o.fileColumn(fields, id) }}
	}
	for i, st := range o.of.Stripes() {
		if r.slice != nil {
			if !r.slice.OwnsStripe(st, f.Size()) {
				start += int64(st.NumRows)
				continue
			}
		}
		if b == nil || b.mayMatch(r.pred, st) {
			o.stripes = append(o.stripes, i)
			o.starts = append(o.starts, start)
		}
		start += int64(st.NumRows)
	}
	ok = true
	return o, nil
}

// fileColumn is the root field index of field id in the file, or -1.
func (o *orcFile) fileColumn(fields []arrow.Field, id int) int {
	for i, fl := range fields {
		if o.fieldID(fl, o.mapped) == id {
			return i
		}
	}
	return -1
}

// fieldID is the Iceberg field id of a file field: its iceberg.id
// attribute, or the id the name mapping (at this level) gives its name;
// -1 when neither.
func (o *orcFile) fieldID(fl arrow.Field, mapped []iceberg.MappedField) int {
	if o.byID {
		v, ok := fl.Metadata.GetValue(orcIDAttr)
		if !ok {
			return -1
		}
		id, err := strconv.Atoi(v)
		if err != nil {
			return -1
		}
		return id
	}
	for _, m := range mapped {
		for _, n := range m.Names {
			if n == fl.Name {
				return m.ID()
			}
		}
	}
	return -1
}

// nameMapping is the table's schema.name-mapping.default, or one built
// from the current schema's names when the property is absent or bad.
func (t *Table) nameMapping() []iceberg.MappedField {
	if nm := t.tbl.Metadata().NameMapping(); nm != nil {
		return nm
	}
	var ofType func(t iceberg.Type) []iceberg.MappedField
	entry := func(name string, id int, t iceberg.Type) iceberg.MappedField {
		return iceberg.MappedField{Names: []string{name}, FieldID: &id, Fields: ofType(t)}
	}
	ofType = func(t iceberg.Type) []iceberg.MappedField {
		switch x := t.(type) {
		case *iceberg.StructType:
			var out []iceberg.MappedField
			for _, f := range x.FieldList {
				out = append(out, entry(f.Name, f.ID, f.Type))
			}
			return out
		case *iceberg.ListType:
			return []iceberg.MappedField{entry("element", x.ElementID, x.Element)}
		case *iceberg.MapType:
			return []iceberg.MappedField{entry("key", x.KeyID, x.KeyType), entry("value", x.ValueID, x.ValueType)}
		}
		return nil
	}
	return ofType(&iceberg.StructType{FieldList: t.tbl.Schema().Fields()})
}

func (o *orcFile) Close() {
	if o.rr != nil {
		o.rr.Release()
		o.rr = nil
	}
	if o.f != nil {
		o.f.Close()
		o.f = nil
	}
}

// orcKind classifies a lake/orc error as this package's: a feature it
// does not read (column encryption, ...) is ErrUnsupported, anything
// else about the bytes ErrCorrupt.
func orcKind(err error) error {
	if errors.Is(err, orc.ErrUnsupported) {
		return ErrUnsupported
	}
	return ErrCorrupt
}

func (o *orcFile) batchSize() int {
	if o.batch > 0 {
		return o.batch
	}
	return orc.DefaultBatchSize
}

// Next returns the next batch in the wanted fields' types and the file
// position of its first row; nil at the end.
func (o *orcFile) Next() (arrow.RecordBatch, int64, error) {
	for {
		if err := o.ctx.Err(); err != nil {
			return nil, 0, err
		}
		if o.nullLeft > 0 {
			// No wanted column is in the file: NULL (or constant) rows,
			// a batch at a time.
			n := min(o.nullLeft, int64(o.batchSize()))
			rec, err := o.conform(nil, n)
			p := o.pos
			o.pos += n
			o.nullLeft -= n
			return rec, p, err
		}
		if o.rr == nil {
			if o.si >= len(o.stripes) {
				return nil, 0, nil
			}
			si := o.stripes[o.si]
			o.pos = o.starts[o.si]
			o.si++
			if len(o.cols) == 0 {
				o.nullLeft = int64(o.of.Stripes()[si].NumRows)
				continue
			}
			rr, err := o.of.NewRecordReader(o.ctx, orc.ReadOptions{Columns: o.cols, Stripes: []int{si}, BatchSize: o.batch, Mem: o.mem, TimestampUnit: o.unit})
			if err != nil {
				return nil, 0, fmt.Errorf("%w: ORC file %s stripe %d: %v", orcKind(err), o.path, si, err)
			}
			o.rr = rr
		}
		if !o.rr.Next() {
			err := o.rr.Err()
			o.rr.Release()
			o.rr = nil
			if err != nil {
				if cerr := o.ctx.Err(); cerr != nil {
					return nil, 0, cerr
				}
				return nil, 0, fmt.Errorf("%w: ORC file %s: %v", orcKind(err), o.path, err)
			}
			continue
		}
		in := o.rr.RecordBatch()
		rec, err := o.conform(in, in.NumRows())
		if err != nil {
			return nil, 0, err
		}
		p := o.pos
		o.pos += in.NumRows()
		return rec, p, nil
	}
}

// conform builds the output batch of n rows from the file batch in.
func (o *orcFile) conform(in arrow.RecordBatch, n int64) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(o.want))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, w := range o.want {
		dst := o.out.Field(i).Type
		switch {
		case o.src[i] >= 0:
			fl := in.Schema().Field(o.src[i])
			a, err := o.convert(in.Column(o.src[i]), fl, w.Type, dst, o.mappedChildren(fl.Name, o.mapped))
			if err != nil {
				return nil, fmt.Errorf("ORC file %s: column %s: %w", o.path, w.Name, err)
			}
			cols[i] = a
		case o.consts[i] != nil:
			c, err := constColumn(o.consts[i], n, o.mem)
			if err != nil {
				return nil, fmt.Errorf("ORC file %s: column %s: %w", o.path, w.Name, err)
			}
			cols[i] = c
		default:
			cols[i] = array.MakeArrayOfNull(o.mem, dst, int(n))
		}
	}
	return array.NewRecordBatch(o.out, cols, n), nil
}

// mappedChildren is the name mapping of the children of the field named
// name among mapped (a list's child is "element", a map's "key" and
// "value"); nil for files with ids.
func (o *orcFile) mappedChildren(name string, mapped []iceberg.MappedField) []iceberg.MappedField {
	if o.byID {
		return nil
	}
	for _, m := range mapped {
		for _, n := range m.Names {
			if n == name {
				return m.Fields
			}
		}
	}
	return nil
}

// convert returns arr (file field fl) as the table type want/dst: struct
// fields matched by id, lists and maps child by child, primitives
// relabelled or cast. names is the name mapping of fl's children (files
// without ids).
func (o *orcFile) convert(arr arrow.Array, fl arrow.Field, want paimon.DataType, dst arrow.DataType, names []iceberg.MappedField) (arrow.Array, error) {
	switch want.Root {
	case paimon.Row:
		st, ok := arr.(*array.Struct)
		dt, ok2 := dst.(*arrow.StructType)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: file type %s is not a struct", ErrUnsupported, arr.DataType())
		}
		if st.Data().Offset() != 0 {
			return nil, fmt.Errorf("%w: sliced struct batch", ErrCorrupt)
		}
		ft := st.DataType().(*arrow.StructType)
		kids := make([]arrow.ArrayData, len(want.Fields))
		defer func() {
			for _, k := range kids {
				if k != nil {
					k.Release()
				}
			}
		}()
		for i, wf := range want.Fields {
			c := -1
			for j, cf := range ft.Fields() {
				if o.fieldID(cf, names) == wf.ID {
					c = j
					break
				}
			}
			var ka arrow.Array
			if c < 0 {
				ka = array.MakeArrayOfNull(o.mem, dt.Field(i).Type, st.Len())
			} else {
				var err error
				if ka, err = o.convert(st.Field(c), ft.Field(c), wf.Type, dt.Field(i).Type, o.mappedChildren(ft.Field(c).Name, names)); err != nil {
					return nil, fmt.Errorf("field %s: %w", wf.Name, err)
				}
			}
			kids[i] = ka.Data()
			kids[i].Retain()
			ka.Release()
		}
		d := array.NewData(dst, st.Len(), st.Data().Buffers()[:1], kids, st.NullN(), 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	case paimon.Array:
		l, ok := arr.(*array.List)
		dt, ok2 := dst.(*arrow.ListType)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: file type %s is not a list", ErrUnsupported, arr.DataType())
		}
		el, err := o.convert(l.ListValues(), l.DataType().(*arrow.ListType).ElemField(), *want.Element, dt.Elem(), o.mappedChildren("element", names))
		if err != nil {
			return nil, fmt.Errorf("element: %w", err)
		}
		defer el.Release()
		d := array.NewData(dst, l.Len(), l.Data().Buffers(), []arrow.ArrayData{el.Data()}, l.NullN(), l.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	case paimon.Map:
		m, ok := arr.(*array.Map)
		dt, ok2 := dst.(*arrow.MapType)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: file type %s is not a map", ErrUnsupported, arr.DataType())
		}
		mt := m.DataType().(*arrow.MapType)
		k, err := o.convert(m.Keys(), mt.KeyField(), *want.Key, dt.KeyType(), o.mappedChildren("key", names))
		if err != nil {
			return nil, fmt.Errorf("key: %w", err)
		}
		defer k.Release()
		v, err := o.convert(m.Items(), mt.ItemField(), *want.Value, dt.ItemType(), o.mappedChildren("value", names))
		if err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		defer v.Release()
		ents := m.ListValues()
		ed := array.NewData(dt.Elem(), ents.Len(), ents.Data().Buffers()[:1], []arrow.ArrayData{k.Data(), v.Data()}, ents.NullN(), ents.Data().Offset())
		defer ed.Release()
		d := array.NewData(dst, m.Len(), m.Data().Buffers(), []arrow.ArrayData{ed}, m.NullN(), m.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return o.primitive(arr, fl, want, dst)
}

func (o *orcFile) primitive(arr arrow.Array, fl arrow.Field, want paimon.DataType, dst arrow.DataType) (arrow.Array, error) {
	src := arr.DataType()
	if arrow.TypeEqual(src, dst) {
		arr.Retain()
		return arr, nil
	}
	d := arr.Data()
	switch s := src.(type) {
	case *arrow.TimestampType:
		// Zone labels differ (timestamptz is "timestamp with local time
		// zone" in ORC, read as UTC); the unit is the one asked for.
		if t, ok := dst.(*arrow.TimestampType); ok && t.Unit == s.Unit {
			nd := array.NewData(dst, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
			defer nd.Release()
			return array.MakeFromData(nd), nil
		}
	case *arrow.Int64Type:
		// Iceberg time is an ORC long of microseconds (iceberg.long-type
		// TIME).
		if lt, _ := fl.Metadata.GetValue(orcLongType); lt == "TIME" || want.Root == paimon.Time {
			nd := array.NewData(arrow.FixedWidthTypes.Time64us, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
			defer nd.Release()
			t := array.MakeFromData(nd)
			defer t.Release()
			return o.cast(t, dst)
		}
	}
	return o.cast(arr, dst)
}

func (o *orcFile) cast(arr arrow.Array, dst arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dst) {
		arr.Retain()
		return arr, nil
	}
	if !promotable(arr.DataType(), dst) {
		return nil, fmt.Errorf("%w: file type %s does not read as %s", ErrUnsupported, arr.DataType(), dst)
	}
	c, err := compute.CastArray(compute.WithAllocator(o.ctx, o.mem), arr, compute.SafeCastOptions(dst))
	if err != nil {
		return nil, fmt.Errorf("%w: cannot convert %s to %s: %v", ErrCorrupt, arr.DataType(), dst, err)
	}
	return c, nil
}

// promotable: the conversions from a file type to a table type that
// Iceberg's type promotion (and the engine's narrower time and timestamp
// units) allow; anything else is a file that does not match the table.
func promotable(src, dst arrow.DataType) bool {
	switch s := src.(type) {
	case *arrow.Int32Type, *arrow.Int16Type, *arrow.Int8Type:
		return dst.ID() == arrow.INT64 || dst.ID() == arrow.INT32
	case *arrow.Float32Type:
		return dst.ID() == arrow.FLOAT64
	case *arrow.Decimal128Type:
		t, ok := dst.(*arrow.Decimal128Type)
		return ok && t.Scale == s.Scale && t.Precision >= s.Precision
	case *arrow.TimestampType:
		_, ok := dst.(*arrow.TimestampType)
		return ok
	case *arrow.Time64Type:
		return dst.ID() == arrow.TIME32 || dst.ID() == arrow.TIME64
	case *arrow.StringType:
		return dst.ID() == arrow.BINARY
	case *arrow.BinaryType:
		return dst.ID() == arrow.STRING
	}
	return false
}

// timestampUnit is the coarsest ORC timestamp unit that keeps every wanted
// timestamp's digits (nanoseconds span only 1677..2262).
func timestampUnit(want []paimon.DataField) orc.TimestampUnit {
	p := 0
	var walk func(t paimon.DataType)
	walk = func(t paimon.DataType) {
		if t.Root == paimon.Timestamp || t.Root == paimon.TimestampLTZ {
			p = max(p, t.Precision)
		}
		for _, c := range []*paimon.DataType{t.Element, t.Key, t.Value} {
			if c != nil {
				walk(*c)
			}
		}
		for _, f := range t.Fields {
			walk(f.Type)
		}
	}
	for _, w := range want {
		walk(w.Type)
	}
	if p > 6 {
		return orc.Nanoseconds
	}
	return orc.Microseconds
}
