package exec

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/inlet-db/inlet/exec/expr"
)

// WindowFunc is an analytic function.
type WindowFunc int

const (
	RowNumber WindowFunc = iota
	Rank
	DenseRank
	WinCountStar
	WinCount
	WinSum
	WinAvg
	WinMin
	WinMax
	Lag        // LAG(x [, offset [, default]])
	Lead       // LEAD(x [, offset [, default]])
	FirstValue // FIRST_VALUE(x): the partition's first row
	LastValue  // LAST_VALUE(x): the frame's last row (last peer of the current row)
	// The statistical aggregates over a frame (windowstat.go).
	WinStddevPop
	WinStddevSamp
	WinVarPop
	WinVarSamp
	// Ntile, PercentRank and CumeDist are distribution functions over the
	// partition (windowrank.go); Ntile's bucket count is WindowCall.Offset.
	Ntile
	PercentRank
	CumeDist
	// NthValue is NTH_VALUE(x, n): the frame's n-th row (n is
	// WindowCall.Offset), NULL when the frame is shorter.
	NthValue
)

var windowNames = [...]string{"row_number", "rank", "dense_rank", "count", "count", "sum", "avg", "min", "max",
	"lag", "lead", "first_value", "last_value", "stddev_pop", "stddev_samp", "var_pop", "var_samp",
	"ntile", "percent_rank", "cume_dist", "nth_value"}

func (f WindowFunc) String() string { return windowNames[f] }

func (f WindowFunc) agg() AggFunc {
	return map[WindowFunc]AggFunc{WinCountStar: CountStar, WinCount: Count, WinSum: Sum, WinAvg: Avg, WinMin: Min, WinMax: Max,
		WinStddevPop: StddevPop, WinStddevSamp: StddevSamp, WinVarPop: VarPop, WinVarSamp: VarSamp}[f]
}

// Frame is a window frame.
type Frame int

const (
	// FrameDefault: with ORDER BY, RANGE BETWEEN UNBOUNDED PRECEDING AND
	// CURRENT ROW (peers included); without, the whole partition.
	FrameDefault Frame = iota
	// FrameRowsToCurrent: ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
	FrameRowsToCurrent
	// FrameWholePartition: ROWS (or RANGE) BETWEEN UNBOUNDED PRECEDING AND
	// UNBOUNDED FOLLOWING.
	FrameWholePartition
	// FrameRows: ROWS BETWEEN Window.RowsFrom AND Window.RowsTo
	// (windowrows.go).
	FrameRows
	// FrameRange: RANGE BETWEEN Window.RangeFrom AND Window.RangeTo over
	// one numeric ORDER BY key (windowrange.go).
	FrameRange
)

