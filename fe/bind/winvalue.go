package bind

import (
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// Correlated aggregates as window functions. TPC-H Q17 asks, per lineitem
// row joined to a few parts, for avg(l_quantity) over the lineitem rows of
// the same part:
//
//	SELECT … FROM lineitem, part WHERE p_partkey = l_partkey AND <part filters>
//	  AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)
//
// The enclosing rows already hold every lineitem row of each part they
// hold: lineitem meets the rest of the FROM only through l_partkey =
// p_partkey, and nothing else filters it. So the subquery's value is a
// window aggregate over the enclosing rows, avg(l_quantity) OVER
// (PARTITION BY p_partkey), and lineitem is read once instead of twice (as
// Doris's AggScalarSubQueryToWindowFunction does).
//
// Exact when (windowValue checks each):
//   - the subquery reads one table T with no filter of its own, and its
//     WHERE is one equality of a T column c and an enclosing column x;
//   - its item is avg, min or max calls (no DISTINCT) over T's columns in
//     an expression of constants: each partition holds every T row with
//     c = v the same number of times (once per row of the rest with the
//     key v), which leaves these three unchanged (sum and count would
//     multiply);
//   - the enclosing input reads T once, through inner joins, filters and
//     projections only, without scan predicates, and every condition that
//     reads T is a join key c = y of T's column c and another input's
//     column, of one type that compares as it groups (no floating point);
//     at least one such key exists, so c is never NULL in an input row;
//   - (for speed, not exactness) the input is estimated at a tenth of T
//     or less.
//   - x is T's c or such a y, so x = c on every input row and the
//     partition by x is the subquery's correlation.
//
// Anything else is decorrelated as before.

// windowMinRatio is how many times the enclosing input's estimated rows
// the subquery's table must hold for the window plan.
const windowMinRatio = 10

// windowValue adds the value of the correlated scalar subquery e to every
// row of input as a window aggregate; ok is false when the shape is not
// one whose answer this keeps exact.
func (b *Binder) windowValue(input Plan, e *sql.Subquery) (Plan, bool) {
	sel, ok := e.Query.(*sql.Select)
	if !ok || !aggregateValue(sel) || len(sel.Windows) > 0 || len(sel.OrderBy) > 0 {
		return nil, false
	}
	if _, isRef := sel.From.(*sql.TableRef); !isRef {
		return nil, false
	}
	ib, err := b.bindInner(sel)
	if err != nil || len(ib.corr) != 1 {
		return nil, false
	}
	mp, ok := ib.plan.(*Project)
	if !ok {
		return nil, false
	}
	inScan, ok := mp.Input.(*Scan)
	if !ok || len(inScan.Projection) != len(inScan.Out) || len(inScan.Predicates) > 0 || len(inScan.OrPredicates) > 0 || len(inScan.Pruned) > 0 {
		return nil, false
	}
	// Few enclosing rows against the table: sorting them into partitions
	// costs less than reading the table again. Many (Q17 over most parts)
	// made the window twice the memory and half again the CPU.
	if b.sess.Rows == nil {
		return nil, false
	}
	nIn, ok1 := b.sess.Rows(input)
	nT, ok2 := b.sess.Rows(inScan)
	if !ok1 || !ok2 || nIn*windowMinRatio > nT {
		return nil, false
	}
	xc := input.Columns()
	inner := &scope{cols: inScan.Columns()}
	// The correlation: inner column = enclosing column.
	be, ok := ib.corr[0].(*sql.BinaryExpr)
	if !ok || be.Op != "=" {
		return nil, false
	}
	innerCol, outerCol := -1, -1
	for _, lr := range [][2]sql.Expr{{be.L, be.R}, {be.R, be.L}} {
		ie, err1 := b.bindExpr(lr[0], inner, nil)
		oe, err2 := b.bindExpr(lr[1], &scope{cols: xc}, nil)
		ic, ok1 := ie.(*expr.ColumnRef)
		oc, ok2 := oe.(*expr.ColumnRef)
		if err1 == nil && err2 == nil && ok1 && ok2 {
			// A name of the enclosing query must not resolve in the
			// subquery (it would be the subquery's own column).
			if _, err := b.bindExpr(lr[1], inner, nil); err == nil {
				return nil, false
			}
			innerCol, outerCol = ic.Index, oc.Index
			break
		}
	}
	if innerCol < 0 || !arrow.TypeEqual(inner.cols[innerCol].Type, xc[outerCol].Type) || !groupsAsCompares(xc[outerCol].Type) {
		return nil, false
	}
	// The enclosing input's reads of T.
	w := &winWalk{table: inScan}
	org, ok := w.walk(input, false)
	if !ok || w.scan == nil || w.uses != 1 {
		return nil, false
	}
	tc := inScan.Projection[innerCol]
	okX := org[outerCol].scan == w.scan && w.scan.Projection[org[outerCol].col] == tc
	if len(w.keys) == 0 {
		return nil, false
	}
	for _, k := range w.keys {
		if w.scan.Projection[k.t] != tc {
			return nil, false
		}
		if org[outerCol] == k.other {
			okX = true
		}
	}
	if !okX {
		return nil, false
	}
	// T's columns in the input, by table column.
	at := map[int]int{}
	for i, o := range org {
		if o.scan == w.scan {
			at[w.scan.Projection[o.col]] = i
		}
	}
	// The item's aggregates, as window calls over the input.
	item := sel.Items[0].Expr
	st := &aggState{input: inner, groupKeys: map[string]int{}, aggKeys: map[string]int{}}
	win := &Window{Input: input, Frame: FrameDefault, Out: append([]Column{}, xc...),
		PartitionBy: []expr.Expr{expr.Col(outerCol, xc[outerCol].Name, xc[outerCol].Type)}}
	var collect func(e sql.Expr) bool
	collect = func(e sql.Expr) bool {
		switch n := e.(type) {
		case nil:
			return true
		case *sql.FuncCall:
			if isAggName(n.Name) && n.Over == nil {
				call, err := b.bindAggCall(n, inner, nil)
				if err != nil || call.Distinct || call.Arg == nil {
					return false
				}
				switch call.Func {
				case AggAvg, AggMin, AggMax:
				default:
					return false
				}
				arg, ok := expr.MapColumns(call.Arg, func(c *expr.ColumnRef) expr.Expr {
					i, found := at[inScan.Projection[c.Index]]
					if !found {
						return nil
					}
					return expr.Col(i, xc[i].Name, xc[i].Type)
				})
				if !ok || hasNil(arg) {
					return false
				}
				key := call.String()
				if _, dup := st.aggKeys[key]; !dup {
					st.aggKeys[key] = len(win.Calls)
					win.Calls = append(win.Calls, WindowCall{Func: string(call.Func), Arg: arg, Type: call.Type})
					win.Out = append(win.Out, Column{Name: call.String(), Qualifier: windowQualifier, Type: call.Type, Nullable: true})
				}
				return true
			}
		case *sql.ColumnRef, *sql.Subquery, *sql.Exists, *sql.InExpr, *sql.Star:
			return false // only constants around the aggregates
		}
		for _, c := range children(e) {
			if !collect(c) {
				return false
			}
		}
		return true
	}
	if !collect(item) || len(win.Calls) == 0 {
		return nil, false
	}
	// Bind the item over the window's output: aggregates resolve to the
	// window columns after the input's (aggState's offset is its groups).
	st.groups = make([]expr.Expr, len(xc))
	st.out = win.Out
	v, err := b.bindExpr(item, &scope{cols: win.Out}, st)
	if err != nil {
		return nil, false
	}
	nx := len(xc)
	exprs := make([]expr.Expr, nx+1)
	out := make([]Column, nx+1)
	post := &scope{cols: win.Out}
	for i, c := range xc {
		exprs[i] = expr.Col(i, post.refName(i), c.Type)
		out[i] = c
	}
	exprs[nx] = v
	out[nx] = Column{Name: subqueryColName(nx), Qualifier: subqueryQualifier, Type: v.DataType(), Nullable: true}
	b.scalars[e] = nx
	return &Project{Input: win, Exprs: exprs, Out: out}, true
}

// groupsAsCompares says whether values of t that compare equal are the
// same group key (no floating point: -0 = 0, NaN).
func groupsAsCompares(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DATE32, arrow.DECIMAL128, arrow.STRING, arrow.LARGE_STRING:
		return true
	}
	return false
}

