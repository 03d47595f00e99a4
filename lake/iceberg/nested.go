package iceberg

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// Struct fields are Iceberg columns too: matched by field id, so a file
// written before a struct's fields were reordered, added or dropped holds
// them in another order and set than the current schema. lake/paimon
// matches a struct's fields by position (or casts by name when the counts
// differ), which would give one field another's values. So a wanted
// column whose struct layout (the field ids of every struct inside it, in
// order) differs in any of the table's schemas is read in the layout the
// file has (its footer is read for that) and rebuilt in the current one by
// id: a field the file lacks is NULL, one the schema dropped is left out.

// shape is the struct layout of t: the ids of every struct's fields, in
// order, nested as the type nests, and the primitive types (a promoted
// field inside a struct needs the same care).
func shape(t iceberg.Type) string {
	var b strings.Builder
	var walk func(t iceberg.Type)
	walk = func(t iceberg.Type) {
		switch x := t.(type) {
		case *iceberg.StructType:
			b.WriteByte('{')
			for _, f := range x.FieldList {
				b.WriteString(strconv.Itoa(f.ID))
				b.WriteByte(':')
				walk(f.Type)
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case *iceberg.ListType:
			b.WriteByte('[')
			walk(x.Element)
			b.WriteByte(']')
		case *iceberg.MapType:
			b.WriteByte('<')
			walk(x.KeyType)
			b.WriteByte(',')
			walk(x.ValueType)
			b.WriteByte('>')
		default:
			b.WriteString(t.String())
		}
	}
	walk(t)
	return b.String()
}

// nestedEvolved reports whether nested column id has another struct
// layout or nested field type in some schema of the table than in the
// current one.
func (t *Table) nestedEvolved(id int) bool {
	cur, ok := t.tbl.Schema().FindFieldByID(id)
	if !ok {
		return false
	}
	switch cur.Type.(type) {
	case *iceberg.StructType, *iceberg.ListType, *iceberg.MapType:
	default:
		return false
	}
	want := shape(cur.Type)
	for _, sc := range t.tbl.Metadata().Schemas() {
		if f, ok := sc.FindFieldByID(id); ok && shape(f.Type) != want {
			return true
		}
	}
	return false
}

// historicField is field id as the newest schema that has it defines it
// (a field the current schema dropped).
func (t *Table) historicField(id int) (iceberg.NestedField, bool) {
	scs := t.tbl.Metadata().Schemas()
	for i := len(scs) - 1; i >= 0; i-- {
		if f, ok := scs[i].FindFieldByID(id); ok {
			return f, true
		}
	}
	return iceberg.NestedField{}, false
}

// nestedLayouts returns want with each evolved column's type in the
// layout the Parquet file name has, and the indexes changed; want itself
// when none is evolved.
func (p *Plan) nestedLayouts(ctx context.Context, fsys fileio.FS, name, path string, want []paimon.DataField) ([]paimon.DataField, []int, error) {
	// A migrated table (one with a name mapping) may hold files without
	// ids whose structs differ from every schema of the table (the Hive
	// struct changed before the migration): their struct columns are
	// candidates too, kept only when the file has no ids.
	migrated := p.Table.tbl.Metadata().NameMapping() != nil
	var evolved, byName []int
	for i, w := range want {
		switch {
		case p.Table.nestedEvolved(w.ID):
			evolved = append(evolved, i)
		case migrated && hasStruct(w.Type):
			byName = append(byName, i)
		}
	}
	if len(evolved)+len(byName) == 0 {
		return want, nil, nil
	}
	f, err := fsys.Open(ctx, name)
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, path, err)
	}
	defer pf.Close()
	fsc, err := pqarrow.FromParquet(pf.MetaData().Schema, &pqarrow.ArrowReadProperties{}, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, path, err)
	}
	hasIDs := false
	for _, f := range fsc.Fields() {
		if _, ok := arrowFieldID(f); ok {
			hasIDs = true
		}
	}
	// A file without ids (a migrated one) is matched by the name mapping
	// down to struct fields: the mapping keeps every name a field had, so
	// a renamed field is found by its old name.
	var mapped []iceberg.MappedField
	if !hasIDs {
		mapped = p.Table.nameMapping()
		evolved = append(evolved, byName...)
		slices.Sort(evolved)
	}
	if len(evolved) == 0 {
		return want, nil, nil
	}
	out := append([]paimon.DataField(nil), want...)
	var changed []int
	for _, i := range evolved {
		var ff *arrow.Field
		var kids []iceberg.MappedField
		for k := range fsc.Fields() {
			if id, sub, ok := fileFieldID(fsc.Field(k), mapped, hasIDs); ok && id == want[i].ID {
				ff, kids = &fsc.Fields()[k], sub
			}
		}
		if ff == nil {
			continue // not in the file: read as absent
		}
		t, err := p.Table.fileLayout(want[i].Type, ff.Type, kids, hasIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("data file %s: column %s: %w", path, want[i].Name, err)
		}
		out[i].Type = t
		changed = append(changed, i)
	}
	return out, changed, nil
}

