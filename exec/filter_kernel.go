package exec

import (
	"cmp"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

// selKernel selects rows of a batch for one conjunct of the form
// column op constant over a number, DATE or VARCHAR column, straight from the
// column's values into row numbers: no boolean array, no bitmap. The rows
// and comparison are those CmpExpr.Eval computes (the constant converted
// to the column's type the same way; NULLs never selected).
//
// A kernel reads the candidate rows (nil: every row of the batch) and
// appends the ones that pass to out, which may be rows[:0] (it writes
// behind where it reads). It reports false, having written nothing, when
// the batch's column is not of the type planned; the caller then
// evaluates the conjunct.
type selKernel func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool)

// compileSelKernel returns the kernel for conjunct c, nil when c is not of
// a form it serves.
func compileSelKernel(c expr.Expr) selKernel {
	if in, ok := c.(*expr.InExpr); ok {
		return inKernel(in)
	}
	if k := orKernel(c); k != nil {
		return k
	}
	cmp, ok := c.(*expr.CmpExpr)
	if !ok {
		return nil
	}
	op, l, r := cmp.Op, cmp.L, cmp.R
	if _, ok := l.(*expr.Literal); ok {
		// constant op column is column op' constant.
		mirror := map[expr.CmpOp]expr.CmpOp{expr.Lt: expr.Gt, expr.Le: expr.Ge, expr.Gt: expr.Lt, expr.Ge: expr.Le, expr.Eq: expr.Eq, expr.NullSafeEq: expr.NullSafeEq, expr.Ne: expr.Ne}
		m, ok := mirror[op]
		if !ok {
			return nil
		}
		op, l, r = m, r, l
	}
	if k := decimalKernel(op, l, r); k != nil {
		return k
	}
	if k := columnsKernel(op, l, r); k != nil {
		return k
	}
	col, ok := l.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	lit, ok := r.(*expr.Literal)
	if !ok || lit.Value == nil || !arrow.TypeEqual(col.Type, lit.Type) {
		return nil
	}
	switch op {
	case expr.Eq, expr.NullSafeEq, expr.Ne, expr.Lt, expr.Le, expr.Gt, expr.Ge:
	default:
		return nil
	}
	if col.Type.ID() == arrow.STRING {
		c, ok := lit.Value.(string)
		if !ok {
			return nil
		}
		switch op {
		case expr.Eq, expr.NullSafeEq, expr.Ne:
			// = 'x' selects what IN ('x') does (<=> too, the constant not
			// being NULL), <> 'x' what NOT IN ('x') does; the IN probe
			// compares in the column's buffers.
			if in, err := expr.In(col, []expr.Expr{lit}, op == expr.Ne); err == nil {
				if in, ok := in.(*expr.InExpr); ok {
					return inKernel(in)
				}
			}
		}
		return stringKernel(op, col.Index, c)
	}
	// A DATE column compares with a DATE constant, numbers with numbers,
	// as CmpExpr.Eval reads them.
	if _, isDate := lit.Value.(arrow.Date32); isDate != (col.Type.ID() == arrow.DATE32) {
		return nil
	}
	switch col.Type.ID() {
	case arrow.INT8:
		return kernelFor(op, col.Index, lit, typedValues[int8, *array.Int8])
	case arrow.INT16:
		return kernelFor(op, col.Index, lit, typedValues[int16, *array.Int16])
	case arrow.INT32:
		return kernelFor(op, col.Index, lit, typedValues[int32, *array.Int32])
	case arrow.INT64:
		return kernelFor(op, col.Index, lit, typedValues[int64, *array.Int64])
	case arrow.FLOAT64:
		return kernelFor(op, col.Index, lit, typedValues[float64, *array.Float64])
	case arrow.DATE32:
		return kernelFor(op, col.Index, lit, typedValues[arrow.Date32, *array.Date32])
	}
	return nil
}

