package minifluss

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/typemap"
)

// Iceberg tiering follows fluss-lake-iceberg (IcebergLakeCatalog,
// IcebergLakeWriter, IcebergLakeCommitter): the lake table of db.tbl is
// the Hadoop-catalog table <warehouse>/<db>/<tbl>, format v2, with the
// Fluss columns then __bucket INT, __offset BIGINT, __timestamp
// TIMESTAMPTZ (all required); partitioned by identity(partition keys) then
// bucket(bucket key, bucket.num), or identity(__bucket) for a log table
// without bucket key; sorted by __offset. A round is one commit (RowDelta)
// whose summary carries commit-user=__fluss_lake_tiering and the
// fluss-offsets path. Primary-key tables are merge-on-read: a key whose
// round starts with anything but +I (it may exist in the lake) gets an
// equality delete on the primary key, and its last image, unless a
// delete, is written as a data row. ARRAY, MAP and ROW columns become
// Iceberg list, map and struct columns, their leaves mapped as top-level
// columns are (retypeNested converts the batches).

// flussMessage is an error whose text is Fluss's own message, verbatim.
type flussMessage string

func (m flussMessage) Error() string { return string(m) }

// icebergSystemColumns are the trailing system columns, in order.
var icebergSystemColumns = []string{"__bucket", "__offset", "__timestamp"}

// icebergPKChunkKeys bounds the distinct keys one bucket folds in memory;
// past it the round commits what it has (an equality delete only removes
// rows of earlier commits, so the same key must not be written twice in
// one commit). A variable so tests can make it small.
var icebergPKChunkKeys = pkChunkKeys

func (t *table) lakeIceberg() bool {
	return t.lakeEnabled() && strings.EqualFold(t.Desc.Properties["table.datalake.format"], "iceberg")
}

// icebergCatalog opens the Hadoop catalog over the warehouse. Only a local
// warehouse is emulated.
func (r *lakeRuntime) icebergCatalog() (*hadoop.Catalog, error) {
	wh := r.cfg.Warehouse
	if strings.Contains(wh, "://") && !strings.HasPrefix(wh, "file://") {
		return nil, fmt.Errorf("the emulator tiers into a local Iceberg warehouse only, not %s", wh)
	}
	return hadoop.NewCatalog("fluss", strings.TrimPrefix(wh, "file://"), iceberg.Properties{})
}

func icebergIdent(t *table) icetable.Identifier { return icetable.Identifier{t.DB, t.Name} }

// icebergTablePath is <warehouse>/<db>/<table> (Hadoop catalog layout).
func (r *lakeRuntime) icebergTablePath(t *table) string {
	return fileio.Join(r.cfg.Warehouse, t.DB, t.Name)
}