// fileFieldID is the Iceberg field id of a file field and the name
// mapping of its children: its Parquet field id when the file has ids,
// else the id the mapping at this level gives its name (false when the
// mapping has none).
func fileFieldID(f arrow.Field, mapped []iceberg.MappedField, byID bool) (int, []iceberg.MappedField, bool) {
	if byID {
		id, ok := arrowFieldID(f)
		return id, nil, ok
	}
	for _, m := range mapped {
		if m.FieldID != nil && slices.Contains(m.Names, f.Name) {
			return *m.FieldID, m.Fields, true
		}
	}
	return 0, nil, false
}

// mappedChild is the mapping of a list's element or a map's key or value
// (named so by the spec), nil when the mapping has none.
func mappedChild(mapped []iceberg.MappedField, name string) []iceberg.MappedField {
	for _, m := range mapped {
		if slices.Contains(m.Names, name) {
			return m.Fields
		}
	}
	return nil
}

// hasStruct reports whether t is or holds a struct.
func hasStruct(t paimon.DataType) bool {
	switch t.Root {
	case paimon.Row:
		return true
	case paimon.Array:
		return hasStruct(*t.Element)
	case paimon.Map:
		return hasStruct(*t.Key) || hasStruct(*t.Value)
	}
	return false
}

func arrowFieldID(f arrow.Field) (int, bool) {
	v, ok := f.Metadata.GetValue("PARQUET:field_id")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil && id >= 0 // pqarrow writes -1 for a field without one
}

// fileLayout is cur with every struct's fields in the order and set of
// the file type ft: fields matched by id (byID) or through the name
// mapping mapped of this level, a field only the file has typed as the
// newest schema having it defines it.
func (t *Table) fileLayout(cur paimon.DataType, ft arrow.DataType, mapped []iceberg.MappedField, byID bool) (paimon.DataType, error) {
	out := cur
	switch cur.Root {
	case paimon.Row:
		st, ok := ft.(*arrow.StructType)
		if !ok {
			return cur, fmt.Errorf("%w: the file's %s is not a struct", ErrUnsupported, ft)
		}
		out.Fields = nil
		for _, fc := range st.Fields() {
			id, kids, ok := fileFieldID(fc, mapped, byID)
			if !ok && byID {
				return cur, fmt.Errorf("%w: struct field %s has no field id in the file", ErrUnsupported, fc.Name)
			}
			if !ok {
				// The struct is read by position in the file's layout,
				// so a field of unknown type cannot be skipped.
				return cur, fmt.Errorf("%w: struct field %s of the file is not in the table's name mapping", ErrUnsupported, fc.Name)
			}
			var df *paimon.DataField
			for k := range cur.Fields {
				if cur.Fields[k].ID == id {
					df = &cur.Fields[k]
				}
			}
			if df == nil {
				hf, ok := t.historicField(id)
				if !ok {
					return cur, fmt.Errorf("%w: struct field %s (id %d) is in no schema of the table", ErrCorrupt, fc.Name, id)
				}
				lf, err := lakeField(hf)
				if err != nil {
					return cur, err
				}
				df = &lf
			}
			ct, err := t.fileLayout(df.Type, fc.Type, kids, byID)
			if err != nil {
				return cur, err
			}
			// The file's name: lake/paimon converts a struct whose field
			// types differ (a promoted field) by name.
			nf := *df
			nf.Name, nf.Type = fc.Name, ct
			out.Fields = append(out.Fields, nf)
		}
	case paimon.Array:
		lt, ok := ft.(*arrow.ListType)
		if !ok {
			return cur, fmt.Errorf("%w: the file's %s is not a list", ErrUnsupported, ft)
		}
		e, err := t.fileLayout(*cur.Element, lt.Elem(), mappedChild(mapped, "element"), byID)
		if err != nil {
			return cur, err
		}
		out.Element = &e
	case paimon.Map:
		mt, ok := ft.(*arrow.MapType)
		if !ok {
			return cur, fmt.Errorf("%w: the file's %s is not a map", ErrUnsupported, ft)
		}
		k, err := t.fileLayout(*cur.Key, mt.KeyType(), mappedChild(mapped, "key"), byID)
		if err != nil {
			return cur, err
		}
		v, err := t.fileLayout(*cur.Value, mt.ItemType(), mappedChild(mapped, "value"), byID)
		if err != nil {
			return cur, err
		}
		out.Key, out.Value = &k, &v
	default:
		// A promoted field is read as the file has it and widened by
		// relayout: arrow's cast of a list of structs does not hold.
		switch x := ft.(type) {
		case *arrow.Int32Type:
			if cur.Root == paimon.BigInt {
				out.Root = paimon.Int
			}
		case *arrow.Float32Type:
			if cur.Root == paimon.Double {
				out.Root = paimon.Float
			}
		case *arrow.Decimal128Type:
			if cur.Root == paimon.Decimal && int(x.Scale) == cur.Scale && int(x.Precision) < cur.Precision {
				out.Precision = int(x.Precision)
			}
		}
	}
	return out, nil
}

