package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Engine types as Arrow types, as functions so that no package state exists.
// The binder may use any Arrow type of the same kind.

// Int64T is BIGINT.
func Int64T() arrow.DataType { return arrow.PrimitiveTypes.Int64 }

// Int32T is INT.
func Int32T() arrow.DataType { return arrow.PrimitiveTypes.Int32 }

// Float64T is DOUBLE.
func Float64T() arrow.DataType { return arrow.PrimitiveTypes.Float64 }

// BoolT is BOOLEAN.
func BoolT() arrow.DataType { return arrow.FixedWidthTypes.Boolean }

// StringT is STRING/VARCHAR.
func StringT() arrow.DataType { return arrow.BinaryTypes.String }

// Date32T is DATE.
func Date32T() arrow.DataType { return arrow.FixedWidthTypes.Date32 }

// DatetimeT is DATETIME(6): microseconds, no time zone.
func DatetimeT() arrow.DataType { return &arrow.TimestampType{Unit: arrow.Microsecond} }

// NullT is the type of an untyped NULL literal.
func NullT() arrow.DataType { return arrow.Null }

// DecimalT returns DECIMAL(p, s).
func DecimalT(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }

func isInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

func isFloat(t arrow.DataType) bool {
	return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64
}

func isDecimal(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

func isNumeric(t arrow.DataType) bool { return isInt(t) || isFloat(t) || isDecimal(t) }

func isString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW,
		arrow.FIXED_SIZE_BINARY:
		return true
	}
	return false
}

func isTime(t arrow.DataType) bool { return t.ID() == arrow.TIME32 || t.ID() == arrow.TIME64 }

func isTemporal(t arrow.DataType) bool {
	return t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP || t.ID() == arrow.DATE64
}

func isNull(t arrow.DataType) bool { return t.ID() == arrow.NULL }

func decimalPS(t arrow.DataType) (int32, int32) {
	switch d := t.(type) {
	case *arrow.Decimal128Type:
		return d.Precision, d.Scale
	}
	// Integers join decimal arithmetic with the precision of their range.
	switch t.ID() {
	case arrow.INT8, arrow.UINT8:
		return 3, 0
	case arrow.INT16, arrow.UINT16:
		return 5, 0
	case arrow.INT32, arrow.UINT32:
		return 10, 0
	case arrow.BOOL:
		return 1, 0
	}
	return 19, 0
}

func clampPrec(p int32) int32 {
	if p > 38 {
		return 38
	}
	if p < 1 {
		return 1
	}
	return p
}

// CommonType returns the type two values are compared or unified in (for
// comparisons, IN, CASE branches, COALESCE, UNION columns), following
// MySQL/Doris implicit conversion: integers widen to BIGINT, any float makes
// DOUBLE, decimals keep the larger scale, strings compared with numbers go
// through DOUBLE, strings with dates become dates, DATE with DATETIME is
// DATETIME, and an untyped NULL takes the other side's type.
func CommonType(a, b arrow.DataType) (arrow.DataType, error) {
	switch {
	case isNull(a):
		return b, nil
	case isNull(b):
		return a, nil
	case arrow.TypeEqual(a, b):
		if isString(a) {
			return StringT(), nil
		}
		return a, nil
	case isString(a) && isString(b):
		return StringT(), nil
	case a.ID() == arrow.BOOL && b.ID() == arrow.BOOL:
		return BoolT(), nil
	case (isInt(a) || a.ID() == arrow.BOOL) && (isInt(b) || b.ID() == arrow.BOOL):
		return Int64T(), nil
	case isFloat(a) && isNumericOrBool(b), isFloat(b) && isNumericOrBool(a):
		return Float64T(), nil
	case integralArith(a, b):
		return LargeIntT(), nil
	case isDecimal(a) || isDecimal(b):
		if !isNumericOrBool(a) || !isNumericOrBool(b) {
			if isString(a) || isString(b) {
				return Float64T(), nil
			}
			break
		}
		pa, sa := decimalPS(a)
		pb, sb := decimalPS(b)
		s := max(sa, sb)
		p := clampPrec(max(pa-sa, pb-sb) + s)
		return DecimalT(p, s), nil
	case isNumericOrBool(a) && isString(b), isString(a) && isNumericOrBool(b):
		return Float64T(), nil
	case isTime(a) && isTime(b):
		return arrow.FixedWidthTypes.Time64us, nil
	case isTime(a) && isString(b):
		return a, nil
	case isString(a) && isTime(b):
		return b, nil
	case isTemporal(a) && isTemporal(b):
		if a.ID() != arrow.TIMESTAMP && b.ID() != arrow.TIMESTAMP {
			return Date32T(), nil
		}
		return DatetimeT(), nil
	case isTemporal(a) && isString(b):
		return a, nil
	case isString(a) && isTemporal(b):
		return b, nil
	case a.ID() == arrow.LIST && b.ID() == arrow.LIST:
		// Arrays unify element-wise ([] and [NULL] have NULL elements).
		et, err := CommonType(a.(arrow.ListLikeType).Elem(), b.(arrow.ListLikeType).Elem())
		if err != nil {
			return nil, fmt.Errorf("%w: no common type for %s and %s", ErrType, TypeName(a), TypeName(b))
		}
		return arrow.ListOf(et), nil
	}
	return nil, fmt.Errorf("%w: no common type for %s and %s", ErrType, TypeName(a), TypeName(b))
}