// icebergType maps a Fluss type as FlussDataTypeToIcebergDataType does, for
// the types the emulator tiers.
func icebergType(ft typemap.DataType, nextID *int) (iceberg.Type, error) {
	switch ft.Root {
	case typemap.RootArray:
		id := newID(nextID)
		et, err := icebergType(*ft.Elem, nextID)
		if err != nil {
			return nil, err
		}
		return &iceberg.ListType{ElementID: id, Element: et, ElementRequired: !ft.Elem.Nullable}, nil
	case typemap.RootMap:
		kid, vid := newID(nextID), newID(nextID)
		kt, err := icebergType(*ft.Key, nextID)
		if err != nil {
			return nil, err
		}
		vt, err := icebergType(*ft.Value, nextID)
		if err != nil {
			return nil, err
		}
		return &iceberg.MapType{KeyID: kid, KeyType: kt, ValueID: vid, ValueType: vt, ValueRequired: !ft.Value.Nullable}, nil
	case typemap.RootRow:
		st := &iceberg.StructType{}
		ids := make([]int, len(ft.Fields))
		for i := range ft.Fields {
			ids[i] = newID(nextID)
		}
		for i, f := range ft.Fields {
			t, err := icebergType(f.Type, nextID)
			if err != nil {
				return nil, fmt.Errorf("ROW field %s: %w", f.Name, err)
			}
			st.FieldList = append(st.FieldList, iceberg.NestedField{ID: ids[i], Name: f.Name, Type: t, Required: !f.Type.Nullable})
		}
		return st, nil
	case typemap.RootBoolean:
		return iceberg.PrimitiveTypes.Bool, nil
	case typemap.RootTinyInt, typemap.RootSmallInt, typemap.RootInt:
		return iceberg.PrimitiveTypes.Int32, nil
	case typemap.RootBigInt:
		return iceberg.PrimitiveTypes.Int64, nil
	case typemap.RootFloat:
		return iceberg.PrimitiveTypes.Float32, nil
	case typemap.RootDouble:
		return iceberg.PrimitiveTypes.Float64, nil
	case typemap.RootChar, typemap.RootString:
		return iceberg.PrimitiveTypes.String, nil
	case typemap.RootBinary, typemap.RootBytes:
		return iceberg.PrimitiveTypes.Binary, nil
	case typemap.RootDecimal:
		return iceberg.DecimalTypeOf(int(ft.Precision), int(ft.Scale)), nil
	case typemap.RootDate:
		return iceberg.PrimitiveTypes.Date, nil
	case typemap.RootTime:
		return iceberg.PrimitiveTypes.Time, nil
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		// Iceberg v2 timestamps are microseconds: a finer Fluss column
		// would lose digits in the lake, so the union read would disagree
		// with the log.
		if ft.Precision > 6 {
			return nil, fmt.Errorf("type %s: precision %d is finer than Iceberg's microseconds", ft, ft.Precision)
		}
		if ft.Root == typemap.RootTimestamp {
			return iceberg.PrimitiveTypes.Timestamp, nil
		}
		return iceberg.PrimitiveTypes.TimestampTz, nil
	}
	return nil, fmt.Errorf("type %s is not tiered into Iceberg by the emulator", ft)
}

// newID hands out the next nested field id.
func newID(next *int) int {
	id := *next
	*next++
	return id
}

// icebergSchema is the lake schema of t: field ids 1.. in column order
// (what a fresh Iceberg table assigns), then the system columns, then the
// fields inside ARRAY, MAP and ROW columns (the catalog may renumber them
// at creation; the tiering uses the ids of the created table).
// Identifier fields = primary key.
func icebergSchema(t *table) (*iceberg.Schema, error) {
	n := len(t.Desc.Schema.Columns)
	nextID := n + 4
	fields := make([]iceberg.NestedField, 0, n+3)
	for i, col := range t.Desc.Schema.Columns {
		for _, s := range icebergSystemColumns {
			if col.Name == s {
				return nil, flussMessage(fmt.Sprintf("Column '%s' conflicts with a reserved system column name.", col.Name))
			}
		}
		it, err := icebergType(t.types[i], &nextID)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", col.Name, err)
		}
		f := iceberg.NestedField{ID: i + 1, Name: col.Name, Type: it, Required: !t.types[i].Nullable}
		if col.Comment != nil {
			f.Doc = *col.Comment
		}
		fields = append(fields, f)
	}
	fields = append(fields,
		iceberg.NestedField{ID: n + 1, Name: "__bucket", Type: iceberg.PrimitiveTypes.Int32, Required: true},
		iceberg.NestedField{ID: n + 2, Name: "__offset", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: n + 3, Name: "__timestamp", Type: iceberg.PrimitiveTypes.TimestampTz, Required: true})
	var ids []int
	for _, k := range t.Desc.Schema.PrimaryKey {
		ids = append(ids, t.Desc.columnIndex(k)+1)
	}
	return iceberg.NewSchemaWithIdentifiers(0, ids, fields...), nil
}

