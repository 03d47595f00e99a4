package expr

import (
	"sort"
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

// flatBatch builds the batch a lambda body is evaluated over, one row at a
// time from canonical values.
type flatBatch struct {
	fields   []arrow.Field
	builders []array.Builder
	apps     []func(any)
	n        int
}

func newFlatBatch(env *Env, types []arrow.DataType) *flatBatch {
	f := &flatBatch{}
	for i, t := range types {
		b := array.NewBuilder(env.Mem, t)
		f.fields = append(f.fields, arrow.Field{Name: "p" + strconv.Itoa(i), Type: t, Nullable: true})
		f.builders = append(f.builders, b)
		f.apps = append(f.apps, Appender(b))
	}
	return f
}

func (f *flatBatch) add(vals ...any) {
	for i, v := range vals {
		f.apps[i](v)
	}
	f.n++
}

// eval evaluates body over the rows added so far (and releases the
// builders); the result has one value per row.
func (f *flatBatch) eval(env *Env, body Expr) (func(int) any, func(), error) {
	cols := make([]arrow.Array, len(f.builders))
	for i, b := range f.builders {
		cols[i] = b.NewArray()
		b.Release()
	}
	flat := array.NewRecordBatch(arrow.NewSchema(f.fields, nil), cols, int64(f.n))
	releaseAll(cols)
	defer flat.Release()
	res, err := body.Eval(env, flat)
	if err != nil {
		return nil, nil, err
	}
	return Getter(res), res.Release, nil
}

func captureTypes(caps []Expr) []arrow.DataType {
	out := make([]arrow.DataType, len(caps))
	for i, c := range caps {
		out[i] = c.DataType()
	}
	return out
}

func captureValues(getC []func(int) any, r int) []any {
	out := make([]any, len(getC))
	for i, g := range getC {
		out[i] = g(r)
	}
	return out
}

// ArrayReduceExpr is array_reduce((s, x) -> body, arr, init): s starts as
// init and becomes body for each element x in turn. Body is bound over a
// batch of [s, x, captures...]; each step evaluates it once over every row
// that still has elements.
type ArrayReduceExpr struct {
	Array, Init Expr
	Captures    []Expr
	Body        Expr
	Show        string
}

func (m *ArrayReduceExpr) DataType() arrow.DataType { return m.Body.DataType() }
func (m *ArrayReduceExpr) Children() []Expr {
	return append([]Expr{m.Array, m.Init}, m.Captures...)
}
func (m *ArrayReduceExpr) String() string {
	return "array_reduce(" + m.Show + ", " + m.Array.String() + ", " + m.Init.String() + ")"
}

func (m *ArrayReduceExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arrs, err := evalAll(env, batch, append([]Expr{m.Array, m.Init}, m.Captures...))
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	n := int(batch.NumRows())
	getL, getI := Getter(arrs[0]), Getter(arrs[1])
	getC := make([]func(int) any, len(m.Captures))
	for i := range getC {
		getC[i] = Getter(arrs[2+i])
	}
	et, _ := arrayElem("array_reduce", m.Array)
	types := append([]arrow.DataType{m.Body.DataType(), et}, captureTypes(m.Captures)...)
	lists := make([][]any, n)
	state := make([]any, n)
	isNull := make([]bool, n)
	longest := 0
	for r := 0; r < n; r++ {
		v := getL(r)
		if v == nil {
			isNull[r] = true
			continue
		}
		lists[r] = v.([]any)
		state[r] = getI(r)
		longest = max(longest, len(lists[r]))
	}
	for k := 0; k < longest; k++ {
		f := newFlatBatch(env, types)
		var rows []int
		for r := 0; r < n; r++ {
			if !isNull[r] && k < len(lists[r]) {
				f.add(append([]any{state[r], lists[r][k]}, captureValues(getC, r)...)...)
				rows = append(rows, r)
			}
		}
		get, release, err := f.eval(env, m.Body)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			state[r] = get(i)
		}
		release()
	}
	b := array.NewBuilder(env.Mem, m.DataType())
	defer b.Release()
	app := Appender(b)
	for r := 0; r < n; r++ {
		if isNull[r] {
			b.AppendNull()
			continue
		}
		app(state[r])
	}
	return b.NewArray(), nil
}

// ArraySortByExpr is array_sort((x, y) -> cmp, arr): elements ordered by a
// comparator answering negative (x before y), 0 or positive; a NULL answer
// counts as 0. Body is bound over [x, y, captures...] and evaluated once
// over every pair of elements of the batch's rows.
type ArraySortByExpr struct {
	Array    Expr
	Captures []Expr
	Body     Expr
	Show     string
}

// maxSortPairs bounds the comparisons one batch of array_sort with a
// comparator evaluates (the square of each array's length).
const maxSortPairs = 4 << 20

func (m *ArraySortByExpr) DataType() arrow.DataType { return m.Array.DataType() }
func (m *ArraySortByExpr) Children() []Expr {
	return append([]Expr{m.Array}, m.Captures...)
}
func (m *ArraySortByExpr) String() string {
	return "array_sort(" + m.Show + ", " + m.Array.String() + ")"
}

func (m *ArraySortByExpr) Eval(env *Env, batch arrow.RecordBatch) (arrow.Array, error) {
	arrs, err := evalAll(env, batch, append([]Expr{m.Array}, m.Captures...))
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	n := int(batch.NumRows())
	getL := Getter(arrs[0])
	getC := make([]func(int) any, len(m.Captures))
	for i := range getC {
		getC[i] = Getter(arrs[1+i])
	}
	et, _ := arrayElem("array_sort", m.Array)
	f := newFlatBatch(env, append([]arrow.DataType{et, et}, captureTypes(m.Captures)...))
	lists := make([][]any, n)
	isNull := make([]bool, n)
	start := make([]int, n)
	pairs := 0
	for r := 0; r < n; r++ {
		v := getL(r)
		if v == nil {
			isNull[r] = true
			continue
		}
		l := v.([]any)
		lists[r] = l
		start[r] = pairs
		if pairs += len(l) * len(l); pairs > maxSortPairs {
			for _, b := range f.builders {
				b.Release()
			}
			return nil, errorf(ErrTooLarge, "array_sort: more than %d comparisons in one batch", maxSortPairs)
		}
		caps := captureValues(getC, r)
		for _, x := range l {
			for _, y := range l {
				f.add(append([]any{x, y}, caps...)...)
			}
		}
	}
	get, release, err := f.eval(env, m.Body)
	if err != nil {
		return nil, err
	}
	defer release()
	b := array.NewBuilder(env.Mem, m.DataType())
	defer b.Release()
	app := Appender(b)
	for r := 0; r < n; r++ {
		l := lists[r]
		if isNull[r] {
			b.AppendNull()
			continue
		}
		idx := make([]int, len(l))
		for i := range idx {
			idx[i] = i
		}
		cmpAt := func(i, j int) int64 {
			c, _ := get(start[r] + i*len(l) + j).(int64)
			return c
		}
		sort.SliceStable(idx, func(a, c int) bool { return cmpAt(idx[a], idx[c]) < 0 })
		out := make([]any, len(l))
		for i, k := range idx {
			out[i] = l[k]
		}
		app(out)
	}
	return b.NewArray(), nil
}
