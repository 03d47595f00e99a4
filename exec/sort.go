package exec

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Sort orders all input rows by Keys (stable: ties keep input order). It
// reads its whole input before the first output batch.
type Sort struct {
	Input Operator
	Keys  []SortKey
}

// NewSort is ORDER BY keys.
func NewSort(input Operator, keys []SortKey) (*Sort, error) {
	if len(keys) == 0 {
		return nil, errorf(ErrPlan, "sort without keys")
	}
	if err := checkSortKeys(keys); err != nil {
		return nil, err
	}
	return &Sort{Input: input, Keys: keys}, nil
}

func (s *Sort) Schema() *arrow.Schema { return s.Input.Schema() }
func (s *Sort) Children() []Operator  { return []Operator{s.Input} }
func (s *Sort) Explain() string       { return "VSORT\norder by: " + sortKeyList(s.Keys) }

func (s *Sort) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if sp := spillOf(ctx); sp != nil {
		return s.openSpilling(ctx, env, sp) // spill_sort.go
	}
	return openMaterialized(ctx, env, s.Input, s.Schema(), func(ctx context.Context, env *Env, in array.RecordReader) (arrow.RecordBatch, error) {
		return sortAll(ctx, env, in, s.Schema(), s.Keys)
	})
}

// sortAll drains in and returns its rows sorted (nil for no rows).
func sortAll(ctx context.Context, env *Env, in array.RecordReader, schema *arrow.Schema, keys []SortKey) (arrow.RecordBatch, error) {
	var batches []arrow.RecordBatch
	keyParts := make([][]arrow.Array, len(keys))
	defer func() {
		for _, b := range batches {
			b.Release()
		}
		for _, ps := range keyParts {
			releaseArrays(ps)
		}
	}()
	for in.Next() {
		b := in.RecordBatch()
		for k, key := range keys {
			a, err := key.Expr.Eval(env, b)
			if err != nil {
				return nil, err
			}
			keyParts[k] = append(keyParts[k], a)
		}
		b.Retain()
		batches = append(batches, b)
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	if len(batches) == 0 {
		return nil, nil
	}
	all, err := concatBatches(env, schema, batches)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	keyCols := make([]arrow.Array, len(keys))
	defer func() { releaseArrays(keyCols) }()
	for k := range keys {
		if len(keyParts[k]) == 1 {
			keyParts[k][0].Retain()
			keyCols[k] = keyParts[k][0]
			continue
		}
		if keyCols[k], err = concatenate(keyParts[k], env.Mem); err != nil {
			return nil, err
		}
	}
	// The sort's Go memory: row numbers, packed words or encoded keys.
	defer chargeGo(env, all.NumRows()*40)()
	idx := sortIndices(keyCols, keys)
	return takeBatch(ctx, env, all, idx)
}

// sortIndices returns the stable sorted order of rows of keyCols.
func sortIndices(keyCols []arrow.Array, keys []SortKey) []int64 {
	n := keyCols[0].Len()
	// Up to two fixed-width keys without NULLs: sort packed words.
	if idx, ok := sortPacked(keyCols, keys); ok {
		return idx
	}
	if widths, ok := fixedKeyWidths(keyCols); ok {
		return sortByFixedKeys(keyCols, keys, widths)
	}
	cmp := rowComparator(keyCols, keys)
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	// pdqsort with the row number as the last key: stable, and faster than
	// an in-place stable merge sort.
	slices.SortFunc(idx, func(a, b int64) int {
		if c := cmp(int(a), int(b)); c != 0 {
			return c
		}
		return int(a - b)
	})
	return idx
}

// fixedKeyWidths returns the encoded width of each key when every key has
// a fixed-width type, so rows can be sorted by comparing fixed-size byte
// strings instead of calling a comparator per key.
func fixedKeyWidths(cols []arrow.Array) ([]int, bool) {
	ws := make([]int, len(cols))
	for i, c := range cols {
		switch c.DataType().ID() {
		case arrow.INT64, arrow.INT32, arrow.DATE32, arrow.TIMESTAMP, arrow.FLOAT64, arrow.FLOAT32:
			ws[i] = 9
		case arrow.DECIMAL128:
			ws[i] = 17
		case arrow.BOOL:
			ws[i] = 2
		default:
			return nil, false
		}
	}
	return ws, true
}

// sortByFixedKeys encodes each row's keys with appendSortKey, padded to
// fixed widths (a NULL is its tag byte plus zeros), and sorts row numbers
// by those bytes, the row number breaking ties.
func sortByFixedKeys(cols []arrow.Array, keys []SortKey, widths []int) []int64 {
	n := cols[0].Len()
	stride := 0
	for _, w := range widths {
		stride += w
	}
	buf := make([]byte, 0, n*stride)
	for r := 0; r < n; r++ {
		for k, c := range cols {
			start := len(buf)
			buf = appendSortKey(buf, c, r, keys[k])
			for len(buf) < start+widths[k] {
				buf = append(buf, 0)
			}
		}
	}
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortFunc(idx, func(a, b int64) int {
		if c := bytes.Compare(buf[a*int64(stride):(a+1)*int64(stride)], buf[b*int64(stride):(b+1)*int64(stride)]); c != 0 {
			return c
		}
		return int(a - b)
	})
	return idx
}

// orderWord maps row i of a fixed-width column to a uint64 whose unsigned
// order is the key's order (ok=false for other types).
func orderWord(c arrow.Array, desc bool) (func(i int) uint64, bool) {
	var f func(i int) uint64
	switch x := c.(type) {
	case *array.Int64:
		v := x.Int64Values()
		f = func(i int) uint64 { return uint64(v[i]) ^ (1 << 63) }
	case *array.Int32:
		v := x.Int32Values()
		f = func(i int) uint64 { return uint64(int64(v[i])) ^ (1 << 63) }
	case *array.Date32:
		v := x.Date32Values()
		f = func(i int) uint64 { return uint64(int64(v[i])) ^ (1 << 63) }
	case *array.Timestamp:
		v := x.TimestampValues()
		f = func(i int) uint64 { return uint64(v[i]) ^ (1 << 63) }
	case *array.Float64:
		v := x.Float64Values()
		f = func(i int) uint64 { return floatWord(v[i]) }
	case *array.Float32:
		v := x.Float32Values()
		f = func(i int) uint64 { return floatWord(float64(v[i])) }
	default:
		return nil, false
	}
	if desc {
		return func(i int) uint64 { return ^f(i) }, true
	}
	return f, true
}

func floatWord(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 = +0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b ^ (1 << 63)
}

// sortPacked sorts by one or two NULL-free fixed-width keys packed into
// words, the row number breaking ties (so the sort is stable).
func sortPacked(cols []arrow.Array, keys []SortKey) ([]int64, bool) {
	if len(cols) > 2 {
		return nil, false
	}
	words := make([]func(int) uint64, len(cols))
	for k, c := range cols {
		if c.NullN() > 0 {
			return nil, false
		}
		w, ok := orderWord(c, keys[k].Desc)
		if !ok {
			return nil, false
		}
		words[k] = w
	}
	type row struct {
		a, b uint64
		pos  int64
	}
	n := cols[0].Len()
	rs := make([]row, n)
	for i := range rs {
		rs[i].a = words[0](i)
		if len(words) == 2 {
			rs[i].b = words[1](i)
		}
		rs[i].pos = int64(i)
	}
	slices.SortFunc(rs, func(x, y row) int {
		switch {
		case x.a != y.a:
			return cmp.Compare(x.a, y.a)
		case x.b != y.b:
			return cmp.Compare(x.b, y.b)
		}
		return cmp.Compare(x.pos, y.pos)
	})
	idx := make([]int64, n)
	for i, r := range rs {
		idx[i] = r.pos
	}
	return idx, true
}