// ResultType is the type of a value picked from several (CASE and IF
// branches, COALESCE and IFNULL arguments, UNION columns, array elements).
// It is CommonType except that a string against a number or a date makes a
// string: Doris's common-type rule for branches (and MySQL's), whereas
// CommonType compares such a pair as DOUBLE or as the date. Picking a
// string branch through DOUBLE would turn 'abc' into NULL.
func ResultType(a, b arrow.DataType) (arrow.DataType, error) {
	if (isString(a) && isScalar(b)) || (isString(b) && isScalar(a)) {
		if !isString(a) || !isString(b) {
			return StringT(), nil
		}
	}
	return CommonType(a, b)
}

// isScalar reports a non-NULL type that prints as one value: not a
// container, not an untyped NULL.
func isScalar(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.NULL, arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return false
	}
	return true
}

func isNumericOrBool(t arrow.DataType) bool { return isNumeric(t) || t.ID() == arrow.BOOL }

// TypeName prints an Arrow type the way Doris names the engine type
// (used in EXPLAIN and error messages).
func TypeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.NULL:
		return "null"
	case arrow.BOOL:
		return "boolean"
	case arrow.INT8:
		return "tinyint"
	case arrow.INT16, arrow.UINT8:
		return "smallint"
	case arrow.INT32, arrow.UINT16:
		return "int"
	case arrow.INT64, arrow.UINT32:
		return "bigint"
	case arrow.UINT64:
		return "largeint"
	case arrow.FLOAT32:
		return "float"
	case arrow.FLOAT64:
		return "double"
	case arrow.DECIMAL128:
		if IsLargeInt(t) {
			return "largeint"
		}
		p, s := decimalPS(t)
		return fmt.Sprintf("decimal(%d,%d)", p, s)
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "text"
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return "varbinary"
	case arrow.TIME32, arrow.TIME64:
		return "time"
	case arrow.DATE64:
		return "date"
	case arrow.DATE32:
		return "date"
	case arrow.TIMESTAMP:
		switch t.(*arrow.TimestampType).Unit {
		case arrow.Second:
			return "datetime"
		case arrow.Millisecond:
			return "datetime(3)"
		default:
			return "datetime(6)"
		}
	case arrow.LIST, arrow.LARGE_LIST:
		return "array<" + TypeName(t.(arrow.ListLikeType).Elem()) + ">"
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return "map<" + TypeName(m.KeyType()) + "," + TypeName(m.ItemType()) + ">"
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		s := "struct<"
		for i, f := range st.Fields() {
			if i > 0 {
				s += ","
			}
			s += f.Name + ":" + TypeName(f.Type)
		}
		return s + ">"
	}
	return t.String()
}
