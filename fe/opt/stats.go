package opt

import (
	"context"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
)

// colStat is what is known of one output column. ndv 0 is unknown.
type colStat struct {
	ndv      float64
	nullFrac float64
	numeric  bool
	lo, hi   float64
}

// relStat is a node's estimated output. known is false when some table
// below has no row count; rows is then a guess.
type relStat struct {
	rows  float64
	known bool
	cols  []colStat
	// unanalysed: a table below keeps column statistics but has none yet
	// (an internal table before ANALYZE TABLE).
	unanalysed bool
}

// unknownRows stands in for a table without a row count.
const unknownRows = 1000

// Default selectivities where statistics say nothing.
const (
	eqSel    = 0.1
	rangeSel = 1.0 / 3
	likeSel  = 0.1
	otherSel = 1.0 / 3
)

// estimator computes and remembers node estimates.
type estimator struct {
	ctx    context.Context
	memo   map[bind.Plan]*relStat
	tables map[catalog.Table]*catalog.TableStats
}

func newEstimator(ctx context.Context) *estimator {
	return &estimator{ctx: ctx, memo: map[bind.Plan]*relStat{}, tables: map[catalog.Table]*catalog.TableStats{}}
}

func (e *estimator) stats(p bind.Plan) *relStat {
	if s, ok := e.memo[p]; ok {
		return s
	}
	s := e.compute(p)
	for _, c := range p.Children() {
		s.unanalysed = s.unanalysed || e.stats(c).unanalysed
	}
	for i := range s.cols {
		if s.cols[i].ndv > s.rows {
			s.cols[i].ndv = max(s.rows, 1)
		}
	}
	e.memo[p] = s
	return s
}

// EstimateRows is p's estimated row count, for the binder's choices
// between plans (bind.Session.Rows); ok is false when a table below has
// no row count or lacks the column statistics it keeps.
func EstimateRows(ctx context.Context, p bind.Plan) (float64, bool) {
	s := newEstimator(ctx).stats(p)
	return s.rows, s.known && !s.unanalysed
}

func unknownCols(n int) []colStat { return make([]colStat, n) }

func (e *estimator) compute(p bind.Plan) *relStat {
	switch n := p.(type) {
	case *bind.Scan:
		return e.scan(n)
	case *bind.Values:
		return &relStat{rows: float64(len(n.Rows)), known: true, cols: unknownCols(len(n.Out))}
	case *bind.Filter:
		in := e.stats(n.Input)
		return filtered(in, n.Cond)
	case *bind.Project:
		in := e.stats(n.Input)
		out := &relStat{rows: in.rows, known: in.known, cols: make([]colStat, len(n.Exprs))}
		for i, x := range n.Exprs {
			if c, ok := x.(*expr.ColumnRef); ok && c.Index < len(in.cols) {
				out.cols[i] = in.cols[c.Index]
			}
		}
		return out
	case *bind.Aggregate:
		in := e.stats(n.Input)
		out := &relStat{known: in.known, cols: unknownCols(len(n.Out))}
		if len(n.Groups) == 0 {
			out.rows = 1
			return out
		}
		groups := 1.0
		for i, g := range n.Groups {
			cs, ok := colOf(g, in.cols)
			if !ok || cs.ndv == 0 {
				groups = in.rows
				break
			}
			groups *= cs.ndv
			if i < len(out.cols) {
				out.cols[i] = cs
			}
		}
		out.rows = max(math.Min(groups, in.rows), 1)
		return out
	case *bind.Join:
		l, r := e.stats(n.Left), e.stats(n.Right)
		known := l.known && r.known
		switch n.Kind {
		case bind.LeftSemiJoin, bind.LeftAntiJoin, bind.NullAwareAntiJoin:
			// The share of left rows with a match: the right side's
			// distinct keys over the left's, the smaller set of values
			// taken as contained in the larger; a half where unknown.
			share := 0.5
			if len(n.LeftKeys) > 0 {
				share = 1.0
				for i := range n.LeftKeys {
					lc, lok := colOf(n.LeftKeys[i], l.cols)
					rc, rok := colOf(n.RightKeys[i], r.cols)
					if !lok || !rok || lc.ndv == 0 || rc.ndv == 0 {
						share = 0.5
						break
					}
					ln := math.Max(math.Min(lc.ndv, l.rows), 1)
					rn := math.Max(math.Min(rc.ndv, r.rows), 1)
					share = math.Min(share, rn/ln)
				}
				if n.Residual != nil {
					share *= selectivity(n.Residual, append(append([]colStat{}, l.cols...), r.cols...))
				}
			}
			if n.Kind != bind.LeftSemiJoin {
				// Containment guesses which keys exist, not which are
				// missing: keep a tenth at least.
				share = math.Max(1-share, 0.1)
			}
			cols := append([]colStat{}, l.cols...)
			rows := max(l.rows*share, 1)
			return &relStat{rows: rows, known: known, cols: cols}
		}
		cols := append(append([]colStat{}, l.cols...), r.cols...)
		rows := joinRows(l, r, n.LeftKeys, n.RightKeys)
		if n.Residual != nil {
			rows *= selectivity(n.Residual, cols)
		}
		switch n.Kind {
		case bind.LeftJoin:
			rows = math.Max(rows, l.rows)
		case bind.RightJoin:
			rows = math.Max(rows, r.rows)
		case bind.FullJoin:
			rows = math.Max(rows, l.rows+r.rows)
		}
		return &relStat{rows: max(rows, 1), known: known, cols: cols}
	case *bind.Limit:
		in := e.stats(n.Input)
		rows := in.rows
		if n.Count >= 0 {
			rows = math.Min(rows, float64(n.Count))
		}
		return &relStat{rows: rows, known: in.known, cols: in.cols}
	case *bind.Union:
		out := &relStat{known: true, cols: unknownCols(len(n.Out))}
		for _, c := range n.Inputs {
			s := e.stats(c)
			out.rows += s.rows
			out.known = out.known && s.known
		}
		return out
	}
	// Sort, Window, Repeat and the like: as many rows as their first input
	// (Repeat more, but nothing is reordered above it).
	kids := p.Children()
	if len(kids) == 0 {
		return &relStat{rows: unknownRows, cols: unknownCols(len(p.Columns()))}
	}
	in := e.stats(kids[0])
	cols := unknownCols(len(p.Columns()))
	copy(cols, in.cols)
	return &relStat{rows: in.rows, known: in.known, cols: cols}
}

