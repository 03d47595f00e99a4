package catalog

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// DorisTypeName renders an Arrow type the way Doris' DESC shows the engine
// type it maps to (lower case).
func DorisTypeName(t arrow.DataType) string {
	switch tt := t.(type) {
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.Int8Type:
		return "tinyint"
	case *arrow.Int16Type:
		return "smallint"
	case *arrow.Int32Type:
		return "int"
	case *arrow.Int64Type:
		return "bigint"
	case *arrow.Uint8Type:
		return "smallint"
	case *arrow.Uint16Type:
		return "int"
	case *arrow.Uint32Type:
		return "bigint"
	case *arrow.Uint64Type:
		return "largeint"
	case *arrow.Float32Type:
		return "float"
	case *arrow.Float64Type:
		return "double"
	case *arrow.Decimal128Type:
		if tt.Precision == 39 && tt.Scale == 0 {
			return "largeint" // exec/expr.LargeIntT: the int128 range
		}
		return fmt.Sprintf("decimal(%d,%d)", tt.Precision, tt.Scale)
	case *arrow.Decimal256Type:
		return fmt.Sprintf("decimal(%d,%d)", tt.Precision, tt.Scale)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "text"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return "varbinary"
	case *arrow.FixedSizeBinaryType:
		return fmt.Sprintf("varbinary(%d)", tt.ByteWidth)
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date"
	case *arrow.TimestampType:
		p := 0
		switch tt.Unit {
		case arrow.Millisecond:
			p = 3
		case arrow.Microsecond, arrow.Nanosecond:
			p = 6
		}
		if p == 0 {
			return "datetime"
		}
		return fmt.Sprintf("datetime(%d)", p)
	case *arrow.ListType:
		return "array<" + DorisTypeName(tt.Elem()) + ">"
	case *arrow.MapType:
		return "map<" + DorisTypeName(tt.KeyType()) + "," + DorisTypeName(tt.ItemType()) + ">"
	case *arrow.StructType:
		parts := make([]string, tt.NumFields())
		for i, f := range tt.Fields() {
			parts[i] = f.Name + ":" + DorisTypeName(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case *arrow.NullType:
		return "null_type"
	}
	return strings.ToLower(t.String())
}
