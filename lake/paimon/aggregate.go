package paimon

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// aggOptions are the field functions of merge-engine=aggregation.
type aggOptions struct {
	funcs         map[string]string // field → fields.<f>.aggregate-function
	defaultFunc   string            // fields.default-aggregate-function
	ignoreRetract map[string]bool
	delim         map[string]string
	distinct      map[string]bool
}

// aggFuncNames are the field functions this reader merges exactly.
var aggFuncNames = map[string]bool{
	"sum": true, "min": true, "max": true, "last_value": true, "last_non_null_value": true,
	"first_value": true, "first_non_null_value": true, "first_not_null_value": true,
	"bool_and": true, "bool_or": true, "listagg": true, "count": true, "product": true,
}

func checkAggFunc(key, f string) error {
	if !aggFuncNames[f] {
		return fmt.Errorf("%w: option %s: aggregate function %q", ErrUnsupported, key, f)
	}
	return nil
}

func parseAggOptions(o map[string]string) (aggOptions, error) {
	a := aggOptions{funcs: map[string]string{}, ignoreRetract: map[string]bool{}, delim: map[string]string{}, distinct: map[string]bool{}}
	for k, raw := range o {
		v := strings.TrimSpace(raw)
		switch {
		case k == "aggregation.remove-record-on-delete":
			if strings.EqualFold(v, "true") {
				return a, fmt.Errorf("%w: option %s=true", ErrUnsupported, k)
			}
		case k == "fields.default-aggregate-function":
			if err := checkAggFunc(k, v); err != nil {
				return a, err
			}
			a.defaultFunc = v
		case !strings.HasPrefix(k, "fields."):
		case strings.HasSuffix(k, ".aggregate-function"):
			if err := checkAggFunc(k, v); err != nil {
				return a, err
			}
			a.funcs[strings.TrimSuffix(strings.TrimPrefix(k, "fields."), ".aggregate-function")] = v
		case strings.HasSuffix(k, ".ignore-retract"):
			b, err := strconv.ParseBool(v)
			if err != nil {
				return a, fmt.Errorf("paimon: option %s: %q is not a boolean", k, v)
			}
			a.ignoreRetract[strings.TrimSuffix(strings.TrimPrefix(k, "fields."), ".ignore-retract")] = b
		case strings.HasSuffix(k, ".list-agg-delimiter"):
			// Not trimmed: the delimiter may be a space.
			a.delim[strings.TrimSuffix(strings.TrimPrefix(k, "fields."), ".list-agg-delimiter")] = raw
		case strings.HasSuffix(k, ".distinct"):
			b, err := strconv.ParseBool(v)
			if err != nil {
				return a, fmt.Errorf("paimon: option %s: %q is not a boolean", k, v)
			}
			a.distinct[strings.TrimSuffix(strings.TrimPrefix(k, "fields."), ".distinct")] = b
		case strings.HasSuffix(k, ".sequence-group"):
			return a, fmt.Errorf("%w: aggregation option %s", ErrUnsupported, k)
		}
	}
	return a, nil
}

// cellRef is an accumulator that is one stored cell (selection functions).
type cellRef struct {
	arr arrow.Array
	row int
}

// fieldAgg folds the values of one column over the records of a key, as
// Java Paimon's FieldAggregator of that name does. The accumulator acc is
// nil (NULL), a cellRef, or a computed value: int64 (integers, wrapped to
// the column width after every step, as Java's narrowing casts do),
// float64 (FLOAT steps are done in float32), bool, string, *big.Int
// (DECIMAL unscaled).
type fieldAgg struct {
	field         string
	fn            string
	ignoreRetract bool
	delim         string
	distinct      bool
	col           int
	typ           arrow.DataType
	acc           any
	initialized   bool
}

