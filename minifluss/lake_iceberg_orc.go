package minifluss

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/lake/orc"
)

// A table whose Iceberg property write.format.default is orc (Fluss:
// 'iceberg.write.format.default' = 'orc', see icebergProperties) is tiered
// into ORC data and equality delete files, as Java Iceberg writes them:
// every column and struct/list field carries its field id as the ORC
// type attribute iceberg.id, a time column is an ORC long with
// iceberg.long-type TIME, timestamptz is "timestamp with local time zone".
// iceberg-go writes Parquet only, so the emulator writes these files with
// lake/orc and commits them like the Parquet ones; one file per partition
// of the round, with the column metrics Java's ORC writer records
// (lake_iceberg_orcmetrics.go), so readers prune ORC files by bounds.

// icebergORC reports whether the lake table writes ORC.
func icebergORC(tbl *icetable.Table) bool {
	return strings.EqualFold(tbl.Properties().Get(icetable.WriteFormatDefaultKey, icetable.WriteFormatDefaultDefault), "orc")
}

var orcFileSeq atomic.Int64

// writeORC writes the rows of batches (lake schema sc; released here) as
// one ORC file per partition and returns the files' manifest entries.
func (rd *iceRound) writeORC(batches []arrow.RecordBatch, sc *arrow.Schema, content iceberg.ManifestEntryContent, eqIDs []int) ([]iceberg.DataFile, error) {
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	spec := rd.tbl.Spec()
	schema := rd.tbl.Schema()
	osc, err := orcSchema(sc)
	if err != nil {
		return nil, err
	}
	type part struct {
		vals map[int]any
		path string
		recs []arrow.RecordBatch
		rows int64
	}
	parts := map[string]*part{}
	var order []string
	defer func() {
		for _, p := range parts {
			for _, r := range p.recs {
				r.Release()
			}
		}
	}()
	mem := memory.NewGoAllocator()
	for _, b := range batches {
		groups := map[string][]int64{}
		var keys []string
		for r := 0; r < int(b.NumRows()); r++ {
			vals, key, path, err := partitionOf(spec, schema, b, r)
			if err != nil {
				return nil, err
			}
			if _, ok := parts[key]; !ok {
				parts[key] = &part{vals: vals, path: path}
				order = append(order, key)
			}
			if groups[key] == nil {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], int64(r))
		}
		for _, k := range keys {
			sub, err := takeColumns(rd.ctx, b, groups[k], nil, b.Schema(), mem)
			if err != nil {
				return nil, err
			}
			parts[k].recs = append(parts[k].recs, sub)
			parts[k].rows += sub.NumRows()
		}
	}
	loc := strings.TrimPrefix(rd.tbl.Location(), "file://")
	var out []iceberg.DataFile
	for _, k := range order {
		p := parts[k]
		dir := filepath.Join(loc, "data", filepath.FromSlash(p.path))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		kind := "data"
		if content != iceberg.EntryContentData {
			kind = "eq-delete"
		}
		name := filepath.Join(dir, fmt.Sprintf("%05d-%d-%s.orc", orcFileSeq.Add(1), time.Now().UnixNano(), kind))
		size, err := writeORCFile(name, osc, p.recs)
		if err != nil {
			return nil, fmt.Errorf("ORC file %s: %w", name, err)
		}
		m := newFileMetrics(schema)
		for _, r := range p.recs {
			if err := m.add(r); err != nil {
				return nil, fmt.Errorf("ORC file %s: metrics: %w", name, err)
			}
		}
		if err := m.finish(); err != nil {
			return nil, fmt.Errorf("ORC file %s: metrics: %w", name, err)
		}
		bld, err := iceberg.NewDataFileBuilder(spec, content, name, iceberg.OrcFile, p.vals, nil, nil, p.rows, size)
		if err != nil {
			return nil, err
		}
		bld = bld.ValueCounts(m.values).NullValueCounts(m.nulls).NaNValueCounts(m.nans).LowerBoundValues(m.lower).UpperBoundValues(m.upper)
		if len(eqIDs) > 0 {
			bld = bld.EqualityFieldIDs(eqIDs)
		}
		out = append(out, bld.Build())
	}
	return out, nil
}

// partitionOf computes row r's partition under spec: the values by
// partition field id, a map key and the partition path.
func partitionOf(spec iceberg.PartitionSpec, schema *iceberg.Schema, b arrow.RecordBatch, r int) (map[int]any, string, string, error) {
	vals := map[int]any{}
	var key, path []string
	for _, pf := range spec.Fields() {
		src, ok := schema.FindFieldByID(pf.SourceID())
		if !ok {
			return nil, "", "", fmt.Errorf("partition field %s: no source field %d", pf.Name, pf.SourceID())
		}
		idx := b.Schema().FieldIndices(src.Name)
		if len(idx) == 0 {
			return nil, "", "", fmt.Errorf("partition field %s: source column %s is not in the batch", pf.Name, src.Name)
		}
		lit, err := literalAt(b.Column(idx[0]), r)
		if err != nil {
			return nil, "", "", fmt.Errorf("partition field %s: %w", pf.Name, err)
		}
		v := pf.Transform.Apply(lit)
		text := "null"
		if v.Valid {
			vals[pf.FieldID] = v.Val.Any()
			text = fmt.Sprint(v.Val.Any())
		} else {
			vals[pf.FieldID] = nil
		}
		key = append(key, strconv.Quote(text))
		path = append(path, pf.Name+"="+text)
	}
	return vals, strings.Join(key, ","), strings.Join(path, "/"), nil
}