func (f Frame) String() string {
	return [...]string{"RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
		"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
		"ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "ROWS BETWEEN offsets", "RANGE BETWEEN offsets"}[f]
}

// WindowCall is one analytic function in a Window node.
type WindowCall struct {
	Func WindowFunc
	Arg  expr.Expr // nil for COUNT(*) and the ranking functions
	Name string
	// Offset is LAG/LEAD's distance (0 means the default, 1).
	Offset int64
	// Default is LAG/LEAD's value when the row is outside the partition
	// (nil: NULL); it is cast to Arg's type.
	Default expr.Expr
	// IgnoreNulls makes FIRST_VALUE, LAST_VALUE and NTH_VALUE skip the
	// frame's NULL values.
	IgnoreNulls bool
}

func (c WindowCall) isValueFunc() bool {
	return c.Func == Lag || c.Func == Lead || c.Func == FirstValue || c.Func == LastValue || c.Func == NthValue
}

// framedValue reports whether c is answered by frameValue: NTH_VALUE, and
// FIRST/LAST_VALUE over an explicit frame or skipping NULLs.
func (c WindowCall) framedValue(explicit bool) bool {
	return c.Func == NthValue || (c.Func == FirstValue || c.Func == LastValue) && (explicit || c.IgnoreNulls)
}

// Window computes analytic functions over one window specification:
// PARTITION BY PartitionBy ORDER BY OrderBy with the default frame (with
// ORDER BY: from the partition start to the current row and its peers;
// without: the whole partition). Output is the input columns followed by
// one column per call, rows ordered by partition then order keys. It reads
// its whole input first. Stack Window nodes for different specifications.
type Window struct {
	Input       Operator
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Calls       []WindowCall
	// Frame is the frame of the aggregate (stddev/variance included) and
	// FIRST/LAST_VALUE calls; ranking and distribution functions and
	// LAG/LEAD ignore it.
	Frame Frame
	// RowsFrom and RowsTo are the bounds of a FrameRows frame, as offsets
	// from the current row (Unbounded for an unbounded end).
	RowsFrom, RowsTo int64
	// RangeFrom and RangeTo are the bounds of a FrameRange frame, as
	// offsets from the current row's key (±Inf for an unbounded end).
	RangeFrom, RangeTo float64

	argTypes, outTypes []arrow.DataType
	schema             *arrow.Schema
}

// NewWindow type-checks the calls.
func NewWindow(input Operator, partitionBy []expr.Expr, orderBy []SortKey, calls []WindowCall) (*Window, error) {
	if len(calls) == 0 {
		return nil, errorf(ErrPlan, "window without functions")
	}
	if err := checkSortKeys(orderBy); err != nil {
		return nil, err
	}
	for _, p := range partitionBy {
		if err := checkSortKeys([]SortKey{{Expr: p}}); err != nil {
			return nil, err
		}
	}
	for _, c := range calls {
		if c.Arg != nil && !expr.Supported(c.Arg.DataType()) {
			return nil, errorf(ErrUnsupported, "%s(%s): values of type %s", c.Func, c.Arg, c.Arg.DataType())
		}
	}
	w := &Window{Input: input, PartitionBy: partitionBy, OrderBy: orderBy, Calls: calls}
	fields := append([]arrow.Field{}, input.Schema().Fields()...)
	for _, c := range calls {
		var argT, outT arrow.DataType
		switch {
		case c.Func == RowNumber || c.Func == Rank || c.Func == DenseRank || isDistribution(c.Func):
			outT = expr.Int64T()
			if c.Func == PercentRank || c.Func == CumeDist {
				outT = expr.Float64T()
			}
			if c.Arg != nil {
				return nil, errorf(ErrPlan, "%s() takes no argument", c.Func)
			}
			if c.Func == Ntile && c.Offset <= 0 {
				return nil, errorf(ErrPlan, "ntile(%d): the bucket count must be a positive integer", c.Offset)
			}
		case c.isValueFunc():
			if c.Arg == nil {
				return nil, errorf(ErrPlan, "%s needs an argument", c.Func)
			}
			argT, outT = c.Arg.DataType(), c.Arg.DataType()
			if c.Offset < 0 || c.Func == NthValue && c.Offset == 0 {
				return nil, errorf(ErrPlan, "%s offset %d is out of range", c.Func, c.Offset)
			}
			if c.Default != nil {
				if _, err := expr.Cast(c.Default, argT); err != nil {
					return nil, fmt.Errorf("%s default: %w", c.Func, err)
				}
			}
		default:
			var err error
			argT, outT, _, err = aggTypes(AggCall{Func: c.Func.agg(), Arg: c.Arg})
			if err != nil {
				return nil, err
			}
		}
		w.argTypes = append(w.argTypes, argT)
		w.outTypes = append(w.outTypes, outT)
		fields = append(fields, arrow.Field{Name: c.Name, Type: outT, Nullable: true})
	}
	w.schema = arrow.NewSchema(fields, nil)
	return w, nil
}

func (w *Window) Schema() *arrow.Schema { return w.schema }
func (w *Window) Children() []Operator  { return []Operator{w.Input} }
func (w *Window) Explain() string {
	fs := make([]string, len(w.Calls))
	for i, c := range w.Calls {
		arg := ""
		switch {
		case c.Func == WinCountStar:
			arg = "*"
		case c.Arg != nil:
			arg = c.Arg.String()
		case c.Func == Ntile:
			arg = fmt.Sprint(c.Offset)
		}
		fs[i] = c.Func.String() + "(" + arg + ")"
	}
	lines := []string{"VANALYTIC", "functions: [" + strings.Join(fs, ", ") + "]"}
	if len(w.PartitionBy) > 0 {
		lines = append(lines, "partition by: "+exprList(w.PartitionBy))
	}
	if len(w.OrderBy) > 0 {
		lines = append(lines, "order by: "+sortKeyList(w.OrderBy))
	}
	if len(w.OrderBy) > 0 || w.Frame != FrameDefault {
		lines = append(lines, "window: "+w.frameString())
	}
	return strings.Join(lines, "\n")
}

// windowRowCopies: a window holds its input, the input widened by keys
// and arguments, that sorted, and its output.
const windowRowCopies = 4

func (w *Window) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if sp := spillOf(ctx); sp != nil && len(w.PartitionBy) > 0 && sp.level < spillMaxLevel {
		// Past its share of exec_mem_limit the input splits by PARTITION
		// BY into files, each a set of whole partitions (spill_rows.go).
		// The output comes file by file, each sorted.
		return openPartitioned(ctx, env, sp, w.Input, w.PartitionBy, "window-rows", windowRowCopies, w.schema,
			func(ctx context.Context, env *Env, in Operator) (array.RecordReader, error) {
				part := *w
				part.Input = in
				return part.Open(ctx, env)
			}, nil)
	}
	if sp := spillOf(ctx); sp != nil && w.streamsRanking() {
		return w.openStreamingRanking(ctx, env) // spill_window.go
	}
	return openMaterialized(ctx, env, w.Input, w.schema, w.compute)
}

