package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

func propMap(ps []sql.Property) map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

func (s *Session) createCatalog(n *sql.CreateCatalog, w mysqlwire.ResultWriter) error {
	if n.Resource != "" {
		return errorf(errNotSupported, "CREATE CATALOG ... WITH RESOURCE is not supported; give PROPERTIES")
	}
	err := s.srv.cfg.Catalogs.Create(n.Name, n.Comment, propMap(n.Properties), n.IfNotExists)
	if errors.Is(err, catalog.ErrExists) {
		return withKind(errCatalogExists, err)
	}
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) alterCatalog(n *sql.AlterCatalog, w mysqlwire.ResultWriter) error {
	m := s.srv.cfg.Catalogs
	if !m.Exists(n.Name) {
		return unknownCatalog(n.Name)
	}
	var err error
	switch n.Action {
	case sql.AlterCatalogSetProperties:
		err = m.SetProperties(n.Name, propMap(n.Properties))
	case sql.AlterCatalogRename:
		err = m.Rename(n.Name, n.NewName)
		if err == nil && s.catalog == n.Name {
			s.catalog = n.NewName
		}
		if errors.Is(err, catalog.ErrExists) {
			err = withKind(errCatalogExists, err)
		}
	case sql.AlterCatalogModifyComment:
		err = m.ModifyComment(n.Name, n.Comment)
	default:
		err = errorf(errNotSupported, "this ALTER CATALOG action is not supported")
	}
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) refresh(ctx context.Context, n *sql.Refresh, w mysqlwire.ResultWriter) error {
	switch n.Kind {
	case sql.ObjCatalog:
		if len(n.Name) != 1 {
			return errorf(sql.ErrSyntax, "REFRESH CATALOG takes a catalog name")
		}
		if !s.srv.cfg.Catalogs.Exists(n.Name[0]) {
			return unknownCatalog(n.Name[0])
		}
		if err := s.srv.cfg.Catalogs.Refresh(ctx, n.Name[0]); err != nil {
			return err
		}
	case sql.ObjDatabase:
		ctl, db, err := s.splitDBName(n.Name)
		if err != nil {
			return err
		}
		_, d, err := s.database(ctx, ctl, db)
		if err != nil {
			return err
		}
		if err := refreshCached(ctx, d); err != nil {
			return err
		}
	case sql.ObjTable:
		_, _, t, err := s.ResolveTable(ctx, n.Name)
		if err != nil {
			return err
		}
		if err := refreshCached(ctx, t); err != nil {
			return err
		}
	default:
		return errorf(errNotSupported, "REFRESH of this object")
	}
	return w.OK(mysqlwire.OKResult{})
}

// refreshCached refreshes a database or table whose catalog caches it; one
// that is not a catalog.Refresher keeps nothing to refresh.
func refreshCached(ctx context.Context, o any) error {
	if r, ok := o.(catalog.Refresher); ok {
		return r.Refresh(ctx)
	}
	return nil
}

