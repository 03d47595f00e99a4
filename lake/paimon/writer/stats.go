package writer

import (
	"cmp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/lake/paimon"
)

// truncateChars is the string length of Paimon's default value statistics
// mode, metadata.stats-mode = truncate(16).
const truncateChars = 16

// statsAcc accumulates SimpleStats (min, max, null count per column) over
// every row written; the reader prunes files by them, so a bound that
// excludes a written value loses rows.
//
// Key statistics keep full values. Value statistics follow Java Paimon's
// defaults for Parquet: strings truncated to 16 characters (the max bumped
// so it still bounds), and no bounds for bytes and nested types. A float
// column holding NaN has no bounds (NaN has no agreed place in the order).
type statsAcc struct {
	types    []paimon.DataType
	min, max []any
	nulls    []int64
	noBounds []bool
	truncate bool
}

func newStatsAcc(types []paimon.DataType, value bool) *statsAcc {
	s := &statsAcc{types: types, min: make([]any, len(types)), max: make([]any, len(types)),
		nulls: make([]int64, len(types)), noBounds: make([]bool, len(types)), truncate: value}
	for i, t := range types {
		switch t.Root {
		case paimon.Array, paimon.Map, paimon.Multiset, paimon.Row:
			s.noBounds[i] = true
		case paimon.Binary, paimon.VarBinary:
			s.noBounds[i] = value
		}
	}
	return s
}

// add takes one row of values (Value's forms).
func (s *statsAcc) add(vals []any) {
	for i, v := range vals {
		if v == nil {
			s.nulls[i]++
			continue
		}
		s.bound(i, v, v)
	}
}

// bound widens column i's bounds by lo and hi (lo <= hi, neither NULL).
func (s *statsAcc) bound(i int, lo, hi any) {
	if s.noBounds[i] {
		return
	}
	if isNaN(lo) || isNaN(hi) {
		s.noBounds[i] = true
		s.min[i], s.max[i] = nil, nil
		return
	}
	if s.min[i] == nil || Compare(lo, s.min[i]) < 0 {
		s.min[i] = own(lo)
	}
	if s.max[i] == nil || Compare(hi, s.max[i]) > 0 {
		s.max[i] = own(hi)
	}
}

// own copies strings that may point into an Arrow buffer the caller will
// release.
func own(v any) any {
	if x, ok := v.(string); ok {
		return strings.Clone(x)
	}
	return v
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}

// valuer is an Arrow array whose values are ordered as Paimon orders them.
type valuer[T cmp.Ordered] interface {
	arrow.Array
	Value(int) T
}

// extremes finds the rows holding the smallest and the largest non-NULL
// value (-1 when none); nan reports a NaN, which the bounds then exclude.
func extremes[T cmp.Ordered](a valuer[T]) (lo, hi int, nan bool) {
	lo, hi = -1, -1
	var mn, mx T
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			continue
		}
		v := a.Value(i)
		if v != v {
			return -1, -1, true
		}
		if lo < 0 || v < mn {
			lo, mn = i, v
		}
		if hi < 0 || v > mx {
			hi, mx = i, v
		}
	}
	return lo, hi, false
}

// addColumn folds column i of a batch into the statistics.
func (s *statsAcc) addColumn(i int, a arrow.Array) error {
	s.nulls[i] += int64(a.NullN())
	if s.noBounds[i] || a.NullN() == a.Len() {
		return nil
	}
	lo, hi, nan := -1, -1, false
	switch x := a.(type) {
	case *array.Int8:
		lo, hi, nan = extremes(x)
	case *array.Int16:
		lo, hi, nan = extremes(x)
	case *array.Int32:
		lo, hi, nan = extremes(x)
	case *array.Int64:
		lo, hi, nan = extremes(x)
	case *array.Float32:
		lo, hi, nan = extremes(x)
	case *array.Float64:
		lo, hi, nan = extremes(x)
	case *array.String:
		lo, hi, nan = extremes(x)
	case *array.Date32:
		lo, hi, nan = extremes(x)
	case *array.Time32:
		lo, hi, nan = extremes(x)
	case *array.Timestamp:
		// One unit per column, so raw order is time order.
		lo, hi, nan = extremes(x)
	default:
		for r := 0; r < a.Len(); r++ {
			if a.IsNull(r) {
				continue
			}
			v, err := paimon.ArrowValue(a, r)
			if err != nil {
				return err
			}
			s.bound(i, v, v)
		}
		return nil
	}
	if nan {
		s.noBounds[i] = true
		s.min[i], s.max[i] = nil, nil
		return nil
	}
	if lo < 0 {
		return nil
	}
	mn, err := paimon.ArrowValue(a, lo)
	if err != nil {
		return err
	}
	mx, err := paimon.ArrowValue(a, hi)
	if err != nil {
		return err
	}
	s.bound(i, mn, mx)
	return nil
}

func (s *statsAcc) stats() (*paimon.SimpleStats, error) {
	if len(s.types) == 0 {
		return paimon.EmptyStats(), nil
	}
	nullable := make([]paimon.DataType, len(s.types))
	for i, t := range s.types {
		t.Nullable = true
		nullable[i] = t
	}
	mn, mx := s.min, s.max
	if s.truncate {
		mn, mx = append([]any(nil), s.min...), append([]any(nil), s.max...)
		for i := range mn {
			if x, ok := mn[i].(string); ok {
				mn[i] = truncateMin(x)
			}
			if x, ok := mx[i].(string); ok {
				mx[i] = truncateMax(x)
			}
		}
	}
	mnb, err := paimon.SerializeRow(mn, nullable)
	if err != nil {
		return nil, err
	}
	mxb, err := paimon.SerializeRow(mx, nullable)
	if err != nil {
		return nil, err
	}
	nc := make([]*int64, len(s.nulls))
	for i := range s.nulls {
		n := s.nulls[i]
		nc[i] = &n
	}
	return &paimon.SimpleStats{MinValues: mnb, MaxValues: mxb, NullCounts: &nc}, nil
}

// truncateMin cuts s to its first 16 characters: a prefix is never larger.
func truncateMin(s string) string {
	if end := charsEnd(s, truncateChars); end >= 0 {
		return s[:end]
	}
	return s
}

// truncateMax cuts s to 16 characters and increments the last character
// that can be incremented (dropping those after it), so the result stays
// above every string with that prefix; nil (no bound) when none can.
func truncateMax(s string) any {
	end := charsEnd(s, truncateChars)
	if end < 0 {
		return s
	}
	if !utf8.ValidString(s[:end]) {
		// Bytes that are not UTF-8 have no character to increment; the
		// whole value is a bound.
		return s
	}
	rs := []rune(s[:end])
	for i := len(rs) - 1; i >= 0; i-- {
		n := rs[i] + 1
		if n >= 0xD800 && n <= 0xDFFF { // surrogates are not characters
			n = 0xE000
		}
		if n <= utf8.MaxRune {
			rs[i] = n
			return string(rs[:i+1])
		}
	}
	return nil
}

// charsEnd is the byte offset after the first n characters of s, or -1
// when s has no more than n characters.
func charsEnd(s string, n int) int {
	for off := range s {
		if n == 0 {
			return off
		}
		n--
	}
	return -1
}
