package exec

import (
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// orKernel selects the rows where an OR of conjunctions is TRUE, when
// every conjunct of every arm has a kernel (Q19: three arms of brand =,
// container IN, quantity and size ranges): each arm's kernels run on the
// candidate rows, and the arms' selections, each in row order, are merged.
// A row is selected when some arm is TRUE, which is when the OR is TRUE
// (a NULL arm selects nothing, as it makes the OR at most NULL). nil when
// some conjunct has no kernel.
func orKernel(c expr.Expr) selKernel {
	l, ok := c.(*expr.LogicExpr)
	if !ok || l.Op != expr.OrOp {
		return nil
	}
	arms := make([][]selKernel, 0, len(l.Args))
	for _, a := range l.Args {
		conj, fused := fuseRanges(expr.Conjuncts(a))
		ks := make([]selKernel, len(conj))
		for k, cj := range conj {
			if ks[k] = fused[k]; ks[k] == nil {
				ks[k] = compileSelKernel(cj)
			}
			if ks[k] == nil {
				return nil
			}
		}
		arms = append(arms, ks)
	}
	return func(b arrow.RecordBatch, rows []int64, out []int64) ([]int64, bool) {
		armBuf, accBuf, mergeBuf := orBufs.Get().(*[]int64), orBufs.Get().(*[]int64), orBufs.Get().(*[]int64)
		defer func() {
			orBufs.Put(armBuf)
			orBufs.Put(accBuf)
			orBufs.Put(mergeBuf)
		}()
		acc := (*accBuf)[:0]
		for i, ks := range arms {
			sel, ok := runArm(ks, b, rows, (*armBuf)[:0])
			if !ok {
				return nil, false
			}
			*armBuf = sel[:0]
			if i == 0 {
				acc = append(acc, sel...)
				continue
			}
			m := unionSorted(acc, sel, (*mergeBuf)[:0])
			// The merged list becomes the accumulator; the old one's
			// buffer takes the next merge.
			acc, *mergeBuf = m, acc[:0]
		}
		*accBuf = acc[:0]
		// Only now is out written: it may be rows[:0].
		return append(out, acc...), true
	}
}

// orBufs holds row lists for orKernel (a batch's rows at most each).
var orBufs = sync.Pool{New: func() any { return new([]int64) }}

// runArm runs one conjunction's kernels on the candidate rows (nil: all
// rows), into buf; false when a kernel does not read the batch.
func runArm(ks []selKernel, b arrow.RecordBatch, rows []int64, buf []int64) ([]int64, bool) {
	cur, own := rows, false
	for _, k := range ks {
		dst := buf[:0]
		if own {
			dst = cur[:0] // a kernel writes behind where it reads
		}
		kept, ok := k(b, cur, dst)
		if !ok {
			return nil, false
		}
		cur, own = kept, true
		if len(cur) == 0 {
			break
		}
	}
	if !own {
		// No kernel ran (an empty conjunction): every candidate.
		if rows == nil {
			for i := int64(0); i < b.NumRows(); i++ {
				buf = append(buf, i)
			}
			return buf, true
		}
		return append(buf, rows...), true
	}
	return cur, true
}

// unionSorted merges two ascending lists of distinct rows into out.
func unionSorted(x, y, out []int64) []int64 {
	out = slices.Grow(out, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch a, b := x[i], y[j]; {
		case a < b:
			out = append(out, a)
			i++
		case a > b:
			out = append(out, b)
			j++
		default:
			out = append(out, a)
			i++
			j++
		}
	}
	out = append(out, x[i:]...)
	return append(out, y[j:]...)
}
