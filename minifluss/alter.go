package minifluss

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// Schema evolution as Fluss 1.0 does it: ALTER TABLE … ADD COLUMN appends a
// nullable column with a new column id and registers schema id + 1; batches
// and KV values written afterwards carry the new id, older ones keep theirs
// and are read with the schema of their id (GET_TABLE_SCHEMA). For a lake
// table the Paimon table is evolved first ("lake first", MetadataManager):
// a new schema-N file whose new field ids follow highestFieldId; tiering then
// writes data files with the new schemaId and never touches the old ones.

// systemColumns are the names Fluss reserves (TableDescriptorValidation).
var systemColumns = []string{"__offset", "__timestamp", "__bucket", "_change_type", "_log_offset", "_commit_timestamp"}

// AddColumns runs ALTER TABLE db.tbl ADD COLUMN for each column, in order,
// as one schema change (what the ALTER_TABLE RPC does with add_columns).
func (c *Cluster) AddColumns(ctx context.Context, db, tbl string, cols []Column) (TableInfo, error) {
	req := &flusspb.AlterTableRequest{TablePath: &flusspb.PbTablePath{DatabaseName: proto.String(db), TableName: proto.String(tbl)},
		IgnoreIfNotExists: proto.Bool(false)}
	for _, col := range cols {
		raw, err := col.Type.MarshalJSON()
		if err != nil {
			return TableInfo{}, fmt.Errorf("minifluss: table %s.%s column %q: %w", db, tbl, col.Name, err)
		}
		a := &flusspb.PbAddColumn{ColumnName: proto.String(col.Name), DataTypeJson: raw, ColumnPositionType: proto.Int32(0)}
		if col.Comment != "" {
			a.Comment = proto.String(col.Comment)
		}
		req.AddColumns = append(req.AddColumns, a)
	}
	if err := c.alterTable(ctx, req); err != nil {
		return TableInfo{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return TableInfo{}, err
	}
	return t.info(), nil
}

func (cn *conn) alterTableRPC(req *flusspb.AlterTableRequest) (proto.Message, error) {
	return &flusspb.AlterTableResponse{}, cn.s.c.alterTable(context.Background(), req)
}

// alterTable applies an ALTER_TABLE request. The lake runtime's lock is
// taken first (lock order) so no tiering round runs across the change.
func (c *Cluster) alterTable(ctx context.Context, req *flusspb.AlterTableRequest) error {
	r := c.lake
	if r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	db, name := req.GetTablePath().GetDatabaseName(), req.GetTablePath().GetTableName()
	t, err := c.cat.lookup(db, name)
	if err != nil {
		if fe := asFluss(err); fe.Code == codeTableNotExist && req.GetIgnoreIfNotExists() {
			return nil
		}
		return err
	}
	if len(req.GetConfigChanges()) > 0 {
		return ferr(codeInvalidConfig, "table %s: ALTER TABLE SET/RESET of table options is not supported by the emulator", t.path())
	}
	// Fluss turns the request into table changes (adds, drops, renames,
	// modifies) and SchemaUpdate refuses all but adds.
	switch {
	case len(req.GetDropColumns()) > 0:
		return ferr(codeUnknownServerError, "Not support drop column now.")
	case len(req.GetRenameColumns()) > 0:
		return ferr(codeUnknownServerError, "Not support rename column now.")
	case len(req.GetModifyColumns()) > 0:
		return ferr(codeUnknownServerError, "Not support modify column now.")
	case len(req.GetAddColumns()) == 0:
		return nil
	}
	next := t.Desc.Schema
	next.Columns = append([]columnJSON(nil), t.Desc.Schema.Columns...)
	hi := int32(-1)
	if next.HighestFieldID != nil {
		hi = *next.HighestFieldID
	}
	for _, col := range next.Columns {
		if col.ID != nil {
			hi = max(hi, *col.ID)
		}
	}
	var added []columnJSON
	for _, a := range req.GetAddColumns() {
		n := a.GetColumnName()
		for _, col := range next.Columns {
			if col.Name == n {
				return ferr(flussapi.InvalidAlterTable, "Column %s already exists.", n)
			}
		}
		if a.GetColumnPositionType() != 0 {
			return ferr(codeUnknownServerError, "Only support addColumn column at last now.")
		}
		ty, err := parseTypeJSON(a.GetDataTypeJson())
		if err != nil {
			return ferr(codeInvalidTable, "table %s: column %s: %v", t.path(), n, err)
		}
		if !ty.Nullable {
			return ferr(codeUnknownServerError, "Column %s must be nullable.", n)
		}
		if a.AggFunctionType != nil {
			return ferr(codeInvalidTable, "table %s: column %s: aggregation functions on added columns are not supported by the emulator", t.path(), n)
		}
		hi++
		id := hi
		col := columnJSON{Name: n, DataType: append(json.RawMessage(nil), a.GetDataTypeJson()...), ID: &id}
		if a.Comment != nil {
			cm := a.GetComment()
			col.Comment = &cm
		}
		next.Columns = append(next.Columns, col)
		added = append(added, col)
	}
	var reserved []string
	for _, col := range next.Columns {
		for _, s := range systemColumns {
			if col.Name == s {
				reserved = append(reserved, s)
			}
		}
	}
	if len(reserved) > 0 {
		return ferr(codeInvalidTable, "%s cannot be used as column names, because they are reserved system columns in Fluss. Please use other names for these columns. The reserved system columns are: %s",
			strings.Join(reserved, ", "), strings.Join(systemColumns, ", "))
	}
	next.HighestFieldID = &hi
	if err := c.evolveLakeLocked(ctx, t, added); err != nil {
		return err
	}
	if t.Schemas == nil {
		t.Schemas = map[int32]json.RawMessage{}
	}
	t.Schemas[t.SchemaID] = t.Desc.schemaBytes()
	prevDesc, prevID := t.Desc.Schema, t.SchemaID
	t.Desc.Schema = next
	t.SchemaID++
	if err := t.bindTypes(); err != nil {
		t.Desc.Schema, t.SchemaID = prevDesc, prevID
		delete(t.Schemas, prevID)
		_ = t.bindTypes()
		return err
	}
	t.Modified = c.now()
	return c.persistLocked()
}

// evolveLakeLocked adds the columns to the table's Paimon table, as
// PaimonLakeCatalog.alterTable does: appended last (before the system
// columns of a legacy table), ids from highestFieldId + 1, nested ids after
// their column's. A lake table not created yet gets the columns when it is.
func (c *Cluster) evolveLakeLocked(ctx context.Context, t *table, added []columnJSON) error {
	r := c.lake
	if r.enabled() && t.lakeIceberg() {
		// IcebergLakeCatalog.alterTable takes only SetOption/ResetOption.
		return ferr(codeInvalidTable, "table %s: Unsupported table change: adding columns to a table on an Iceberg lake", t.path())
	}
	if !r.enabled() || !t.lakePaimon() {
		return nil
	}
	path := r.lakeTablePath(t)
	pt, err := paimon.OpenTable(ctx, r.fs, path)
	var latest *paimon.TableSchema
	if err == nil {
		latest, err = pt.LatestSchema(ctx)
	}
	if errors.Is(err, paimon.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ferr(codeUnknownServerError, "table %s: lake table %s: %v", t.path(), path, err)
	}
	legacy := -1
	for i, f := range latest.Fields {
		if f.Name == "__bucket" {
			legacy = i
		}
	}
	next := latest.HighestFieldID + 1
	var fields []paimon.DataField
	for _, col := range added {
		if legacy >= 0 && (col.Name == "__bucket" || col.Name == "__offset" || col.Name == "__timestamp") {
			return ferr(codeInvalidTable, "Column %s conflicts with a system column name of paimon table, please rename the column.", col.Name)
		}
		ty, err := parseTypeJSON(col.DataType)
		if err != nil {
			return ferr(codeInvalidTable, "table %s: column %s: %v", t.path(), col.Name, err)
		}
		id := next
		next++
		pty, err := paimonType(ty, &next)
		if err != nil {
			return ferr(codeInvalidTable, "table %s: lake column %s: %v", t.path(), col.Name, err)
		}
		f := paimon.DataField{ID: id, Name: col.Name, Type: pty}
		if col.Comment != nil {
			f.Description = *col.Comment
		}
		fields = append(fields, f)
	}
	all := append([]paimon.DataField(nil), latest.Fields...)
	if legacy >= 0 {
		all = append(append(all[:legacy:legacy], fields...), latest.Fields[legacy:]...)
	} else {
		all = append(all, fields...)
	}
	if _, err := writer.EvolveSchema(ctx, r.fs, path, all, c.cfg.Now()); err != nil {
		return ferr(codeUnknownServerError, "table %s: evolve lake table %s: %v", t.path(), path, err)
	}
	// The cached writer writes files of the schema it was opened with.
	delete(r.writers, t.ID)
	return nil
}

// schemaJSONFor answers GET_TABLE_SCHEMA: the latest schema when id is nil.
func (t *table) schemaJSONFor(id *int32) (int32, []byte, error) {
	if id == nil || *id == t.SchemaID {
		return t.SchemaID, t.Desc.schemaBytes(), nil
	}
	if js, ok := t.Schemas[*id]; ok {
		return *id, js, nil
	}
	return 0, nil, ferr(codeSchemaNotExist, "table %s has no schema id %d (latest is %d)", t.path(), *id, t.SchemaID)
}

// typesOf is the column types of schema id (the current types for the
// current id), cached; the caller holds the cluster lock.
func (t *table) typesOf(id int16) ([]typemap.DataType, error) {
	if int32(id) == t.SchemaID {
		return t.types, nil
	}
	if ts, ok := t.oldTypes[id]; ok {
		return ts, nil
	}
	ts, err := t.schemaTypes(id)
	if err != nil {
		return nil, err
	}
	if t.oldTypes == nil {
		t.oldTypes = map[int16][]typemap.DataType{}
	}
	t.oldTypes[id] = ts
	return ts, nil
}

// schemaTypes parses the column types of an older schema id. It writes
// nothing, so tiering (which holds the lake lock, not the cluster lock)
// may call it: the schema history changes only under both.
func (t *table) schemaTypes(id int16) ([]typemap.DataType, error) {
	js, ok := t.Schemas[int32(id)]
	if !ok {
		return nil, ferr(codeSchemaNotExist, "table %s has no schema id %d (latest is %d)", t.path(), id, t.SchemaID)
	}
	var s schemaJSON
	if err := json.Unmarshal(js, &s); err != nil {
		return nil, fmt.Errorf("table %s schema %d: %w", t.path(), id, err)
	}
	ts := make([]typemap.DataType, len(s.Columns))
	for i, col := range s.Columns {
		ty, err := parseTypeJSON(col.DataType)
		if err != nil {
			return nil, fmt.Errorf("table %s schema %d column %s: %w", t.path(), id, col.Name, err)
		}
		ts[i] = ty
	}
	if len(ts) > len(t.types) {
		return nil, fmt.Errorf("table %s: schema %d has %d columns, more than the current schema %d", t.path(), id, len(ts), t.SchemaID)
	}
	return ts, nil
}

// upgradeKvValue rewrites a stored KV value ([schema id][row]) of an older
// schema into the current schema (added columns NULL), so changelog records
// built from it (-U, -D) are in the schema their batch carries.
func (t *table) upgradeKvValue(v []byte) ([]byte, error) {
	if len(v) < 2 {
		return nil, fmt.Errorf("table %s: kv value of %d bytes", t.path(), len(v))
	}
	id := int16(binary.LittleEndian.Uint16(v))
	if int32(id) == t.SchemaID {
		return v, nil
	}
	old, err := t.typesOf(id)
	if err != nil {
		return nil, err
	}
	var vals []any
	if t.kvIndexed() {
		vals, err = record.DecodeIndexedRow(v[2:], old)
	} else {
		vals, err = record.DecodeCompactedRow(v[2:], old)
	}
	if err != nil {
		return nil, fmt.Errorf("table %s: kv value of schema %d: %w", t.path(), id, err)
	}
	vals = append(vals, make([]any, len(t.types)-len(vals))...)
	row, err := t.encodeKvRow(vals)
	if err != nil {
		return nil, fmt.Errorf("table %s: kv value of schema %d: %w", t.path(), id, err)
	}
	return record.EncodeKvValue(make([]byte, 0, 2+len(row)), int16(t.SchemaID), row), nil
}

// evoDecoder decodes log batches of any schema id of a table into the
// current schema (columns added since a batch was written are NULL). It
// belongs to one goroutine; the table's schema must not change while it
// is used (tiering holds the lake lock, which ALTER TABLE takes too).
type evoDecoder struct {
	t      *table
	format record.LogFormat
	mem    memory.Allocator
	full   *arrow.Schema
	decs   map[int16]*evoDec
}

type evoDec struct {
	arrow *record.ArrowDecoder
	rows  *record.RowDecoder
}

func newEvoDecoder(t *table, format record.LogFormat, mem memory.Allocator) (*evoDecoder, error) {
	full, err := typemap.ArrowSchema(t.columns())
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path(), err)
	}
	return &evoDecoder{t: t, format: format, mem: mem, full: full, decs: map[int16]*evoDec{}}, nil
}

