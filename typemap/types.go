package typemap

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidType marks a type that breaks Fluss's rules (bad precision,
// unknown root, malformed JSON).
var ErrInvalidType = errors.New("invalid fluss type")

// ErrUnsupported marks a type that is valid in Fluss but has no mapping in the
// requested direction.
var ErrUnsupported = errors.New("unsupported type")

// Root is a Fluss DataTypeRoot.
type Root uint8

// The 19 Fluss 1.0 type roots.
const (
	RootBoolean Root = iota + 1
	RootTinyInt
	RootSmallInt
	RootInt
	RootBigInt
	RootFloat
	RootDouble
	RootChar
	RootString
	RootDecimal
	RootDate
	RootTime
	RootTimestamp
	RootTimestampLTZ
	RootBinary
	RootBytes
	RootArray
	RootMap
	RootRow
)

// jsonNames are the JSON "type" strings of DataTypeJsonSerde (DataTypeRoot names).
var jsonNames = [...]string{
	RootBoolean:      "BOOLEAN",
	RootTinyInt:      "TINYINT",
	RootSmallInt:     "SMALLINT",
	RootInt:          "INTEGER",
	RootBigInt:       "BIGINT",
	RootFloat:        "FLOAT",
	RootDouble:       "DOUBLE",
	RootChar:         "CHAR",
	RootString:       "STRING",
	RootDecimal:      "DECIMAL",
	RootDate:         "DATE",
	RootTime:         "TIME_WITHOUT_TIME_ZONE",
	RootTimestamp:    "TIMESTAMP_WITHOUT_TIME_ZONE",
	RootTimestampLTZ: "TIMESTAMP_WITH_LOCAL_TIME_ZONE",
	RootBinary:       "BINARY",
	RootBytes:        "BYTES",
	RootArray:        "ARRAY",
	RootMap:          "MAP",
	RootRow:          "ROW",
}

// JSONName is the root's name in Fluss JSON ("INTEGER", "TIME_WITHOUT_TIME_ZONE", ...).
func (r Root) JSONName() string {
	if int(r) < len(jsonNames) && jsonNames[r] != "" {
		return jsonNames[r]
	}
	return fmt.Sprintf("Root(%d)", uint8(r))
}

func (r Root) String() string { return r.JSONName() }

// Precision limits and defaults from Fluss's type classes.
const (
	MaxDecimalPrecision     = 38
	MaxCompactPrecision     = 18 // DECIMAL(p ≤ 18) is stored as an unscaled long
	MaxTimePrecision        = 9
	MaxCompactTimestampPrec = 3 // TIMESTAMP(p ≤ 3) is stored as millis only
	DefaultTimestampPrec    = 6
)

// Field is one field of a ROW type. ID is the Fluss field id, -1 when unknown.
type Field struct {
	Name        string
	Type        DataType
	Description string
	ID          int32
}

// DataType is a Fluss data type with its nullability. Only the members that
// belong to Root are meaningful; build values with the constructors below.
type DataType struct {
	Root      Root
	Nullable  bool
	Length    int32 // CHAR(n), BINARY(n)
	Precision int32 // DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ
	Scale     int32 // DECIMAL
	Elem      *DataType
	Key       *DataType // MAP
	Value     *DataType // MAP
	Fields    []Field   // ROW
}

// Boolean and the following constructors return nullable types; chain
// NotNull() for NOT NULL.
func Boolean() DataType  { return DataType{Root: RootBoolean, Nullable: true} }
func TinyInt() DataType  { return DataType{Root: RootTinyInt, Nullable: true} }
func SmallInt() DataType { return DataType{Root: RootSmallInt, Nullable: true} }
func Int() DataType      { return DataType{Root: RootInt, Nullable: true} }
func BigInt() DataType   { return DataType{Root: RootBigInt, Nullable: true} }
func Float() DataType    { return DataType{Root: RootFloat, Nullable: true} }
func Double() DataType   { return DataType{Root: RootDouble, Nullable: true} }
func String() DataType   { return DataType{Root: RootString, Nullable: true} }
func Bytes() DataType    { return DataType{Root: RootBytes, Nullable: true} }
func Date() DataType     { return DataType{Root: RootDate, Nullable: true} }

// Char is CHAR(n).
func Char(n int32) DataType { return DataType{Root: RootChar, Nullable: true, Length: n} }

// Binary is BINARY(n).
func Binary(n int32) DataType { return DataType{Root: RootBinary, Nullable: true, Length: n} }

// Decimal is DECIMAL(p, s).
func Decimal(p, s int32) DataType {
	return DataType{Root: RootDecimal, Nullable: true, Precision: p, Scale: s}
}

// Time is TIME(p).
func Time(p int32) DataType { return DataType{Root: RootTime, Nullable: true, Precision: p} }

// Timestamp is TIMESTAMP(p) (without time zone).
func Timestamp(p int32) DataType {
	return DataType{Root: RootTimestamp, Nullable: true, Precision: p}
}

// TimestampLTZ is TIMESTAMP_LTZ(p) (with local time zone: an instant).
func TimestampLTZ(p int32) DataType {
	return DataType{Root: RootTimestampLTZ, Nullable: true, Precision: p}
}

// Array is ARRAY<elem>.
func Array(elem DataType) DataType {
	return DataType{Root: RootArray, Nullable: true, Elem: &elem}
}

// Map is MAP<key, value>; the key is forced NOT NULL as Fluss does.
func Map(key, value DataType) DataType {
	key.Nullable = false
	return DataType{Root: RootMap, Nullable: true, Key: &key, Value: &value}
}

