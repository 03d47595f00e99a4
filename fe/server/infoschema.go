package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
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

func textCols(names ...string) catalog.Schema {
	s := catalog.Schema{}
	for _, n := range names {
		typ := arrow.DataType(arrow.BinaryTypes.String)
		tn := "varchar(512)"
		if n == "ORDINAL_POSITION" || n == "TABLE_ROWS" {
			typ, tn = arrow.PrimitiveTypes.Int64, "bigint"
		}
		s.Columns = append(s.Columns, catalog.Column{Name: n, Type: typ, TypeName: tn, Nullable: true})
	}
	return s
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
			d, err := c.Database(ctx, dn)
			if err != nil {
				return err
			}
			tables, err := d.ListTables(ctx)
			if err != nil {
				return err
			}
			for _, tn := range tables {
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
				return out, err
			}}, nil
	case "columns":
		return &virtualTable{name: "columns", schema: textCols("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
			"COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE", "COLUMN_TYPE", "COLUMN_KEY", "EXTRA", "COLUMN_COMMENT"),
			rows: func(ctx context.Context) ([][]any, error) {
				var out [][]any
				err := forEachTable(ctx, func(db string, t catalog.Table) error {
					for i, c := range t.Schema().Columns {
						var def any
						if c.Default != nil {
							def = *c.Default
						}
						null, key := "NO", ""
						if c.Nullable {
							null = "YES"
						}
						if c.Key {
							key = "DUP"
						}
						typ := c.DisplayType()
						dataType := typ
						if i := strings.IndexAny(typ, "(<"); i > 0 {
							dataType = typ[:i]
						}
						out = append(out, []any{ctl, db, t.Name(), c.Name, int64(i + 1), def, null, dataType, typ, key, c.Extra, c.Comment})
					}
					return nil
				})
				return out, err
			}}, nil
	}
	return nil, nil
}