// typedValues is the values of a, if a is an A.
func typedValues[T any, A interface{ Values() []T }](a arrow.Array) ([]T, bool) {
	x, ok := a.(A)
	if !ok {
		return nil, false
	}
	return x.Values(), true
}

// litValue converts the literal as CmpExpr.Eval does (int64 and float64
// literals converted to the column's type; a date as it is).
func litValue[T kernelNum](l *expr.Literal) (T, bool) {
	switch x := l.Value.(type) {
	case int64:
		return T(x), true
	case float64:
		return T(x), true
	case arrow.Date32:
		return T(x), true
	}
	return 0, false
}

// kernelNum is what a kernel compares: the column's own values.
type kernelNum interface {
	int8 | int16 | int32 | int64 | float64 | arrow.Date32
}

func kernelFor[T kernelNum](op expr.CmpOp, idx int, lit *expr.Literal, vals func(arrow.Array) ([]T, bool)) selKernel {
	c, ok := litValue[T](lit)
	if !ok {
		return nil
	}
	test := cmpTest(op, c)
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if idx < 0 || int64(idx) >= b.NumCols() {
			return nil, false
		}
		a := b.Column(idx)
		x, ok := vals(a)
		if !ok {
			return nil, false
		}
		return selectWith(op, c, test, x, a, rows, out), true
	}
}

// cmpTest is the test v op c of a non-NULL value, nil for an operator
// the kernels do not serve.
func cmpTest[T cmp.Ordered](op expr.CmpOp, c T) func(T) bool {
	switch op {
	case expr.Eq, expr.NullSafeEq:
		return func(v T) bool { return v == c }
	case expr.Ne:
		return func(v T) bool { return v != c }
	case expr.Lt:
		return func(v T) bool { return v < c }
	case expr.Le:
		return func(v T) bool { return v <= c }
	case expr.Gt:
		return func(v T) bool { return v > c }
	case expr.Ge:
		return func(v T) bool { return v >= c }
	}
	return nil
}

// selectWith runs one loop per operator over the values (the common case:
// no NULLs, every row a candidate) so the comparison inlines; other cases
// go through test.
func selectWith[T kernelNum](op expr.CmpOp, c T, test func(T) bool, x []T, a arrow.Array, rows []int64, out []int64) []int64 {
	nulls := a.NullN() > 0
	if rows == nil && !nulls && cap(out)-len(out) >= len(x) {
		// Every row is written and the next one overwrites it unless the
		// row passed: no branch on the comparison, which a predicate that
		// keeps rows at random would mispredict half the time.
		base := len(out)
		dst := out[base : base+len(x)]
		j := 0
		switch op {
		case expr.Lt:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(v < c)
			}
		case expr.Le:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(v <= c)
			}
		case expr.Gt:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(v > c)
			}
		case expr.Ge:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(v >= c)
			}
		case expr.Eq, expr.NullSafeEq:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(v == c)
			}
		default:
			for i, v := range x {
				dst[j] = int64(i)
				j += b2i(test(v))
			}
		}
		return out[:base+j]
	}
	if rows == nil && !nulls {
		for i, v := range x {
			if test(v) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	if rows == nil {
		for i, v := range x {
			if a.IsValid(i) && test(v) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	if !nulls {
		return selectRowsWith(op, c, test, x, rows, out)
	}
	for _, r := range rows {
		if a.IsValid(int(r)) && test(x[r]) {
			out = append(out, r)
		}
	}
	return out
}

// selectRowsWith is selectWith's loop over candidate rows of a column
// without NULLs: one loop per operator, writing each candidate and
// keeping it only if it passed (out may be rows[:0]: it writes behind
// where it reads).
func selectRowsWith[T kernelNum](op expr.CmpOp, c T, test func(T) bool, x []T, rows, out []int64) []int64 {
	j := len(out)
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	switch op {
	case expr.Lt:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] < c)
		}
	case expr.Le:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] <= c)
		}
	case expr.Gt:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] > c)
		}
	case expr.Ge:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] >= c)
		}
	case expr.Eq, expr.NullSafeEq:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] == c)
		}
	default:
		for _, r := range rows {
			out[j] = r
			j += b2i(test(x[r]))
		}
	}
	return out[:j]
}

