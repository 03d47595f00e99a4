package typemap

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// LTZTimeZone is the Arrow time zone given to TIMESTAMP_LTZ columns.
const LTZTimeZone = "UTC"

// TimeUnitForPrecision is the Arrow unit Fluss uses for TIME(p) and
// TIMESTAMP(p): 0 → s, 1–3 → ms, 4–6 → µs, 7–9 → ns.
func TimeUnitForPrecision(p int32) arrow.TimeUnit {
	switch {
	case p <= 0:
		return arrow.Second
	case p <= 3:
		return arrow.Millisecond
	case p <= 6:
		return arrow.Microsecond
	default:
		return arrow.Nanosecond
	}
}

// ArrowType maps a Fluss type to the Arrow type of Fluss's Arrow log format.
func ArrowType(t DataType) (arrow.DataType, error) {
	switch t.Root {
	case RootBoolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case RootTinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case RootSmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case RootInt:
		return arrow.PrimitiveTypes.Int32, nil
	case RootBigInt:
		return arrow.PrimitiveTypes.Int64, nil
	case RootFloat:
		return arrow.PrimitiveTypes.Float32, nil
	case RootDouble:
		return arrow.PrimitiveTypes.Float64, nil
	case RootChar, RootString:
		return arrow.BinaryTypes.String, nil
	case RootBinary:
		if t.Length < 1 {
			return nil, fmt.Errorf("%w: BINARY length %d", ErrInvalidType, t.Length)
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: int(t.Length)}, nil
	case RootBytes:
		return arrow.BinaryTypes.Binary, nil
	case RootDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision {
			return nil, fmt.Errorf("%w: DECIMAL precision %d", ErrInvalidType, t.Precision)
		}
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}, nil
	case RootDate:
		return arrow.FixedWidthTypes.Date32, nil
	case RootTime:
		switch u := TimeUnitForPrecision(t.Precision); u {
		case arrow.Second, arrow.Millisecond:
			return &arrow.Time32Type{Unit: u}, nil
		default:
			return &arrow.Time64Type{Unit: u}, nil
		}
	case RootTimestamp:
		return &arrow.TimestampType{Unit: TimeUnitForPrecision(t.Precision)}, nil
	case RootTimestampLTZ:
		return &arrow.TimestampType{Unit: TimeUnitForPrecision(t.Precision), TimeZone: LTZTimeZone}, nil
	case RootArray:
		if t.Elem == nil {
			return nil, fmt.Errorf("%w: ARRAY without element type", ErrInvalidType)
		}
		ef, err := ArrowField("element", *t.Elem)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(ef), nil
	case RootMap:
		if t.Key == nil || t.Value == nil {
			return nil, fmt.Errorf("%w: MAP without key or value type", ErrInvalidType)
		}
		kf, err := ArrowField("key", t.Key.NotNull())
		if err != nil {
			return nil, err
		}
		vf, err := ArrowField("value", *t.Value)
		if err != nil {
			return nil, err
		}
		return arrow.MapOfFields(kf, vf), nil
	case RootRow:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			af, err := ArrowField(f.Name, f.Type)
			if err != nil {
				return nil, fmt.Errorf("ROW field %q: %w", f.Name, err)
			}
			fs[i] = af
		}
		return arrow.StructOf(fs...), nil
	}
	return nil, fmt.Errorf("%w: unknown root %d", ErrInvalidType, uint8(t.Root))
}

// ArrowField is the Arrow field of a named Fluss column; nullability is the
// Fluss type's.
func ArrowField(name string, t DataType) (arrow.Field, error) {
	at, err := ArrowType(t)
	if err != nil {
		return arrow.Field{}, err
	}
	return arrow.Field{Name: name, Type: at, Nullable: t.Nullable}, nil
}

// Column is a named Fluss column type, the unit ArrowSchema works on.
type Column struct {
	Name string
	Type DataType
}

// ArrowSchema builds the Arrow schema of a row of Fluss columns.
func ArrowSchema(cols []Column) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		f, err := ArrowField(c.Name, c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		fs[i] = f
	}
	return arrow.NewSchema(fs, nil), nil
}

// RowColumns returns the fields of a ROW type as columns.
func RowColumns(row DataType) []Column {
	cols := make([]Column, len(row.Fields))
	for i, f := range row.Fields {
		cols[i] = Column{Name: f.Name, Type: f.Type}
	}
	return cols
}
