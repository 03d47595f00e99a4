package paimon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// TypeRoot names a Paimon logical type family.
type TypeRoot string

// Paimon type roots. CHAR/VARCHAR/STRING share VARCHAR-like handling;
// STRING is VARCHAR(2147483647) and BYTES is VARBINARY(2147483647).
const (
	Boolean      TypeRoot = "BOOLEAN"
	TinyInt      TypeRoot = "TINYINT"
	SmallInt     TypeRoot = "SMALLINT"
	Int          TypeRoot = "INT"
	BigInt       TypeRoot = "BIGINT"
	Float        TypeRoot = "FLOAT"
	Double       TypeRoot = "DOUBLE"
	Decimal      TypeRoot = "DECIMAL"
	Char         TypeRoot = "CHAR"
	VarChar      TypeRoot = "VARCHAR"
	Binary       TypeRoot = "BINARY"
	VarBinary    TypeRoot = "VARBINARY"
	Date         TypeRoot = "DATE"
	Time         TypeRoot = "TIME"
	Timestamp    TypeRoot = "TIMESTAMP"
	TimestampLTZ TypeRoot = "TIMESTAMP_LTZ"
	Array        TypeRoot = "ARRAY"
	Multiset     TypeRoot = "MULTISET"
	Map          TypeRoot = "MAP"
	Row          TypeRoot = "ROW"
)

// DataType is a Paimon data type as spelled in the schema JSON.
type DataType struct {
	Root      TypeRoot
	Nullable  bool
	Precision int // DECIMAL precision, TIMESTAMP/TIME precision, CHAR/BINARY length
	Scale     int // DECIMAL scale

	Element *DataType   // ARRAY, MULTISET
	Key     *DataType   // MAP
	Value   *DataType   // MAP
	Fields  []DataField // ROW
}

// DataField is one named, id-carrying field of a table or ROW.
type DataField struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Type        DataType `json:"type"`
	Description string   `json:"description,omitempty"`
}

// String renders the type the way Paimon's schema JSON spells atomic types.
func (t DataType) String() string {
	var s string
	switch t.Root {
	case Decimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case VarChar:
		if t.Precision == maxLen {
			s = "STRING"
		} else {
			s = fmt.Sprintf("VARCHAR(%d)", t.Precision)
		}
	case VarBinary:
		if t.Precision == maxLen {
			s = "BYTES"
		} else {
			s = fmt.Sprintf("VARBINARY(%d)", t.Precision)
		}
	case Char, Binary, Time, Timestamp:
		s = fmt.Sprintf("%s(%d)", t.Root, t.Precision)
	case TimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case Array, Multiset:
		s = fmt.Sprintf("%s<%s>", t.Root, t.Element)
	case Map:
		s = fmt.Sprintf("MAP<%s, %s>", t.Key, t.Value)
	case Row:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + " " + f.Type.String()
		}
		s = "ROW<" + strings.Join(parts, ", ") + ">"
	default:
		s = string(t.Root)
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}

const maxLen = 2147483647