func hasNil(e expr.Expr) bool {
	if e == nil || reflect.ValueOf(e).Kind() == reflect.Pointer && reflect.ValueOf(e).IsNil() {
		return true
	}
	for _, c := range e.Children() {
		if hasNil(c) {
			return true
		}
	}
	return false
}

// origin is where an input column comes from: column col of scan (nil
// for a computed value or another operator's output).
type origin struct {
	scan *Scan
	col  int
	// derived marks a value computed from the table's columns.
	derived bool
}

// winKey is a join key t = other of the table's column t (scan output
// position) and another input's column.
type winKey struct {
	t     int
	other origin
}

// winWalk follows an enclosing input down to the scans of one table.
type winWalk struct {
	table *Scan // the subquery's scan: the table to find
	scan  *Scan // the input's scan of it
	uses  int
	keys  []winKey
}

func (w *winWalk) sameTable(s *Scan) bool {
	t := w.table
	return s.Table != nil && t.Table != nil && s.Catalog == t.Catalog && s.Database == t.Database && s.Table.Name() == t.Table.Name() &&
		reflect.DeepEqual(s.TimeTravel, t.TimeTravel) && reflect.DeepEqual(s.Vars, t.Vars)
}

// walk returns the origins of p's columns; ok is false when p reads the
// table in a way the rewrite cannot keep exact. below says an operator
// other than an inner join, filter or projection lies above p.
func (w *winWalk) walk(p Plan, below bool) ([]origin, bool) {
	cols := len(p.Columns())
	switch n := p.(type) {
	case *Scan:
		if w.sameTable(n) {
			w.uses++
			w.scan = n
			if below || len(n.Projection) != len(n.Out) || len(n.Predicates) > 0 || len(n.OrPredicates) > 0 || len(n.Pruned) > 0 {
				return nil, false
			}
		}
		org := make([]origin, cols)
		for i := range org {
			org[i] = origin{scan: n, col: i}
		}
		return org, true
	case *Filter:
		in, ok := w.walk(n.Input, below)
		if !ok || w.reads(n.Cond, in) {
			return nil, false
		}
		return in, true
	case *Project:
		in, ok := w.walk(n.Input, below)
		if !ok {
			return nil, false
		}
		org := make([]origin, cols)
		for i, e := range n.Exprs {
			if c, isCol := e.(*expr.ColumnRef); isCol && c.Index < len(in) {
				org[i] = in[c.Index]
			} else if w.reads(e, in) {
				org[i] = origin{derived: true}
			}
		}
		return org, true
	case *Join:
		inner := n.Kind == InnerJoin || n.Kind == CrossJoin
		l, ok := w.walk(n.Left, below || !inner)
		if !ok {
			return nil, false
		}
		r, ok := w.walk(n.Right, below || !inner)
		if !ok {
			return nil, false
		}
		both := append(append([]origin{}, l...), r...)
		if n.Residual != nil && w.reads(n.Residual, both) {
			return nil, false
		}
		for i := range n.LeftKeys {
			lk, lt := w.keyCol(n.LeftKeys[i], l)
			rk, rt := w.keyCol(n.RightKeys[i], r)
			switch {
			case !w.reads(n.LeftKeys[i], l) && !w.reads(n.RightKeys[i], r):
			case inner && lt && rk != nil && !rt && lk != nil:
				w.keys = append(w.keys, winKey{t: lk.col, other: *rk})
			case inner && rt && lk != nil && !lt && rk != nil:
				w.keys = append(w.keys, winKey{t: rk.col, other: *lk})
			default:
				return nil, false
			}
		}
		if len(n.Out) == cols && cols == len(both) {
			return both, true
		}
		if cols == len(l) {
			return l, true
		}
		return make([]origin, cols), true
	default:
		for _, c := range p.Children() {
			if _, ok := w.walk(c, true); !ok {
				return nil, false
			}
		}
		return make([]origin, cols), true
	}
}

// reads says whether e reads a column of the table's scan.
func (w *winWalk) reads(e expr.Expr, org []origin) bool {
	for _, c := range columnRefs(e) {
		if c.Index < len(org) && (org[c.Index].derived || w.scan != nil && org[c.Index].scan == w.scan) {
			return true
		}
	}
	return false
}

// keyCol returns the origin of a join key that is a plain scan column
// (nil otherwise) and whether it is the table's, with a type that groups
// as it compares.
func (w *winWalk) keyCol(e expr.Expr, org []origin) (*origin, bool) {
	c, ok := e.(*expr.ColumnRef)
	if !ok || c.Index >= len(org) || org[c.Index].scan == nil || !groupsAsCompares(c.Type) {
		return nil, false
	}
	o := org[c.Index]
	return &o, o.scan == w.scan
}

// columnRefs lists the column references in e.
func columnRefs(e expr.Expr) []*expr.ColumnRef {
	if c, ok := e.(*expr.ColumnRef); ok {
		return []*expr.ColumnRef{c}
	}
	var out []*expr.ColumnRef
	for _, k := range e.Children() {
		out = append(out, columnRefs(k)...)
	}
	return out
}
