package iceberg

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/apache/iceberg-go"
)

// IdentityValue is the value an identity partition field gives its source
// column in one data file. The Iceberg spec reads a column the data file
// lacks from it (migrated Hive tables keep partition columns only in
// directory names); Kind says how the value is held: bool, int, float32,
// float64, decimal (Str unscaled, Scale), date (Int days), time (Int µs),
// ts (Int µs), ts_ns (Int ns), string (Str), binary (Bytes).
type IdentityValue struct {
	ID    int     `json:"id"`
	Kind  string  `json:"kind,omitempty"` // "" is NULL
	Int   int64   `json:"i,omitempty"`
	Float float64 `json:"f,omitempty"`
	Str   string  `json:"s,omitempty"`
	Bytes []byte  `json:"b,omitempty"`
	Scale int     `json:"scale,omitempty"`
}

// identityValues lists the identity partition values of df by source
// field id; a value of a type it cannot carry is left out (the column then
// reads from the file, or fails if the file lacks it: see constScalar).
func (t *Table) identityValues(df iceberg.DataFile) []IdentityValue {
	spec := t.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	if spec == nil {
		return nil
	}
	vals := df.Partition()
	var out []IdentityValue
	for _, f := range spec.Fields() {
		if _, ok := f.Transform.(iceberg.IdentityTransform); !ok {
			continue
		}
		v := IdentityValue{ID: f.SourceID()}
		switch x := vals[f.FieldID].(type) {
		case nil:
		case bool:
			v.Kind, v.Int = "bool", 0
			if x {
				v.Int = 1
			}
		case int32:
			v.Kind, v.Int = "int", int64(x)
		case int64:
			v.Kind, v.Int = "int", x
		case float32:
			v.Kind, v.Float = "float32", float64(x)
		case float64:
			v.Kind, v.Float = "float64", x
		case string:
			v.Kind, v.Str = "string", x
		case []byte:
			v.Kind, v.Bytes = "binary", x
		case iceberg.Date:
			v.Kind, v.Int = "date", int64(x)
		case iceberg.Time:
			v.Kind, v.Int = "time", int64(x)
		case iceberg.Timestamp:
			v.Kind, v.Int = "ts", int64(x)
		case iceberg.TimestampNano:
			v.Kind, v.Int = "ts_ns", int64(x)
		case iceberg.DecimalLiteral:
			v.Kind, v.Str, v.Scale = "decimal", x.Val.BigInt().String(), x.Scale
		case interface{ MarshalBinary() ([]byte, error) }: // uuid.UUID
			b, err := x.MarshalBinary()
			if err != nil {
				continue
			}
			v.Kind, v.Bytes = "binary", b
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// constScalar converts v to a scalar of the column's type dst; an error
// when it does not convert exactly (a wrong constant would be a wrong
// answer, so the read fails instead).
func constScalar(v IdentityValue, dst arrow.DataType) (scalar.Scalar, error) {
	if v.Kind == "" {
		return scalar.MakeNullScalar(dst), nil
	}
	bad := fmt.Errorf("%w: identity partition value of kind %s does not read as %s", ErrUnsupported, v.Kind, dst)
	isInt := v.Kind == "int"
	switch t := dst.(type) {
	case *arrow.BooleanType:
		if v.Kind == "bool" {
			return scalar.NewBooleanScalar(v.Int != 0), nil
		}
	case *arrow.Int8Type:
		if isInt && v.Int >= math.MinInt8 && v.Int <= math.MaxInt8 {
			return scalar.NewInt8Scalar(int8(v.Int)), nil
		}
	case *arrow.Int16Type:
		if isInt && v.Int >= math.MinInt16 && v.Int <= math.MaxInt16 {
			return scalar.NewInt16Scalar(int16(v.Int)), nil
		}
	case *arrow.Int32Type:
		if isInt && v.Int >= math.MinInt32 && v.Int <= math.MaxInt32 {
			return scalar.NewInt32Scalar(int32(v.Int)), nil
		}
	case *arrow.Int64Type:
		if isInt {
			return scalar.NewInt64Scalar(v.Int), nil
		}
	case *arrow.Float32Type:
		if v.Kind == "float32" {
			return scalar.NewFloat32Scalar(float32(v.Float)), nil
		}
	case *arrow.Float64Type:
		if v.Kind == "float32" || v.Kind == "float64" {
			// A float partition promoted to double keeps the float's value
			// (1.1f reads as 1.100000023841858, as Java widens it).
			return scalar.NewFloat64Scalar(v.Float), nil
		}
	case *arrow.Decimal128Type:
		if v.Kind != "decimal" || int(t.Scale) < v.Scale {
			break
		}
		n, ok := new(big.Int).SetString(v.Str, 10)
		if !ok {
			break
		}
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(int(t.Scale)-v.Scale)), nil))
		d := decimal128.FromBigInt(n)
		if !d.FitsInPrecision(t.Precision) {
			break
		}
		return scalar.NewDecimal128Scalar(d, t), nil
	case *arrow.Date32Type:
		if v.Kind == "date" && v.Int >= math.MinInt32 && v.Int <= math.MaxInt32 {
			return scalar.NewDate32Scalar(arrow.Date32(v.Int)), nil
		}
	case *arrow.Time32Type:
		if v.Kind == "time" && t.Unit == arrow.Millisecond && v.Int%1000 == 0 {
			return scalar.NewTime32Scalar(arrow.Time32(v.Int/1000), t), nil
		}
	case *arrow.TimestampType:
		var ns bool
		switch v.Kind {
		case "ts":
		case "ts_ns":
			ns = true
		default:
			return nil, bad
		}
		x := v.Int
		switch {
		case t.Unit == arrow.Microsecond && !ns, t.Unit == arrow.Nanosecond && ns:
		case t.Unit == arrow.Nanosecond && !ns && x > math.MinInt64/1000 && x < math.MaxInt64/1000:
			x *= 1000
		case t.Unit == arrow.Microsecond && ns && x%1000 == 0:
			x /= 1000
		default:
			return nil, bad
		}
		return scalar.NewTimestampScalar(arrow.Timestamp(x), t), nil
	case *arrow.StringType:
		if v.Kind == "string" {
			return scalar.NewStringScalar(v.Str), nil
		}
	case *arrow.BinaryType:
		switch v.Kind {
		case "binary":
			return scalar.NewBinaryScalar(memory.NewBufferBytes(v.Bytes), t), nil
		case "string":
			return scalar.NewBinaryScalar(memory.NewBufferBytes([]byte(v.Str)), t), nil
		}
	}
	return nil, bad
}

// constColumn is n rows of s.
func constColumn(s scalar.Scalar, n int64, mem memory.Allocator) (arrow.Array, error) {
	return scalar.MakeArrayFromScalar(s, int(n), mem)
}