// icebergSpec is IcebergLakeCatalog.createPartitionSpec.
func icebergSpec(t *table, sc *iceberg.Schema) (iceberg.PartitionSpec, error) {
	bk := t.Desc.BucketKey
	if len(bk) > 1 {
		return iceberg.PartitionSpec{}, flussMessage("Only one bucket key is supported for Iceberg at the moment")
	}
	if len(bk) == 0 && t.isPK() {
		return iceberg.PartitionSpec{}, flussMessage("Bucket key must be set for primary key Iceberg tables")
	}
	var fields []iceberg.PartitionField
	next := 1000
	for _, k := range t.Desc.PartitionKey {
		f, ok := sc.FindFieldByName(k)
		if !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("partition key %s is not a column", k)
		}
		if _, str := f.Type.(iceberg.StringType); !str {
			return iceberg.PartitionSpec{}, flussMessage(fmt.Sprintf("Partition key only support string type for iceberg currently. Column `%s` is not string type.", k))
		}
		fields = append(fields, iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: next, Name: k, Transform: iceberg.IdentityTransform{}})
		next++
	}
	if len(bk) == 1 {
		f, ok := sc.FindFieldByName(bk[0])
		if !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("bucket key %s is not a column", bk[0])
		}
		fields = append(fields, iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: next, Name: bk[0] + "_bucket",
			Transform: iceberg.BucketTransform{NumBuckets: int(t.buckets())}})
	} else {
		f, _ := sc.FindFieldByName("__bucket")
		fields = append(fields, iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: next, Name: "__bucket", Transform: iceberg.IdentityTransform{}})
	}
	return iceberg.NewPartitionSpec(fields...), nil
}

// icebergProperties is IcebergLakeCatalog.buildTableProperties: iceberg.<k>
// as table properties, anything else as fluss.<k>; merge-on-read for PK
// tables.
func icebergProperties(t *table) iceberg.Properties {
	p := iceberg.Properties{"format-version": "2"}
	if t.isPK() {
		for _, k := range []string{"write.delete.mode", "write.update.mode", "write.merge.mode"} {
			p[k] = "merge-on-read"
		}
	}
	for _, props := range []map[string]string{t.Desc.Properties, t.Desc.CustomProperties} {
		for k, v := range props {
			switch {
			case strings.HasPrefix(k, "table.datalake.iceberg."):
			case strings.HasPrefix(k, "iceberg."):
				p[strings.TrimPrefix(k, "iceberg.")] = v
			default:
				p["fluss."+k] = v
			}
		}
	}
	return p
}

// createIcebergTableLocked creates the lake table of a new lake-enabled
// table on an Iceberg lake (the coordinator's LakeCatalog.createTable).
func (c *Cluster) createIcebergTableLocked(t *table) error {
	r := c.lake
	r.cfgMu.Lock()
	opts := map[string]string{"warehouse": r.cfg.Warehouse}
	for k, v := range r.opts {
		opts[k] = v
	}
	r.cfgMu.Unlock()
	if _, ok := opts["type"]; !ok {
		opts["type"] = "hadoop"
	}
	for k, v := range opts {
		if !sensitiveOption(k) {
			t.Desc.Properties["table.datalake.iceberg."+k] = v
		}
	}
	sc, err := icebergSchema(t)
	if err == nil {
		_, err = icebergSpec(t, sc)
	}
	if err != nil {
		return ferr(codeInvalidTable, "table %s: %v", t.path(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.ensureIcebergTable(ctx, t, true); err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return err
		}
		return ferr(codeUnknownServerError, "table %s: create lake table %s: %v", t.path(), r.icebergTablePath(t), err)
	}
	return nil
}

// ensureIcebergTable creates the Iceberg table unless it exists; when a
// Fluss table is being created, an existing one is adopted only while it
// has no snapshot, as Fluss refuses a lake table that already holds data.
func (c *Cluster) ensureIcebergTable(ctx context.Context, t *table, creating bool) error {
	r := c.lake
	cat, err := r.icebergCatalog()
	if err != nil {
		return err
	}
	defer cat.Close()
	id := icebergIdent(t)
	if ok, _ := cat.CheckTableExists(ctx, id); ok {
		if !creating {
			return nil
		}
		tbl, err := cat.LoadTable(ctx, id)
		if err != nil {
			return err
		}
		if tbl.CurrentSnapshot() != nil {
			return ferr(flussapi.LakeTableAlreadyExist, "table %s: lake table %s already exists and is not empty", t.path(), r.icebergTablePath(t))
		}
		return nil
	}
	if ok, _ := cat.CheckNamespaceExists(ctx, icetable.Identifier{t.DB}); !ok {
		if err := cat.CreateNamespace(ctx, icetable.Identifier{t.DB}, nil); err != nil && !errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
			return err
		}
	}
	sc, err := icebergSchema(t)
	if err != nil {
		return err
	}
	spec, err := icebergSpec(t, sc)
	if err != nil {
		return err
	}
	off, _ := sc.FindFieldByName("__offset")
	order, err := icetable.NewSortOrder(1, []icetable.SortField{{SourceIDs: []int{off.ID}, Transform: iceberg.IdentityTransform{},
		Direction: icetable.SortASC, NullOrder: icetable.NullsFirst}})
	if err != nil {
		return err
	}
	_, err = cat.CreateTable(ctx, id, sc, icecatalog.WithPartitionSpec(&spec), icecatalog.WithSortOrder(order),
		icecatalog.WithProperties(icebergProperties(t)))
	return err
}