func (w *Window) compute(ctx context.Context, env *Env, in array.RecordReader) (arrow.RecordBatch, error) {
	// Sort the input by partition keys, then order keys, carrying the
	// evaluated keys and arguments along as extra columns.
	var extra []expr.Expr
	var keys []SortKey
	inCols := w.Input.Schema().NumFields()
	for _, p := range w.PartitionBy {
		keys = append(keys, SortKey{Expr: p})
	}
	keys = append(keys, w.OrderBy...)
	for _, k := range keys {
		extra = append(extra, k.Expr)
	}
	argCol := make([]int, len(w.Calls))
	defCol := make([]int, len(w.Calls))
	for i, c := range w.Calls {
		argCol[i], defCol[i] = -1, -1
		if c.Arg != nil {
			a, err := expr.Cast(c.Arg, w.argTypes[i])
			if err != nil {
				return nil, err
			}
			argCol[i] = inCols + len(extra)
			extra = append(extra, a)
		}
		if c.Default != nil {
			d, err := expr.Cast(c.Default, w.argTypes[i])
			if err != nil {
				return nil, err
			}
			defCol[i] = inCols + len(extra)
			extra = append(extra, d)
		}
	}
	fields := append([]arrow.Field{}, w.Input.Schema().Fields()...)
	exprs := make([]expr.Expr, 0, inCols+len(extra))
	for i, f := range w.Input.Schema().Fields() {
		exprs = append(exprs, expr.Col(i, f.Name, f.Type))
	}
	sortKeys := make([]SortKey, len(keys))
	for i, e := range extra {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("$w%d", i), Type: e.DataType(), Nullable: true})
		exprs = append(exprs, e)
		if i < len(keys) {
			sortKeys[i] = keys[i]
			sortKeys[i].Expr = expr.Col(inCols+i, "", e.DataType())
		}
	}
	wide := arrow.NewSchema(fields, nil)
	widened := newPullReader(ctx, wide, func() (arrow.RecordBatch, error) {
		if !in.Next() {
			return nil, in.Err()
		}
		return evalBatch(env, wide, exprs, in.RecordBatch())
	}, nil)
	defer widened.Release()
	var sorted arrow.RecordBatch
	var err error
	if len(sortKeys) > 0 {
		sorted, err = sortAll(ctx, env, widened, wide, sortKeys)
	} else {
		sorted, err = drainConcat(env, widened, wide)
	}
	if err != nil || sorted == nil {
		return nil, err
	}
	defer sorted.Release()
	n := int(sorted.NumRows())

	// Partition and peer boundaries.
	np := len(w.PartitionBy)
	cols := sorted.Columns()
	partCmp := rowComparator(cols[inCols:inCols+np], sortKeys[:np])
	peerCmp := rowComparator(cols[inCols:inCols+len(keys)], sortKeys)
	newPart := make([]bool, n)
	newPeer := make([]bool, n)
	for i := 0; i < n; i++ {
		newPart[i] = i == 0 || (np > 0 && partCmp(i-1, i) != 0)
		newPeer[i] = newPart[i] || (len(w.OrderBy) > 0 && peerCmp(i-1, i) != 0)
	}

	// The frame decides which rows an aggregate sees: frameEnd[i] marks
	// the rows after which the running value is published.
	frameStep := newPeer
	switch w.Frame {
	case FrameRowsToCurrent:
		frameStep = make([]bool, n)
		for i := range frameStep {
			frameStep[i] = true
		}
	case FrameWholePartition:
		frameStep = newPart
	}
	ordered := len(w.OrderBy) > 0 && w.Frame != FrameWholePartition

	// Explicit frames as [lo, hi) per row.
	var frameLo, frameHi []int
	switch w.Frame {
	case FrameRows:
		frameLo, frameHi = w.rowsFrames(newPart)
	case FrameRange:
		if w.peerRange() {
			frameLo, frameHi = peerFrames(newPart, newPeer, math.IsInf(w.RangeFrom, -1), math.IsInf(w.RangeTo, 1))
			break
		}
		if len(w.OrderBy) != 1 {
			return nil, errorf(ErrPlan, "a RANGE frame with an offset needs exactly one ORDER BY key")
		}
		if frameLo, frameHi, err = w.rangeFrames(newPart, cols[inCols+np]); err != nil {
			return nil, err
		}
	}
	explicit := w.Frame == FrameRows || w.Frame == FrameRange

	outCols := make([]arrow.Array, 0, inCols+len(w.Calls))
	for c := 0; c < inCols; c++ {
		cols[c].Retain()
		outCols = append(outCols, cols[c])
	}
	for i, c := range w.Calls {
		var a arrow.Array
		var err error
		switch {
		case isWinStat(c.Func):
			lo, hi := frameLo, frameHi
			if !explicit {
				lo, hi = stepFrames(newPart, frameStep)
			}
			a = evalStatWindow(env, c, cols[argCol[i]], newPart, lo, hi)
		case isDistribution(c.Func):
			a = evalDistribution(env, c, newPart, newPeer)
		case c.framedValue(explicit):
			lo, hi := frameLo, frameHi
			if !explicit {
				lo, hi = stepFrames(newPart, frameStep)
			}
			a = frameValue(env, c, w.outTypes[i], cols[argCol[i]], lo, hi)
		case explicit && !c.isValueFunc() && (argCol[i] >= 0 || c.Func == WinCountStar):
			var arg arrow.Array
			if argCol[i] >= 0 {
				arg = cols[argCol[i]]
			}
			a, err = w.evalAggRows(env, c, w.outTypes[i], arg, newPart, frameLo, frameHi)
		case c.isValueFunc():
			var def arrow.Array
			if defCol[i] >= 0 {
				def = cols[defCol[i]]
			}
			a = evalValueFunc(env, c, w.outTypes[i], cols[argCol[i]], def, newPart, frameStep, ordered || w.Frame == FrameRowsToCurrent)
		case argCol[i] >= 0:
			a, err = w.evalAgg(env, c, w.outTypes[i], cols[argCol[i]], newPart, frameStep)
		case c.Func == WinCountStar:
			a, err = w.evalAgg(env, c, w.outTypes[i], nil, newPart, frameStep)
		default:
			a = evalRanking(env, c.Func, newPart, newPeer)
		}
		if err != nil {
			releaseArrays(outCols)
			return nil, err
		}
		outCols = append(outCols, a)
	}
	out := array.NewRecordBatch(w.schema, outCols, int64(n))
	releaseArrays(outCols)
	return out, nil
}

