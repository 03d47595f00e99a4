package bind

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// windowQualifier marks the hidden columns window functions add to a
// block's scope.
const windowQualifier = "\x00window"

// WindowCall is one analytic function; Arg is nil for COUNT(*) and the
// ranking functions.
type WindowCall struct {
	// Func is row_number, rank, dense_rank, count, sum, avg, min, max, lag,
	// lead, first_value or last_value.
	Func string
	Arg  expr.Expr
	Star bool // count(*)
	Type arrow.DataType
	// Offset and Default are LAG/LEAD's distance (0: the default, 1) and
	// value outside the partition (nil: NULL).
	Offset  int64
	Default expr.Expr
}

// Frame is a window frame the executor supports.
type Frame int

// Window frames.
const (
	// FrameDefault: with ORDER BY, from the partition start to the current
	// row and its peers (RANGE); without, the whole partition.
	FrameDefault Frame = iota
	// FrameRowsToCurrent: ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
	FrameRowsToCurrent
	// FrameWholePartition: BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING.
	FrameWholePartition
)

func (f Frame) String() string {
	return [...]string{"default", "rows-to-current", "whole-partition"}[f]
}

// frameOf maps a written frame onto the supported ones.
func frameOf(fr *sql.Frame, ordered bool) (Frame, error) {
	if fr == nil {
		return FrameDefault, nil
	}
	start, end := fr.Start, fr.End
	if end == nil {
		end = &sql.FrameBound{Kind: sql.CurrentRow}
	}
	if start == nil || start.Kind != sql.UnboundedPreceding {
		return 0, errorf(ErrUnsupported, "window frames other than UNBOUNDED PRECEDING to CURRENT ROW or UNBOUNDED FOLLOWING")
	}
	switch end.Kind {
	case sql.UnboundedFollowing:
		return FrameWholePartition, nil
	case sql.CurrentRow:
		if fr.Unit == sql.FrameRows {
			return FrameRowsToCurrent, nil
		}
		return FrameDefault, nil
	}
	return 0, errorf(ErrUnsupported, "window frames other than UNBOUNDED PRECEDING to CURRENT ROW or UNBOUNDED FOLLOWING")
}

// Window computes analytic functions over one window specification (the
// default frame). Output is the input columns then one per call.
type Window struct {
	Input       Plan
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Frame       Frame
	Calls       []WindowCall
	Out         []Column
}

func (w *Window) Columns() []Column { return w.Out }
func (w *Window) Children() []Plan  { return []Plan{w.Input} }

// planWindows adds a Window node per distinct OVER (...) specification used
// by the select list and ORDER BY, over the given input and scope, and
// records in b.windows where each call's value is.
func (b *Binder) planWindows(input Plan, sc *scope, st *aggState, exprs []sql.Expr) (Plan, *scope, error) {
	var calls []*sql.FuncCall
	var find func(e sql.Expr)
	find = func(e sql.Expr) {
		if e == nil {
			return
		}
		if fc, ok := e.(*sql.FuncCall); ok && fc.Over != nil {
			calls = append(calls, fc)
			return
		}
		for _, c := range children(e) {
			find(c)
		}
	}
	for _, e := range exprs {
		find(e)
	}
	if len(calls) == 0 {
		return input, sc, nil
	}
	type spec struct {
		w     *Window
		calls []*sql.FuncCall
	}
	var specs []*spec
	byKey := map[string]*spec{}
	for _, fc := range calls {
		frame, err := frameOf(fc.Over.Frame, len(fc.Over.OrderBy) > 0)
		if err != nil {
			return nil, nil, err
		}
		var parts []expr.Expr
		for _, p := range fc.Over.PartitionBy {
			e, err := b.bindExpr(p, sc, st)
			if err != nil {
				return nil, nil, err
			}
			parts = append(parts, e)
		}
		var keys []SortKey
		for _, o := range fc.Over.OrderBy {
			e, err := b.bindExpr(o.Expr, sc, st)
			if err != nil {
				return nil, nil, err
			}
			keys = append(keys, sortKey(e, o))
		}
		k := exprStrings(parts) + "|" + sortKeyStrings(keys) + "|" + frame.String()
		sp := byKey[k]
		if sp == nil {
			sp = &spec{w: &Window{PartitionBy: parts, OrderBy: keys, Frame: frame}}
			byKey[k] = sp
			specs = append(specs, sp)
		}
		sp.calls = append(sp.calls, fc)
	}
	if b.windows == nil {
		b.windows = map[*sql.FuncCall]int{}
	}
	for _, sp := range specs {
		w := sp.w
		w.Input = input
		w.Out = append([]Column{}, input.Columns()...)
		for _, fc := range sp.calls {
			call, err := b.bindWindowCall(fc, sc, st)
			if err != nil {
				return nil, nil, err
			}
			w.Calls = append(w.Calls, call)
			w.Out = append(w.Out, Column{Name: fc.String(), Qualifier: windowQualifier, Type: call.Type, Nullable: true})
			b.windows[fc] = len(w.Out) - 1
		}
		input = w
	}
	return input, &scope{cols: input.Columns()}, nil
}

