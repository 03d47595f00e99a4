package bind

import (
	"fmt"
	"math"
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
	// Func is row_number, rank, dense_rank, ntile, percent_rank, cume_dist,
	// count, sum, avg, min, max, a stddev/variance name, lag, lead,
	// first_value or last_value. Offset is also ntile's bucket count.
	Func string
	Arg  expr.Expr
	Star bool // count(*)
	Type arrow.DataType
	// Offset and Default are LAG/LEAD's distance (0: the default, 1) and
	// value outside the partition (nil: NULL).
	Offset  int64
	Default expr.Expr
	// IgnoreNulls makes FIRST_VALUE, LAST_VALUE and NTH_VALUE skip NULLs
	// (IGNORE NULLS, or Doris's second argument true).
	IgnoreNulls bool
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
	// FrameRows: ROWS BETWEEN Window.RowsFrom AND Window.RowsTo, offsets
	// from the current row (RowsUnbounded for an unbounded end).
	FrameRows
	// FrameRange: RANGE BETWEEN Window.RangeFrom AND Window.RangeTo over
	// one numeric key.
	FrameRange
)

// RowsUnbounded marks an unbounded end of a FrameRows frame.
const RowsUnbounded = math.MaxInt64

func (f Frame) String() string {
	return [...]string{"default", "rows-to-current", "whole-partition", "rows", "range"}[f]
}

// frameOf maps a written frame onto the supported ones; for FrameRows it
// also returns the bounds.
func frameOf(fr *sql.Frame, ordered bool) (Frame, int64, int64, error) {
	if fr == nil {
		return FrameDefault, 0, 0, nil
	}
	start, end := fr.Start, fr.End
	if end == nil {
		end = &sql.FrameBound{Kind: sql.CurrentRow}
	}
	if start == nil {
		return 0, 0, 0, errorf(ErrAnalysis, "window frame without a start")
	}
	if start.Kind == sql.UnboundedPreceding {
		switch end.Kind {
		case sql.UnboundedFollowing:
			return FrameWholePartition, 0, 0, nil
		case sql.CurrentRow:
			if fr.Unit == sql.FrameRows {
				return FrameRowsToCurrent, 0, 0, nil
			}
			return FrameDefault, 0, 0, nil
		}
	}
	if start.Kind == sql.UnboundedFollowing {
		return 0, 0, 0, errorf(ErrAnalysis, "a window frame cannot start at UNBOUNDED FOLLOWING")
	}
	if end.Kind == sql.UnboundedPreceding {
		return 0, 0, 0, errorf(ErrAnalysis, "a window frame cannot end at UNBOUNDED PRECEDING")
	}
	if fr.Unit != sql.FrameRows {
		return FrameRange, 0, 0, nil // bounds: rangeOffsets
	}
	from, err := rowsOffset(start)
	if err != nil {
		return 0, 0, 0, err
	}
	to, err := rowsOffset(end)
	if err != nil {
		return 0, 0, 0, err
	}
	return FrameRows, from, to, nil
}

// rangeOffsets are the bounds of a RANGE frame as offsets from the current
// row's key (±Inf for unbounded ends). With an offset, the one ORDER BY
// key must be of a numeric type and the offsets numeric constants; bounds
// that are only CURRENT ROW and UNBOUNDED follow the peer groups, over any
// keys.
func rangeOffsets(fr *sql.Frame, keys []SortKey) (float64, float64, error) {
	end := fr.End
	if end == nil {
		end = &sql.FrameBound{Kind: sql.CurrentRow}
	}
	if fr.Start.Offset == nil && end.Offset == nil {
		from, to := 0.0, 0.0
		if fr.Start.Kind == sql.UnboundedPreceding {
			from = math.Inf(-1)
		}
		if end.Kind == sql.UnboundedFollowing {
			to = math.Inf(1)
		}
		return from, to, nil
	}
	if len(keys) != 1 {
		return 0, 0, errorf(ErrAnalysis, "a RANGE frame with an offset needs exactly one ORDER BY key")
	}
	// The executor compares keys in the key's own units: numbers as they
	// are, a DECIMAL(p,s) as its unscaled integer (offsets times 10^s, so
	// 0.1 + 0.2 is exact), a DATE in days and a DATETIME in microseconds,
	// with INTERVAL offsets as MySQL requires for temporal keys.
	t := keys[0].Expr.DataType()
	var scale float64
	temporal := false
	switch {
	case isIntegral(t) || t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64:
		scale = 1
	case t.ID() == arrow.DECIMAL128 && !expr.IsLargeInt(t):
		scale = math.Pow10(int(t.(*arrow.Decimal128Type).Scale))
	case t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP:
		temporal = true
	default:
		return 0, 0, errorf(ErrUnsupported, "RANGE frames with an offset over a %s ORDER BY key (numeric, decimal, date and datetime keys only)", expr.TypeName(t))
	}
	off := func(b *sql.FrameBound) (float64, error) {
		switch b.Kind {
		case sql.UnboundedPreceding:
			return math.Inf(-1), nil
		case sql.UnboundedFollowing:
			return math.Inf(1), nil
		case sql.CurrentRow:
			return 0, nil
		}
		var v float64
		var err error
		if temporal {
			v, err = intervalOffset(b.Offset, t.ID() == arrow.DATE32)
		} else {
			v, err = numericOffset(b.Offset)
			v *= scale
		}
		if err != nil {
			return 0, err
		}
		if b.Kind == sql.Preceding {
			return -v, nil
		}
		return v, nil
	}
	from, err := off(fr.Start)
	if err != nil {
		return 0, 0, err
	}
	to, err := off(end)
	return from, to, err
}

