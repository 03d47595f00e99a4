package expr

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ArrayElem is the element type of an ARRAY expression (NULL for an
// untyped NULL), or an error naming fn when e is no array.
func ArrayElem(fn string, e Expr) (arrow.DataType, error) { return arrayElem(fn, e) }

// ArrayMapExpr is array_map(lambda, arr1, ..., arrN): Body evaluated once
// per element position over a batch whose columns are the N lambda
// parameters (column i holds the elements of array i) followed by
// Captures (outer columns the body reads, repeated for each element). The
// body is bound against that batch, not the input, so plan walkers see
// only Arrays and Captures as children.
type ArrayMapExpr struct {
	Arrays   []Expr
	Captures []Expr
	Body     Expr
	// Show is the lambda as written, for EXPLAIN.
	Show string
}

// ArrayMap builds array_map over arrays whose element types the body was
// bound with.
func ArrayMap(arrays, captures []Expr, body Expr, show string) (*ArrayMapExpr, error) {
	for _, a := range arrays {
		if _, err := arrayElem("array_map", a); err != nil {
			return nil, err
		}
	}
	return &ArrayMapExpr{Arrays: arrays, Captures: captures, Body: body, Show: show}, nil
}

func (m *ArrayMapExpr) DataType() arrow.DataType { return listOf(m.Body.DataType()) }
func (m *ArrayMapExpr) Children() []Expr {
	return append(append([]Expr{}, m.Arrays...), m.Captures...)
}
func (m *ArrayMapExpr) String() string {
	parts := []string{m.Show}
	for _, a := range m.Arrays {
		parts = append(parts, a.String())
	}
	return "array_map(" + strings.Join(parts, ", ") + ")"
}

func (m *ArrayMapExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arrs, err := evalAll(env, batch, m.Arrays)
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	caps, err := evalAll(env, batch, m.Captures)
	if err != nil {
		return nil, err
	}
	defer releaseAll(caps)
	n := int(batch.NumRows())
	// lens[r] is the element count of row r, -1 for a NULL result (a NULL
	// array among the arguments).
	lens := make([]int, n)
	fields := make([]arrow.Field, 0, len(arrs)+len(caps))
	builders := make([]array.Builder, 0, len(arrs)+len(caps))
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for i, a := range m.Arrays {
		et, _ := arrayElem("array_map", a)
		fields = append(fields, arrow.Field{Name: "p" + strconv.Itoa(i), Type: et, Nullable: true})
		builders = append(builders, array.NewBuilder(env.Mem, et))
	}
	for _, c := range m.Captures {
		fields = append(fields, arrow.Field{Name: "c", Type: c.DataType(), Nullable: true})
		builders = append(builders, array.NewBuilder(env.Mem, c.DataType()))
	}
	getA := make([]func(int) any, len(arrs))
	for i, a := range arrs {
		getA[i] = Getter(a)
	}
	getC := make([]func(int) any, len(caps))
	for i, c := range caps {
		getC[i] = Getter(c)
	}
	apps := make([]func(any), len(builders))
	for i, b := range builders {
		apps[i] = Appender(b)
	}
	total := 0
	lists := make([][]any, len(arrs))
	for r := 0; r < n; r++ {
		lens[r] = -1
		null := false
		for i, g := range getA {
			v := g(r)
			if v == nil {
				null = true
				break
			}
			lists[i] = v.([]any)
		}
		if null {
			continue
		}
		k := len(lists[0])
		for _, l := range lists[1:] {
			if len(l) != k {
				return nil, errorf(ErrType, "array_map: the arrays have different lengths (%d and %d)", k, len(l))
			}
		}
		if total += k; total > maxArrayElems*16 {
			return nil, errorf(ErrTooLarge, "array_map: more than %d elements in one batch", maxArrayElems*16)
		}
		lens[r] = k
		for e := 0; e < k; e++ {
			for i, l := range lists {
				apps[i](l[e])
			}
			for j, g := range getC {
				apps[len(arrs)+j](g(r))
			}
		}
	}
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	flat := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(total))
	releaseAll(cols)
	defer flat.Release()
	res, err := m.Body.Eval(env, flat)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	get := Getter(res)
	out := array.NewBuilder(env.Mem, m.DataType()).(*array.ListBuilder)
	defer out.Release()
	vb := out.ValueBuilder()
	app := Appender(vb)
	pos := 0
	for r := 0; r < n; r++ {
		if lens[r] < 0 {
			out.AppendNull()
			continue
		}
		out.Append(true)
		for e := 0; e < lens[r]; e++ {
			app(get(pos))
			pos++
		}
	}
	return out.NewArray(), nil
}