func (e *estimator) scan(n *bind.Scan) *relStat {
	out := &relStat{rows: unknownRows, cols: unknownCols(len(n.Out))}
	if rc, ok := n.Table.(catalog.RowCounter); ok {
		if rows, err := rc.RowCount(e.ctx); err == nil && rows >= 0 {
			out.rows, out.known = float64(rows), true
		}
	}
	ts, seen := e.tables[n.Table]
	if !seen {
		if cs, ok := n.Table.(catalog.ColumnStatser); ok {
			ts, _ = cs.ColumnStats(e.ctx)
		}
		e.tables[n.Table] = ts
	}
	if ts == nil {
		_, out.unanalysed = n.Table.(catalog.ColumnStatser)
		return out
	}
	cols := n.Table.Schema().Columns
	for i, c := range n.Projection {
		if i >= len(out.cols) || c < 0 || c >= len(cols) {
			continue
		}
		cs, ok := ts.Columns[cols[c].Name]
		if !ok || cs.Count == 0 {
			continue
		}
		st := colStat{ndv: float64(max(cs.NDV, 1)), nullFrac: float64(cs.Nulls) / float64(cs.Count)}
		if cs.NDV <= 0 && cs.Nulls < cs.Count {
			// Non-null values but no distinct count: bounds and nulls
			// from a lake's file statistics, which count no distinct
			// values. Unknown, not 1.
			st.ndv = 0
		}
		if cs.Numeric {
			st.numeric, st.lo, st.hi = true, cs.Lo, cs.Hi
		}
		// Rows loaded since ANALYZE: scale the distinct values along (a
		// key grows with the table), never above the rows.
		if ts.Rows > 0 && out.known && out.rows > float64(ts.Rows) && st.ndv > float64(ts.Rows)/2 {
			st.ndv *= out.rows / float64(ts.Rows)
		}
		out.cols[i] = st
	}
	return out
}