// iceConverter turns decoded Fluss batches into batches of the lake
// table's Arrow schema (Iceberg types, field ids, system columns).
type iceConverter struct {
	schema   *arrow.Schema // the lake table's, with field ids
	ftypes   []typemap.DataType
	keyIdx   []int         // primary-key columns
	delSch   *arrow.Schema // equality-delete rows: the primary key
	delIDs   []int
	mem      memory.Allocator
	castOpts []*compute.CastOptions // per column; nil: same type
}

func newIceConverter(t *table, tbl *icetable.Table, mem memory.Allocator) (*iceConverter, error) {
	sc := tbl.Schema()
	as, err := icetable.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return nil, err
	}
	n := len(t.types)
	if as.NumFields() != n+3 || as.Field(n+1).Name != "__offset" {
		return nil, fmt.Errorf("table %s: Iceberg lake table has %d columns, the Fluss table %d plus 3 system columns", t.path(), as.NumFields(), n)
	}
	cv := &iceConverter{schema: as, ftypes: t.types, mem: mem, castOpts: make([]*compute.CastOptions, n)}
	for i, ft := range t.types {
		at, err := typemap.ArrowType(ft)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(at, as.Field(i).Type, arrow.CheckMetadata()) {
			cv.castOpts[i] = compute.SafeCastOptions(as.Field(i).Type)
		}
	}
	if t.isPK() {
		var fields []arrow.Field
		for _, k := range t.Desc.Schema.PrimaryKey {
			i := t.Desc.columnIndex(k)
			cv.keyIdx = append(cv.keyIdx, i)
			cv.delIDs = append(cv.delIDs, sc.Field(i).ID)
			fields = append(fields, as.Field(i))
		}
		cv.delSch = arrow.NewSchema(fields, nil)
	}
	return cv, nil
}

// convert maps a Fluss batch (records base, base+1, ... of one bucket,
// committed at ts millis) to a lake batch.
func (cv *iceConverter) convert(ctx context.Context, rec arrow.RecordBatch, bucket int32, base, ts int64) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, 0, cv.schema.NumFields())
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	for i := range cv.ftypes {
		src := rec.Column(i)
		if cv.castOpts[i] == nil {
			src.Retain()
			cols = append(cols, src)
			continue
		}
		out, err := castColumn(ctx, src, cv.castOpts[i], cv.mem)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cv.schema.Field(i).Name, err)
		}
		cols = append(cols, out)
	}
	bb := array.NewInt32Builder(cv.mem)
	ob := array.NewInt64Builder(cv.mem)
	tb := array.NewTimestampBuilder(cv.mem, cv.schema.Field(len(cv.ftypes)+2).Type.(*arrow.TimestampType))
	defer bb.Release()
	defer ob.Release()
	defer tb.Release()
	for r := 0; r < n; r++ {
		bb.Append(bucket)
		ob.Append(base + int64(r))
		tb.Append(arrow.Timestamp(ts * 1000))
	}
	cols = append(cols, bb.NewArray(), ob.NewArray(), tb.NewArray())
	return array.NewRecordBatch(cv.schema, cols, int64(n)), nil
}