func newFieldAgg(f arrow.Field, col int, isKey bool, o aggOptions) (*fieldAgg, error) {
	a := &fieldAgg{field: f.Name, col: col, typ: f.Type, ignoreRetract: o.ignoreRetract[f.Name], delim: ",", distinct: o.distinct[f.Name]}
	if d, ok := o.delim[f.Name]; ok {
		a.delim = d
	}
	switch {
	case isKey:
		a.fn = "primary-key"
	case o.funcs[f.Name] != "":
		a.fn = o.funcs[f.Name]
	case o.defaultFunc != "":
		a.fn = o.defaultFunc
	default:
		a.fn = "last_non_null_value"
	}
	if a.fn == "first_not_null_value" {
		a.fn = "first_non_null_value"
	}
	ok := true
	switch a.fn {
	case "sum", "product":
		switch f.Type.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64:
		case arrow.DECIMAL128:
			ok = a.fn == "sum"
		default:
			ok = false
		}
	case "count":
		ok = f.Type.ID() == arrow.INT32 || f.Type.ID() == arrow.INT64
	case "bool_and", "bool_or":
		ok = f.Type.ID() == arrow.BOOL
	case "listagg":
		ok = f.Type.ID() == arrow.STRING
	}
	if !ok {
		return nil, fmt.Errorf("%w: aggregate function %s on field %s of type %s", ErrUnsupported, a.fn, f.Name, f.Type)
	}
	return a, nil
}

func (a *fieldAgg) reset() { a.acc, a.initialized = nil, false }

// input reads the cell as the accumulator form of its function.
func (a *fieldAgg) input(arr arrow.Array, row int) any {
	if arr.IsNull(row) {
		return nil
	}
	switch a.fn {
	case "sum", "product", "count", "bool_and", "bool_or", "listagg":
	default:
		return cellRef{arr, row}
	}
	switch x := arr.(type) {
	case *array.Int8:
		return int64(x.Value(row))
	case *array.Int16:
		return int64(x.Value(row))
	case *array.Int32:
		return int64(x.Value(row))
	case *array.Int64:
		return x.Value(row)
	case *array.Float32:
		return float64(x.Value(row))
	case *array.Float64:
		return x.Value(row)
	case *array.Boolean:
		return x.Value(row)
	case *array.String:
		return x.Value(row)
	case *array.Decimal128:
		return x.Value(row).BigInt()
	}
	return cellRef{arr, row}
}

func (a *fieldAgg) wrap(v int64) int64 {
	switch a.typ.ID() {
	case arrow.INT8:
		return int64(int8(v))
	case arrow.INT16:
		return int64(int16(v))
	case arrow.INT32:
		return int64(int32(v))
	}
	return v
}

// arith applies op ('+', '-', '*', '/') to two non-NULL accumulators.
func (a *fieldAgg) arith(x, y any, op byte) (any, error) {
	switch xv := x.(type) {
	case int64:
		yv := y.(int64)
		switch op {
		case '+':
			return a.wrap(xv + yv), nil
		case '-':
			return a.wrap(xv - yv), nil
		case '*':
			return a.wrap(xv * yv), nil
		}
		if yv == 0 {
			return nil, fmt.Errorf("paimon: aggregate field %s: product retraction divides by zero", a.field)
		}
		return a.wrap(xv / yv), nil
	case float64:
		yv := y.(float64)
		if a.typ.ID() == arrow.FLOAT32 {
			fx, fy := float32(xv), float32(yv)
			switch op {
			case '+':
				return float64(fx + fy), nil
			case '-':
				return float64(fx - fy), nil
			case '*':
				return float64(fx * fy), nil
			}
			return float64(fx / fy), nil
		}
		switch op {
		case '+':
			return xv + yv, nil
		case '-':
			return xv - yv, nil
		case '*':
			return xv * yv, nil
		}
		return xv / yv, nil
	case *big.Int:
		yv := y.(*big.Int)
		r := new(big.Int)
		if op == '+' {
			r.Add(xv, yv)
		} else {
			r.Sub(xv, yv)
		}
		p := a.typ.(*arrow.Decimal128Type).Precision
		if len(new(big.Int).Abs(r).String()) > int(p) {
			return nil, fmt.Errorf("paimon: aggregate field %s: sum overflows %s", a.field, a.typ)
		}
		return r, nil
	}
	return nil, fmt.Errorf("%w: arithmetic on field %s of type %s", ErrUnsupported, a.field, a.typ)
}

func (a *fieldAgg) negate(v any) any {
	switch x := v.(type) {
	case int64:
		return a.wrap(-x)
	case float64:
		return -x
	case *big.Int:
		return new(big.Int).Neg(x)
	}
	return v
}