// filtered is in after a filter on cond.
func filtered(in *relStat, cond expr.Expr) *relStat {
	sel := selectivity(cond, in.cols)
	out := &relStat{rows: max(in.rows*sel, 1), known: in.known, cols: append([]colStat{}, in.cols...)}
	for _, c := range expr.Conjuncts(cond) {
		if cmp, ok := c.(*expr.CmpExpr); ok && cmp.Op == expr.Eq {
			if col, _, ok := colLit(cmp.L, cmp.R); ok && col.Index < len(out.cols) {
				out.cols[col.Index].ndv = 1
			}
		}
	}
	return out
}

// joinRows is an equi-join's size: |L|·|R| over max NDV per key pair.
func joinRows(l, r *relStat, lk, rk []expr.Expr) float64 {
	sels := make([]float64, len(lk))
	for i := range lk {
		sels[i] = keySel(lk[i], rk[i], l, r)
	}
	// The most selective key in full, the others backed off (see backoff).
	sort.Float64s(sels)
	rows, exp := l.rows*r.rows, 1.0
	for _, s := range sels {
		rows *= math.Pow(s, exp)
		exp /= 2
	}
	return rows
}

// keySel is the selectivity of lk = rk, lk over l's columns, rk over r's.
func keySel(lk, rk expr.Expr, l, r *relStat) float64 {
	lc, lok := colOf(lk, l.cols)
	rc, rok := colOf(rk, r.cols)
	nd := 0.0
	if lok && lc.ndv > 0 {
		nd = lc.ndv
	}
	if rok && rc.ndv > nd {
		nd = rc.ndv
	}
	if nd == 0 {
		// A key of the larger side, as a foreign key joins a primary key.
		nd = math.Max(l.rows, r.rows)
	}
	return 1 / math.Max(nd, 1)
}

// colOf is the statistics of a column reference (through casts between
// numbers, which keep values).
func colOf(x expr.Expr, cols []colStat) (colStat, bool) {
	c, ok := stripCast(x).(*expr.ColumnRef)
	if !ok || c.Index < 0 || c.Index >= len(cols) {
		return colStat{}, false
	}
	return cols[c.Index], true
}

func isNumber(t arrow.DataType) bool {
	return arrow.IsInteger(t.ID()) || arrow.IsFloating(t.ID()) || arrow.IsDecimal(t.ID())
}

func stripCast(x expr.Expr) expr.Expr {
	for {
		c, ok := x.(*expr.CastExpr)
		if !ok || !isNumber(c.To) || !isNumber(c.Arg.DataType()) {
			return x
		}
		x = c.Arg
	}
}

// colLit matches column op literal in either order; flipped reports that
// the literal came first.
func colLit(a, b expr.Expr) (*expr.ColumnRef, *expr.Literal, bool) {
	if c, ok := stripCast(a).(*expr.ColumnRef); ok {
		if l, ok := b.(*expr.Literal); ok && l.Value != nil {
			return c, l, true
		}
	}
	return nil, nil, false
}

// litNumber puts a literal on the number line of the statistics' Lo/Hi.
func litNumber(l *expr.Literal) (float64, bool) {
	switch v := l.Value.(type) {
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case int16:
		return float64(v), true
	case int8:
		return float64(v), true
	case uint64:
		return float64(v), true
	case uint32:
		return float64(v), true
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case arrow.Date32:
		return float64(v), true
	case arrow.Date64:
		return float64(v), true
	case arrow.Timestamp:
		return float64(v), true
	case decimal128.Num:
		if d, ok := l.Type.(*arrow.Decimal128Type); ok {
			return v.ToFloat64(d.Scale), true
		}
	}
	return 0, false
}

// selectivity is the share of rows for which cond is true.
func selectivity(cond expr.Expr, cols []colStat) float64 {
	s := sel(cond, cols)
	return math.Min(math.Max(s, 1e-9), 1)
}