// castColumn converts a Fluss column to its Iceberg type: Arrow's cast
// kernels, except BINARY(n) (fixed width) which Iceberg stores as binary.
func castColumn(ctx context.Context, src arrow.Array, opts *compute.CastOptions, mem memory.Allocator) (arrow.Array, error) {
	switch to := opts.ToType.(type) {
	case *arrow.ListType, *arrow.MapType, *arrow.StructType:
		return retypeNested(ctx, src, to, mem)
	}
	if fx, ok := src.(*array.FixedSizeBinary); ok && opts.ToType.ID() == arrow.BINARY {
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		for i := 0; i < fx.Len(); i++ {
			if fx.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(fx.Value(i))
			}
		}
		return b.NewArray(), nil
	}
	return compute.CastArray(compute.WithAllocator(ctx, mem), src, opts)
}

// retypeNested gives a Fluss ARRAY, MAP or ROW column the lake's nested
// Arrow type (element names, field ids, widened leaves): the same offsets
// and validity with the children converted. Children are taken unsliced
// (ArrayData.Children), so the parent's offset still applies.
func retypeNested(ctx context.Context, src arrow.Array, to arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	if arrow.TypeEqual(src.DataType(), to, arrow.CheckMetadata()) {
		src.Retain()
		return src, nil
	}
	var kids []arrow.DataType
	switch dt := to.(type) {
	case *arrow.ListType:
		kids = []arrow.DataType{dt.Elem()}
	case *arrow.MapType:
		kids = []arrow.DataType{dt.Elem()}
	case *arrow.StructType:
		for _, f := range dt.Fields() {
			kids = append(kids, f.Type)
		}
	default:
		return castColumn(ctx, src, compute.SafeCastOptions(to), mem)
	}
	d := src.Data()
	if len(d.Children()) != len(kids) || src.DataType().ID() != to.ID() {
		return nil, fmt.Errorf("cannot tier %s as Iceberg %s", src.DataType(), to)
	}
	children := make([]arrow.ArrayData, len(kids))
	for i, kt := range kids {
		c := array.MakeFromData(d.Children()[i])
		out, err := retypeNested(ctx, c, kt, mem)
		c.Release()
		if err != nil {
			for _, done := range children[:i] {
				done.Release()
			}
			return nil, err
		}
		children[i] = out.Data()
		children[i].Retain()
		out.Release()
	}
	nd := array.NewData(to, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// iceRound collects the files of one tiering round of an Iceberg table.
type iceRound struct {
	ctx   context.Context
	tbl   *icetable.Table
	cv    *iceConverter
	data  []iceberg.DataFile
	dels  []iceberg.DataFile
	files int
}

// writeData writes lake batches as data files (WriteRecords releases them).
func (rd *iceRound) writeData(batches []arrow.RecordBatch) error {
	if len(batches) == 0 {
		return nil
	}
	if icebergORC(rd.tbl) {
		files, err := rd.writeORC(batches, rd.cv.schema, iceberg.EntryContentData, nil)
		if err != nil {
			return err
		}
		rd.data = append(rd.data, files...)
		rd.files += len(files)
		return nil
	}
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		for i, b := range batches {
			if !yield(b, nil) {
				for _, rest := range batches[i+1:] {
					rest.Release()
				}
				return
			}
		}
	}
	for df, err := range icetable.WriteRecords(rd.ctx, rd.tbl, rd.cv.schema, seq) {
		if err != nil {
			return err
		}
		rd.data = append(rd.data, df)
		rd.files++
	}
	return nil
}

// writeDeletes writes primary-key rows as equality delete files.
func (rd *iceRound) writeDeletes(txn *icetable.Transaction, keys arrow.RecordBatch) error {
	defer keys.Release()
	if keys.NumRows() == 0 {
		return nil
	}
	if icebergORC(rd.tbl) {
		keys.Retain() // writeORC releases what it is given
		files, err := rd.writeORC([]arrow.RecordBatch{keys}, rd.cv.delSch, iceberg.EntryContentEqDeletes, rd.cv.delIDs)
		if err != nil {
			return err
		}
		rd.dels = append(rd.dels, files...)
		rd.files += len(files)
		return nil
	}
	var seq iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(keys, nil) }
	files, err := txn.WriteEqualityDeletes(rd.ctx, rd.cv.delIDs, seq)
	if err != nil {
		return err
	}
	rd.dels = append(rd.dels, files...)
	rd.files += len(files)
	return nil
}