// numericOffset is the value of a RANGE offset over a numeric key: a
// non-negative numeric constant.
func numericOffset(e sql.Expr) (float64, error) {
	lit, ok := e.(*sql.Literal)
	if !ok || (lit.Kind != sql.LitInt && lit.Kind != sql.LitDecimal && lit.Kind != sql.LitFloat) {
		return 0, errorf(ErrUnsupported, "a RANGE frame offset must be a non-negative numeric constant, got %v", e)
	}
	v, err := strconv.ParseFloat(lit.Value, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, errorf(ErrAnalysis, "RANGE frame offset %s is out of range", lit.Value)
	}
	return v, nil
}

// intervalUnits are the fixed-length INTERVAL units of a RANGE offset over
// a date or datetime key, in microseconds.
var intervalUnits = map[string]float64{
	"MICROSECOND": 1, "SECOND": 1e6, "MINUTE": 60e6, "HOUR": 3600e6, "DAY": 86400e6, "WEEK": 7 * 86400e6,
}

// intervalOffset is a RANGE offset over a DATE (in days) or DATETIME (in
// microseconds) key: INTERVAL n unit, n a non-negative constant. Months
// and years have no fixed length in days, so they are refused by name.
func intervalOffset(e sql.Expr, days bool) (float64, error) {
	iv, ok := e.(*sql.Interval)
	if !ok {
		return 0, errorf(ErrAnalysis, "a RANGE frame offset over a date or datetime ORDER BY key must be an INTERVAL, got %v", e)
	}
	unit := strings.ToUpper(iv.Unit)
	us, ok := intervalUnits[unit]
	if !ok {
		return 0, errorf(ErrUnsupported, "a RANGE frame offset in %s (only MICROSECOND, SECOND, MINUTE, HOUR, DAY and WEEK have a fixed length)", unit)
	}
	n, err := numericOffset(iv.Value)
	if err != nil {
		return 0, err
	}
	v := n * us
	if days {
		// A date key moves in whole days: a part of a day reaches no
		// other date on either side.
		v = math.Floor(v / 86400e6)
	}
	return v, nil
}

// rowsOffset is a ROWS bound as an offset from the current row.
func rowsOffset(b *sql.FrameBound) (int64, error) {
	switch b.Kind {
	case sql.UnboundedPreceding, sql.UnboundedFollowing:
		return RowsUnbounded, nil
	case sql.CurrentRow:
		return 0, nil
	}
	lit, ok := b.Offset.(*sql.Literal)
	if !ok || lit.Kind != sql.LitInt {
		return 0, errorf(ErrAnalysis, "a ROWS frame offset must be a non-negative integer constant, got %v", b.Offset)
	}
	n, err := strconv.ParseInt(lit.Value, 10, 64)
	if err != nil || n < 0 || n >= RowsUnbounded/2 {
		return 0, errorf(ErrAnalysis, "ROWS frame offset %s is out of range", lit.Value)
	}
	if b.Kind == sql.Preceding {
		return -n, nil
	}
	return n, nil
}