// add folds one +I/+U record's cell into the accumulator.
func (a *fieldAgg) add(arr arrow.Array, row int) error {
	in := a.input(arr, row)
	acc := a.acc
	var err error
	switch a.fn {
	case "primary-key", "last_value":
		a.acc = in
	case "last_non_null_value":
		if in != nil {
			a.acc = in
		}
	case "first_value":
		if !a.initialized {
			a.initialized, a.acc = true, in
		}
	case "first_non_null_value":
		if !a.initialized && in != nil {
			a.initialized, a.acc = true, in
		}
	case "count":
		switch {
		case acc == nil:
			a.acc = int64(1)
		case in != nil:
			a.acc = a.wrap(acc.(int64) + 1)
		}
	default:
		if acc == nil || in == nil {
			if acc == nil {
				a.acc = in
			}
			return nil
		}
		switch a.fn {
		case "sum":
			a.acc, err = a.arith(acc, in, '+')
		case "product":
			a.acc, err = a.arith(acc, in, '*')
		case "min", "max":
			c := compareArrow(in.(cellRef).arr, in.(cellRef).row, acc.(cellRef).arr, acc.(cellRef).row)
			if (a.fn == "min" && c < 0) || (a.fn == "max" && c > 0) {
				a.acc = in
			}
		case "bool_and":
			a.acc = acc.(bool) && in.(bool)
		case "bool_or":
			a.acc = acc.(bool) || in.(bool)
		case "listagg":
			a.acc = a.listagg(acc.(string), in.(string))
		}
	}
	return err
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func (a *fieldAgg) listagg(acc, in string) string {
	if isBlank(in) {
		return acc
	}
	if isBlank(acc) {
		return in
	}
	if !a.distinct {
		return acc + a.delim + in
	}
	seen := map[string]bool{}
	for _, t := range splitWhole(acc, a.delim) {
		seen[t] = true
	}
	var sb strings.Builder
	sb.WriteString(acc)
	for _, t := range splitWhole(in, a.delim) {
		if isBlank(t) || seen[t] {
			continue
		}
		seen[t] = true
		sb.WriteString(a.delim)
		sb.WriteString(t)
	}
	return sb.String()
}

// splitWhole splits on the whole delimiter, keeping empty tokens.
func splitWhole(s, delim string) []string {
	if delim == "" {
		return []string{s}
	}
	return strings.Split(s, delim)
}

// retract folds one -U/-D record's cell into the accumulator.
func (a *fieldAgg) retract(arr arrow.Array, row int, table string) error {
	if a.ignoreRetract {
		return nil
	}
	in := a.input(arr, row)
	acc := a.acc
	var err error
	switch a.fn {
	case "primary-key":
		a.acc = in
	case "last_value":
		a.acc = nil
	case "last_non_null_value":
		if in != nil {
			a.acc = nil
		}
	case "sum":
		switch {
		case acc == nil:
			a.acc = a.negate(in)
		case in != nil:
			a.acc, err = a.arith(acc, in, '-')
		}
	case "product":
		switch {
		case acc == nil:
			a.acc = in
		case in != nil:
			a.acc, err = a.arith(acc, in, '/')
		}
	case "count":
		switch {
		case acc == nil:
			a.acc = int64(1)
		case in != nil:
			a.acc = a.wrap(acc.(int64) - 1)
		}
	default:
		return fmt.Errorf("paimon: table %s: aggregate function %s of field %s does not support retraction (-U/-D record); set fields.%s.ignore-retract=true", table, a.fn, a.field, a.field)
	}
	return err
}

// appendTo appends the accumulator to bld (of the column's type).
func (a *fieldAgg) appendTo(bld array.Builder) error {
	switch v := a.acc.(type) {
	case nil:
		bld.AppendNull()
	case cellRef:
		return appendValue(bld, v.arr, v.row)
	case int64:
		switch b := bld.(type) {
		case *array.Int8Builder:
			b.Append(int8(v))
		case *array.Int16Builder:
			b.Append(int16(v))
		case *array.Int32Builder:
			b.Append(int32(v))
		case *array.Int64Builder:
			b.Append(v)
		default:
			return fmt.Errorf("%w: aggregate result for %s", ErrUnsupported, bld.Type())
		}
	case float64:
		switch b := bld.(type) {
		case *array.Float32Builder:
			b.Append(float32(v))
		case *array.Float64Builder:
			b.Append(v)
		default:
			return fmt.Errorf("%w: aggregate result for %s", ErrUnsupported, bld.Type())
		}
	case bool:
		bld.(*array.BooleanBuilder).Append(v)
	case string:
		bld.(*array.StringBuilder).Append(v)
	case *big.Int:
		bld.(*array.Decimal128Builder).Append(decimal128.FromBigInt(v))
	}
	return nil
}
