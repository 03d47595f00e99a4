package exec

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
)

// SEQUENCE_MATCH(pattern, t, c1, ..., cn) and SEQUENCE_COUNT: Doris's
// (and ClickHouse's) event-chain patterns. A row is an event when at
// least one condition holds; rows with a NULL argument are skipped, as
// Doris's nullable wrapper skips them. At the end a group's events are
// sorted by time (stably) and the pattern is matched against them:
// (?N) is an event meeting condition N, "." any event, ".*" any number
// of events, (?t op s) a time step of s seconds (op <=, <, >=, >, ==)
// from the previous matched event to some later one. The pattern may
// start anywhere; SEQUENCE_COUNT counts non-overlapping matches. A group
// with no row is NULL.

// seqAcc is SEQUENCE_MATCH (count false) or SEQUENCE_COUNT (count true).
type seqAcc struct {
	valMem
	count   bool
	n       int
	pattern string
	events  [][]expr.SeqEvent
	met     []uint32
	seen    []bool
}

func (a *seqAcc) grow(n int) {
	a.events, a.met, a.seen = growTo(a.events, n), growTo(a.met, n), growTo(a.seen, n)
}

func (a *seqAcc) add(g uint32, sec int64, mask uint32) {
	a.seen[g] = true
	if mask == 0 {
		return
	}
	a.charge(16)
	a.events[g] = append(a.events[g], expr.SeqEvent{Sec: sec, Mask: mask})
	a.met[g] |= mask
}

func (a *seqAcc) update(gids []uint32, arg arrow.Array, rows int) {
	st := arg.(*array.Struct)
	pat := st.Field(0).(*array.String)
	tget := expr.Getter(st.Field(1))
	conds := make([]*array.Boolean, a.n)
	for c := range conds {
		conds[c] = st.Field(2 + c).(*array.Boolean)
	}
rows:
	for i, g := range gids[:rows] {
		if !st.IsValid(i) || pat.IsNull(i) {
			continue
		}
		if a.pattern == "" {
			a.pattern = pat.Value(i)
		}
		t, ok := funnelTime(tget(i))
		if !ok {
			continue
		}
		var mask uint32
		for c, e := range conds {
			if e.IsNull(i) {
				continue rows
			}
			if e.Value(i) {
				mask |= 1 << c
			}
		}
		a.add(g, floorDiv(t, 1e6), mask)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (a *seqAcc) merge(gids []uint32, states []arrow.Array) {
	ts, ms := expr.Getter(states[0]), expr.Getter(states[1])
	pat, seen := states[2].(*array.String), states[3].(*array.Boolean)
	for i, g := range gids {
		if a.pattern == "" && pat.IsValid(i) {
			a.pattern = pat.Value(i)
		}
		if !seen.Value(i) {
			continue
		}
		a.seen[g] = true
		t, _ := ts(i).([]any)
		m, _ := ms(i).([]any)
		for k := range t {
			a.add(g, t[k].(int64), uint32(m[k].(int64)))
		}
	}
}

func (a *seqAcc) result(mem memory.Allocator, n int) arrow.Array {
	sp, err := expr.ParseSequencePattern(a.pattern, a.n)
	var bb *array.BooleanBuilder
	var ib *array.Int64Builder
	if a.count {
		ib = array.NewInt64Builder(mem)
		defer ib.Release()
	} else {
		bb = array.NewBooleanBuilder(mem)
		defer bb.Release()
	}
	for g := 0; g < n; g++ {
		if !a.seen[g] {
			if a.count {
				ib.AppendNull()
			} else {
				bb.AppendNull()
			}
			continue
		}
		ev := a.events[g]
		sort.SliceStable(ev, func(x, y int) bool { return ev[x].Sec < ev[y].Sec })
		// Doris answers no match at once when a condition the pattern
		// names never held.
		ok := err == nil && sp.Conds() != 0 && sp.Conds()&a.met[g] == sp.Conds()
		if a.count {
			c := int64(0)
			if ok {
				c = sp.Count(ev)
			}
			ib.Append(c)
			continue
		}
		m := ok && sp.Match(ev)
		bb.Append(m)
	}
	if a.count {
		return ib.NewArray()
	}
	return bb.NewArray()
}

func (a *seqAcc) states(mem memory.Allocator, n int) []arrow.Array {
	ts := make([][]int64, n)
	ms := make([][]int64, n)
	for g := 0; g < n; g++ {
		for _, e := range a.events[g] {
			ts[g] = append(ts[g], e.Sec)
			ms[g] = append(ms[g], int64(e.Mask))
		}
	}
	pb := array.NewStringBuilder(mem)
	defer pb.Release()
	sb := array.NewBooleanBuilder(mem)
	defer sb.Release()
	for g := 0; g < n; g++ {
		pb.Append(a.pattern)
		sb.Append(a.seen[g])
	}
	return []arrow.Array{int64Lists(mem, ts), int64Lists(mem, ms), pb.NewArray(), sb.NewArray()}
}