// commit commits the collected files as one snapshot with props and
// reloads the table; it returns the new snapshot id.
func (rd *iceRound) commit(props iceberg.Properties) (int64, error) {
	txn := rd.tbl.NewTransaction()
	delta := txn.NewRowDelta(props).AddRows(rd.data...).AddDeletes(rd.dels...)
	if err := delta.Commit(rd.ctx); err != nil {
		return 0, err
	}
	tbl, err := txn.Commit(rd.ctx)
	if err != nil {
		return 0, err
	}
	rd.tbl, rd.data, rd.dels = tbl, nil, nil
	return tbl.CurrentSnapshot().SnapshotID, nil
}

// tierIceberg runs a round of an Iceberg lake table; called with
// c.lake.mu held, after the jobs are known.
func (c *Cluster) tierIceberg(ctx context.Context, t *table, tableID int64, jobs []tierJob, prev *lakeSnapshot, logFormat string) (TierResult, error) {
	r := c.lake
	var res TierResult
	if err := c.ensureIcebergTable(ctx, t, false); err != nil {
		return res, fmt.Errorf("table %s: lake table: %w", t.path(), err)
	}
	cat, err := r.icebergCatalog()
	if err != nil {
		return res, err
	}
	defer cat.Close()
	tbl, err := cat.LoadTable(ctx, icebergIdent(t))
	if err != nil {
		return res, fmt.Errorf("table %s: open lake table: %w", t.path(), err)
	}
	mem := memory.NewGoAllocator()
	cv, err := newIceConverter(t, tbl, mem)
	if err != nil {
		return res, err
	}
	rd := &iceRound{ctx: ctx, tbl: tbl, cv: cv}
	var spare arrow.RecordBatch // a key this round folded away (see below)
	defer func() {
		if spare != nil {
			spare.Release()
		}
	}()
	for _, j := range jobs {
		if j.from >= j.to {
			continue
		}
		var n int64
		if t.isPK() {
			var sp arrow.RecordBatch
			n, sp, err = c.tierIcebergPK(ctx, t, logFormat, rd, j, mem)
			if sp != nil {
				if spare != nil {
					spare.Release()
				}
				spare = sp
			}
		} else {
			n, err = c.tierIcebergLog(ctx, t, logFormat, rd, j, mem)
		}
		if err != nil {
			return res, fmt.Errorf("table %s bucket %d%s: tiering: %w", t.path(), j.bucket, partSuffix(j.partName), err)
		}
		res.Rows += n
	}
	res.Files = rd.files
	if res.Rows == 0 {
		// Nothing new: Fluss commits no snapshot for an empty round.
		if prev != nil {
			res.SnapshotID = prev.SnapshotID
		}
		return res, nil
	}
	if len(rd.data) == 0 && len(rd.dels) == 0 {
		// Every change folded away (keys inserted and deleted within the
		// round), yet the offsets must move on in a snapshot: an equality
		// delete of such a key removes nothing (it was never in the lake).
		if spare == nil {
			return res, fmt.Errorf("table %s: a round of %d records produced no lake file", t.path(), res.Rows)
		}
		txn := rd.tbl.NewTransaction()
		spare.Retain()
		if err := rd.writeDeletes(txn, spare); err != nil {
			return res, err
		}
	}
	list := mergeOffsets(prev, jobs)
	offPath, err := c.writeOffsetsFile(t, tableID, list)
	if err != nil {
		return res, err
	}
	id, err := rd.commit(iceberg.Properties{"commit-user": "__fluss_lake_tiering", "fluss-offsets": offPath})
	if err != nil {
		return res, fmt.Errorf("table %s: lake commit: %w", t.path(), err)
	}
	res.SnapshotID = id
	return res, c.publishLake(t, tableID, id, list, prev, false)
}