// b2i is 1 for true: the compiler makes it a flag-to-register move.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// stringKernel compares a VARCHAR column with a constant byte by byte, as
// CmpExpr.Eval does (Go string order), reading the values in place.
func stringKernel(op expr.CmpOp, idx int, c string) selKernel {
	test := cmpTest(op, c)
	if test == nil {
		return nil
	}
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if idx < 0 || int64(idx) >= b.NumCols() {
			return nil, false
		}
		a, ok := b.Column(idx).(*array.String)
		if !ok {
			return nil, false
		}
		nulls := a.NullN() > 0
		if rows == nil {
			for i := 0; i < a.Len(); i++ {
				if (!nulls || a.IsValid(i)) && test(a.Value(i)) {
					out = append(out, int64(i))
				}
			}
			return out, true
		}
		for _, r := range rows {
			if (!nulls || a.IsValid(int(r))) && test(a.Value(int(r))) {
				out = append(out, r)
			}
		}
		return out, true
	}
}

// decimalKernel compares a DECIMAL column, or its cast to a wider
// precision at the same scale (Q6's CAST(l_quantity AS DECIMAL(21,2)) <
// 24.00: the values do not change), with a DECIMAL constant of that scale,
// reading the 128-bit values in place: the unscaled values order as the
// decimals do. nil when the comparison is not of that shape.
func decimalKernel(op expr.CmpOp, l, r expr.Expr) selKernel {
	lit, ok := r.(*expr.Literal)
	if !ok {
		return nil
	}
	c, ok := lit.Value.(decimal128.Num)
	lt, ok2 := lit.Type.(*arrow.Decimal128Type)
	if !ok || !ok2 {
		return nil
	}
	if cast, isCast := l.(*expr.CastExpr); isCast {
		to, isDec := cast.To.(*arrow.Decimal128Type)
		if !isDec || to.Scale != lt.Scale {
			return nil
		}
		l = cast.Arg
		if ct, isDec := l.DataType().(*arrow.Decimal128Type); !isDec || ct.Scale != to.Scale || ct.Precision > to.Precision {
			return nil
		}
	}
	col, ok := l.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	if ct, isDec := col.Type.(*arrow.Decimal128Type); !isDec || ct.Scale != lt.Scale {
		return nil
	}
	switch op {
	case expr.Eq, expr.NullSafeEq, expr.Ne, expr.Lt, expr.Le, expr.Gt, expr.Ge:
	default:
		return nil
	}
	idx := col.Index
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if idx < 0 || int64(idx) >= b.NumCols() {
			return nil, false
		}
		a, ok := b.Column(idx).(*array.Decimal128)
		if !ok || !arrow.TypeEqual(a.DataType(), col.Type) {
			return nil, false
		}
		return decimalSelect(op, c, a, rows, out), true
	}
}

