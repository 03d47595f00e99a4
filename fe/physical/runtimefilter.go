package physical

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/internal/keybits"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// RFConfig is what the session variables say about runtime filters
// (runtime_filter_mode, runtime_filter_type, runtime_filter_max_in_num).
// The zero value makes none.
type RFConfig struct {
	// Types are the filters each eligible join key gets, in order.
	Types []exec.RFKind
	// MaxIn bounds the distinct build keys of an IN filter.
	MaxIn int
}

// rfTypeNames are runtime_filter_type's spellings, as Doris takes them.
var rfTypeNames = map[string]exec.RFKind{
	"IN":                 exec.RFIn,
	"BLOOM_FILTER":       exec.RFBloom,
	"MIN_MAX":            exec.RFMinMax,
	"IN_OR_BLOOM_FILTER": exec.RFInOrBloom,
}

// ParseRFConfig reads the session's runtime filter variables. OFF makes
// no filters; LOCAL and GLOBAL are the same here, as the FE runs every
// join of a statement in one fragment.
func ParseRFConfig(mode, types string, maxIn int64) (RFConfig, error) {
	if err := CheckRFMode(mode); err != nil {
		return RFConfig{}, err
	}
	if strings.EqualFold(strings.TrimSpace(mode), "OFF") {
		return RFConfig{}, nil
	}
	kinds, err := parseRFTypes(types)
	if err != nil {
		return RFConfig{}, err
	}
	return RFConfig{Types: kinds, MaxIn: int(maxIn)}, nil
}

// CheckRFMode validates runtime_filter_mode.
func CheckRFMode(mode string) error {
	switch strings.ToUpper(strings.TrimSpace(mode)) {
	case "OFF", "LOCAL", "GLOBAL":
		return nil
	}
	return errorf(ErrNotSupported, "runtime_filter_mode must be OFF, LOCAL or GLOBAL, not '%s'", mode)
}

// CheckRFTypes validates runtime_filter_type.
func CheckRFTypes(types string) error {
	_, err := parseRFTypes(types)
	return err
}

