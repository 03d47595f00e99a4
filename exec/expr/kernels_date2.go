package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Typed loops for the date functions over DATE and DATETIME columns: the
// row-wise functions turn each value into a time.Time through wall(); so
// do these, from the Arrow values directly, without boxing them.

// wallReader reads row i of a DATE or DATETIME array as wall() reads its
// canonical value; ok is false for other arrays.
func wallReader(a arrow.Array) (func(i int) time.Time, bool) {
	switch x := a.(type) {
	case *array.Date32:
		vs := x.Date32Values()
		return func(i int) time.Time { return time.Unix(int64(vs[i])*86400, 0).UTC() }, true
	case *array.Timestamp:
		mul, div := toMicros(x.DataType().(*arrow.TimestampType).Unit)
		vs := x.TimestampValues()
		return func(i int) time.Time { return time.UnixMicro(int64(vs[i]) * mul / div).UTC() }, true
	}
	return nil, false
}

// datePartKernel is year(), month(), hour(), ... : fn of each value.
func datePartKernel(fn func(time.Time) int64) vecFn {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		if len(arrs) != 1 {
			return nil, false, nil
		}
		read, ok := wallReader(arrs[0])
		if !ok {
			return nil, false, nil
		}
		valid := validity(arrs[0])
		out := make([]int64, arrs[0].Len())
		for i := range out {
			if valid == nil || valid[i] {
				out[i] = fn(read(i))
			}
		}
		b := array.NewInt64Builder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	}
}

// dateDiffKernel is datediff over two DATE arrays.
func dateDiffKernel(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	if len(arrs) != 2 {
		return nil, false, nil
	}
	x, ok1 := arrs[0].(*array.Date32)
	y, ok2 := arrs[1].(*array.Date32)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	xs, ys := x.Date32Values(), y.Date32Values()
	out := make([]int64, len(xs))
	for i := range out {
		out[i] = int64(xs[i]) - int64(ys[i])
	}
	b := array.NewInt64Builder(env.Mem)
	defer b.Release()
	b.AppendValues(out, allValid(arrs))
	return b.NewArray(), true, nil
}

// dateArithKernel is DateArith's loop: d ± INTERVAL k unit per row,
// NULL outside years 1..9999, stored as DATE or in outT's unit exactly as
// the row-wise function's value is appended.
func dateArithKernel(unit string, sub bool, outT arrow.DataType) vecFn {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		if len(arrs) != 2 {
			return nil, false, nil
		}
		read, ok := wallReader(arrs[0])
		ks, ok2 := arrs[1].(*array.Int64)
		if !ok || !ok2 {
			return nil, false, nil
		}
		valid := allValid(arrs)
		n := arrs[0].Len()
		kv := ks.Int64Values()
		if outT.ID() == arrow.DATE32 {
			out := make([]arrow.Date32, n)
			for i := range out {
				if valid != nil && !valid[i] {
					continue
				}
				t, ok := shifted(read(i), kv[i], unit, sub)
				if !ok {
					valid = setNull(valid, i, n)
					continue
				}
				out[i] = dateOf(t)
			}
			b := array.NewDate32Builder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true, nil
		}
		tt, isTS := outT.(*arrow.TimestampType)
		if !isTS {
			return nil, false, nil
		}
		mul, div := toMicros(tt.Unit)
		out := make([]arrow.Timestamp, n)
		for i := range out {
			if valid != nil && !valid[i] {
				continue
			}
			t, ok := shifted(read(i), kv[i], unit, sub)
			if !ok {
				valid = setNull(valid, i, n)
				continue
			}
			out[i] = arrow.Timestamp(t.UnixMicro() * div / mul)
		}
		b := array.NewTimestampBuilder(env.Mem, tt)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true, nil
	}
}

// shifted is DateArith's step for one value; ok is false outside years
// 1..9999.
func shifted(t time.Time, k int64, unit string, sub bool) (time.Time, bool) {
	if sub {
		k = -k
	}
	t = addInterval(t, k, unit)
	return t, t.Year() >= 1 && t.Year() <= 9999
}
