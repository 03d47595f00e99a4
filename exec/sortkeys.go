package exec

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// NullOrder places NULLs in a sort.
type NullOrder int

const (
	// NullsDefault is the MySQL/Doris rule: first ascending, last descending.
	NullsDefault NullOrder = iota
	NullsFirst
	NullsLast
)

// SortKey is one ORDER BY item.
type SortKey struct {
	Expr  expr.Expr
	Desc  bool
	Nulls NullOrder
}

func (k SortKey) nullsFirst() bool {
	switch k.Nulls {
	case NullsFirst:
		return true
	case NullsLast:
		return false
	}
	return !k.Desc
}

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
	} else {
		s += " ASC"
	}
	if k.Nulls != NullsDefault {
		if k.nullsFirst() {
			s += " NULLS FIRST"
		} else {
			s += " NULLS LAST"
		}
	}
	return s
}

func sortKeyList(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, ", ")
}

func checkSortKeys(keys []SortKey) error {
	for _, k := range keys {
		if !expr.Supported(k.Expr.DataType()) {
			return errorf(ErrUnsupported, "ORDER BY %s: values of type %s", k.Expr, k.Expr.DataType())
		}
		switch k.Expr.DataType().ID() {
		case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT:
			return errorf(ErrUnsupported, "ORDER BY %s: cannot order by %s", k.Expr, expr.TypeName(k.Expr.DataType()))
		}
	}
	return nil
}

// rowComparator compares rows i and j of the same key columns.
func rowComparator(cols []arrow.Array, keys []SortKey) func(i, j int) int {
	fs := make([]func(i, j int) int, len(cols))
	for k, c := range cols {
		fs[k] = columnComparator(c, keys[k])
	}
	return func(i, j int) int {
		for _, f := range fs {
			if c := f(i, j); c != 0 {
				return c
			}
		}
		return 0
	}
}

func typedCmp[T cmp.Ordered](v []T) func(i, j int) int {
	return func(i, j int) int { return cmp.Compare(v[i], v[j]) }
}

func columnComparator(c arrow.Array, key SortKey) func(i, j int) int {
	var base func(i, j int) int
	switch x := c.(type) {
	case *array.Int64:
		base = typedCmp(x.Int64Values())
	case *array.Int32:
		base = typedCmp(x.Int32Values())
	case *array.Float64:
		base = typedCmp(x.Float64Values())
	case *array.Date32:
		base = typedCmp(x.Date32Values())
	case *array.Timestamp:
		base = typedCmp(x.TimestampValues())
	case *array.String:
		base = func(i, j int) int { return strings.Compare(x.Value(i), x.Value(j)) }
	default:
		get := expr.Getter(c)
		t := c.DataType()
		base = func(i, j int) int { return expr.Compare(get(i), get(j), t) }
	}
	desc := key.Desc
	nullsFirst := key.nullsFirst()
	if c.NullN() == 0 {
		if desc {
			return func(i, j int) int { return -base(i, j) }
		}
		return base
	}
	return func(i, j int) int {
		ni, nj := c.IsNull(i), c.IsNull(j)
		switch {
		case ni && nj:
			return 0
		case ni:
			if nullsFirst {
				return -1
			}
			return 1
		case nj:
			if nullsFirst {
				return 1
			}
			return -1
		}
		if desc {
			return -base(i, j)
		}
		return base(i, j)
	}
}

// appendSortKey appends a byte string for row i of c whose bytes.Compare
// order is the key's order (used by TopN to compare rows of different
// batches).
func appendSortKey(dst []byte, c arrow.Array, i int, key SortKey) []byte {
	if c.IsNull(i) {
		if key.nullsFirst() {
			return append(dst, 0)
		}
		return append(dst, 2)
	}
	dst = append(dst, 1)
	start := len(dst)
	switch x := c.(type) {
	case *array.Int64:
		dst = binary.BigEndian.AppendUint64(dst, uint64(x.Value(i))^(1<<63))
	case *array.Int32:
		dst = binary.BigEndian.AppendUint64(dst, uint64(int64(x.Value(i)))^(1<<63))
	case *array.Date32:
		dst = binary.BigEndian.AppendUint64(dst, uint64(int64(x.Value(i)))^(1<<63))
	case *array.Timestamp:
		dst = binary.BigEndian.AppendUint64(dst, uint64(x.Value(i))^(1<<63))
	case *array.Float64:
		dst = appendFloatKey(dst, x.Value(i))
	case *array.Float32:
		dst = appendFloatKey(dst, float64(x.Value(i)))
	case *array.Decimal128:
		v := x.Value(i)
		dst = binary.BigEndian.AppendUint64(dst, uint64(v.HighBits())^(1<<63))
		dst = binary.BigEndian.AppendUint64(dst, v.LowBits())
	case *array.Boolean:
		if x.Value(i) {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	default:
		var s string
		if sa, ok := c.(*array.String); ok {
			s = sa.Value(i)
		} else {
			get := expr.Getter(c)
			v := get(i)
			if n, ok := v.(int64); ok {
				dst = binary.BigEndian.AppendUint64(dst, uint64(n)^(1<<63))
				break
			}
			s = expr.KeyString(v, c.DataType())
		}
		// Escape 0x00 so that a shorter string sorts first.
		for k := 0; k < len(s); k++ {
			if s[k] == 0 {
				dst = append(dst, 0, 0xFF)
			} else {
				dst = append(dst, s[k])
			}
		}
		dst = append(dst, 0, 0)
	}
	if key.Desc {
		for k := start; k < len(dst); k++ {
			dst[k] = ^dst[k]
		}
	}
	return dst
}

func appendFloatKey(dst []byte, f float64) []byte {
	if f == 0 {
		f = 0 // -0 = +0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		b = ^b
	} else {
		b ^= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, b)
}

// takeBatch gathers rows idx of b (in that order) into a new batch.
func takeBatch(ctx context.Context, env *Env, b arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(env.Mem)
	ib.AppendValues(idx, nil)
	ind := ib.NewArray()
	ib.Release()
	defer ind.Release()
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	cols := make([]arrow.Array, b.NumCols())
	for c := range cols {
		out, err := compute.TakeArray(kctx, b.Column(c), ind)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols[c] = out
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(len(idx)))
	releaseArrays(cols)
	return out, nil
}

// concatBatches concatenates batches of one schema into one batch.
func concatBatches(env *Env, schema *arrow.Schema, bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, b := range bs {
		rows += b.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, len(bs))
		for k, b := range bs {
			parts[k] = b.Column(c)
		}
		if len(parts) == 0 {
			cols[c] = array.MakeArrayOfNull(env.Mem, schema.Field(c).Type, 0)
			continue
		}
		a, err := concatenate(parts, env.Mem)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(schema, cols, rows)
	releaseArrays(cols)
	return out, nil
}

// concatenate is array.Concatenate, whose refusal by the statement's
// account comes back as the account's own error: arrow wraps the recovered
// panic in text naming its package ("arrow/concat: …"), which users saw in
// front of Doris's "Memory limit exceeded".
func concatenate(parts []arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	a, err := array.Concatenate(parts, mem)
	var ex *memlimit.Exceeded
	if errors.As(err, &ex) {
		return nil, ex
	}
	return a, err
}