func parseRFTypes(types string) ([]exec.RFKind, error) {
	var out []exec.RFKind
	seen := map[exec.RFKind]bool{}
	for _, t := range strings.Split(types, ",") {
		t = strings.ToUpper(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		k, ok := rfTypeNames[t]
		if !ok {
			return nil, errorf(ErrNotSupported, "runtime_filter_type: unknown filter type '%s' (IN, BLOOM_FILTER, MIN_MAX, IN_OR_BLOOM_FILTER)", t)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// RFProfile is one runtime filter's counters, for the query profile.
type RFProfile struct {
	Name, Target, Effective string
	Input, Filtered         int64
}

// RuntimeFilters returns the counters of the statement's runtime filters.
func (st *Statement) RuntimeFilters() []RFProfile {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]RFProfile, len(st.filters))
	for i, rf := range st.filters {
		out[i] = RFProfile{Name: rf.Name(), Target: rf.Target, Effective: rf.Effective(),
			Input: rf.Input.Load(), Filtered: rf.Filtered.Load()}
	}
	return out
}

// addFilter numbers rf within the statement and keeps it for the profile.
func (st *Statement) addFilter(rf *exec.RuntimeFilter) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rf.ID = len(st.filters)
	st.filters = append(st.filters, rf)
}

// ProfileLines renders RFProfiles for a text profile.
func ProfileLines(rfs []RFProfile) []string {
	if len(rfs) == 0 {
		return nil
	}
	out := []string{"  RuntimeFilters:"}
	for _, r := range rfs {
		out = append(out, fmt.Sprintf("    %s -> %s (%s): RowsInput: %d, RowsFiltered: %d", r.Name, r.Target, r.Effective, r.Input, r.Filtered))
	}
	return out
}

// rfMaxShare is the largest estimated share of probe rows with a match at
// which a join still makes runtime filters: a filter that keeps more rows
// costs its build (hashing every build key) and a check per probe row for
// too little; with the keys of the whole build side's table (an unfiltered
// dimension, a fact table's foreign keys) it keeps them all.
const rfMaxShare = 0.5

// rfDirectMinBuild is the estimated build side from which a filter pays
// even on a scan read straight into the join's probe: its hash table
// (tens of bytes a key) no longer fits the caches, while the bloom filter
// (two bytes a key) does, so the rows it drops skip a cache miss each.
const rfDirectMinBuild = 20000

// buildRows is the estimated size of n's build side; unknown counts as
// small.
func (b *builder) buildRows(n *bind.Join) float64 {
	return b.cfg.Estimates[n.Right]
}

// planFilters makes the runtime filters of join n (before its inputs are
// built, so the probe-side scans pick theirs up): one per configured type
// for each key whose probe expression is a column read unchanged from a
// scan. Only inner and semi joins filter their probe side: an outer join's
// probe side is preserved, and an anti join keeps exactly the rows a
// filter would drop.
//
// A filter must also pay for itself. Keys whose build side the estimates
// say keeps more than rfMaxShare of the probe rows get none. And a filter
// on an internal table's scan that reaches the join through filters and
// projections alone only repeats the join's own probe (a hash lookup per
// row either way) and adds copying the rows it keeps: it is made only when
// another join lies between, whose probe the dropped rows skip, when the
// scan runs on the BEs, which receive min/max filters as ranges and skip
// what they rule out before sending it, or when the build side is big
// (rfDirectMinBuild).
func (b *builder) planFilters(n *bind.Join) []*exec.RuntimeFilter {
	if len(b.cfg.RuntimeFilters.Types) == 0 || len(n.LeftKeys) == 0 {
		return nil
	}
	switch n.Kind {
	case bind.InnerJoin, bind.CrossJoin, bind.LeftSemiJoin:
	default:
		return nil
	}
	var out []*exec.RuntimeFilter
	for i, k := range n.LeftKeys {
		if b.cfg.MatchShare != nil {
			if share, ok := b.cfg.MatchShare(n, i); ok && share > rfMaxShare {
				continue
			}
		}
		idx, casts, ok := peelCasts(k, nil)
		if !ok {
			continue
		}
		sc, col, casts, joins, ok := b.filterTarget(n.Left, idx, casts)
		if !ok {
			continue
		}
		if joins == 0 && !planner.Plannable(sc.Table) && b.buildRows(n) < rfDirectMinBuild {
			continue
		}
		for _, kind := range b.cfg.RuntimeFilters.Types {
			rf := &exec.RuntimeFilter{Kind: kind, Key: i, Target: sc.Out[col].Name, MaxIn: b.cfg.RuntimeFilters.MaxIn}
			b.st.addFilter(rf)
			b.rfTargets[sc] = append(b.rfTargets[sc], exec.ScanFilter{RF: rf, Column: col, Casts: casts})
			out = append(out, rf)
		}
	}
	return out
}

// Probe-side filters. A semi or anti join (or an inner join left as
// bound) whose probe side is estimated small and whose build side is
// probeFirstMinRatio times larger or more reads its probe side first and
// publishes filters of its keys to the build side's scan (exec's
// probefirst.go), so the build side hashes only the rows that can match.
// (A semi or anti join the optimiser marked BuildLeft, TPC-H Q21's EXISTS
// and NOT EXISTS among them, hashes its small side instead: rightSemi.)
// The same share rule as above keeps a
// filter that would drop too little away; the probe side is held in
// memory meanwhile, hence its bound.
const (
	probeFirstMaxRows  = 200000
	probeFirstMinRatio = 10
)

// planProbeFilters makes the probe-side filters of join n, before its
// inputs are built.
func (b *builder) planProbeFilters(n *bind.Join) []*exec.RuntimeFilter {
	if len(b.cfg.RuntimeFilters.Types) == 0 || len(n.LeftKeys) == 0 || len(n.LeftKeys) != len(n.RightKeys) {
		return nil
	}
	switch n.Kind {
	case bind.InnerJoin, bind.LeftSemiJoin, bind.LeftAntiJoin:
	default:
		return nil
	}
	l, lok := b.cfg.Estimates[n.Left]
	r, rok := b.cfg.Estimates[n.Right]
	if !lok || !rok || l > probeFirstMaxRows || r < probeFirstMinRatio*max(l, 1) {
		return nil
	}
	swapped := &bind.Join{Kind: bind.InnerJoin, Left: n.Right, Right: n.Left, LeftKeys: n.RightKeys, RightKeys: n.LeftKeys}
	var out []*exec.RuntimeFilter
	for i, k := range n.RightKeys {
		if b.cfg.MatchShare != nil {
			if share, ok := b.cfg.MatchShare(swapped, i); ok && share > rfMaxShare {
				continue
			}
		}
		idx, casts, ok := peelCasts(k, nil)
		if !ok {
			continue
		}
		sc, col, casts, _, ok := b.filterTarget(n.Right, idx, casts)
		if !ok {
			continue
		}
		for _, kind := range b.cfg.RuntimeFilters.Types {
			rf := &exec.RuntimeFilter{Kind: kind, Key: i, Target: sc.Out[col].Name, MaxIn: b.cfg.RuntimeFilters.MaxIn}
			b.st.addFilter(rf)
			b.rfTargets[sc] = append(b.rfTargets[sc], exec.ScanFilter{RF: rf, Column: col, Casts: casts})
			out = append(out, rf)
		}
	}
	return out
}

// filterTarget follows output column idx of p down to the scan column it
// is read from unchanged, through operators that never let a row reach
// the join's probe keys other than as the scan produced its key: filters,
// projections, sorts, inner joins, the preserved side of outer joins and
// the probe side of semi and anti joins. ok is false anywhere else (a
// LIMIT, an aggregate, a union) and for a scan the plan reads twice.
// casts are the conversions applied on the way (outermost first), which
// the scan applies as well, so it compares exactly what the join does;
// joins counts the joins passed.
func (b *builder) filterTarget(p bind.Plan, idx int, casts []arrow.DataType) (*bind.Scan, int, []arrow.DataType, int, bool) {
	joins := 0
	for {
		switch n := p.(type) {
		case *bind.Scan:
			if b.scanUses[n] != 1 || idx >= len(n.Out) {
				return nil, 0, nil, 0, false
			}
			return n, idx, casts, joins, true
		case *bind.Filter:
			p = n.Input
		case *bind.Sort:
			p = n.Input
		case *bind.Project:
			var ok bool
			if idx, casts, ok = peelCasts(n.Exprs[idx], casts); !ok {
				return nil, 0, nil, 0, false
			}
			p = n.Input
		case *bind.Join:
			nl := len(n.Left.Columns())
			switch {
			case idx < nl && n.Kind != bind.RightJoin && n.Kind != bind.FullJoin:
				p = n.Left
			case idx >= nl && (n.Kind == bind.InnerJoin || n.Kind == bind.CrossJoin || n.Kind == bind.RightJoin):
				p, idx = n.Right, idx-nl
			default:
				return nil, 0, nil, 0, false
			}
			joins++
		default:
			return nil, 0, nil, 0, false
		}
	}
}

// peelCasts returns the column e reads when e is a column under casts,
// appending the casts (outermost first) to those of the expression above.
func peelCasts(e expr.Expr, casts []arrow.DataType) (int, []arrow.DataType, bool) {
	for {
		switch x := e.(type) {
		case *expr.ColumnRef:
			return x.Index, casts, true
		case *expr.CastExpr:
			casts = append(casts, x.To)
			e = x.Arg
		default:
			return 0, nil, false
		}
	}
}

// withFilters gives the scan operator built for n the runtime filters
// planned for it.
func (b *builder) withFilters(n *bind.Scan, op exec.Operator) exec.Operator {
	fs := b.rfTargets[n]
	if s, ok := op.(*exec.Scan); ok && len(fs) > 0 {
		s.Filters = append(s.Filters, fs...)
		if src, ok := s.Src.(*fragmentSource); ok {
			src.filters = fs
		}
	}
	return op
}

// countScans counts how often each scan node occurs in p.
func countScans(p bind.Plan, into map[*bind.Scan]int) {
	if s, ok := p.(*bind.Scan); ok {
		into[s]++
	}
	for _, c := range p.Children() {
		countScans(c, into)
	}
}

// withRanges is the fragment to send: the planned one, plus a BE filter
// col >= min AND col <= max for each min/max runtime filter already
// published over an integer or text column read as is, and an IN_BITS
// filter for each one published as an exact key bitmap over an integer
// column read as is (an IN filter, or a bloom filter, of keys spanning
// few values), or an IN list for an IN filter of integer keys too spread
// for a bitmap (at most 4096 of them), so the BEs drop those rows (and lake readers the row
// groups out of range, and the rows not in the bitmap before the other
// columns decode) before sending them. A filter published later is
// applied by the FE alone, as is a bitmap past the size bounds below.
func (f *fragmentSource) withRanges(ctx context.Context) *inletpb.Fragment {
	frag := f.res.Fragment
	var add []*inletpb.Filter
	bitsBytes := 0
	for _, sf := range f.filters {
		if sf.Column >= len(frag.GetProjection()) || sf.Column >= f.schema.NumFields() {
			continue
		}
		col := frag.GetProjection()[sf.Column]
		ct := f.schema.Field(sf.Column).Type
		if sf.RF.Kind != exec.RFMinMax {
			if !isIntType(ct) || !sameRange(ct, sf.Casts, sf.RF.Type()) {
				continue
			}
			if lo, words, ok := exec.FilterBits(ctx, sf.RF); ok {
				n := 8 * len(words)
				if n > maxBitsBytes || bitsBytes+n > maxFragmentBitsBytes {
					continue
				}
				bitsBytes += n
				add = append(add, &inletpb.Filter{Column: col, Op: "IN_BITS", BitsLo: lo, Bits: keybits.Encode(words), Runtime: true})
			} else if vals, ok := exec.FilterInts(ctx, sf.RF); ok {
				if in := inFilter(col, ct, vals); in != nil {
					add = append(add, in)
				}
			}
			continue
		}
		lo, hi, ok := exec.FilterRange(ctx, sf.RF)
		if !ok || !sameRange(ct, sf.Casts, sf.RF.Type()) {
			continue
		}
		for _, b := range []struct {
			op string
			v  any
		}{{">=", lo}, {"<=", hi}} {
			var v *inletpb.Value
			switch x := b.v.(type) {
			case int64:
				v = &inletpb.Value{V: &inletpb.Value_Int{Int: x}}
			case string:
				v = &inletpb.Value{V: &inletpb.Value_Text{Text: x}}
			}
			add = append(add, &inletpb.Filter{Column: col, Op: b.op, Values: []*inletpb.Value{v}, Runtime: true})
		}
	}
	if len(add) == 0 {
		return frag
	}
	frag = proto.Clone(frag).(*inletpb.Fragment)
	frag.Filters = append(frag.Filters, add...)
	return frag
}

// The key bitmaps a fragment carries are bounded: one (1 MiB, 8 M keys'
// span) and all of a fragment together, as the dispatcher sends the
// fragment to every BE (and again on a retry).
const (
	maxBitsBytes         = 1 << 20
	maxFragmentBitsBytes = 4 << 20
)

// inFilter is the BE filter col IN (vals) of an IN runtime filter's
// integer keys, leaving out those the column's type cannot hold (no row
// has them); nil when none is left, as the BE cannot send what matches
// nothing any cheaper than the FE drops it.
func inFilter(col int32, ct arrow.DataType, vals []int64) *inletpb.Filter {
	bits := ct.(arrow.FixedWidthDataType).BitWidth()
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if bits < 64 {
		lo, hi = -1<<(bits-1), 1<<(bits-1)-1
	}
	f := &inletpb.Filter{Column: col, Op: "IN", Runtime: true}
	for _, v := range vals {
		if v >= lo && v <= hi {
			f.Values = append(f.Values, &inletpb.Value{V: &inletpb.Value_Int{Int: v}})
		}
	}
	if len(f.Values) == 0 {
		return nil
	}
	return f
}

func isIntType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// sameRange says whether bounds compared in key type kt mean the same
// on the column itself: integers widened to integers, text as text.
func sameRange(col arrow.DataType, casts []arrow.DataType, kt arrow.DataType) bool {
	chain := append([]arrow.DataType{col}, casts...)
	chain = append(chain, kt)
	isInt := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			return true
		}
		return false
	}
	isText := func(t arrow.DataType) bool { return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING }
	allInt, allText := true, true
	for i, t := range chain {
		allInt = allInt && isInt(t) && (i == 0 || t.(arrow.FixedWidthDataType).BitWidth() >= chain[i-1].(arrow.FixedWidthDataType).BitWidth())
		allText = allText && isText(t)
	}
	return allInt || allText
}
