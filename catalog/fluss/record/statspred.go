package record

import "github.com/inlet-db/inlet/typemap"

// LeafFunction numbers the leaf predicates of Fluss 1.0's server-side filter
// (PbLeafPredicate.function; PredicateMessageUtils.LeafFunctionCode).
type LeafFunction int32

const (
	FnEqual LeafFunction = iota
	FnNotEqual
	FnLessThan
	FnLessOrEqual
	FnGreaterThan
	FnGreaterOrEqual
	FnIsNull
	FnIsNotNull
	FnStartsWith
	FnContains
	FnEndsWith
	FnIn
	FnNotIn
)

// CompoundFunction numbers AND and OR (PbCompoundPredicate.function).
type CompoundFunction int32

const (
	FnAnd CompoundFunction = 0
	FnOr  CompoundFunction = 1
)

// StatsPredicate is a resolved Fluss record-batch filter: a leaf on one
// column (a position in the batch's row type) or an AND/OR of children.
// It answers one question: may a batch with these statistics hold a row that
// matches? A false answer lets a server skip the batch.
type StatsPredicate struct {
	Leaf     bool
	Compound CompoundFunction
	Children []*StatsPredicate

	Func     LeafFunction
	Field    int
	Type     typemap.DataType
	Literals []any // canonical values; nil is a NULL literal
}

// MayMatch evaluates p over a batch of rowCount records with statistics s
// (nil when the batch has none), as Fluss 1.0's Predicate.test(rowCount,
// min, max, nullCounts) does: a column without statistics, a missing
// min/max on a column that is not all NULL, or a function the statistics
// cannot decide, keeps the batch.
func (p *StatsPredicate) MayMatch(rowCount int64, s *BatchStatistics) bool {
	if s == nil {
		return true
	}
	if !p.Leaf {
		for _, c := range p.Children {
			m := c.MayMatch(rowCount, s)
			if p.Compound == FnOr && m {
				return true
			}
			if p.Compound != FnOr && !m {
				return false
			}
		}
		return p.Compound != FnOr
	}
	i := s.Column(p.Field)
	if i < 0 {
		return true // Fluss throws reading a column without statistics and keeps the batch
	}
	lo, hi, nulls := s.Min[i], s.Max[i], int64(s.NullCounts[i])
	if nulls < 0 || rowCount != nulls {
		if lo == nil || hi == nil {
			return true
		}
	}
	cmpL := func(lit, v any) int { return CompareValues(p.Type, lit, v) }
	one := func() (any, bool) {
		if len(p.Literals) == 0 {
			return nil, false
		}
		return p.Literals[0], true
	}
	switch p.Func {
	case FnIsNull:
		return nulls < 0 || nulls > 0
	case FnIsNotNull:
		return nulls < 0 || nulls < rowCount
	case FnIn:
		if nulls >= 0 && rowCount == nulls {
			return false
		}
		for _, l := range p.Literals {
			if l != nil && cmpL(l, lo) >= 0 && cmpL(l, hi) <= 0 {
				return true
			}
		}
		return false
	case FnNotIn:
		if nulls >= 0 && rowCount == nulls {
			return false
		}
		for _, l := range p.Literals {
			if l == nil || (cmpL(l, lo) == 0 && cmpL(l, hi) == 0) {
				return false
			}
		}
		return true
	case FnEqual, FnNotEqual, FnLessThan, FnLessOrEqual, FnGreaterThan, FnGreaterOrEqual:
		l, ok := one()
		if !ok {
			return true
		}
		// NullFalseLeafBinaryFunction: all-NULL batches and NULL literals
		// match nothing.
		if nulls >= 0 && (rowCount == nulls || l == nil) {
			return false
		}
		if l == nil || lo == nil || hi == nil {
			return true
		}
		switch p.Func {
		case FnEqual:
			return cmpL(l, lo) >= 0 && cmpL(l, hi) <= 0
		case FnNotEqual:
			return cmpL(l, lo) != 0 || cmpL(l, hi) != 0
		case FnLessThan:
			return cmpL(l, lo) > 0
		case FnLessOrEqual:
			return cmpL(l, lo) >= 0
		case FnGreaterThan:
			return cmpL(l, hi) < 0
		case FnGreaterOrEqual:
			return cmpL(l, hi) <= 0
		}
	}
	return true // STARTS_WITH, CONTAINS, END_WITH and unknown functions do not prune here
}
