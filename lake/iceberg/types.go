package iceberg

import (
	"fmt"

	"github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/lake/paimon"
)

// lakeFields maps an Iceberg schema to the field model of lake/paimon,
// whose Parquet path reads the data files: same ids, same names, types by
// Iceberg's own mapping to Parquet (timestamptz is TIMESTAMP_LTZ, uuid is
// a 16-byte binary). Types with no counterpart are refused naming the
// column.
func lakeFields(sc *iceberg.Schema) ([]paimon.DataField, error) {
	out := make([]paimon.DataField, 0, len(sc.Fields()))
	for _, f := range sc.Fields() {
		lf, err := lakeField(f)
		if err != nil {
			return nil, err
		}
		out = append(out, lf)
	}
	return out, nil
}

func lakeField(f iceberg.NestedField) (paimon.DataField, error) {
	if f.InitialDefault != nil {
		return paimon.DataField{}, fmt.Errorf("%w: column %s has an initial default (format v3 default values are not read)", ErrUnsupported, f.Name)
	}
	t, err := lakeType(f.Type, !f.Required)
	if err != nil {
		return paimon.DataField{}, fmt.Errorf("column %s: %w", f.Name, err)
	}
	return paimon.DataField{ID: f.ID, Name: f.Name, Type: t, Description: f.Doc}, nil
}

func lakeType(t iceberg.Type, nullable bool) (paimon.DataType, error) {
	d := paimon.DataType{Nullable: nullable}
	switch x := t.(type) {
	case iceberg.BooleanType:
		d.Root = paimon.Boolean
	case iceberg.Int32Type:
		d.Root = paimon.Int
	case iceberg.Int64Type:
		d.Root = paimon.BigInt
	case iceberg.Float32Type:
		d.Root = paimon.Float
	case iceberg.Float64Type:
		d.Root = paimon.Double
	case iceberg.DecimalType:
		d.Root, d.Precision, d.Scale = paimon.Decimal, x.Precision(), x.Scale()
	case iceberg.DateType:
		d.Root = paimon.Date
	case iceberg.TimeType:
		d.Root, d.Precision = paimon.Time, 6
	case iceberg.TimestampType:
		d.Root, d.Precision = paimon.Timestamp, 6
	case iceberg.TimestampTzType:
		d.Root, d.Precision = paimon.TimestampLTZ, 6
	case iceberg.TimestampNsType:
		d.Root, d.Precision = paimon.Timestamp, 9
	case iceberg.TimestampTzNsType:
		d.Root, d.Precision = paimon.TimestampLTZ, 9
	case iceberg.StringType:
		d.Root, d.Precision = paimon.VarChar, 2147483647
	case iceberg.UUIDType:
		d.Root, d.Precision = paimon.Binary, 16
	case iceberg.FixedType:
		d.Root, d.Precision = paimon.Binary, x.Len()
	case iceberg.BinaryType:
		d.Root, d.Precision = paimon.VarBinary, 2147483647
	case *iceberg.StructType:
		d.Root = paimon.Row
		for _, f := range x.FieldList {
			lf, err := lakeField(f)
			if err != nil {
				return d, err
			}
			d.Fields = append(d.Fields, lf)
		}
	case *iceberg.ListType:
		e, err := lakeType(x.Element, !x.ElementRequired)
		if err != nil {
			return d, err
		}
		d.Root, d.Element = paimon.Array, &e
	case *iceberg.MapType:
		k, err := lakeType(x.KeyType, false)
		if err != nil {
			return d, err
		}
		v, err := lakeType(x.ValueType, !x.ValueRequired)
		if err != nil {
			return d, err
		}
		d.Root, d.Key, d.Value = paimon.Map, &k, &v
	default:
		return d, fmt.Errorf("%w: Iceberg type %s is not read", ErrUnsupported, t)
	}
	return d, nil
}