// Row is ROW<fields...>.
func Row(fields ...Field) DataType {
	return DataType{Root: RootRow, Nullable: true, Fields: append([]Field(nil), fields...)}
}

// NewField is a ROW field without description and with unknown id (-1).
func NewField(name string, t DataType) Field { return Field{Name: name, Type: t, ID: -1} }

// NotNull returns a NOT NULL copy of t.
func (t DataType) NotNull() DataType { t.Nullable = false; return t }

// WithNullable returns a copy of t with the given nullability.
func (t DataType) WithNullable(n bool) DataType { t.Nullable = n; return t }

// IsCompactDecimal reports a DECIMAL stored as an unscaled long (p ≤ 18).
func (t DataType) IsCompactDecimal() bool {
	return t.Root == RootDecimal && t.Precision <= MaxCompactPrecision
}

// IsCompactTimestamp reports a TIMESTAMP/TIMESTAMP_LTZ stored as millis only (p ≤ 3).
func (t DataType) IsCompactTimestamp() bool {
	return (t.Root == RootTimestamp || t.Root == RootTimestampLTZ) && t.Precision <= MaxCompactTimestampPrec
}

// Equal compares two types including nullability, nested types, field
// names, descriptions and ids.
func (t DataType) Equal(o DataType) bool {
	if t.Root != o.Root || t.Nullable != o.Nullable || t.Length != o.Length ||
		t.Precision != o.Precision || t.Scale != o.Scale || len(t.Fields) != len(o.Fields) {
		return false
	}
	if !eqPtr(t.Elem, o.Elem) || !eqPtr(t.Key, o.Key) || !eqPtr(t.Value, o.Value) {
		return false
	}
	for i := range t.Fields {
		a, b := t.Fields[i], o.Fields[i]
		if a.Name != b.Name || a.Description != b.Description || a.ID != b.ID || !a.Type.Equal(b.Type) {
			return false
		}
	}
	return true
}

func eqPtr(a, b *DataType) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Validate checks the limits Fluss enforces on each root.
func (t DataType) Validate() error {
	switch t.Root {
	case RootBoolean, RootTinyInt, RootSmallInt, RootInt, RootBigInt, RootFloat, RootDouble,
		RootString, RootBytes, RootDate:
	case RootChar, RootBinary:
		if t.Length < 1 {
			return fmt.Errorf("%w: %s length %d must be at least 1", ErrInvalidType, t.Root, t.Length)
		}
	case RootDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision {
			return fmt.Errorf("%w: DECIMAL precision %d must be between 1 and %d", ErrInvalidType, t.Precision, MaxDecimalPrecision)
		}
		if t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("%w: DECIMAL scale %d must be between 0 and the precision %d", ErrInvalidType, t.Scale, t.Precision)
		}
	case RootTime, RootTimestamp, RootTimestampLTZ:
		if t.Precision < 0 || t.Precision > MaxTimePrecision {
			return fmt.Errorf("%w: %s precision %d must be between 0 and %d", ErrInvalidType, t.Root, t.Precision, MaxTimePrecision)
		}
	case RootArray:
		if t.Elem == nil {
			return fmt.Errorf("%w: ARRAY without element type", ErrInvalidType)
		}
		return t.Elem.Validate()
	case RootMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", ErrInvalidType)
		}
		if err := t.Key.Validate(); err != nil {
			return err
		}
		return t.Value.Validate()
	case RootRow:
		seen := make(map[string]bool, len(t.Fields))
		for _, f := range t.Fields {
			if seen[f.Name] {
				return fmt.Errorf("%w: ROW field name %q repeated", ErrInvalidType, f.Name)
			}
			seen[f.Name] = true
			if err := f.Type.Validate(); err != nil {
				return fmt.Errorf("ROW field %q: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("%w: unknown root %d", ErrInvalidType, uint8(t.Root))
	}
	return nil
}

// String renders the type in Fluss SQL form, e.g. "DECIMAL(10, 2) NOT NULL",
// "ARRAY<INT>", "ROW<`a` INT, `b` STRING>".
func (t DataType) String() string {
	var b strings.Builder
	t.writeSQL(&b)
	return b.String()
}

func (t DataType) writeSQL(b *strings.Builder) {
	switch t.Root {
	case RootInt:
		b.WriteString("INT")
	case RootChar, RootBinary:
		fmt.Fprintf(b, "%s(%d)", t.Root.JSONName(), t.Length)
	case RootDecimal:
		fmt.Fprintf(b, "DECIMAL(%d, %d)", t.Precision, t.Scale)
	case RootTime:
		fmt.Fprintf(b, "TIME(%d)", t.Precision)
	case RootTimestamp:
		fmt.Fprintf(b, "TIMESTAMP(%d)", t.Precision)
	case RootTimestampLTZ:
		fmt.Fprintf(b, "TIMESTAMP_LTZ(%d)", t.Precision)
	case RootArray:
		b.WriteString("ARRAY<")
		t.Elem.writeSQL(b)
		b.WriteString(">")
	case RootMap:
		b.WriteString("MAP<")
		t.Key.writeSQL(b)
		b.WriteString(", ")
		t.Value.writeSQL(b)
		b.WriteString(">")
	case RootRow:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + strings.ReplaceAll(f.Name, "`", "``") + "` ")
			f.Type.writeSQL(b)
			if f.Description != "" {
				fmt.Fprintf(b, " '%s'", strings.ReplaceAll(f.Description, "'", "''"))
			}
		}
		b.WriteString(">")
	default:
		b.WriteString(t.Root.JSONName())
	}
	if !t.Nullable {
		b.WriteString(" NOT NULL")
	}
}