func (s *Session) drop(ctx context.Context, n *sql.Drop, w mysqlwire.ResultWriter) error {
	switch n.Kind {
	case sql.ObjCatalog:
		if len(n.Name) != 1 {
			return errorf(sql.ErrSyntax, "DROP CATALOG takes a catalog name")
		}
		if err := s.srv.cfg.Catalogs.Drop(n.Name[0], n.IfExists); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				return withKind(errUnknownCatalog, err)
			}
			return err
		}
		if s.catalog == n.Name[0] {
			s.catalog, s.db = "internal", ""
		}
	case sql.ObjDatabase:
		ctl, db, err := s.splitDBName(n.Name)
		if err != nil {
			return err
		}
		c, err := s.getCatalog(ctx, ctl)
		if err != nil {
			return err
		}
		dc, ok := c.(catalog.DatabaseCreator)
		if !ok {
			return errorf(errNotSupported, "catalog %s (type %s) is read only: DROP DATABASE is not supported", ctl, c.Type())
		}
		if err := dc.DropDatabase(ctx, db, n.Force); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				if n.IfExists {
					break
				}
				return errorf(errDBMissing, "Can't drop database '%s'; database doesn't exist", db)
			}
			return err
		}
		if s.catalog == ctl && s.db == db {
			s.db = ""
		}
		if s.srv.views != nil {
			if err := s.srv.views.dropDatabase(ctl, db); err != nil {
				return err
			}
		}
	case sql.ObjTable:
		ctl, db, tbl, err := s.splitName(n.Name)
		if err != nil {
			return err
		}
		_, d, err := s.database(ctx, ctl, db)
		if err != nil {
			return err
		}
		tc, ok := d.(catalog.TableCreator)
		if !ok {
			return errorf(errNotSupported, "catalog %s is read only: DROP TABLE is not supported", ctl)
		}
		if err := tc.DropTable(ctx, tbl); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				if n.IfExists {
					break
				}
				return errorf(errUnknownTable, "Unknown table '%s'", tbl)
			}
			return err
		}
	case sql.ObjView:
		return s.dropView(n, w)
	default:
		return errorf(errNotSupported, "DROP of this object is not supported")
	}
	return w.OK(mysqlwire.OKResult{})
}

func (s *Session) createDatabase(ctx context.Context, n *sql.CreateDatabase, w mysqlwire.ResultWriter) error {
	var ctl, db string
	switch len(n.Name) {
	case 1:
		ctl, db = s.catalog, n.Name[0]
	case 2:
		ctl, db = n.Name[0], n.Name[1]
	default:
		return errorf(sql.ErrSyntax, "bad database name")
	}
	c, err := s.getCatalog(ctx, ctl)
	if err != nil {
		return err
	}
	dc, ok := c.(catalog.DatabaseCreator)
	if !ok {
		return errorf(errNotSupported, "catalog %s (type %s) is read only: CREATE DATABASE is not supported", ctl, c.Type())
	}
	if err := dc.CreateDatabase(ctx, db, propMap(n.Properties)); err != nil {
		if errors.Is(err, catalog.ErrExists) {
			if n.IfNotExists {
				return w.OK(mysqlwire.OKResult{})
			}
			return withKind(errDBExists, err)
		}
		return err
	}
	return w.OK(mysqlwire.OKResult{})
}

// tableCreator resolves the database a new table goes into.
func (s *Session) tableCreator(ctx context.Context, name sql.Name) (catalog.TableCreator, string, error) {
	ctl, db, tbl, err := s.splitName(name)
	if err != nil {
		return nil, "", err
	}
	_, d, err := s.database(ctx, ctl, db)
	if err != nil {
		return nil, "", err
	}
	tc, ok := d.(catalog.TableCreator)
	if !ok {
		return nil, "", errorf(errNotSupported, "catalog %s is read only: CREATE TABLE is not supported", ctl)
	}
	return tc, tbl, nil
}