// ParseType parses an atomic type string such as "DECIMAL(23, 5) NOT NULL".
func ParseType(s string) (DataType, error) {
	t := DataType{Nullable: true}
	s = strings.TrimSpace(s)
	if up := strings.ToUpper(s); strings.HasSuffix(up, " NOT NULL") {
		t.Nullable = false
		s = strings.TrimSpace(s[:len(s)-len(" NOT NULL")])
	} else if strings.HasSuffix(up, " NULL") {
		s = strings.TrimSpace(s[:len(s)-len(" NULL")])
	}
	up := strings.ToUpper(s)
	ltz := false
	if strings.HasSuffix(up, " WITH LOCAL TIME ZONE") {
		ltz = true
		up = strings.TrimSpace(up[:len(up)-len(" WITH LOCAL TIME ZONE")])
	}
	name, args := up, ""
	if i := strings.IndexByte(up, '('); i >= 0 {
		if !strings.HasSuffix(up, ")") {
			return t, fmt.Errorf("%w: type %q: unbalanced parenthesis", ErrCorrupt, s)
		}
		name, args = strings.TrimSpace(up[:i]), up[i+1:len(up)-1]
	}
	var nums []int
	if args != "" {
		for _, a := range strings.Split(args, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(a))
			if err != nil {
				return t, fmt.Errorf("%w: type %q: bad parameter %q", ErrCorrupt, s, a)
			}
			nums = append(nums, n)
		}
	}
	arg := func(i, def int) int {
		if i < len(nums) {
			return nums[i]
		}
		return def
	}
	switch name {
	case "BOOLEAN":
		t.Root = Boolean
	case "TINYINT":
		t.Root = TinyInt
	case "SMALLINT":
		t.Root = SmallInt
	case "INT", "INTEGER":
		t.Root = Int
	case "BIGINT":
		t.Root = BigInt
	case "FLOAT":
		t.Root = Float
	case "DOUBLE":
		t.Root = Double
	case "DECIMAL", "NUMERIC", "DEC":
		t.Root, t.Precision, t.Scale = Decimal, arg(0, 10), arg(1, 0)
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return t, fmt.Errorf("%w: type %q: precision/scale out of range", ErrUnsupported, s)
		}
	case "CHAR":
		t.Root, t.Precision = Char, arg(0, 1)
	case "VARCHAR":
		t.Root, t.Precision = VarChar, arg(0, 1)
	case "STRING":
		t.Root, t.Precision = VarChar, maxLen
	case "BINARY":
		t.Root, t.Precision = Binary, arg(0, 1)
	case "VARBINARY":
		t.Root, t.Precision = VarBinary, arg(0, 1)
	case "BYTES":
		t.Root, t.Precision = VarBinary, maxLen
	case "DATE":
		t.Root = Date
	case "TIME":
		t.Root, t.Precision = Time, arg(0, 0)
	case "TIMESTAMP":
		t.Root, t.Precision = Timestamp, arg(0, 6)
		if ltz {
			t.Root = TimestampLTZ
		}
	case "TIMESTAMP_LTZ":
		t.Root, t.Precision = TimestampLTZ, arg(0, 6)
	default:
		return t, fmt.Errorf("%w: type %q", ErrUnsupported, s)
	}
	if ltz && t.Root != TimestampLTZ {
		return t, fmt.Errorf("%w: type %q: WITH LOCAL TIME ZONE on a non-timestamp", ErrCorrupt, s)
	}
	if (t.Root == Timestamp || t.Root == TimestampLTZ || t.Root == Time) && (t.Precision < 0 || t.Precision > 9) {
		return t, fmt.Errorf("%w: type %q: precision out of range", ErrCorrupt, s)
	}
	return t, nil
}