// decimalSelect appends the rows of a (all of them, or the candidates
// rows) whose value v satisfies v op c; out may be rows[:0].
//
// The unscaled values are 128-bit, but nearly all fit in an int64: then
// v < k is one int64 comparison, and every ordering operator is one
// "less than" against c or c+1, maybe negated (v <= c is v < c+1, v > c
// is not v < c+1, v >= c is not v < c). A value past the int64 range is
// below every int64 when negative, above when not. Rows are written
// without a branch on the outcome (see selectWith). A constant that is no
// int64 (or is MaxInt64, whose c+1 is not) compares in 128 bits.
func decimalSelect(op expr.CmpOp, c decimal128.Num, a *array.Decimal128, rows, out []int64) []int64 {
	x := a.Values()
	c64 := int64(c.LowBits())
	cSmall := c.HighBits() == c64>>63
	var k int64
	var flip, eq bool
	switch op {
	case expr.Lt:
		k = c64
	case expr.Le:
		k = c64 + 1
	case expr.Gt:
		k, flip = c64+1, true
	case expr.Ge:
		k, flip = c64, true
	case expr.Eq, expr.NullSafeEq:
		eq = true
	case expr.Ne:
		eq, flip = true, true
	}
	if a.NullN() > 0 || (!eq && (!cSmall || c64 == math.MaxInt64)) {
		holds := func(v decimal128.Num) bool { return cmpHolds(op, v.Cmp(c)) }
		nulls := a.NullN() > 0
		if rows == nil {
			for i, v := range x {
				if (!nulls || a.IsValid(i)) && holds(v) {
					out = append(out, int64(i))
				}
			}
			return out
		}
		for _, r := range rows {
			if (!nulls || a.IsValid(int(r))) && holds(x[r]) {
				out = append(out, r)
			}
		}
		return out
	}
	pass := func(v decimal128.Num) bool {
		if eq {
			return (v == c) != flip
		}
		lo, hi := int64(v.LowBits()), v.HighBits()
		less := lo < k
		if hi != lo>>63 {
			less = hi < 0
		}
		return less != flip
	}
	if rows == nil {
		base := len(out)
		out = slices.Grow(out, len(x))
		dst := out[base : base+len(x)]
		j := 0
		for i, v := range x {
			dst[j] = int64(i)
			j += b2i(pass(v))
		}
		return out[:base+j]
	}
	j := len(out)
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	for _, r := range rows {
		out[j] = r
		j += b2i(pass(x[r]))
	}
	return out[:j]
}

// cmpHolds says whether a comparison whose sign is c satisfies op.
func cmpHolds(op expr.CmpOp, c int) bool {
	switch op {
	case expr.Eq, expr.NullSafeEq:
		return c == 0
	case expr.Ne:
		return c != 0
	case expr.Lt:
		return c < 0
	case expr.Le:
		return c <= 0
	case expr.Gt:
		return c > 0
	case expr.Ge:
		return c >= 0
	}
	return false
}

// inKernel selects the rows where a constant IN (NOT IN) list holds for a
// column, or for a cast of one that keeps its values (Q16's CAST(p_size
// AS BIGINT) IN (...)): the column's own values are probed.
func inKernel(in *expr.InExpr) selKernel {
	arg := in.Arg
	if cast, ok := arg.(*expr.CastExpr); ok && castKeeps(cast.Arg.DataType(), cast.To) {
		arg = cast.Arg
	}
	col, ok := arg.(*expr.ColumnRef)
	if !ok {
		return nil
	}
	idx := col.Index
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if idx < 0 || int64(idx) >= b.NumCols() {
			return nil, false
		}
		a := b.Column(idx)
		if !arrow.TypeEqual(a.DataType(), col.Type) {
			return nil, false
		}
		return in.SelectIn(a, rows, out)
	}
}

// castKeeps says whether a cast from one type to the other keeps every
// value as it is stored: an integer to BIGINT, a DECIMAL to one of the
// same scale and no less precision.
func castKeeps(from, to arrow.DataType) bool {
	if fd, ok := from.(*arrow.Decimal128Type); ok {
		td, ok := to.(*arrow.Decimal128Type)
		return ok && td.Scale == fd.Scale && td.Precision >= fd.Precision
	}
	if to.ID() != arrow.INT64 {
		return false
	}
	switch from.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return true
	}
	return false
}