func (s *Session) createTable(ctx context.Context, n *sql.CreateTable, w mysqlwire.ResultWriter) error {
	if n.External {
		return errorf(errNotSupported, "CREATE EXTERNAL TABLE is not supported; use CREATE CATALOG")
	}
	tc, tbl, err := s.tableCreator(ctx, n.Name)
	if err != nil {
		return err
	}
	spec := catalog.TableSpec{Name: tbl, Comment: n.Comment, Properties: propMap(n.Properties)}
	if n.Keys != nil {
		spec.KeysType = [...]string{"DUPLICATE", "UNIQUE", "AGGREGATE", "PRIMARY"}[n.Keys.Kind]
		spec.KeyColumns = n.Keys.Columns
		uk, _ := tc.(catalog.UniqueKeyCreator)
		canUnique := uk != nil && uk.SupportsUniqueKey()
		if n.Keys.Kind == sql.PrimaryKey && canUnique {
			// Doris's "primary key model" is the UNIQUE KEY model with
			// merge-on-write: one row per key, the latest write winning.
			spec.KeysType = "UNIQUE"
		}
		unique := spec.KeysType == "UNIQUE" && canUnique
		if !unique && (n.Keys.Kind == sql.UniqueKey || n.Keys.Kind == sql.AggregateKey || n.Keys.Kind == sql.PrimaryKey) {
			// Rows are stored as inserted; merging on the key (UNIQUE,
			// AGGREGATE) is not implemented, and answering as if it were
			// would be wrong.
			return errorf(errNotSupported, "%s KEY tables are not supported by the internal catalog; use DUPLICATE KEY", spec.KeysType)
		}
	}
	if d := n.Distribution; d != nil {
		spec.Distribution = distributionText(d)
	} else if n.Keys != nil && n.Keys.Kind == sql.PrimaryKey && spec.KeysType == "UNIQUE" {
		// Doris hashes a keyed table on its key columns when no
		// DISTRIBUTED BY is given; written out so SHOW CREATE TABLE
		// shows the table as it is stored (one bucket).
		spec.Distribution = distributionText(&sql.Distribution{Columns: n.Keys.Columns, Buckets: 1})
	}
	var plan bind.Plan
	var op exec.Operator
	if n.AsQuery != nil {
		if len(n.Columns) > 0 {
			return errorf(errNotSupported, "CREATE TABLE with both columns and AS SELECT")
		}
		if plan, op, err = s.plan(ctx, n.AsQuery, s.vars); err != nil {
			return err
		}
		for i, c := range plan.Columns() {
			col := catalog.Column{Name: c.Name, Type: c.Type, Nullable: true}
			if ts, ok := c.Type.(*arrow.TimestampType); ok && ts.TimeZone != "" {
				// A zone-aware value (Fluss TIMESTAMP_LTZ) is Doris's
				// timestamptz in a CTAS (misc.out desc_ctas).
				col.TypeName = fmt.Sprintf("timestamptz(%d)", timestampPrecision(ts))
			} else if i == 0 && isStringType(c.Type) && n.Keys == nil {
				// Doris makes a leading string column varchar(65533) in a
				// CTAS so that it can be the table's key.
				col.TypeName = "varchar(65533)"
			}
			spec.Schema.Columns = append(spec.Schema.Columns, col)
		}
	} else {
		for _, c := range n.Columns {
			t, name, err := bind.ColumnType(c.Type)
			if err != nil {
				return fmt.Errorf("column %s: %w", c.Name, err)
			}
			if c.AggType != "" {
				return errorf(errNotSupported, "column %s: aggregate type %s is not supported", c.Name, c.AggType)
			}
			col := catalog.Column{Name: c.Name, Type: t, TypeName: name, Nullable: c.Null != sql.NotNull, Comment: c.Comment}
			if c.Default != nil {
				def := defaultText(c.Default)
				col.Default = &def
			}
			spec.Schema.Columns = append(spec.Schema.Columns, col)
		}
	}
	if len(spec.KeyColumns) == 0 && len(spec.Schema.Columns) > 0 {
		// Doris picks leading columns as the duplicate key when none is given.
		spec.KeysType, spec.KeyColumns = "DUPLICATE", defaultDuplicateKey(spec.Schema.Columns)
	}
	for _, k := range spec.KeyColumns {
		i := spec.Schema.Index(k)
		if i < 0 {
			return errorf(bind.ErrUnknownColumn, "Key column %s does not exist in table %s", k, tbl)
		}
		spec.Schema.Columns[i].Key = true
	}
	t, err := tc.CreateTable(ctx, spec)
	if err != nil {
		if errors.Is(err, catalog.ErrExists) {
			if n.IfNotExists {
				return w.OK(mysqlwire.OKResult{})
			}
			return withKind(errTableExists, err)
		}
		return err
	}
	if op == nil {
		return w.OK(mysqlwire.OKResult{})
	}
	cols := make([]int, len(spec.Schema.Columns))
	for i := range cols {
		cols[i] = i
	}
	rows, err := s.appendFrom(ctx, t, op, cols, s.vars)
	if err != nil {
		// A CTAS that failed to load leaves no table behind.
		if derr := tc.DropTable(ctx, tbl); derr != nil {
			s.srv.log.Warn("dropping table after failed CREATE TABLE AS SELECT", "table", tbl, "err", derr)
		}
		return err
	}
	return w.OK(mysqlwire.OKResult{AffectedRows: uint64(rows)})
}

