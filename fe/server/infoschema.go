package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// infoSchema is the name of the virtual database every catalog shows.
const infoSchema = "information_schema"

// mysqlSchema is the second virtual database Doris shows in every catalog
// (for MySQL tools that look for it); here it holds no tables.
const mysqlSchema = "mysql"

// virtualTable is a small table computed when it is scanned (information
// schema views). Its rows are text or integers.
type virtualTable struct {
	name   string
	schema catalog.Schema
	rows   func(ctx context.Context) ([][]any, error)
}

// foldCaseColumns are the information_schema columns holding keywords
// rather than names: MySQL compares them without regard to case, and
// JDBC drivers rely on it (Connector/J's getColumns tests
// IS_NULLABLE = 'yes').
var foldCaseColumns = map[string]bool{
	"IS_NULLABLE": true, "DATA_TYPE": true, "COLUMN_TYPE": true, "COLUMN_KEY": true, "EXTRA": true, "PRIVILEGES": true,
	"TABLE_TYPE": true, "ENGINE": true, "CHARACTER_SET_NAME": true, "COLLATION_NAME": true, "DEFAULT_CHARACTER_SET_NAME": true,
	"DEFAULT_COLLATION_NAME": true, "INDEX_NAME": true, "INDEX_TYPE": true, "COLLATION": true, "NULLABLE": true,
	"CONSTRAINT_NAME": true, "CONSTRAINT_TYPE": true, "ENFORCED": true, "MATCH_OPTION": true, "UPDATE_RULE": true,
	"DELETE_RULE": true, "ROUTINE_TYPE": true,
}

// FoldsCase implements bind.CaseFolder.
func (t *virtualTable) FoldsCase(column string) bool { return foldCaseColumns[strings.ToUpper(column)] }

func (t *virtualTable) Name() string           { return t.name }
func (t *virtualTable) Schema() catalog.Schema { return t.schema }