// logFlushBytes bounds the converted log batches one data file write holds.
const logFlushBytes = 32 << 20

// tierIcebergLog appends one bucket's log as data files, in offset order.
func (c *Cluster) tierIcebergLog(ctx context.Context, t *table, logFormat string, rd *iceRound, j tierJob, mem memory.Allocator) (int64, error) {
	var held []arrow.RecordBatch
	var size int64
	defer func() {
		for _, b := range held {
			b.Release()
		}
	}()
	flush := func() error {
		b := held
		held, size = nil, 0
		return rd.writeData(b)
	}
	n, err := c.eachLogBatch(ctx, t, logFormat, j, mem, func(rec arrow.RecordBatch, _ record.ChangeTypes, base, ts int64) error {
		out, err := rd.cv.convert(ctx, rec, j.bucket, base, ts)
		if err != nil {
			return err
		}
		held = append(held, out)
		for _, col := range out.Columns() {
			for _, b := range col.Data().Buffers() {
				if b != nil {
					size += int64(b.Len())
				}
			}
		}
		if size >= logFlushBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, flush()
}

// icePKRef is the fold state of one key within a chunk.
type icePKRef struct {
	batch, row int               // its newest image among the held batches
	last       record.ChangeType // its newest change
	existed    bool              // its first change in the chunk was not +I
}

// tierIcebergPK folds one bucket's changes by primary key and writes the
// chunk as equality deletes (keys that may exist in the lake) plus data
// rows (keys whose last change is not a delete). A chunk past
// icebergPKChunkKeys keys is committed on its own before the next starts.
// It returns a one-row key batch of a key that folded away, if any.
func (c *Cluster) tierIcebergPK(ctx context.Context, t *table, logFormat string, rd *iceRound, j tierJob, mem memory.Allocator) (int64, arrow.RecordBatch, error) {
	var held []arrow.RecordBatch
	refs := map[string]*icePKRef{}
	var spare arrow.RecordBatch
	release := func() {
		for _, b := range held {
			b.Release()
		}
		held = held[:0]
		clear(refs)
	}
	defer release()
	flush := func(intermediate bool) error {
		defer release()
		if len(refs) == 0 {
			return nil
		}
		var dataIdx, delIdx []int64
		var spareIdx int64 = -1
		starts := make([]int64, len(held))
		var total int64
		for i, b := range held {
			starts[i] = total
			total += b.NumRows()
		}
		for _, r := range refs {
			at := starts[r.batch] + int64(r.row)
			keep := r.last != record.Delete && r.last != record.UpdateBefore
			if r.existed {
				delIdx = append(delIdx, at)
			}
			if keep {
				dataIdx = append(dataIdx, at)
			}
			if !keep && !r.existed {
				spareIdx = at
			}
		}
		sortInt64(dataIdx)
		sortInt64(delIdx)
		all, err := concatBatches(held, rd.cv.schema, mem)
		if err != nil {
			return err
		}
		defer all.Release()
		if spareIdx >= 0 {
			if spare != nil {
				spare.Release()
			}
			if spare, err = takeColumns(ctx, all, []int64{spareIdx}, rd.cv.keyIdx, rd.cv.delSch, mem); err != nil {
				return err
			}
		}
		txn := rd.tbl.NewTransaction()
		if len(delIdx) > 0 {
			keys, err := takeColumns(ctx, all, delIdx, rd.cv.keyIdx, rd.cv.delSch, mem)
			if err != nil {
				return err
			}
			if err := rd.writeDeletes(txn, keys); err != nil {
				return err
			}
		}
		if len(dataIdx) > 0 {
			rows, err := takeColumns(ctx, all, dataIdx, nil, rd.cv.schema, mem)
			if err != nil {
				return err
			}
			if err := rd.writeData([]arrow.RecordBatch{rows}); err != nil {
				return err
			}
		}
		if intermediate && (len(rd.data) > 0 || len(rd.dels) > 0) {
			_, err := rd.commit(nil)
			return err
		}
		return nil
	}
	n, err := c.eachLogBatch(ctx, t, logFormat, j, mem, func(rec arrow.RecordBatch, cts record.ChangeTypes, base, ts int64) error {
		out, err := rd.cv.convert(ctx, rec, j.bucket, base, ts)
		if err != nil {
			return err
		}
		held = append(held, out)
		bi := len(held) - 1
		var kb []byte
		for i := 0; i < int(out.NumRows()); i++ {
			kb = kb[:0]
			for _, k := range rd.cv.keyIdx {
				v, err := record.ArrowValue(rec.Column(k), rd.cv.ftypes[k], i)
				if err != nil {
					return fmt.Errorf("offset %d: key: %w", base+int64(i), err)
				}
				kb = fmt.Appendf(kb, "%#v\x00", v)
			}
			ct := cts.At(i)
			if r, ok := refs[string(kb)]; ok {
				r.batch, r.row, r.last = bi, i, ct
				continue
			}
			if len(refs) >= icebergPKChunkKeys {
				// The row in hand starts the next chunk, which still needs
				// this batch: hold it across the flush.
				out.Retain()
				if err := flush(true); err != nil {
					out.Release()
					return err
				}
				held = append(held, out)
				bi = 0
			}
			refs[string(kb)] = &icePKRef{batch: bi, row: i, last: ct, existed: ct != record.Insert}
		}
		return nil
	})
	if err != nil {
		if spare != nil {
			spare.Release()
		}
		return n, nil, err
	}
	if err := flush(false); err != nil {
		if spare != nil {
			spare.Release()
		}
		return n, nil, err
	}
	return n, spare, nil
}

// sortInt64 orders gathered row indexes, which keeps a written file in
// offset order.
func sortInt64(s []int64) { slices.Sort(s) }

// concatBatches concatenates held lake batches into one.
func concatBatches(held []arrow.RecordBatch, sc *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, sc.NumFields())
	var rows int64
	for _, b := range held {
		rows += b.NumRows()
	}
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := range cols {
		parts := make([]arrow.Array, len(held))
		for i, b := range held {
			parts[i] = b.Column(c)
		}
		var err error
		if cols[c], err = array.Concatenate(parts, mem); err != nil {
			return nil, fmt.Errorf("column %s: %w", sc.Field(c).Name, err)
		}
	}
	return array.NewRecordBatch(sc, cols, rows), nil
}

// takeColumns gathers rows idx of the columns cols (nil: all) of b into a
// batch of schema sc.
func takeColumns(ctx context.Context, b arrow.RecordBatch, idx []int64, cols []int, sc *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	if cols == nil {
		cols = make([]int, b.NumCols())
		for i := range cols {
			cols[i] = i
		}
	}
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	out := make([]arrow.Array, 0, len(cols))
	defer func() {
		for _, a := range out {
			a.Release()
		}
	}()
	for _, c := range cols {
		a, err := compute.TakeArray(ctx, b.Column(c), ia)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return array.NewRecordBatch(sc, out, int64(len(idx))), nil
}
