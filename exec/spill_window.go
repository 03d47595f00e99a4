package exec

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/inlet-db/inlet/exec/expr"
)

// A window without PARTITION BY is one partition of every row: it cannot
// be split. Its ranking functions (ROW_NUMBER, RANK, DENSE_RANK) need only
// the rows before each one, so under enable_spill they run over the sort
// that spills (spill_sort.go), streaming, with the counts carried from
// batch to batch; peers are rows of equal ORDER BY keys, as in memory.

// streamsRanking says whether w is such a window.
func (w *Window) streamsRanking() bool {
	if len(w.PartitionBy) > 0 || len(w.OrderBy) == 0 {
		return false
	}
	for _, c := range w.Calls {
		if c.Func != RowNumber && c.Func != Rank && c.Func != DenseRank {
			return false
		}
	}
	return true
}

func (w *Window) openStreamingRanking(ctx context.Context, env *Env) (array.RecordReader, error) {
	in, err := (&Sort{Input: w.Input, Keys: w.OrderBy}).Open(ctx, env)
	if err != nil {
		return nil, err
	}
	var rowNum, rank, dense int64
	var key, prev []byte
	first := true
	next := func() (arrow.RecordBatch, error) {
		if !in.Next() {
			return nil, in.Err()
		}
		b := in.RecordBatch()
		n := int(b.NumRows())
		keys, err := evalKeys(env, sortExprs(w.OrderBy), b)
		if err != nil {
			return nil, err
		}
		defer releaseArrays(keys)
		vals := make([][]int64, len(w.Calls))
		for i := range vals {
			vals[i] = make([]int64, n)
		}
		for r := 0; r < n; r++ {
			key = key[:0]
			for k, sk := range w.OrderBy {
				key = appendSortKey(key, keys[k], r, sk)
			}
			rowNum++
			if first || !bytes.Equal(key, prev) {
				rank = rowNum
				dense++
				prev = append(prev[:0], key...)
				first = false
			}
			for i, c := range w.Calls {
				switch c.Func {
				case RowNumber:
					vals[i][r] = rowNum
				case Rank:
					vals[i][r] = rank
				default:
					vals[i][r] = dense
				}
			}
		}
		cols := append([]arrow.Array{}, b.Columns()...)
		var made []arrow.Array
		for i := range w.Calls {
			bld := array.NewInt64Builder(env.Mem)
			bld.AppendValues(vals[i], nil)
			a := bld.NewArray()
			bld.Release()
			made = append(made, a)
			cols = append(cols, a)
		}
		out := array.NewRecordBatch(w.schema, cols, int64(n))
		releaseArrays(made)
		return out, nil
	}
	return newPullReader(ctx, w.schema, next, in.Release), nil
}

func sortExprs(keys []SortKey) []expr.Expr {
	out := make([]expr.Expr, len(keys))
	for i, k := range keys {
		out[i] = k.Expr
	}
	return out
}