func (t *virtualTable) Scan(ctx context.Context, req catalog.ScanRequest) (array.RecordReader, error) {
	if req.Mem == nil {
		return nil, errors.New("information_schema: scan needs an allocator")
	}
	rows, err := t.rows(ctx)
	if err != nil {
		return nil, err
	}
	cols := req.Columns
	if cols == nil {
		for i := range t.schema.Columns {
			cols = append(cols, i)
		}
	}
	out := t.schema.Projected(cols).Arrow()
	b := array.NewRecordBuilder(req.Mem, out)
	defer b.Release()
	for _, r := range rows {
		for j, c := range cols {
			fb := b.Field(j)
			switch v := r[c].(type) {
			case nil:
				fb.AppendNull()
			case string:
				fb.(*array.StringBuilder).Append(v)
			case int64:
				fb.(*array.Int64Builder).Append(v)
			default:
				return nil, fmt.Errorf("information_schema.%s: value of type %T", t.name, v)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(out, []arrow.RecordBatch{rec})
}

// infoIntCols are the information_schema columns that are numbers; every
// other one is text.
var infoIntCols = map[string]bool{
	"ORDINAL_POSITION": true, "TABLE_ROWS": true, "CHARACTER_MAXIMUM_LENGTH": true, "CHARACTER_OCTET_LENGTH": true,
	"NUMERIC_PRECISION": true, "NUMERIC_SCALE": true, "DATETIME_PRECISION": true, "NON_UNIQUE": true,
	"SEQ_IN_INDEX": true, "CARDINALITY": true, "SUB_PART": true, "POSITION_IN_UNIQUE_CONSTRAINT": true,
}

func textCols(names ...string) catalog.Schema {
	s := catalog.Schema{}
	for _, n := range names {
		typ := arrow.DataType(arrow.BinaryTypes.String)
		tn := "varchar(512)"
		if infoIntCols[n] {
			typ, tn = arrow.PrimitiveTypes.Int64, "bigint"
		}
		s.Columns = append(s.Columns, catalog.Column{Name: n, Type: typ, TypeName: tn, Nullable: true})
	}
	return s
}

// The information_schema tables this FE answers, as SHOW TABLES lists them.
var infoSchemaTables = []string{"columns", "key_column_usage", "parameters", "referential_constraints", "routines", "schemata",
	"statistics", "table_constraints", "tables", "views"}

// primaryKey is a table's primary key: a Fluss primary-key table's, or the
// key of an internal UNIQUE KEY table (what PRIMARY KEY creates), which
// holds one row per key as a primary key does. DUPLICATE KEY columns sort
// rows and are no key in this sense.
func primaryKey(t catalog.Table) []string {
	if pk, ok := t.(catalog.PrimaryKeyed); ok {
		return pk.PrimaryKey()
	}
	if d, ok := t.(catalog.Described); ok {
		if spec := d.Spec(); strings.EqualFold(spec.KeysType, "UNIQUE") {
			return spec.KeyColumns
		}
	}
	return nil
}

// columnFacts are the sizes information_schema.COLUMNS reports for a
// column, read from the type DESC shows: what JDBC's getColumns turns into
// COLUMN_SIZE and DECIMAL_DIGITS. A nil is SQL NULL (not applicable).
type columnFacts struct {
	charMax, octets, precision, scale, datetimePrecision, charset, collation any
}

// maxTextLength is what a text (STRING) column reports as its length:
// JDBC's largest int, as no length was declared.
const maxTextLength = 1<<31 - 1

func factsOf(typ string) columnFacts {
	base, args := strings.ToLower(typ), []int64(nil)
	if i := strings.IndexAny(base, "(<"); i > 0 {
		if base[i] == '(' {
			for _, a := range strings.Split(strings.TrimSuffix(base[i+1:], ")"), ",") {
				n, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
				if err != nil {
					break
				}
				args = append(args, n)
			}
		}
		base = base[:i]
	}
	arg := func(i int, def int64) int64 {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	var f columnFacts
	num := func(p int64, s any) { f.precision, f.scale = p, s }
	text := func(n, perChar int64) {
		f.charMax, f.octets = n, min(n*perChar, maxTextLength)
		if perChar > 1 {
			f.charset, f.collation = "utf8mb4", "utf8mb4_0900_bin"
		}
	}
	switch base {
	case "boolean":
		num(1, int64(0))
	case "tinyint":
		num(3, int64(0))
	case "smallint":
		num(5, int64(0))
	case "int":
		num(10, int64(0))
	case "bigint":
		num(19, int64(0))
	case "largeint":
		num(39, int64(0))
	case "float":
		num(12, nil)
	case "double":
		num(22, nil)
	case "decimal", "decimalv3":
		num(arg(0, 9), arg(1, 0))
	case "char", "varchar":
		text(arg(0, 1), 4)
	case "text", "string":
		text(maxTextLength, 4)
	case "binary", "varbinary":
		text(arg(0, maxTextLength), 1)
	case "datetime", "datetimev2", "time", "timestamp":
		f.datetimePrecision = arg(0, 0)
	}
	return f
}

// infoSchemaTable returns a view of information_schema for catalog ctl.
func (s *Session) infoSchemaTable(ctl, name string) (catalog.Table, error) {
	forEachTable := func(ctx context.Context, f func(db string, t catalog.Table) error) error {
		c, err := s.getCatalog(ctx, ctl)
		if err != nil {
			return err
		}
		dbs, err := c.ListDatabases(ctx)
		if err != nil {
			return err
		}
		for _, dn := range dbs {
			if !s.holdsSome(ctl, dn, "") {
				continue
			}
			d, err := c.Database(ctx, dn)
			if err != nil {
				return err
			}
			tables, err := d.ListTables(ctx)
			if err != nil {
				return err
			}
			for _, tn := range tables {
				if !s.holdsSome(ctl, dn, privTable(tn)) {
					continue
				}
				t, err := d.Table(ctx, tn)
				if err != nil {
					return err
				}
				if err := f(dn, t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	switch strings.ToLower(name) {
	case "schemata":
		return &virtualTable{name: "schemata", schema: textCols("CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME"),
			rows: func(ctx context.Context) ([][]any, error) {
				c, err := s.getCatalog(ctx, ctl)
				if err != nil {
					return nil, err
				}
				dbs, err := c.ListDatabases(ctx)
				if err != nil {
					return nil, err
				}
				out := [][]any{{ctl, infoSchema, "utf8mb4", "utf8mb4_0900_bin"}}
				for _, d := range dbs {
					if !s.holdsSome(ctl, d, "") {
						continue
					}
					out = append(out, []any{ctl, d, "utf8mb4", "utf8mb4_0900_bin"})
				}
				return out, nil
			}}, nil
	case "tables":
		return &virtualTable{name: "tables", schema: textCols("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "TABLE_ROWS", "TABLE_COMMENT"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					comment := ""
					if d, ok := t.(catalog.Described); ok {
						comment = d.Spec().Comment
					}
					out = append(out, []any{ctl, db, t.Name(), "BASE TABLE", nil, nil, comment})
					return nil
				})
				for _, v := range s.viewsOf(ctl) {
					out = append(out, []any{ctl, v.Database, v.Name, "VIEW", nil, nil, v.Comment})
				}
				return out, err
			}}, nil
	case "views":
		return &virtualTable{name: "views", schema: textCols("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "VIEW_DEFINITION",
			"CHECK_OPTION", "IS_UPDATABLE", "DEFINER", "SECURITY_TYPE", "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION"),
			rows: func(context.Context) ([][]any, error) {
				var out [][]any
				for _, v := range s.viewsOf(ctl) {
					out = append(out, []any{ctl, v.Database, v.Name, v.Query, "NONE", "NO", "", "DEFINER", "utf8mb4", "utf8mb4_0900_bin"})
				}
				return out, nil
			}}, nil
	case "columns":
		// MySQL's columns, in its order, so tools that select them by
		// name find each one.
		return &virtualTable{name: "columns", schema: textCols("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
			"COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH", "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION",
			"NUMERIC_SCALE", "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE", "COLUMN_KEY", "EXTRA",
			"PRIVILEGES", "COLUMN_COMMENT", "GENERATION_EXPRESSION"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					pk := primaryKey(t)
					for i, c := range t.Schema().Columns {
						var def any
						if c.Default != nil {
							def = *c.Default
						}
						null, key := "NO", ""
						if c.Nullable {
							null = "YES"
						}
						switch {
						case slices.Contains(pk, c.Name):
							key = "PRI"
						case c.Key:
							key = "DUP"
						}
						typ := c.DisplayType()
						f := factsOf(typ)
						if typ == "boolean" {
							// As Doris's COLUMNS and MySQL's BOOL: drivers
							// map tinyint(1) to a boolean (JDBC BIT), as
							// they do the result column.
							typ = "tinyint(1)"
						}
						dataType := typ
						if i := strings.IndexAny(typ, "(<"); i > 0 {
							dataType = typ[:i]
						}
						out = append(out, []any{ctl, db, t.Name(), c.Name, int64(i + 1), def, null, dataType,
							f.charMax, f.octets, f.precision, f.scale, f.datetimePrecision, f.charset, f.collation,
							typ, key, c.Extra, "select", c.Comment, ""})
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
				// A view's columns are those its query gives; a view that
				// no longer binds (a table it reads was dropped) has none.
				for _, v := range s.viewsOf(ctl) {
					cols, err := s.viewColumns(ctx, v)
					if err != nil {
						continue
					}
					for i, c := range cols {
						null := "NO"
						if c.Nullable {
							null = "YES"
						}
						typ := expr.TypeName(c.Type)
						dataType := typ
						if i := strings.IndexAny(typ, "(<"); i > 0 {
							dataType = typ[:i]
						}
						f := factsOf(typ)
						out = append(out, []any{ctl, v.Database, v.Name, c.Name, int64(i + 1), nil, null, dataType,
							f.charMax, f.octets, f.precision, f.scale, f.datetimePrecision, f.charset, f.collation,
							typ, "", "", "select", "", ""})
					}
				}
				return out, nil
			}}, nil
	case "statistics":
		// Only primary keys are indexes here (getPrimaryKeys and
		// getIndexInfo read them from this table).
		return &virtualTable{name: "statistics", schema: textCols("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "NON_UNIQUE",
			"INDEX_SCHEMA", "INDEX_NAME", "SEQ_IN_INDEX", "COLUMN_NAME", "COLLATION", "CARDINALITY", "SUB_PART", "PACKED",
			"NULLABLE", "INDEX_TYPE", "COMMENT", "INDEX_COMMENT"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					for i, k := range primaryKey(t) {
						out = append(out, []any{ctl, db, t.Name(), int64(0), db, "PRIMARY", int64(i + 1), k, "A", nil, nil, nil, "", "", "", ""})
					}
					return nil
				})
				return out, err
			}}, nil
	case "key_column_usage":
		return &virtualTable{name: "key_column_usage", schema: textCols("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME",
			"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION", "POSITION_IN_UNIQUE_CONSTRAINT",
			"REFERENCED_TABLE_SCHEMA", "REFERENCED_TABLE_NAME", "REFERENCED_COLUMN_NAME"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					for i, k := range primaryKey(t) {
						out = append(out, []any{ctl, db, "PRIMARY", ctl, db, t.Name(), k, int64(i + 1), nil, nil, nil, nil})
					}
					return nil
				})
				return out, err
			}}, nil
	case "table_constraints":
		return &virtualTable{name: "table_constraints", schema: textCols("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME",
			"TABLE_SCHEMA", "TABLE_NAME", "CONSTRAINT_TYPE", "ENFORCED"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					if len(primaryKey(t)) > 0 {
						out = append(out, []any{ctl, db, "PRIMARY", db, t.Name(), "PRIMARY KEY", "YES"})
					}
					return nil
				})
				return out, err
			}}, nil
	case "referential_constraints":
		// No foreign keys exist: the table is there, empty, for the
		// drivers that join it (getExportedKeys, getCrossReference).
		return &virtualTable{name: "referential_constraints", schema: textCols("CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA",
			"CONSTRAINT_NAME", "UNIQUE_CONSTRAINT_CATALOG", "UNIQUE_CONSTRAINT_SCHEMA", "UNIQUE_CONSTRAINT_NAME", "MATCH_OPTION",
			"UPDATE_RULE", "DELETE_RULE", "TABLE_NAME", "REFERENCED_TABLE_NAME"),
			rows: func(context.Context) ([][]any, error) { return nil, nil }}, nil
	case "parameters":
		// No routines, so no routine parameters (getProcedureColumns,
		// getFunctionColumns).
		return &virtualTable{name: "parameters", schema: textCols("SPECIFIC_CATALOG", "SPECIFIC_SCHEMA", "SPECIFIC_NAME",
			"ORDINAL_POSITION", "PARAMETER_MODE", "PARAMETER_NAME", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH", "CHARACTER_OCTET_LENGTH",
			"NUMERIC_PRECISION", "NUMERIC_SCALE", "DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME", "DTD_IDENTIFIER",
			"ROUTINE_TYPE"),
			rows: func(context.Context) ([][]any, error) { return nil, nil }}, nil
	case "routines":
		// No stored procedures or user functions exist (getProcedures,
		// getFunctions); built-in functions are not routines in MySQL
		// either.
		return &virtualTable{name: "routines", schema: textCols("SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME",
			"ROUTINE_TYPE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH", "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE",
			"DATETIME_PRECISION", "CHARACTER_SET_NAME", "COLLATION_NAME", "DTD_IDENTIFIER", "ROUTINE_BODY", "ROUTINE_DEFINITION",
			"EXTERNAL_NAME", "EXTERNAL_LANGUAGE", "PARAMETER_STYLE", "IS_DETERMINISTIC", "SQL_DATA_ACCESS", "SQL_PATH",
			"SECURITY_TYPE", "CREATED", "LAST_ALTERED", "SQL_MODE", "ROUTINE_COMMENT", "DEFINER"),
			rows: func(context.Context) ([][]any, error) { return nil, nil }}, nil
	}
	return nil, nil
}

// viewsOf lists the views of catalog ctl the user holds some privilege on,
// by database and name.
func (s *Session) viewsOf(ctl string) []viewDef {
	if s.srv.views == nil {
		return nil
	}
	s.srv.views.mu.Lock()
	var out []viewDef
	for _, v := range s.srv.views.views {
		if v.Catalog == ctl {
			out = append(out, v)
		}
	}
	s.srv.views.mu.Unlock()
	out = slices.DeleteFunc(out, func(v viewDef) bool { return !s.holdsSome(ctl, v.Database, v.Name) })
	slices.SortFunc(out, func(a, b viewDef) int { return strings.Compare(a.Database+"\x00"+a.Name, b.Database+"\x00"+b.Name) })
	return out
}

// viewColumns binds a view's query for its output columns.
func (s *Session) viewColumns(ctx context.Context, v viewDef) ([]bind.Column, error) {
	bv, err := s.ResolveView(ctx, []string{v.Catalog, v.Database, v.Name})
	if bv == nil || err != nil {
		return nil, fmt.Errorf("view %s.%s: %w", v.Database, v.Name, err)
	}
	p, err := bind.New(ctx, s.bindSession(s.vars)).BindView(bv)
	if err != nil {
		return nil, err
	}
	return p.Columns(), nil
}