// Window computes analytic functions over one window specification (the
// default frame). Output is the input columns then one per call.
type Window struct {
	Input       Plan
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Frame       Frame
	// RowsFrom and RowsTo bound a FrameRows frame; RangeFrom and RangeTo a
	// FrameRange frame (offsets from the key, ±Inf when unbounded).
	RowsFrom, RowsTo   int64
	RangeFrom, RangeTo float64
	Calls              []WindowCall
	Out                []Column
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
		frame, from, to, err := frameOf(fc.Over.Frame, len(fc.Over.OrderBy) > 0)
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
		var rfrom, rto float64
		if frame == FrameRange {
			if rfrom, rto, err = rangeOffsets(fc.Over.Frame, keys); err != nil {
				return nil, nil, err
			}
		}
		k := exprStrings(parts) + "|" + sortKeyStrings(keys) + "|" + frame.String() + fmt.Sprintf("(%d,%d,%v,%v)", from, to, rfrom, rto)
		sp := byKey[k]
		if sp == nil {
			sp = &spec{w: &Window{PartitionBy: parts, OrderBy: keys, Frame: frame, RowsFrom: from, RowsTo: to, RangeFrom: rfrom, RangeTo: rto}}
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
	case "lag", "lead", "first_value", "last_value", "nth_value":
		return b.bindValueCall(name, fc, sc, st)
	case "ntile", "percent_rank", "cume_dist":
		return bindDistributionCall(name, fc)
	case "count", "sum", "avg", "min", "max":
	default:
		if isStatAggName(name) {
			return b.bindStatWindowCall(name, fc, sc, st)
		}
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

// bindValueCall binds LAG/LEAD(x [, offset [, default]]),
// FIRST_VALUE/LAST_VALUE(x [, ignore_null]) (Doris's constant second
// argument; IGNORE NULLS says the same) and NTH_VALUE(x, n).
func (b *Binder) bindValueCall(name string, fc *sql.FuncCall, sc *scope, st *aggState) (WindowCall, error) {
	max := 1
	switch name {
	case "lag", "lead":
		max = 3
	case "first_value", "last_value":
		max = 2
	case "nth_value":
		if len(fc.Args) != 2 {
			return WindowCall{}, errorf(ErrAnalysis, "nth_value takes 2 arguments")
		}
		max = 2
	}
	if fc.Star || fc.Distinct || len(fc.Args) < 1 || len(fc.Args) > max {
		return WindowCall{}, errorf(ErrAnalysis, "%s takes 1 to %d arguments", name, max)
	}
	if fc.IgnoreNulls && name != "first_value" && name != "last_value" && name != "nth_value" {
		return WindowCall{}, errorf(ErrAnalysis, "IGNORE NULLS is only allowed with FIRST_VALUE, LAST_VALUE and NTH_VALUE")
	}
	ignore := fc.IgnoreNulls
	if (name == "first_value" || name == "last_value") && len(fc.Args) == 2 {
		lit, ok := fc.Args[1].(*sql.Literal)
		if !ok || lit.Kind != sql.LitBool && lit.Kind != sql.LitInt {
			return WindowCall{}, errorf(ErrAnalysis, "%s: the second argument (ignore nulls) must be a boolean constant", name)
		}
		ignore = ignore || strings.EqualFold(lit.Value, "TRUE") || lit.Kind == sql.LitInt && lit.Value != "0"
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
	call := WindowCall{Func: name, Arg: arg, Type: arg.DataType(), IgnoreNulls: ignore}
	if name == "nth_value" {
		lit, ok := fc.Args[1].(*sql.Literal)
		var n int64
		var err error
		if ok && lit.Kind == sql.LitInt {
			n, err = strconv.ParseInt(lit.Value, 10, 64)
		}
		if !ok || lit.Kind != sql.LitInt || err != nil || n <= 0 {
			return WindowCall{}, errorf(ErrAnalysis, "nth_value: the row number must be a positive integer constant, got %v", fc.Args[1])
		}
		call.Offset = n
		return call, nil
	}
	if len(fc.Args) > 1 && name != "first_value" && name != "last_value" {
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

// bindDistributionCall binds NTILE(n) (n a positive integer constant, as
// Doris requires), PERCENT_RANK() and CUME_DIST().
func bindDistributionCall(name string, fc *sql.FuncCall) (WindowCall, error) {
	if name != "ntile" {
		if len(fc.Args) > 0 || fc.Star || fc.Distinct {
			return WindowCall{}, errorf(ErrAnalysis, "%s() takes no arguments", name)
		}
		return WindowCall{Func: name, Type: expr.Float64T()}, nil
	}
	if len(fc.Args) != 1 || fc.Star || fc.Distinct {
		return WindowCall{}, errorf(ErrAnalysis, "ntile takes one argument, the number of buckets")
	}
	lit, ok := fc.Args[0].(*sql.Literal)
	var n int64
	var err error
	if ok && lit.Kind == sql.LitInt {
		n, err = strconv.ParseInt(lit.Value, 10, 64)
	}
	if !ok || lit.Kind != sql.LitInt || err != nil || n <= 0 {
		return WindowCall{}, errorf(ErrAnalysis, "ntile: the number of buckets must be a positive integer constant, got %v", fc.Args[0])
	}
	return WindowCall{Func: name, Offset: n, Type: expr.Int64T()}, nil
}

// bindStatWindowCall binds a stddev/variance function under OVER: one
// numeric argument, cast to DOUBLE as for the aggregate.
func (b *Binder) bindStatWindowCall(name string, fc *sql.FuncCall, sc *scope, st *aggState) (WindowCall, error) {
	if fc.Distinct {
		return WindowCall{}, errorf(ErrUnsupported, "DISTINCT in window function %s", name)
	}
	if fc.Star || len(fc.Args) != 1 {
		return WindowCall{}, errorf(ErrAnalysis, "%s takes exactly one argument", name)
	}
	arg, err := b.bindExpr(fc.Args[0], &scope{cols: sc.cols}, st)
	if err != nil {
		return WindowCall{}, err
	}
	if arg, err = bindStatArg(name, arg); err != nil {
		return WindowCall{}, err
	}
	return WindowCall{Func: name, Arg: arg, Type: expr.Float64T()}, nil
}
