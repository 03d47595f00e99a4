package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// caseAssembleMore is caseAssemble for STRING, DATE, DATETIME, BOOLEAN
// and INT results: row i takes row pos[i] of arm arm[i] (a nil arm is
// NULL); ok is false for other types or arrays of another layout.
func caseAssembleMore(env *Env, typ arrow.DataType, arm, pos []int, res []arrow.Array) (arrow.Array, bool) {
	n := len(arm)
	valid := make([]bool, n)
	for i, a := range arm {
		valid[i] = res[a] != nil && res[a].IsValid(pos[i])
	}
	switch t := typ.(type) {
	case *arrow.StringType:
		ss := make([]*array.String, len(res))
		data := 0
		for k, a := range res {
			if a == nil {
				continue
			}
			s, ok := a.(*array.String)
			if !ok {
				return nil, false
			}
			ss[k] = s
			data += len(s.ValueBytes())
		}
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
		b.ReserveData(min(data, MaxBatchStringBytes))
		for i, a := range arm {
			if !valid[i] {
				b.AppendNull()
				continue
			}
			b.Append(ss[a].Value(pos[i]))
		}
		return b.NewArray(), true
	case *arrow.Date32Type:
		vals, ok := armValues(res, func(a *array.Date32) []arrow.Date32 { return a.Date32Values() })
		if !ok {
			return nil, false
		}
		b := array.NewDate32Builder(env.Mem)
		defer b.Release()
		b.AppendValues(gather(arm, pos, vals, valid), valid)
		return b.NewArray(), true
	case *arrow.TimestampType:
		vals, ok := armValues(res, func(a *array.Timestamp) []arrow.Timestamp { return a.TimestampValues() })
		if !ok {
			return nil, false
		}
		for _, a := range res {
			if a != nil && !arrow.TypeEqual(a.DataType(), t) {
				return nil, false // another unit: the row-wise path converts
			}
		}
		b := array.NewTimestampBuilder(env.Mem, t)
		defer b.Release()
		b.AppendValues(gather(arm, pos, vals, valid), valid)
		return b.NewArray(), true
	case *arrow.Int32Type:
		vals, ok := armValues(res, func(a *array.Int32) []int32 { return a.Int32Values() })
		if !ok {
			return nil, false
		}
		b := array.NewInt32Builder(env.Mem)
		defer b.Release()
		b.AppendValues(gather(arm, pos, vals, valid), valid)
		return b.NewArray(), true
	case *arrow.BooleanType:
		bs := make([]*array.Boolean, len(res))
		for k, a := range res {
			if a == nil {
				continue
			}
			x, ok := a.(*array.Boolean)
			if !ok {
				return nil, false
			}
			bs[k] = x
		}
		out := make([]bool, n)
		for i, a := range arm {
			if valid[i] {
				out[i] = bs[a].Value(pos[i])
			}
		}
		b := array.NewBooleanBuilder(env.Mem)
		defer b.Release()
		b.AppendValues(out, valid)
		return b.NewArray(), true
	}
	return nil, false
}