// literalAt is row r of a partition source column as an Iceberg literal.
func literalAt(a arrow.Array, r int) (iceberg.Optional[iceberg.Literal], error) {
	if a.IsNull(r) {
		return iceberg.Optional[iceberg.Literal]{}, nil
	}
	var l iceberg.Literal
	switch x := a.(type) {
	case *array.Int8:
		l = iceberg.NewLiteral(int32(x.Value(r)))
	case *array.Int16:
		l = iceberg.NewLiteral(int32(x.Value(r)))
	case *array.Int32:
		l = iceberg.NewLiteral(x.Value(r))
	case *array.Int64:
		l = iceberg.NewLiteral(x.Value(r))
	case *array.String:
		l = iceberg.NewLiteral(x.Value(r))
	case *array.Binary:
		l = iceberg.NewLiteral(x.Value(r))
	case *array.Date32:
		l = iceberg.NewLiteral(iceberg.Date(x.Value(r)))
	default:
		return iceberg.Optional[iceberg.Literal]{}, fmt.Errorf("the emulator does not partition ORC files by a %s column", a.DataType())
	}
	return iceberg.Optional[iceberg.Literal]{Valid: true, Val: l}, nil
}

// orcSchema is the lake schema as Iceberg's ORC writer lays it out: the
// Parquet field id metadata becomes the iceberg.id attribute, time
// columns ORC longs tagged TIME.
func orcSchema(sc *arrow.Schema) (*arrow.Schema, error) {
	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		of, err := orcField(f)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		fields[i] = of
	}
	return arrow.NewSchema(fields, nil), nil
}

func orcField(f arrow.Field) (arrow.Field, error) {
	var keys, vals []string
	if id, ok := f.Metadata.GetValue("PARQUET:field_id"); ok {
		keys, vals = append(keys, "iceberg.id"), append(vals, id)
	}
	keys, vals = append(keys, "iceberg.required"), append(vals, strconv.FormatBool(!f.Nullable))
	out := f
	switch t := f.Type.(type) {
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond {
			return f, fmt.Errorf("time unit %s", t.Unit)
		}
		out.Type = arrow.PrimitiveTypes.Int64
		keys, vals = append(keys, "iceberg.long-type"), append(vals, "TIME")
	case *arrow.Int64Type:
		keys, vals = append(keys, "iceberg.long-type"), append(vals, "LONG")
	case *arrow.StructType:
		kids := make([]arrow.Field, t.NumFields())
		for i, c := range t.Fields() {
			k, err := orcField(c)
			if err != nil {
				return f, err
			}
			kids[i] = k
		}
		out.Type = arrow.StructOf(kids...)
	case *arrow.MapType:
		k, err := orcField(t.KeyField())
		if err != nil {
			return f, err
		}
		v, err := orcField(t.ItemField())
		if err != nil {
			return f, err
		}
		if !arrow.TypeEqual(k.Type, t.KeyType()) || !arrow.TypeEqual(v.Type, t.ItemType()) {
			return f, fmt.Errorf("map of %s", t)
		}
	case *arrow.ListType:
		e, err := orcField(t.ElemField())
		if err != nil {
			return f, err
		}
		if !arrow.TypeEqual(e.Type, t.Elem()) {
			return f, fmt.Errorf("list of %s", t.Elem())
		}
		out.Type = arrow.ListOfField(e)
	}
	out.Metadata = arrow.NewMetadata(keys, vals)
	return out, nil
}

// writeORCFile writes recs (lake schema; ORC schema osc, same layout but
// time columns as int64) to name and returns its size.
func writeORCFile(name string, osc *arrow.Schema, recs []arrow.RecordBatch) (int64, error) {
	f, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	mem := memory.NewGoAllocator()
	w, err := orc.NewWriter(f, osc, orc.WriterOptions{Mem: mem})
	if err != nil {
		return 0, err
	}
	for _, r := range recs {
		cols := make([]arrow.Array, r.NumCols())
		for i := range cols {
			c := r.Column(i)
			if c.DataType().ID() == arrow.TIME64 {
				d := array.NewData(arrow.PrimitiveTypes.Int64, c.Len(), c.Data().Buffers(), nil, c.NullN(), c.Data().Offset())
				cols[i] = array.MakeFromData(d)
				d.Release()
			} else {
				c.Retain()
				cols[i] = c
			}
		}
		rec := array.NewRecordBatch(osc, cols, r.NumRows())
		for _, c := range cols {
			c.Release()
		}
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			return 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), f.Sync()
}