// handles reports whether lb was written with an older schema.
func (e *evoDecoder) handles(lb *record.LogBatch) bool {
	return int32(lb.Header.SchemaID) != e.t.SchemaID && len(e.t.Schemas) > 0
}

// decode decodes a batch of an older schema and pads the added columns.
func (e *evoDecoder) decode(lb *record.LogBatch) (arrow.RecordBatch, record.ChangeTypes, error) {
	id := lb.Header.SchemaID
	d, ok := e.decs[id]
	if !ok {
		ts, err := e.t.schemaTypes(id)
		if err != nil {
			return nil, record.ChangeTypes{}, err
		}
		cols := e.t.columns()[:len(ts)]
		for i := range cols {
			cols[i].Type = ts[i]
		}
		d = &evoDec{}
		if e.format == record.LogFormatArrow {
			d.arrow, err = record.NewArrowDecoder(cols, e.mem, record.ArrowOptions{})
		} else {
			var rf record.RowFormat
			if rf, err = e.format.RowFormat(); err == nil {
				d.rows, err = record.NewRowDecoder(cols, rf, e.mem)
			}
		}
		if err != nil {
			return nil, record.ChangeTypes{}, fmt.Errorf("table %s schema %d: %w", e.t.path(), id, err)
		}
		e.decs[id] = d
	}
	var rec arrow.RecordBatch
	var cts record.ChangeTypes
	var err error
	if d.arrow != nil {
		rec, cts, err = d.arrow.Decode(lb)
	} else {
		rec, cts, err = d.rows.DecodeLogBatch(lb)
	}
	if err != nil {
		return nil, cts, fmt.Errorf("schema %d: %w", id, err)
	}
	defer rec.Release()
	n := rec.NumRows()
	cols := append([]arrow.Array(nil), rec.Columns()...)
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for i := len(cols); i < e.full.NumFields(); i++ {
		a := array.MakeArrayOfNull(e.mem, e.full.Field(i).Type, int(n))
		made = append(made, a)
		cols = append(cols, a)
	}
	return array.NewRecordBatch(e.full, cols, n), cts, nil
}

