package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/fe/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// windowQualifier marks the hidden columns window functions add to a
// block's scope.
const windowQualifier = "\x00window"

// WindowCall is one analytic function; Arg is nil for COUNT(*) and the
// ranking functions.
type WindowCall struct {
	Func string // row_number, rank, dense_rank, count, sum, avg, min, max
	Arg  expr.Expr
	Star bool // count(*)
	Type arrow.DataType
}

// Window computes analytic functions over one window specification (the
// default frame). Output is the input columns then one per call.
type Window struct {
	Input       Plan
	PartitionBy []expr.Expr
	OrderBy     []SortKey
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
		if fc.Over.Frame != nil {
			return nil, nil, errorf(ErrUnsupported, "window frames (ROWS/RANGE ...) in %s; only the default frame is supported", fc)
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
		k := exprStrings(parts) + "|" + sortKeyStrings(keys)
		sp := byKey[k]
		if sp == nil {
			sp = &spec{w: &Window{PartitionBy: parts, OrderBy: keys}}
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