// UnmarshalJSON accepts both encodings of the schema JSON: a string for
// atomic types and an object for ARRAY/MULTISET/MAP/ROW.
func (t *DataType) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		pt, err := ParseType(s)
		if err != nil {
			return err
		}
		*t = pt
		return nil
	}
	var o struct {
		Type    string          `json:"type"`
		Element *DataType       `json:"element"`
		Key     *DataType       `json:"key"`
		Value   *DataType       `json:"value"`
		Fields  []DataField     `json:"fields"`
		Length  json.RawMessage `json:"length"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("%w: data type: %v", ErrCorrupt, err)
	}
	nt := DataType{Nullable: true}
	name := strings.ToUpper(strings.TrimSpace(o.Type))
	if strings.HasSuffix(name, " NOT NULL") {
		nt.Nullable = false
		name = strings.TrimSpace(name[:len(name)-len(" NOT NULL")])
	}
	switch name {
	case "ARRAY", "MULTISET":
		if o.Element == nil {
			return fmt.Errorf("%w: %s type without element", ErrCorrupt, name)
		}
		nt.Root, nt.Element = TypeRoot(name), o.Element
	case "MAP":
		if o.Key == nil || o.Value == nil {
			return fmt.Errorf("%w: MAP type without key or value", ErrCorrupt)
		}
		nt.Root, nt.Key, nt.Value = Map, o.Key, o.Value
	case "ROW":
		nt.Root, nt.Fields = Row, o.Fields
	default:
		return fmt.Errorf("%w: complex type %q", ErrUnsupported, o.Type)
	}
	*t = nt
	return nil
}

// MarshalJSON writes the schema-JSON form.
func (t DataType) MarshalJSON() ([]byte, error) {
	nn := ""
	if !t.Nullable {
		nn = " NOT NULL"
	}
	switch t.Root {
	case Array, Multiset:
		return json.Marshal(struct {
			Type    string    `json:"type"`
			Element *DataType `json:"element"`
		}{string(t.Root) + nn, t.Element})
	case Map:
		return json.Marshal(struct {
			Type  string    `json:"type"`
			Key   *DataType `json:"key"`
			Value *DataType `json:"value"`
		}{"MAP" + nn, t.Key, t.Value})
	case Row:
		return json.Marshal(struct {
			Type   string      `json:"type"`
			Fields []DataField `json:"fields"`
		}{"ROW" + nn, t.Fields})
	}
	return json.Marshal(t.String())
}

// ArrowType maps a Paimon type to the Arrow type this package produces.
// TIMESTAMP(p) uses ms/us/ns by precision (0-3, 4-6, 7-9) and no zone;
// TIMESTAMP WITH LOCAL TIME ZONE uses the same unit with zone "UTC".
func ArrowType(t DataType) (arrow.DataType, error) {
	switch t.Root {
	case Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case TinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case SmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case Int:
		return arrow.PrimitiveTypes.Int32, nil
	case BigInt:
		return arrow.PrimitiveTypes.Int64, nil
	case Float:
		return arrow.PrimitiveTypes.Float32, nil
	case Double:
		return arrow.PrimitiveTypes.Float64, nil
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case Char, VarChar:
		return arrow.BinaryTypes.String, nil
	case Binary, VarBinary:
		return arrow.BinaryTypes.Binary, nil
	case Date:
		return arrow.FixedWidthTypes.Date32, nil
	case Time:
		return arrow.FixedWidthTypes.Time32ms, nil
	case Timestamp, TimestampLTZ:
		tz := ""
		if t.Root == TimestampLTZ {
			tz = "UTC"
		}
		return &arrow.TimestampType{Unit: timeUnit(t.Precision), TimeZone: tz}, nil
	case Array:
		et, err := ArrowType(*t.Element)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "element", Type: et, Nullable: t.Element.Nullable}), nil
	case Multiset:
		et, err := ArrowType(*t.Element)
		if err != nil {
			return nil, err
		}
		return arrow.MapOf(et, arrow.PrimitiveTypes.Int32), nil
	case Map:
		kt, err := ArrowType(*t.Key)
		if err != nil {
			return nil, err
		}
		vt, err := ArrowType(*t.Value)
		if err != nil {
			return nil, err
		}
		m := arrow.MapOf(kt, vt)
		m.SetItemNullable(t.Value.Nullable)
		return m, nil
	case Row:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := ArrowType(f.Type)
			if err != nil {
				return nil, err
			}
			fs[i] = arrow.Field{Name: f.Name, Type: ft, Nullable: f.Type.Nullable, Metadata: fieldIDMeta(f.ID)}
		}
		return arrow.StructOf(fs...), nil
	}
	return nil, fmt.Errorf("%w: no Arrow mapping for %s", ErrUnsupported, t)
}

func timeUnit(p int) arrow.TimeUnit {
	switch {
	case p <= 3:
		return arrow.Millisecond
	case p <= 6:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// FieldIDKey is the Arrow field metadata key carrying the Paimon field id,
// the same key Parquet files use.
const FieldIDKey = "PARQUET:field_id"

func fieldIDMeta(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{FieldIDKey}, []string{strconv.Itoa(id)})
}

// ArrowSchema maps fields to an Arrow schema; each field carries its Paimon
// id in metadata under FieldIDKey.
func ArrowSchema(fields []DataField) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		at, err := ArrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		fs[i] = arrow.Field{Name: f.Name, Type: at, Nullable: f.Type.Nullable, Metadata: fieldIDMeta(f.ID)}
	}
	return arrow.NewSchema(fs, nil), nil
}