// relayout rebuilds a (read in layout from) in layout to, whose Arrow type
// is dst: struct fields by id, NULL where from lacks one. It returns a new
// reference.
func relayout(a arrow.Array, from, to paimon.DataType, dst arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	switch to.Root {
	case paimon.Row:
		st, ok := a.(*array.Struct)
		dt, ok2 := dst.(*arrow.StructType)
		if !ok || !ok2 {
			break
		}
		n := st.Len()
		kids := make([]arrow.ArrayData, len(to.Fields))
		defer func() {
			for _, k := range kids {
				if k != nil {
					k.Release()
				}
			}
		}()
		for j, tf := range to.Fields {
			src := -1
			for k, ff := range from.Fields {
				if ff.ID == tf.ID {
					src = k
				}
			}
			var c arrow.Array
			if src < 0 {
				c = array.MakeArrayOfNull(mem, dt.Field(j).Type, n)
			} else {
				var err error
				if c, err = relayout(st.Field(src), from.Fields[src].Type, tf.Type, dt.Field(j).Type, mem); err != nil {
					return nil, err
				}
			}
			kids[j] = c.Data()
			kids[j].Retain()
			c.Release()
		}
		// A fresh validity bitmap: the children are sliced to the
		// struct's rows, so the result starts at offset 0.
		var valid *memory.Buffer
		nulls := st.NullN()
		if nulls > 0 {
			valid = memory.NewResizableBuffer(mem)
			valid.Resize(int(bitutil.BytesForBits(int64(n))))
			bits := valid.Bytes()
			for r := 0; r < n; r++ {
				bitutil.SetBitTo(bits, r, st.IsValid(r))
			}
			defer valid.Release()
		}
		d := array.NewData(dst, n, []*memory.Buffer{valid}, kids, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	case paimon.Array:
		l, ok := a.(*array.List)
		lt, ok2 := dst.(*arrow.ListType)
		if !ok || !ok2 {
			break
		}
		e, err := relayout(l.ListValues(), *from.Element, *to.Element, lt.Elem(), mem)
		if err != nil {
			return nil, err
		}
		defer e.Release()
		d := array.NewData(dst, l.Len(), l.Data().Buffers(), []arrow.ArrayData{e.Data()}, l.NullN(), l.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	case paimon.Map:
		m, ok := a.(*array.Map)
		mt, ok2 := dst.(*arrow.MapType)
		if !ok || !ok2 {
			break
		}
		k, err := relayout(m.Keys(), *from.Key, *to.Key, mt.KeyType(), mem)
		if err != nil {
			return nil, err
		}
		defer k.Release()
		v, err := relayout(m.Items(), *from.Value, *to.Value, mt.ItemType(), mem)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		entries := m.ListValues()
		ed := array.NewData(mt.Elem(), entries.Len(), entries.Data().Buffers(), []arrow.ArrayData{k.Data(), v.Data()}, entries.NullN(), entries.Data().Offset())
		defer ed.Release()
		d := array.NewData(dst, m.Len(), m.Data().Buffers(), []arrow.ArrayData{ed}, m.NullN(), m.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	default:
		if arrow.TypeEqual(a.DataType(), dst) {
			a.Retain()
			return a, nil
		}
		if from.Root != to.Root || from.Precision != to.Precision {
			c, err := compute.CastArray(compute.WithAllocator(context.Background(), mem), a, compute.SafeCastOptions(dst))
			if err != nil {
				return nil, fmt.Errorf("%w: %s does not read as %s: %v", ErrUnsupported, a.DataType(), dst, err)
			}
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w: %s does not read as %s", ErrUnsupported, a.DataType(), dst)
}

// relayoutReader rebuilds the evolved columns of each batch in the
// current layout.
type relayoutReader struct {
	fileReader
	path     string
	cols     []int
	from, to []paimon.DataField
	out      *arrow.Schema
	mem      memory.Allocator
}

func (r *relayoutReader) Next() (arrow.RecordBatch, int64, error) {
	rec, pos, err := r.fileReader.Next()
	if err != nil || rec == nil {
		return rec, pos, err
	}
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	defer releaseAll(cols)
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	for _, i := range r.cols {
		c, err := relayout(rec.Column(i), r.from[i].Type, r.to[i].Type, r.out.Field(i).Type, r.mem)
		if err != nil {
			return nil, 0, fmt.Errorf("data file %s: column %s: %w", r.path, r.to[i].Name, err)
		}
		cols[i].Release()
		cols[i] = c
	}
	return array.NewRecordBatch(r.out, cols, rec.NumRows()), pos, nil
}