func (b *Binder) bindWindowCall(fc *sql.FuncCall, sc *scope, st *aggState) (WindowCall, error) {
	name := strings.ToLower(fc.Name)
	switch name {
	case "row_number", "rank", "dense_rank":
		if len(fc.Args) > 0 || fc.Star {
			return WindowCall{}, errorf(ErrAnalysis, "%s() takes no arguments", name)
		}
		return WindowCall{Func: name, Type: expr.Int64T()}, nil
	case "lag", "lead", "first_value", "last_value":
		return b.bindValueCall(name, fc, sc, st)
	case "count", "sum", "avg", "min", "max":
	default:
		return WindowCall{}, errorf(ErrUnsupported, "window function %s", name)
	}
	if fc.Distinct {
		return WindowCall{}, errorf(ErrUnsupported, "DISTINCT in window function %s", name)
	}
	if fc.Star {
		if name != "count" {
			return WindowCall{}, errorf(ErrAnalysis, "%s(*)", name)
		}
		return WindowCall{Func: name, Star: true, Type: expr.Int64T()}, nil
	}
	// Type the argument like the aggregate of the same name, binding it in
	// the window's scope.
	call, err := b.bindAggCall(&sql.FuncCall{Name: fc.Name, Args: fc.Args}, &scope{cols: sc.cols}, st)
	if err != nil {
		return WindowCall{}, err
	}
	return WindowCall{Func: name, Arg: call.Arg, Type: call.Type}, nil
}

func exprStrings(es []expr.Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.String()
	}
	return strings.Join(s, ",")
}

func sortKeyStrings(ks []SortKey) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ",")
}

// bindValueCall binds LAG/LEAD(x [, offset [, default]]) and
// FIRST_VALUE/LAST_VALUE(x).
func (b *Binder) bindValueCall(name string, fc *sql.FuncCall, sc *scope, st *aggState) (WindowCall, error) {
	max := 1
	if name == "lag" || name == "lead" {
		max = 3
	}
	if fc.Star || fc.Distinct || len(fc.Args) < 1 || len(fc.Args) > max {
		return WindowCall{}, errorf(ErrAnalysis, "%s takes 1 to %d arguments", name, max)
	}
	arg, err := b.bindExpr(fc.Args[0], sc, st)
	if err != nil {
		return WindowCall{}, err
	}
	if arg.DataType().ID() == arrow.NULL {
		if arg, err = expr.Cast(arg, expr.StringT()); err != nil {
			return WindowCall{}, err
		}
	}
	call := WindowCall{Func: name, Arg: arg, Type: arg.DataType()}
	if len(fc.Args) > 1 {
		lit, ok := fc.Args[1].(*sql.Literal)
		if !ok || lit.Kind != sql.LitInt {
			return WindowCall{}, errorf(ErrAnalysis, "%s offset must be a non-negative integer constant", name)
		}
		n, err := strconv.ParseInt(lit.Value, 10, 64)
		if err != nil || n < 0 {
			return WindowCall{}, errorf(ErrAnalysis, "%s offset must be a non-negative integer constant", name)
		}
		call.Offset = n
	}
	if len(fc.Args) > 2 {
		d, err := b.bindExpr(fc.Args[2], sc, st)
		if err != nil {
			return WindowCall{}, err
		}
		call.Default = d
	}
	return call, nil
}