func distributionText(d *sql.Distribution) string {
	var b strings.Builder
	if d.Random {
		b.WriteString("DISTRIBUTED BY RANDOM")
	} else {
		q := make([]string, len(d.Columns))
		for i, c := range d.Columns {
			q[i] = "`" + c + "`"
		}
		b.WriteString("DISTRIBUTED BY HASH(" + strings.Join(q, ", ") + ")")
	}
	switch {
	case d.Auto:
		b.WriteString(" BUCKETS AUTO")
	case d.Buckets > 0:
		b.WriteString(" BUCKETS " + strconv.FormatInt(d.Buckets, 10))
	}
	return b.String()
}

func defaultText(e sql.Expr) string {
	if l, ok := e.(*sql.Literal); ok && l.Kind != sql.LitNull {
		return l.Value
	}
	return e.String()
}

// insert runs INSERT INTO ... VALUES / SELECT.
func (s *Session) insert(ctx context.Context, n *sql.Insert, w mysqlwire.ResultWriter) error {
	v, err := s.stmtVars(n.Hints)
	if err != nil {
		return err
	}
	_, _, t, err := s.ResolveTable(ctx, n.Table)
	if err != nil {
		return err
	}
	if err := checkInsertTarget(t, n.Overwrite); err != nil {
		return err
	}
	schema := t.Schema()
	// target[i] is the table column the i-th inserted value goes to.
	var target []int
	if len(n.Columns) == 0 {
		for i := range schema.Columns {
			target = append(target, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range n.Columns {
			i := schema.Index(c)
			if i < 0 {
				return errorf(bind.ErrUnknownColumn, "Unknown column '%s' in 'field list'", c)
			}
			if seen[i] {
				return errorf(bind.ErrAnalysis, "Column '%s' specified twice", c)
			}
			seen[i] = true
			target = append(target, i)
		}
	}
	var op exec.Operator
	if n.Query != nil {
		if _, op, err = s.plan(ctx, n.Query, v); err != nil {
			return err
		}
		if len(op.Schema().Fields()) != len(target) {
			return errorf(errWrongValueCount, "Column count doesn't match value count: %d columns, query gives %d", len(target), len(op.Schema().Fields()))
		}
	} else {
		b := bind.New(ctx, s.bindSession(v))
		fields := make([]arrow.Field, len(target))
		for i, ti := range target {
			fields[i] = arrow.Field{Name: schema.Columns[ti].Name, Type: schema.Columns[ti].Type, Nullable: true}
		}
		rows := make([][]expr.Expr, len(n.Rows))
		for r, row := range n.Rows {
			if len(row) != len(target) {
				return errorf(errWrongValueCount, "Column count doesn't match value count at row %d", r+1)
			}
			rows[r] = make([]expr.Expr, len(row))
			for i, e := range row {
				c := schema.Columns[target[i]]
				if _, isDef := e.(*sql.DefaultExpr); isDef {
					rows[r][i], err = defaultValue(c)
				} else {
					rows[r][i], err = b.BindExpr(e)
				}
				if err != nil {
					return fmt.Errorf("row %d column %s: %w", r+1, c.Name, err)
				}
			}
		}
		if op, err = exec.NewValues(arrow.NewSchema(fields, nil), rows); err != nil {
			return err
		}
	}
	if n.Overwrite {
		return s.insertOverwrite(ctx, t, op, target, v, n.Label, w)
	}
	if n.Label != "" {
		return s.insertLabelled(ctx, t, op, target, v, n.Label, w)
	}
	rows, err := s.appendFrom(ctx, t, op, target, v)
	if err != nil {
		return err
	}
	return w.OK(mysqlwire.OKResult{AffectedRows: uint64(rows)})
}

func defaultValue(c catalog.Column) (expr.Expr, error) {
	if c.Default == nil {
		return expr.Null(c.Type), nil
	}
	return expr.Cast(expr.Str(*c.Default), c.Type)
}

// appendFrom runs op and appends its rows to t; op's i-th column goes to
// table column target[i], the other columns get their default or NULL.
func (s *Session) appendFrom(ctx context.Context, t catalog.Table, op exec.Operator, target []int, v *vars.Session) (int64, error) {
	schema := t.Schema()
	in := op.Schema()
	exprs := make([]expr.Expr, len(schema.Columns))
	names := make([]string, len(schema.Columns))
	for i, c := range schema.Columns {
		names[i] = c.Name
		src := -1
		for j, ti := range target {
			if ti == i {
				src = j
			}
		}
		var e expr.Expr
		var err error
		if src < 0 {
			if !c.Nullable && c.Default == nil {
				return 0, errorf(bind.ErrAnalysis, "Column '%s' is NOT NULL and has no default: it must be given a value", c.Name)
			}
			e, err = defaultValue(c)
		} else {
			e = expr.Col(src, in.Field(src).Name, in.Field(src).Type)
			if !arrow.TypeEqual(e.DataType(), c.Type) {
				e, err = expr.Cast(e, c.Type)
			}
		}
		if err != nil {
			return 0, fmt.Errorf("column %s: %w", c.Name, err)
		}
		exprs[i] = e
	}
	proj, err := exec.NewProject(op, exprs, names)
	if err != nil {
		return 0, err
	}
	env, err := s.env(v)
	if err != nil {
		return 0, err
	}
	ctx, endSpill, err := s.srv.spill.begin(ctx, v, s.stmt)
	if err != nil {
		return 0, err
	}
	defer endSpill()
	rr, err := proj.Open(ctx, env)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	checked := &notNullReader{RecordReader: rr, cols: schema.Columns, strict: v.Bool("enable_insert_strict"), mem: s.mem()}
	defer checked.drop()
	if l := loadLabel(ctx); l != nil {
		return l.load(ctx, t, checked)
	}
	return t.(catalog.Writable).Append(ctx, checked)
}

// notNullReader fails the stream when a NOT NULL column receives a NULL,
// and holds CHAR(n)/VARCHAR(n) columns to their n bytes as Doris does: with
// enable_insert_strict (the default) a longer value fails the statement,
// naming the column and its length; without it the value is cut to n bytes
// (at a character boundary), as Doris's non-strict INSERT keeps the row.
type notNullReader struct {
	array.RecordReader
	cols   []catalog.Column
	strict bool
	mem    memory.Allocator
	cur    arrow.RecordBatch // a batch with cut values, owned here
	err    error
}

func (r *notNullReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.RecordReader.Next() {
		return false
	}
	rec := r.RecordReader.RecordBatch()
	for i, c := range r.cols {
		if !c.Nullable && rec.Column(i).NullN() > 0 {
			r.err = errorf(bind.ErrAnalysis, "Column '%s' is NOT NULL but the inserted data contains NULL (or a value that cannot be converted to %s)", c.Name, c.DisplayType())
			return false
		}
	}
	var cols []arrow.Array
	for i, c := range r.cols {
		n, typ := c.StringLimit()
		if n == 0 {
			continue
		}
		s, ok := rec.Column(i).(*array.String)
		if !ok {
			continue
		}
		row := longString(s, n)
		if row < 0 {
			continue
		}
		if r.strict {
			r.err = errorf(bind.ErrAnalysis, "Insert has filtered data in strict mode: column '%s' is %s, but a value has %d bytes (first bytes %q); SET enable_insert_strict = false to cut such values", c.Name, typ, len(s.Value(row)), clipBytes(s.Value(row), 32))
			return false
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), rec.Columns()...)
		}
		cols[i] = cutStrings(r.mem, s, n)
		defer cols[i].Release()
	}
	if cols != nil {
		r.cur = array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	}
	return true
}