// evalValueFunc computes LAG, LEAD, FIRST_VALUE and LAST_VALUE over rows
// already in window order.
func evalValueFunc(env *Env, c WindowCall, outT arrow.DataType, arg, def arrow.Array, newPart, newPeer []bool, ordered bool) arrow.Array {
	n := len(newPart)
	get := expr.Getter(arg)
	var getDef func(int) any
	if def != nil {
		getDef = expr.Getter(def)
	}
	// Partition bounds and, for LAST_VALUE, the end of each peer group.
	partStart := make([]int, n)
	partEnd := make([]int, n)
	peerEnd := make([]int, n)
	for i := 0; i < n; i++ {
		if newPart[i] {
			partStart[i] = i
		} else {
			partStart[i] = partStart[i-1]
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i == n-1 || newPart[i+1] {
			partEnd[i] = i + 1
		} else {
			partEnd[i] = partEnd[i+1]
		}
		if i == n-1 || newPeer[i+1] {
			peerEnd[i] = i + 1
		} else {
			peerEnd[i] = peerEnd[i+1]
		}
	}
	off := c.Offset
	if off == 0 {
		off = 1
	}
	b := array.NewBuilder(env.Mem, outT)
	defer b.Release()
	app := expr.Appender(b)
	for i := 0; i < n; i++ {
		var v any
		switch c.Func {
		case Lag, Lead:
			j := int64(i) - off
			if c.Func == Lead {
				j = int64(i) + off
			}
			if j >= int64(partStart[i]) && j < int64(partEnd[i]) {
				v = get(int(j))
			} else if getDef != nil {
				v = getDef(i)
			}
		case FirstValue:
			v = get(partStart[i])
		case LastValue:
			if ordered {
				v = get(peerEnd[i] - 1)
			} else {
				v = get(partEnd[i] - 1)
			}
		}
		app(v)
	}
	return b.NewArray()
}

// drainConcat reads in to its end and returns all its rows as one batch, nil
// when there were none.
func drainConcat(env *Env, in array.RecordReader, schema *arrow.Schema) (arrow.RecordBatch, error) {
	var bs []arrow.RecordBatch
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	for in.Next() {
		b := in.RecordBatch()
		b.Retain()
		bs = append(bs, b)
	}
	if err := in.Err(); err != nil || len(bs) == 0 {
		return nil, err
	}
	return concatBatches(env, schema, bs)
}

func evalRanking(env *Env, f WindowFunc, newPart, newPeer []bool) arrow.Array {
	vals := make([]int64, len(newPart))
	var rowNum, rank, dense int64
	for i := range vals {
		if newPart[i] {
			rowNum, rank, dense = 0, 0, 0
		}
		rowNum++
		if newPeer[i] {
			rank = rowNum
			dense++
		}
		switch f {
		case RowNumber:
			vals[i] = rowNum
		case Rank:
			vals[i] = rank
		default:
			vals[i] = dense
		}
	}
	b := array.NewInt64Builder(env.Mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// evalAgg computes a running aggregate that is constant over each peer
// group: the value after the last row of the group.
func (w *Window) evalAgg(env *Env, c WindowCall, outT arrow.DataType, arg arrow.Array, newPart, newPeer []bool) (arrow.Array, error) {
	n := len(newPart)
	var get func(int) any
	var argT arrow.DataType
	if arg != nil {
		get = expr.Getter(arg)
		argT = arg.DataType()
	}
	results := make([]any, n)
	var count int64
	var sum any
	var best any
	flush := func(from, to int) {
		var v any
		switch c.Func {
		case WinCountStar, WinCount:
			v = count
		case WinSum:
			v = sum
		case WinMin, WinMax:
			v = best
		case WinAvg:
			if count > 0 {
				switch s := sum.(type) {
				case float64:
					v = s / float64(count)
				case decimal128.Num:
					_, in := decPS(argT)
					_, out := decPS(outT)
					v = decDivRound(s, in, decimal128.FromI64(count), out)
				}
			}
		}
		for k := from; k < to; k++ {
			results[k] = v
		}
	}
	groupStart := 0
	for i := 0; i <= n; i++ {
		if i == n || newPeer[i] {
			if i > 0 {
				flush(groupStart, i)
			}
			groupStart = i
		}
		if i == n {
			break
		}
		if newPart[i] {
			count, sum, best = 0, nil, nil
		}
		if c.Func == WinCountStar {
			count++
			continue
		}
		v := get(i)
		if v == nil {
			continue
		}
		count++
		switch c.Func {
		case WinSum, WinAvg:
			switch x := v.(type) {
			case int64:
				if sum == nil {
					sum = int64(0)
				}
				old := sum.(int64)
				r := old + x
				if (old^r)&(x^r) < 0 {
					return nil, errorf(expr.ErrOverflow, "%s(%s): the sum is out of the range of bigint", c.Func, c.Arg)
				}
				sum = r
			case float64:
				if sum == nil {
					sum = 0.0
				}
				sum = sum.(float64) + x
			case decimal128.Num:
				if sum == nil {
					sum = decimal128.Num{}
				}
				r := sum.(decimal128.Num).Add(x)
				if !r.FitsInPrecision(38) {
					return nil, errorf(expr.ErrOverflow, "%s(%s): the sum is out of the range of decimal(38)", c.Func, c.Arg)
				}
				sum = r
			}
		case WinMin, WinMax:
			want := -1
			if c.Func == WinMax {
				want = 1
			}
			if best == nil || expr.Compare(v, best, argT) == want {
				best = v
			}
		}
	}
	return anyArray(env.Mem, outT, results), nil
}
