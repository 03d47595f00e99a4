package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Typed loops for the cheap numeric functions of Doris's list: the one-
// argument hashes over a STRING array and the BIGINT shifts. They give what
// the row functions give (same hash code, same NULLs) and allocate per
// batch only; any other input shape falls back to the row path.

// hashKernel is murmur_hash3_32/64 and xxhash_32/64 of one argument,
// through the row function's hashStep.
func hashKernel(name string) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		ss, ok := asStrings(arrs)
		if !ok || len(ss) != 1 {
			return nil, false, nil
		}
		x := ss[0]
		n := x.Len()
		valid := validity(x)
		step := hashStep(name)
		if name == "murmur_hash3_32" || name == "xxhash_32" {
			out := make([]int32, n)
			for i := range out {
				if valid == nil || valid[i] {
					out[i] = int32(uint32(step(x.Value(i), 0, true)))
				}
			}
			b := array.NewInt32Builder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true, nil
		}
		out := make([]int64, n)
		for i := range out {
			if valid == nil || valid[i] {
				out[i] = int64(step(x.Value(i), 0, true))
			}
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	}
}

// shiftKernel is bit_shift_left/right over two BIGINT arrays.
func shiftKernel(left bool) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		if len(arrs) != 2 {
			return nil, false, nil
		}
		x, ok1 := arrs[0].(*array.Int64)
		s, ok2 := arrs[1].(*array.Int64)
		if !ok1 || !ok2 {
			return nil, false, nil
		}
		xv, sv := x.Int64Values(), s.Int64Values()
		out := make([]int64, len(xv))
		for i := range out {
			k := sv[i]
			if k < 0 || k >= 64 {
				continue
			}
			if left {
				out[i] = int64(uint64(xv[i]) << k)
			} else {
				out[i] = int64(uint64(xv[i]) >> k)
			}
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, allValid(arrs))
		return b.NewArray(), true, nil
	}
}