func sel(cond expr.Expr, cols []colStat) float64 {
	switch n := cond.(type) {
	case *expr.LogicExpr:
		if n.Op == expr.AndOp {
			return andSel(n.Args, cols)
		}
		miss := 1.0
		for _, a := range n.Args {
			miss *= 1 - math.Min(sel(a, cols), 1)
		}
		return 1 - miss
	case *expr.NotExpr:
		return 1 - math.Min(sel(n.Arg, cols), 1)
	case *expr.CmpExpr:
		return cmpSel(n, cols)
	case *expr.InExpr:
		s := math.Min(float64(len(n.List))*eqSel, 1)
		if cs, ok := colOf(n.Arg, cols); ok && cs.ndv > 0 {
			s = math.Min(float64(len(n.List))/cs.ndv, 1)
		}
		if n.Negated {
			return 1 - s
		}
		return s
	case *expr.IsNullExpr:
		nf := eqSel
		if cs, ok := colOf(n.Arg, cols); ok && cs.ndv > 0 {
			nf = cs.nullFrac
		}
		if n.Negated {
			return 1 - nf
		}
		return nf
	case *expr.LikeExpr:
		if n.Negated {
			return 1 - likeSel
		}
		return likeSel
	case *expr.Literal:
		if b, ok := n.Value.(bool); ok && b {
			return 1
		}
		return 0
	}
	return otherSel
}

// andSel multiplies the conjuncts' selectivities, after merging the
// bounds each puts on one column into one range (BETWEEN, >= AND <).
func andSel(args []expr.Expr, cols []colStat) float64 {
	type bounds struct{ lo, hi float64 }
	ranges := map[int]*bounds{}
	s := 1.0
	for _, a := range args {
		if c, ok := a.(*expr.CmpExpr); ok && c.Op >= expr.Lt && c.Op <= expr.Ge {
			col, lit, op, ok := orient(c)
			if ok {
				cs := cols[col.Index]
				if v, vok := litNumber(lit); vok && cs.numeric && cs.hi > cs.lo {
					b := ranges[col.Index]
					if b == nil {
						b = &bounds{cs.lo, cs.hi}
						ranges[col.Index] = b
					}
					switch op {
					case expr.Lt, expr.Le:
						b.hi = math.Min(b.hi, v)
					default:
						b.lo = math.Max(b.lo, v)
					}
					continue
				}
			}
		}
		s *= sel(a, cols)
	}
	for i, b := range ranges {
		cs := cols[i]
		s *= math.Max(b.hi-b.lo, 0) / (cs.hi - cs.lo) * (1 - cs.nullFrac)
	}
	return s
}

// orient is a comparison as column op literal.
func orient(c *expr.CmpExpr) (*expr.ColumnRef, *expr.Literal, expr.CmpOp, bool) {
	if col, lit, ok := colLit(c.L, c.R); ok {
		return col, lit, c.Op, true
	}
	if col, lit, ok := colLit(c.R, c.L); ok {
		flip := map[expr.CmpOp]expr.CmpOp{expr.Lt: expr.Gt, expr.Le: expr.Ge, expr.Gt: expr.Lt, expr.Ge: expr.Le, expr.Eq: expr.Eq, expr.Ne: expr.Ne, expr.NullSafeEq: expr.NullSafeEq}
		return col, lit, flip[c.Op], true
	}
	return nil, nil, 0, false
}

func cmpSel(c *expr.CmpExpr, cols []colStat) float64 {
	col, lit, op, ok := orient(c)
	if !ok || col.Index >= len(cols) {
		if c.Op == expr.Eq || c.Op == expr.NullSafeEq {
			// column = column of one input.
			l, lok := colOf(c.L, cols)
			r, rok := colOf(c.R, cols)
			if lok && rok && math.Max(l.ndv, r.ndv) > 0 {
				return 1 / math.Max(l.ndv, r.ndv)
			}
			return eqSel
		}
		if c.Op == expr.Ne {
			return 1 - eqSel
		}
		return rangeSel
	}
	cs := cols[col.Index]
	switch op {
	case expr.Eq, expr.NullSafeEq:
		if cs.ndv > 0 {
			if v, ok := litNumber(lit); ok && cs.numeric && (v < cs.lo || v > cs.hi) {
				return 0
			}
			return (1 - cs.nullFrac) / cs.ndv
		}
		return eqSel
	case expr.Ne:
		if cs.ndv > 0 {
			return (1 - cs.nullFrac) * (1 - 1/cs.ndv)
		}
		return 1 - eqSel
	}
	v, ok := litNumber(lit)
	if !ok || !cs.numeric || cs.hi <= cs.lo {
		return rangeSel
	}
	var share float64
	switch op {
	case expr.Lt, expr.Le:
		share = (v - cs.lo) / (cs.hi - cs.lo)
	default:
		share = (cs.hi - v) / (cs.hi - cs.lo)
	}
	return math.Min(math.Max(share, 0), 1) * (1 - cs.nullFrac)
}
