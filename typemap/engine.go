package typemap

import (
	"fmt"
	"strings"
)

// EngineOptions are the catalog properties that change the engine mapping
// (enable.mapping.varbinary, enable.mapping.timestamp_tz).
type EngineOptions struct {
	MapVarbinary   bool
	MapTimestampTZ bool
}

// Unsupported is the engine type name of a Fluss type the engine cannot read.
const Unsupported = "UNSUPPORTED"

// MaxEngineCharLength is the longest CHAR(n) kept as char; longer ones are string.
const MaxEngineCharLength = 255

// MaxEngineDatetimePrecision caps datetime/timestamptz precision.
const MaxEngineDatetimePrecision = 6

// EngineType is the engine (Doris-style) column type of a Fluss type as
// DESCRIBE shows it.
type EngineType struct {
	// Name as DESCRIBE prints it: "int", "decimal(10,2)", "datetime(6)",
	// "array<int>", "map<int,string>", "struct<a:int,b:string>", or
	// "UNSUPPORTED".
	Name string
	// Supported is false when the type, or a type nested in it, has no engine
	// counterpart (TIME); DESCRIBE still lists the column, queries touching
	// it fail.
	Supported bool
	// Extra is DESCRIBE's Extra text: "WITH_TIMEZONE" for TIMESTAMP_LTZ.
	Extra string
	// Precision after capping, for datetime/timestamptz (otherwise 0).
	Precision int32
}

// EngineTypeOf maps a Fluss type to the engine type per the product spec's
// column type mapping table.
func EngineTypeOf(t DataType, o EngineOptions) EngineType {
	var b strings.Builder
	ok := engineName(&b, t, o)
	et := EngineType{Name: b.String(), Supported: ok}
	if !ok && t.Root != RootArray && t.Root != RootMap && t.Root != RootRow {
		et.Name = Unsupported
	}
	if t.Root == RootTimestampLTZ {
		et.Extra = "WITH_TIMEZONE"
	}
	if t.Root == RootTimestamp || t.Root == RootTimestampLTZ {
		et.Precision = min(t.Precision, MaxEngineDatetimePrecision)
	}
	return et
}

func engineName(b *strings.Builder, t DataType, o EngineOptions) bool {
	switch t.Root {
	case RootBoolean:
		b.WriteString("boolean")
	case RootTinyInt:
		b.WriteString("tinyint")
	case RootSmallInt:
		b.WriteString("smallint")
	case RootInt:
		b.WriteString("int")
	case RootBigInt:
		b.WriteString("bigint")
	case RootFloat:
		b.WriteString("float")
	case RootDouble:
		b.WriteString("double")
	case RootDecimal:
		fmt.Fprintf(b, "decimal(%d,%d)", t.Precision, t.Scale)
	case RootChar:
		if t.Length > MaxEngineCharLength {
			b.WriteString("string")
		} else {
			fmt.Fprintf(b, "char(%d)", t.Length)
		}
	case RootString:
		b.WriteString("string")
	case RootBinary:
		if o.MapVarbinary {
			fmt.Fprintf(b, "varbinary(%d)", t.Length)
		} else {
			b.WriteString("string")
		}
	case RootBytes:
		if o.MapVarbinary {
			b.WriteString("varbinary")
		} else {
			b.WriteString("string")
		}
	case RootDate:
		b.WriteString("date")
	case RootTime:
		b.WriteString(Unsupported)
		return false
	case RootTimestamp:
		fmt.Fprintf(b, "datetime(%d)", min(t.Precision, MaxEngineDatetimePrecision))
	case RootTimestampLTZ:
		if o.MapTimestampTZ {
			fmt.Fprintf(b, "timestamptz(%d)", min(t.Precision, MaxEngineDatetimePrecision))
		} else {
			fmt.Fprintf(b, "datetime(%d)", min(t.Precision, MaxEngineDatetimePrecision))
		}
	case RootArray:
		b.WriteString("array<")
		ok := t.Elem != nil && engineName(b, *t.Elem, o)
		b.WriteString(">")
		return ok
	case RootMap:
		b.WriteString("map<")
		ok := t.Key != nil && engineName(b, *t.Key, o)
		b.WriteString(",")
		ok = t.Value != nil && engineName(b, *t.Value, o) && ok
		b.WriteString(">")
		return ok
	case RootRow:
		b.WriteString("struct<")
		ok := true
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(f.Name + ":")
			ok = engineName(b, f.Type, o) && ok
		}
		b.WriteString(">")
		return ok
	default:
		b.WriteString(Unsupported)
		return false
	}
	return true
}