func (e *evoDecoder) close() {
	for _, d := range e.decs {
		if d.arrow != nil {
			d.arrow.Close()
		}
		if d.rows != nil {
			d.rows.Release()
		}
	}
	e.decs = nil
}

// projectBatchesBySchema applies FetchLog projection per run of batches of
// one schema id, each with its own schema's columns, as the tablet server's
// FileLogProjection does: a position an older batch lacks fails the fetch
// with INVALID_COLUMN_PROJECTION.
func projectBatchesBySchema(t *table, data []byte, proj []int32) ([]byte, error) {
	var out []byte
	start, cur := 0, int16(-1)
	flush := func(end int) error {
		if end <= start {
			return nil
		}
		cols := t.columns()
		if int32(cur) != t.SchemaID {
			ts, err := t.typesOf(cur)
			if err != nil {
				return err
			}
			cols = cols[:len(ts)]
			for i := range cols {
				cols[i].Type = ts[i]
			}
		}
		pos := make([]int, len(proj))
		for i, p := range proj {
			if int(p) >= len(cols) {
				return ferr(codeInvalidColumnProj, "Projected fields %v is out of bound for schema with %d fields.", proj, len(cols))
			}
			pos[i] = int(p)
		}
		var err error
		if out, err = record.ProjectArrowBatches(out, data[start:end], cols, pos); err != nil {
			return ferr(codeInvalidColumnProj, "%s: projection %v: %v", t.path(), proj, err)
		}
		return nil
	}
	it := record.ReadBatches(data, record.DecodeOptions{SkipCRC: true})
	end := 0
	for it.Next() {
		lb := it.Batch()
		if lb.Header.SchemaID != cur {
			if err := flush(lb.Position); err != nil {
				return nil, err
			}
			start, cur = lb.Position, lb.Header.SchemaID
		}
		end = lb.Position + len(lb.Raw)
	}
	if err := it.Err(); err != nil {
		return nil, ferr(codeInvalidColumnProj, "%s: projection %v: %v", t.path(), proj, err)
	}
	if err := flush(end); err != nil {
		return nil, err
	}
	return out, nil
}

// apiAlterTable is ALTER_TABLE (1044), served by the coordinator.
const apiAlterTable = int16(flussapi.AlterTable)

// ALTER TABLE db.t ADD COLUMN c TYPE [COMMENT '..']
// ALTER TABLE db.t ADD (c TYPE [COMMENT '..'], ...)
func (p *scParser) addColumns(db, t string) (func(context.Context, *Cluster) error, error) {
	var cols []Column
	if p.accept("(") {
		err := p.commaList(")", func() error {
			col, err := p.column()
			cols = append(cols, col)
			return err
		})
		if err != nil {
			return nil, err
		}
	} else {
		p.eofEndsColumn = true
		col, err := p.column()
		p.eofEndsColumn = false
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return func(ctx context.Context, c *Cluster) error { _, err := c.AddColumns(ctx, db, t, cols); return err }, nil
}

// checkRowOf decodes a client-sent KV row of schema id to make sure it
// matches that schema.
func (t *table) checkRowOf(id int16, row []byte) error {
	types, err := t.typesOf(id)
	if err != nil {
		return err
	}
	if t.kvIndexed() {
		_, err = record.DecodeIndexedRow(row, types)
	} else {
		_, err = record.DecodeCompactedRow(row, types)
	}
	return err
}