// columnsKernel compares two columns of one integer, DOUBLE or DATE type
// (Q12's l_commitdate < l_receiptdate) value by value, as CmpExpr.Eval
// does; a row where either is NULL is not selected.
func columnsKernel(op expr.CmpOp, l, r expr.Expr) selKernel {
	lc, ok := l.(*expr.ColumnRef)
	rc, ok2 := r.(*expr.ColumnRef)
	if !ok || !ok2 || !arrow.TypeEqual(lc.Type, rc.Type) {
		return nil
	}
	switch op {
	case expr.Eq, expr.Ne, expr.Lt, expr.Le, expr.Gt, expr.Ge:
	default:
		// <=> selects NULL <=> NULL too.
		return nil
	}
	switch lc.Type.ID() {
	case arrow.INT8:
		return colsKernelFor(op, lc, rc, typedValues[int8, *array.Int8])
	case arrow.INT16:
		return colsKernelFor(op, lc, rc, typedValues[int16, *array.Int16])
	case arrow.INT32:
		return colsKernelFor(op, lc, rc, typedValues[int32, *array.Int32])
	case arrow.INT64:
		return colsKernelFor(op, lc, rc, typedValues[int64, *array.Int64])
	case arrow.FLOAT64:
		return colsKernelFor(op, lc, rc, typedValues[float64, *array.Float64])
	case arrow.DATE32:
		return colsKernelFor(op, lc, rc, typedValues[arrow.Date32, *array.Date32])
	}
	return nil
}

func colsKernelFor[T kernelNum](op expr.CmpOp, lc, rc *expr.ColumnRef, vals func(arrow.Array) ([]T, bool)) selKernel {
	li, ri := lc.Index, rc.Index
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		if li < 0 || ri < 0 || int64(li) >= b.NumCols() || int64(ri) >= b.NumCols() {
			return nil, false
		}
		la, ra := b.Column(li), b.Column(ri)
		x, ok := vals(la)
		y, ok2 := vals(ra)
		if !ok || !ok2 || len(x) != len(y) {
			return nil, false
		}
		if la.NullN() > 0 || ra.NullN() > 0 {
			holds := pairTest[T](op)
			test := func(i int) bool {
				return la.IsValid(i) && ra.IsValid(i) && holds(x[i], y[i])
			}
			if rows == nil {
				for i := range x {
					if test(i) {
						out = append(out, int64(i))
					}
				}
				return out, true
			}
			for _, r := range rows {
				if test(int(r)) {
					out = append(out, r)
				}
			}
			return out, true
		}
		return selectCols(op, x, y, rows, out), true
	}
}

// selectCols is columnsKernel's loop over columns without NULLs: one
// loop per operator, each row written and kept only if it passed.
func selectCols[T kernelNum](op expr.CmpOp, x, y []T, rows, out []int64) []int64 {
	j := len(out)
	if rows == nil {
		out = slices.Grow(out, len(x))[:j+len(x)]
		y = y[:len(x)]
		switch op {
		case expr.Lt:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] < y[i])
			}
		case expr.Le:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] <= y[i])
			}
		case expr.Gt:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] > y[i])
			}
		case expr.Ge:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] >= y[i])
			}
		case expr.Eq:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] == y[i])
			}
		default:
			for i := range x {
				out[j] = int64(i)
				j += b2i(x[i] != y[i])
			}
		}
		return out[:j]
	}
	out = slices.Grow(out, len(rows))[:j+len(rows)]
	switch op {
	case expr.Lt:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] < y[r])
		}
	case expr.Le:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] <= y[r])
		}
	case expr.Gt:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] > y[r])
		}
	case expr.Ge:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] >= y[r])
		}
	case expr.Eq:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] == y[r])
		}
	default:
		for _, r := range rows {
			out[j] = r
			j += b2i(x[r] != y[r])
		}
	}
	return out[:j]
}

// pairTest is x op y as CmpExpr.Eval computes it (Go's operators: a NaN
// is unequal to everything).
func pairTest[T kernelNum](op expr.CmpOp) func(x, y T) bool {
	switch op {
	case expr.Eq:
		return func(x, y T) bool { return x == y }
	case expr.Ne:
		return func(x, y T) bool { return x != y }
	case expr.Lt:
		return func(x, y T) bool { return x < y }
	case expr.Le:
		return func(x, y T) bool { return x <= y }
	case expr.Gt:
		return func(x, y T) bool { return x > y }
	}
	return func(x, y T) bool { return x >= y }
}
