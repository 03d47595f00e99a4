package scan

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// topNKeys compiles a fragment's per-range Top-N keys over its output
// schema; nil when the fragment has none.
func topNKeys(f *inletpb.Fragment, out *arrow.Schema) ([]exec.SortKey, error) {
	t := f.GetRangeTopN()
	if t == nil {
		return nil, nil
	}
	if t.Limit < 0 || len(t.Keys) == 0 {
		return nil, fmt.Errorf("%w: fragment %s: range top-n needs keys and a limit >= 0", ErrInvalid, f.QueryId)
	}
	if f.Limit >= 0 || f.PartialAgg != nil {
		return nil, fmt.Errorf("%w: fragment %s: range top-n with a limit or a partial aggregate", ErrInvalid, f.QueryId)
	}
	keys := make([]exec.SortKey, len(t.Keys))
	for i, k := range t.Keys {
		c := int(k.Column)
		if c < 0 || c >= out.NumFields() {
			return nil, fmt.Errorf("%w: fragment %s: range top-n key %d names output column %d of %d", ErrInvalid, f.QueryId, i, c, out.NumFields())
		}
		fld := out.Field(c)
		keys[i] = exec.SortKey{Expr: expr.Col(c, fld.Name, fld.Type), Desc: k.Desc, Nulls: exec.NullsLast}
		if k.NullsFirst {
			keys[i].Nulls = exec.NullsFirst
		}
	}
	return keys, nil
}

// rangeTop keeps one range's first n rows in the keys' order. Batches are
// held until they hold more rows than max(2n, topCompactRows); then they are
// cut to their Top-N, so memory follows n and the batch size, not the
// range. The Top-N operator keeps ties in input order, and a range's input
// order is fixed (dispatch re-runs depend on it), so its output is too.
type rangeTop struct {
	keys   []exec.SortKey
	n      int64
	schema *arrow.Schema
	mem    memory.Allocator
	held   []arrow.RecordBatch
	rows   int64
	// ordered is the output position of the key the range's rows ascend
	// by (Range.key_ordered, topOrdered), or -1: then n rows are the
	// range's Top-N and the rest of it need not be read. The order is
	// checked on every row seen; a row out of order turns the stop off.
	ordered int
	last    int64
	seen    bool
	taken   int64
}

// errRangeEnough ends a key-ordered range's read once it holds its Top-N.
var errRangeEnough = errors.New("scan: range holds its top-n")

// topOrdered returns the output position of the Top-N's key when r's rows
// come in ascending order of it: r is a key-ordered lake split of a
// primary-key union read whose single integer key is the Top-N's only key,
// ascending. Else -1.
func (fx *fragExec) topOrdered(r *inletpb.Range) int {
	f := fx.f
	t := f.GetRangeTopN()
	if !r.KeyOrdered || t == nil || len(t.Keys) != 1 || t.Keys[0].Desc || len(f.KeyColumns) != 1 {
		return -1
	}
	if r.Type != inletpb.RangeType_LAKE && r.Type != inletpb.RangeType_LAKE_SUPPRESS {
		return -1
	}
	c := int(t.Keys[0].Column)
	if c < 0 || c >= len(f.Projection) || f.Projection[c] != f.KeyColumns[0] {
		return -1
	}
	switch fx.out.Field(c).Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return c
	}
	return -1
}

// inOrder checks that rec's key column continues the ascent.
func (t *rangeTop) inOrder(rec arrow.RecordBatch) bool {
	col := rec.Column(t.ordered)
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			return false
		}
		var v int64
		switch a := col.(type) {
		case *array.Int8:
			v = int64(a.Value(i))
		case *array.Int16:
			v = int64(a.Value(i))
		case *array.Int32:
			v = int64(a.Value(i))
		case *array.Int64:
			v = a.Value(i)
		default:
			return false
		}
		if t.seen && v < t.last {
			return false
		}
		t.last, t.seen = v, true
	}
	return true
}

const topCompactRows = 16384

// add takes over rec.
func (t *rangeTop) add(ctx context.Context, rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 || t.n == 0 {
		rec.Release()
		return nil
	}
	if t.ordered >= 0 && !t.inOrder(rec) {
		t.ordered = -1
	}
	t.held = append(t.held, rec)
	t.rows += rec.NumRows()
	t.taken += rec.NumRows()
	if t.rows > max(2*t.n, topCompactRows) {
		if err := t.compact(ctx); err != nil {
			return err
		}
	}
	if t.ordered >= 0 && t.taken >= t.n {
		return errRangeEnough
	}
	return nil
}

// compact replaces the held batches by their Top-N.
func (t *rangeTop) compact(ctx context.Context) error {
	in := t.held
	t.held, t.rows = nil, 0
	defer releaseBatches(in)
	src := exec.NewScan("VRANGE_TOPN_SOURCE", "", exec.SourceFunc(t.schema,
		func(context.Context, memory.Allocator) (array.RecordReader, error) {
			return array.NewRecordReader(t.schema, in)
		}))
	op, err := exec.NewTopN(src, t.keys, 0, t.n)
	if err != nil {
		return fmt.Errorf("%w: range top-n: %v", ErrInvalid, err)
	}
	rd, err := op.Open(ctx, &exec.Env{Mem: t.mem})
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
		b := rd.RecordBatch()
		b.Retain()
		t.held = append(t.held, b)
		t.rows += b.NumRows()
	}
	return rd.Err()
}

// flush emits the range's Top-N, in order.
func (t *rangeTop) flush(ctx context.Context, emit emitFn) error {
	if len(t.held) > 0 {
		if err := t.compact(ctx); err != nil {
			return err
		}
	}
	for len(t.held) > 0 {
		b := t.held[0]
		t.held = t.held[1:]
		if err := emit(b); err != nil {
			return err
		}
	}
	return nil
}

func (t *rangeTop) release() {
	releaseBatches(t.held)
	t.held = nil
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}
