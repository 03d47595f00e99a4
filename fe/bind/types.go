package bind

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// ColumnType maps a type written in DDL or CAST to its Arrow type and the
// lower-case Doris name DESC shows.
func ColumnType(t *sql.DataType) (arrow.DataType, string, error) {
	if t == nil {
		return nil, "", errorf(ErrUnsupported, "missing type")
	}
	p := func(i int, def int64) int64 {
		if i < len(t.Params) {
			return t.Params[i]
		}
		return def
	}
	name := strings.ToUpper(t.Name)
	switch name {
	case "BOOLEAN", "BOOL":
		return arrow.FixedWidthTypes.Boolean, "boolean", nil
	case "TINYINT":
		return arrow.PrimitiveTypes.Int8, "tinyint", nil
	case "SMALLINT":
		return arrow.PrimitiveTypes.Int16, "smallint", nil
	case "INT", "INTEGER", "MEDIUMINT":
		return arrow.PrimitiveTypes.Int32, "int", nil
	case "BIGINT", "SIGNED":
		return arrow.PrimitiveTypes.Int64, "bigint", nil
	case "UNSIGNED":
		return arrow.PrimitiveTypes.Int64, "bigint", nil
	case "LARGEINT":
		return expr.LargeIntT(), "largeint", nil
	case "FLOAT":
		return arrow.PrimitiveTypes.Float32, "float", nil
	case "DOUBLE", "REAL":
		return arrow.PrimitiveTypes.Float64, "double", nil
	case "DECIMAL", "DECIMALV2", "DECIMALV3", "NUMERIC":
		pr, sc := p(0, 9), p(1, 0)
		if pr < 1 || pr > 38 || sc < 0 || sc > pr {
			return nil, "", errorf(ErrUnsupported, "invalid decimal(%d,%d): precision must be 1..38 and scale 0..precision", pr, sc)
		}
		return &arrow.Decimal128Type{Precision: int32(pr), Scale: int32(sc)}, fmt.Sprintf("decimal(%d,%d)", pr, sc), nil
	case "CHAR":
		return arrow.BinaryTypes.String, fmt.Sprintf("char(%d)", p(0, 1)), nil
	case "VARCHAR":
		return arrow.BinaryTypes.String, fmt.Sprintf("varchar(%d)", p(0, 65533)), nil
	case "STRING", "TEXT":
		return arrow.BinaryTypes.String, "text", nil
	case "JSON", "JSONB", "VARIANT":
		return arrow.BinaryTypes.String, "json", nil
	case "VARBINARY", "BINARY", "BLOB":
		return arrow.BinaryTypes.Binary, "varbinary", nil
	case "DATE", "DATEV2":
		return arrow.FixedWidthTypes.Date32, "date", nil
	case "DATETIME", "DATETIMEV2", "TIMESTAMP":
		sc := p(0, 0)
		switch {
		case sc == 0:
			return &arrow.TimestampType{Unit: arrow.Second}, "datetime", nil
		case sc <= 3:
			return &arrow.TimestampType{Unit: arrow.Millisecond}, fmt.Sprintf("datetime(%d)", sc), nil
		case sc <= 6:
			return &arrow.TimestampType{Unit: arrow.Microsecond}, fmt.Sprintf("datetime(%d)", sc), nil
		}
		return nil, "", errorf(ErrUnsupported, "datetime precision %d (0..6)", sc)
	case "ARRAY":
		if len(t.Elems) != 1 {
			return nil, "", errorf(ErrUnsupported, "ARRAY needs one element type")
		}
		et, en, err := ColumnType(t.Elems[0])
		if err != nil {
			return nil, "", err
		}
		return arrow.ListOf(et), "array<" + en + ">", nil
	case "MAP":
		if len(t.Elems) != 2 {
			return nil, "", errorf(ErrUnsupported, "MAP needs a key and a value type")
		}
		kt, kn, err := ColumnType(t.Elems[0])
		if err != nil {
			return nil, "", err
		}
		vt, vn, err := ColumnType(t.Elems[1])
		if err != nil {
			return nil, "", err
		}
		return arrow.MapOf(kt, vt), "map<" + kn + "," + vn + ">", nil
	case "STRUCT":
		fs := make([]arrow.Field, len(t.Fields))
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			ft, fn, err := ColumnType(f.Type)
			if err != nil {
				return nil, "", err
			}
			fs[i] = arrow.Field{Name: f.Name, Type: ft, Nullable: true}
			names[i] = f.Name + ":" + fn
		}
		return arrow.StructOf(fs...), "struct<" + strings.Join(names, ",") + ">", nil
	}
	return nil, "", errorf(ErrUnsupported, "unknown type %s", t.Name)
}
