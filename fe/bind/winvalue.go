package bind

import (
	"reflect"
	"strconv"

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
// TPC-H Q2 is the same with a joined FROM: min(ps_supplycost) over
// partsupp, supplier, nation and region of Europe per part, whose
// enclosing query joins the same four tables under the same conditions to
// the filtered parts.
//
// Exact when (windowValue checks each):
//   - the subquery's FROM F is inner joins and filters over tables read
//     once each, its WHERE one equality of an F column c and an enclosing
//     column x besides conditions among F's tables (none constant);
//   - its item is avg, min or max calls (no DISTINCT) over F's columns in
//     an expression of constants: each partition holds every F row with
//     c = v the same number of times (once per row of the rest with the
//     key v), which leaves these three unchanged (sum and count would
//     multiply);
//   - the enclosing input reads each of F's tables once (the same read:
//     time travel, variables), through inner joins, filters and
//     projections only; the conditions that read only those tables are
//     F's, as a multiset of texts naming table and column; every other
//     condition that reads them is a join key c = y with y a plain column
//     of another table, of one type that compares as it groups (no
//     floating point); at least one such key exists, so c is never NULL
//     in an input row;
//   - x is c itself or such a y, so x = c on every input row and the
//     partition by x is the subquery's correlation;
//   - (for speed, not exactness) the input is estimated at a tenth of F's
//     rows or less.
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
	ib, err := b.bindInner(sel)
	if err != nil || len(ib.corr) != 1 {
		return nil, false
	}
	mp, ok := ib.plan.(*Project)
	if !ok {
		return nil, false
	}
	innerPlan := mp.Input
	// Few enclosing rows against the subquery's FROM: sorting them into
	// partitions costs less than reading the FROM again. Many (Q17 over
	// most parts) made the window twice the memory and half again the CPU.
	if b.sess.Rows == nil {
		return nil, false
	}
	nIn, ok1 := b.sess.Rows(input)
	nT, ok2 := b.sess.Rows(innerPlan)
	if !ok1 || !ok2 || nIn*windowMinRatio > nT {
		return nil, false
	}
	// The subquery's FROM: its tables, each read once through inner joins
	// and filters, and its conditions.
	iw := &winWalk{inner: true, tables: map[string]*Scan{}}
	iorg, ok := iw.walk(innerPlan, false)
	if !ok || iw.mixed {
		return nil, false
	}
	xc := input.Columns()
	inner := &scope{cols: innerPlan.Columns()}
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
	corr, ok := iw.ident(iorg[innerCol])
	if !ok {
		return nil, false
	}
	// The enclosing input's reads of those tables: the same conditions
	// among them, and only corr = y to the rest.
	w := &winWalk{tables: iw.tables, corr: corr, seen: map[string]bool{}}
	org, ok := w.walk(input, false)
	if !ok || len(w.seen) != len(iw.tables) || len(w.keys) == 0 || !sameConds(w.conds, iw.conds) {
		return nil, false
	}
	okX := false
	if id, isS := w.ident(org[outerCol]); isS && id == corr {
		okX = true
	}
	for _, k := range w.keys {
		if org[outerCol] == k {
			okX = true
		}
	}
	if !okX {
		return nil, false
	}
	// The FROM's columns in the input, by table column.
	at := map[string]int{}
	for i, o := range org {
		if id, isS := w.ident(o); isS {
			if _, dup := at[id]; !dup {
				at[id] = i
			}
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
					id, isS := iw.ident(iorg[c.Index])
					i, found := at[id]
					if !isS || !found {
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
	// derived marks a value computed from the FROM's tables' columns.
	derived bool
}

// winWalk follows a plan down to the scans of the subquery's FROM tables.
// Over the subquery's own FROM (inner) it records every table and every
// condition; over the enclosing input it finds those tables (each once,
// the same read) and sorts the conditions that read them into those among
// them (conds, compared with the FROM's) and corr = y keys to the rest.
type winWalk struct {
	inner  bool
	tables map[string]*Scan // by tableKey: the FROM's scans
	corr   string           // the correlation column's ident
	seen   map[string]bool
	conds  map[string]int // canonical conditions among the tables
	keys   []origin       // y of each corr = y key
	mixed  bool           // a condition reads the tables and anything else
}

func tableKey(s *Scan) string {
	if s.Table == nil {
		return ""
	}
	return s.Catalog + "\x00" + s.Database + "\x00" + s.Table.Name()
}

// ident names a column of one of the tables: its table and table column.
func (w *winWalk) ident(o origin) (string, bool) {
	if o.scan == nil || o.derived || o.col >= len(o.scan.Projection) {
		return "", false
	}
	k := tableKey(o.scan)
	if s, ok := w.tables[k]; !ok || s != o.scan && w.inner {
		return "", false
	} else if !w.inner && (!reflect.DeepEqual(s.TimeTravel, o.scan.TimeTravel) || !reflect.DeepEqual(s.Vars, o.scan.Vars)) {
		// Scan predicates are skipping hints (the filters above hold the
		// conditions, compared as such): they may differ.
		return "", false
	}
	return k + "." + strconv.Itoa(o.scan.Projection[o.col]), true
}

// mine says whether o is (computed from) a column of the tables.
func (w *winWalk) mine(o origin) bool {
	if o.derived {
		return true
	}
	if o.scan == nil {
		return false
	}
	_, ok := w.tables[tableKey(o.scan)]
	return ok
}

// canon prints e with each column as its ident; ok is false when e reads
// a column outside the tables (or computed).
func (w *winWalk) canon(e expr.Expr, org []origin) (string, bool) {
	bad := false
	m, ok := expr.MapColumns(e, func(c *expr.ColumnRef) expr.Expr {
		if c.Index >= len(org) {
			bad = true
			return c
		}
		id, isS := w.ident(org[c.Index])
		if !isS {
			bad = true
			return c
		}
		return expr.Col(0, id, c.Type)
	})
	if !ok || bad || expr.Volatile(e) {
		return "", false
	}
	return m.String() + " " + e.DataType().String(), true
}

// reads says whether e reads a column of the tables.
func (w *winWalk) reads(e expr.Expr, org []origin) bool {
	for _, c := range columnRefs(e) {
		if c.Index < len(org) && w.mine(org[c.Index]) {
			return true
		}
	}
	return false
}

// cond records a condition (a filter conjunct or join residual) that
// reads the tables; only one among them alone is accepted.
func (w *winWalk) cond(e expr.Expr, org []origin) bool {
	for _, c := range expr.Conjuncts(e) {
		if w.inner && len(columnRefs(c)) == 0 {
			return false // a constant of the FROM's own (WHERE 1 = 0)
		}
		if !w.reads(c, org) {
			continue
		}
		k, ok := w.canon(c, org)
		if !ok {
			w.mixed = true
			return false
		}
		w.addCond(k)
	}
	return true
}

func (w *winWalk) addCond(k string) {
	if w.conds == nil {
		w.conds = map[string]int{}
	}
	w.conds[k]++
}

// key records a join key l = r: among the tables (as a condition, sides
// in a fixed order), or corr = y with y a plain column of the rest.
func (w *winWalk) key(l, r expr.Expr, lo, ro []origin) bool {
	lr, rr := w.reads(l, lo), w.reads(r, ro)
	if !lr && !rr {
		return true
	}
	lk, lok := w.canon(l, lo)
	rk, rok := w.canon(r, ro)
	if lok && rok {
		if rk < lk {
			lk, rk = rk, lk
		}
		w.addCond(lk + " = " + rk)
		return true
	}
	if w.inner {
		return false
	}
	// corr = y: one side the correlation column, the other a plain
	// column of a table outside, of a type that groups as it compares.
	for _, p := range [][4]any{{l, lo, r, ro}, {r, ro, l, lo}} {
		sc, ok1 := p[0].(*expr.ColumnRef)
		yc, ok2 := p[2].(*expr.ColumnRef)
		so, yo := p[1].([]origin), p[3].([]origin)
		if !ok1 || !ok2 || sc.Index >= len(so) || yc.Index >= len(yo) || !groupsAsCompares(sc.Type) || !arrow.TypeEqual(sc.Type, yc.Type) {
			continue
		}
		id, isS := w.ident(so[sc.Index])
		y := yo[yc.Index]
		if isS && id == w.corr && y.scan != nil && !w.mine(y) {
			w.keys = append(w.keys, y)
			return true
		}
	}
	w.mixed = true
	return false
}

// walk returns the origins of p's columns; ok is false when p reads the
// tables in a way the rewrite cannot keep exact. below says an operator
// other than an inner join, filter or projection lies above p.
func (w *winWalk) walk(p Plan, below bool) ([]origin, bool) {
	cols := len(p.Columns())
	switch n := p.(type) {
	case *Scan:
		k := tableKey(n)
		if w.inner {
			if _, dup := w.tables[k]; dup || k == "" {
				return nil, false
			}
			w.tables[k] = n
		}
		if _, ok := w.tables[k]; ok {
			if !w.inner {
				if w.seen[k] {
					return nil, false
				}
				w.seen[k] = true
			}
			if below || len(n.Projection) != len(n.Out) || len(n.Pruned) > 0 {
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
		if !ok || !w.cond(n.Cond, in) {
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
		innerJoin := n.Kind == InnerJoin || n.Kind == CrossJoin
		if w.inner && !innerJoin {
			return nil, false
		}
		l, ok := w.walk(n.Left, below || !innerJoin)
		if !ok {
			return nil, false
		}
		r, ok := w.walk(n.Right, below || !innerJoin)
		if !ok {
			return nil, false
		}
		both := append(append([]origin{}, l...), r...)
		if n.Residual != nil && !w.cond(n.Residual, both) {
			return nil, false
		}
		for i := range n.LeftKeys {
			if !w.key(n.LeftKeys[i], n.RightKeys[i], l, r) {
				return nil, false
			}
		}
		if cols == len(both) {
			return both, true
		}
		if cols == len(l) {
			return l, true
		}
		return make([]origin, cols), true
	default:
		if w.inner {
			return nil, false
		}
		for _, c := range p.Children() {
			if _, ok := w.walk(c, true); !ok {
				return nil, false
			}
		}
		return make([]origin, cols), true
	}
}

// sameConds compares two multisets of canonical conditions.
func sameConds(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	return true
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