func (r *notNullReader) RecordBatch() arrow.RecordBatch {
	if r.cur != nil {
		return r.cur
	}
	return r.RecordReader.RecordBatch()
}

// Record is the deprecated name of RecordBatch.
func (r *notNullReader) Record() arrow.RecordBatch { return r.RecordBatch() }

// drop releases the batch with cut values a consumer stopped on.
func (r *notNullReader) drop() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *notNullReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.RecordReader.Err()
}

// longString is the first row of s longer than n bytes, or -1.
func longString(s *array.String, n int) int {
	offs := s.ValueOffsets()
	for i := 0; i < s.Len(); i++ {
		if int(offs[i+1]-offs[i]) > n && s.IsValid(i) {
			return i
		}
	}
	return -1
}

// cutStrings is s with every value cut to at most n bytes, at a UTF-8
// character boundary.
func cutStrings(mem memory.Allocator, s *array.String, n int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(s.Len())
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(cutUTF8(s.Value(i), n))
	}
	return b.NewArray()
}

// cutUTF8 is v cut to at most n bytes without splitting a character.
func cutUTF8(v string, n int) string {
	if len(v) <= n {
		return v
	}
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

func clipBytes(v string, n int) string {
	return cutUTF8(v, n)
}

// Doris's short-key limits: at most three leading columns, 36 bytes.
const (
	shortKeyMaxColumns = 3
	shortKeyMaxBytes   = 36
)

// defaultDuplicateKey is the duplicate key Doris gives a table created
// without one: leading columns while they fit the short key (three columns,
// 36 bytes), stopping before a type that cannot be a key (float, double,
// string, varbinary, nested) and after a varchar. When none qualifies the
// first column is the key (Doris refuses such a table).
func defaultDuplicateKey(cols []catalog.Column) []string {
	var keys []string
	size := 0
	for _, c := range cols {
		n, ok := shortKeySize(c)
		size += n
		if len(keys) >= shortKeyMaxColumns || size > shortKeyMaxBytes {
			if len(keys) == 0 && strings.HasPrefix(c.DisplayType(), "varchar") {
				keys = append(keys, c.Name)
			}
			break
		}
		if !ok {
			break
		}
		keys = append(keys, c.Name)
		if strings.HasPrefix(c.DisplayType(), "varchar") {
			break
		}
	}
	if len(keys) == 0 {
		keys = []string{cols[0].Name}
	}
	return keys
}

// shortKeySize is a column's share of the short key and whether its type
// can be part of one.
func shortKeySize(c catalog.Column) (int, bool) {
	name := c.DisplayType()
	switch {
	case strings.HasPrefix(name, "varchar"):
		return 20, true
	case strings.HasPrefix(name, "char("):
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "char("), ")"))
		return n, true
	}
	switch t := c.Type.(type) {
	case *arrow.BooleanType, *arrow.Int8Type, *arrow.Uint8Type:
		return 1, true
	case *arrow.Int16Type, *arrow.Uint16Type:
		return 2, true
	case *arrow.Int32Type, *arrow.Uint32Type, *arrow.Date32Type:
		return 4, true
	case *arrow.Int64Type, *arrow.Uint64Type, *arrow.TimestampType, *arrow.Date64Type:
		return 8, true
	case *arrow.Decimal128Type:
		switch {
		case t.Precision <= 9:
			return 4, true
		case t.Precision <= 18:
			return 8, true
		}
		return 16, true
	case *arrow.Decimal256Type:
		return 32, true
	}
	return 0, false
}

func isStringType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func timestampPrecision(t *arrow.TimestampType) int {
	switch t.Unit {
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond, arrow.Nanosecond:
		return 6
	}
	return 0
}
