package paimon

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	lake "github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/typemap"
)

// typeOptions are the catalog's mapping switches.
type typeOptions struct {
	varbinary   bool
	timestampTZ bool
}

const (
	maxCharLength    = 255
	maxVarcharLength = 65533
	stringLength     = 2147483647
	unsupported      = "UNSUPPORTED"
)

// engineColumn maps a Paimon field to the engine column, with the same
// rules as the Fluss catalog (a Fluss lake table reads the same through
// either): every column nullable and a key with no default; timestamps as
// microseconds (LTZ in UTC, WITH_TIMEZONE in Extra); binary as text unless
// enable.mapping.varbinary; TIME (anywhere in the type) UNSUPPORTED.
func engineColumn(f lake.DataField, o typeOptions) catalog.Column {
	col := catalog.Column{Name: f.Name, Nullable: true, Key: true, Comment: f.Description}
	if f.Type.Root == lake.TimestampLTZ {
		col.Extra = "WITH_TIMEZONE"
	}
	name, ok := descName(f.Type, o)
	if !ok {
		col.Type, col.TypeName, col.Unsupported = arrow.Null, unsupported, true
		return col
	}
	col.Type, col.TypeName = arrowType(f.Type, o), name
	return col
}

// descName is the type as DESC prints it; false when the type holds one
// the engine cannot read.
func descName(t lake.DataType, o typeOptions) (string, bool) {
	switch t.Root {
	case lake.Boolean:
		return "boolean", true
	case lake.TinyInt:
		return "tinyint", true
	case lake.SmallInt:
		return "smallint", true
	case lake.Int:
		return "int", true
	case lake.BigInt:
		return "bigint", true
	case lake.Float:
		return "float", true
	case lake.Double:
		return "double", true
	case lake.Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale), true
	case lake.Char:
		if t.Precision > maxCharLength {
			return "text", true
		}
		return fmt.Sprintf("char(%d)", t.Precision), true
	case lake.VarChar:
		if t.Precision <= 0 || t.Precision > maxVarcharLength {
			return "text", true
		}
		return fmt.Sprintf("varchar(%d)", t.Precision), true
	case lake.Binary, lake.VarBinary:
		if !o.varbinary {
			return "text", true
		}
		if t.Precision <= 0 || t.Precision >= stringLength {
			return "varbinary", true
		}
		return fmt.Sprintf("varbinary(%d)", t.Precision), true
	case lake.Date:
		return "date", true
	case lake.Timestamp:
		return fmt.Sprintf("datetime(%d)", min(t.Precision, 6)), true
	case lake.TimestampLTZ:
		if o.timestampTZ {
			return fmt.Sprintf("timestamptz(%d)", min(t.Precision, 6)), true
		}
		return fmt.Sprintf("datetime(%d)", min(t.Precision, 6)), true
	case lake.Array:
		e, ok := descName(*t.Element, o)
		return "array<" + e + ">", ok
	case lake.Multiset:
		e, ok := descName(*t.Element, o)
		return "map<" + e + ",int>", ok
	case lake.Map:
		k, ok1 := descName(*t.Key, o)
		v, ok2 := descName(*t.Value, o)
		return "map<" + k + "," + v + ">", ok1 && ok2
	case lake.Row:
		parts := make([]string, len(t.Fields))
		ok := true
		for i, f := range t.Fields {
			n, fok := descName(f.Type, o)
			parts[i] = f.Name + ":" + n
			ok = ok && fok
		}
		return "struct<" + strings.Join(parts, ",") + ">", ok
	}
	return unsupported, false
}

// arrowType is the Arrow type scans of a supported column are cast to.
func arrowType(t lake.DataType, o typeOptions) arrow.DataType {
	switch t.Root {
	case lake.Boolean:
		return arrow.FixedWidthTypes.Boolean
	case lake.TinyInt:
		return arrow.PrimitiveTypes.Int8
	case lake.SmallInt:
		return arrow.PrimitiveTypes.Int16
	case lake.Int:
		return arrow.PrimitiveTypes.Int32
	case lake.BigInt:
		return arrow.PrimitiveTypes.Int64
	case lake.Float:
		return arrow.PrimitiveTypes.Float32
	case lake.Double:
		return arrow.PrimitiveTypes.Float64
	case lake.Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case lake.Char, lake.VarChar:
		return arrow.BinaryTypes.String
	case lake.Binary, lake.VarBinary:
		if o.varbinary {
			return arrow.BinaryTypes.Binary
		}
		return arrow.BinaryTypes.String
	case lake.Date:
		return arrow.FixedWidthTypes.Date32
	case lake.Timestamp:
		return &arrow.TimestampType{Unit: typemap.TimeUnitForPrecision(int32(min(t.Precision, typemap.MaxEngineDatetimePrecision)))}
	case lake.TimestampLTZ:
		return &arrow.TimestampType{Unit: typemap.TimeUnitForPrecision(int32(min(t.Precision, typemap.MaxEngineDatetimePrecision))), TimeZone: "UTC"}
	case lake.Array:
		return arrow.ListOfField(arrow.Field{Name: "element", Type: arrowType(*t.Element, o), Nullable: true})
	case lake.Multiset:
		m := arrow.MapOf(arrowType(*t.Element, o), arrow.PrimitiveTypes.Int32)
		m.SetItemNullable(true)
		return m
	case lake.Map:
		m := arrow.MapOf(arrowType(*t.Key, o), arrowType(*t.Value, o))
		m.SetItemNullable(true)
		return m
	case lake.Row:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = arrow.Field{Name: f.Name, Type: arrowType(f.Type, o), Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
	return arrow.Null
}

// EngineColumn maps a lake field to the engine column with this catalog's
// default switches. The Iceberg catalog describes its columns (converted
// to lake/paimon's field model by lake/iceberg) through it, so a column
// reads and describes the same through either catalog.
func EngineColumn(f lake.DataField) catalog.Column { return engineColumn(f, typeOptions{}) }
