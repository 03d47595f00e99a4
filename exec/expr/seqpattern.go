package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// SEQUENCE_MATCH / SEQUENCE_COUNT patterns (the aggregates live in exec;
// the binder parses the pattern here so a bad one fails the statement).

// maxSequenceEvents bounds the conditions (one bit each), as Doris does.
const MaxSequenceEvents = 32

// seqMaxIterations is Doris's bound on the backtracking steps of one
// match; past it the match fails.
const seqMaxIterations = 1000000

type seqActionKind uint8

const (
	seqSpecific seqActionKind = iota
	seqAny
	seqKleene
	seqTimeLE
	seqTimeLT
	seqTimeGE
	seqTimeGT
	seqTimeEQ
)

type seqAction struct {
	kind  seqActionKind
	extra int64 // the event's 0-based index, or the seconds of a time step
}

// SeqPattern is a parsed pattern: its actions after an implicit leading
// ".*", whether it has time steps, and the conditions it names.
type SeqPattern struct {
	actions []seqAction
	hasTime bool
	conds   uint32
}

// ParseSequencePattern parses a SEQUENCE_MATCH pattern over n conditions;
// the binder calls it so a bad pattern fails the statement with Doris's
// reason.
func ParseSequencePattern(p string, n int) (*SeqPattern, error) {
	return parseSeqPattern(p, n)
}

func parseSeqPattern(p string, n int) (*SeqPattern, error) {
	sp := &SeqPattern{actions: []seqAction{{kind: seqKleene}}}
	pos := 0
	bad := func(msg string) (*SeqPattern, error) {
		return nil, fmt.Errorf("%w: sequence pattern %q: %s at position %d", ErrType, p, msg, pos)
	}
	readInt := func() (int64, bool) {
		j := pos
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		if j == pos {
			return 0, false
		}
		v, err := strconv.ParseInt(p[pos:j], 10, 64)
		if err != nil {
			return 0, false
		}
		pos = j
		return v, true
	}
	for pos < len(p) {
		switch {
		case strings.HasPrefix(p[pos:], "(?t"):
			pos += 3
			var k seqActionKind
			switch {
			case strings.HasPrefix(p[pos:], "<="):
				k, pos = seqTimeLE, pos+2
			case strings.HasPrefix(p[pos:], "<"):
				k, pos = seqTimeLT, pos+1
			case strings.HasPrefix(p[pos:], ">="):
				k, pos = seqTimeGE, pos+2
			case strings.HasPrefix(p[pos:], ">"):
				k, pos = seqTimeGT, pos+1
			case strings.HasPrefix(p[pos:], "=="):
				k, pos = seqTimeEQ, pos+2
			default:
				return bad("unknown time condition")
			}
			v, ok := readInt()
			if !ok {
				return bad("could not parse number")
			}
			switch sp.actions[len(sp.actions)-1].kind {
			case seqSpecific, seqAny, seqKleene:
			default:
				return bad("a temporal condition should be preceded by an event condition")
			}
			sp.hasTime = true
			sp.actions = append(sp.actions, seqAction{kind: k, extra: v})
			if !strings.HasPrefix(p[pos:], ")") {
				return bad("expected closing parenthesis")
			}
			pos++
		case strings.HasPrefix(p[pos:], "(?"):
			pos += 2
			v, ok := readInt()
			if !ok {
				return bad("could not parse number")
			}
			if v < 1 || v > int64(n) {
				return bad("event number " + strconv.FormatInt(v, 10) + " is out of range")
			}
			sp.actions = append(sp.actions, seqAction{kind: seqSpecific, extra: v - 1})
			sp.conds |= 1 << (v - 1)
			if !strings.HasPrefix(p[pos:], ")") {
				return bad("expected closing parenthesis")
			}
			pos++
		case strings.HasPrefix(p[pos:], ".*"):
			sp.actions = append(sp.actions, seqAction{kind: seqKleene})
			pos += 2
		case p[pos] == '.':
			sp.actions = append(sp.actions, seqAction{kind: seqAny})
			pos++
		default:
			return bad("unexpected symbol")
		}
	}
	return sp, nil
}

// SeqEvent is one event of a sequence: its time in whole seconds and the
// mask of the conditions it meets.
type SeqEvent struct {
	Sec  int64
	Mask uint32
}

// Conds is the mask of the conditions the pattern names.
func (sp *SeqPattern) Conds() uint32 { return sp.conds }

// Match reports whether the time-ordered events contain the pattern.
func (sp *SeqPattern) Match(ev []SeqEvent) bool {
	if !sp.hasTime {
		return sp.dfa(ev)
	}
	if !sp.couldMatch(ev) {
		return false
	}
	m, _ := sp.backtrack(ev, 0)
	return m
}

// Count is the number of non-overlapping matches in the events.
func (sp *SeqPattern) Count(ev []SeqEvent) int64 {
	c := int64(0)
	if !sp.couldMatch(ev) {
		return 0
	}
	for pos := 0; pos < len(ev); {
		matched, next := sp.backtrack(ev, pos)
		if !matched {
			break
		}
		c++
		pos = next
	}
	return c
}

// dfa matches a pattern without time steps in one pass: the states are
// the positions between event actions, ".*" loops on its state, and the
// implicit leading ".*" lets a match start at any event.
func (sp *SeqPattern) dfa(ev []SeqEvent) bool {
	type state struct {
		kleene bool
		trans  seqActionKind // seqSpecific, seqAny, or seqKleene for none
		event  int64
	}
	states := []state{{kleene: true, trans: seqKleene}}
	for _, ac := range sp.actions[1:] {
		last := &states[len(states)-1]
		switch ac.kind {
		case seqKleene:
			last.kleene = true
		case seqSpecific, seqAny:
			last.trans, last.event = ac.kind, ac.extra
			states = append(states, state{trans: seqKleene})
		}
	}
	active := make([]bool, len(states))
	next := make([]bool, len(states))
	active[0] = true
	live := 1
	for i := 0; i < len(ev) && live > 0 && !active[len(states)-1]; i++ {
		live = 0
		clear(next)
		for s, st := range states {
			if !active[s] {
				continue
			}
			switch st.trans {
			case seqAny:
				next[s+1] = true
				live++
			case seqSpecific:
				if ev[i].Mask&(1<<st.event) != 0 {
					next[s+1] = true
					live++
				}
			}
			if st.kleene {
				next[s] = true
				live++
			}
		}
		active, next = next, active
	}
	return active[len(states)-1]
}

// couldMatch checks that the fixed runs of event actions between the
// ".*" and time steps occur in order, so a hopeless pattern fails before
// the backtracking search.
func (sp *SeqPattern) couldMatch(ev []SeqEvent) bool {
	pos, steps := 0, 0
	var part []seqAction
	matchPart := func() bool {
		start := pos
		k := 0
		for k < len(part) && pos < len(ev) {
			ok := part[k].kind == seqAny || ev[pos].Mask&(1<<part[k].extra) != 0
			if ok {
				pos++
				k++
			} else {
				start++
				pos, k = start, 0
			}
			if steps++; steps > seqMaxIterations {
				return false
			}
		}
		return k == len(part)
	}
	for _, ac := range sp.actions {
		if ac.kind != seqSpecific && ac.kind != seqAny {
			if !matchPart() {
				return false
			}
			part = part[:0]
			continue
		}
		part = append(part, ac)
	}
	return matchPart()
}

// backtrack matches the pattern from event start by backtracking over
// the ".*" and time-step choices; it returns whether it matched and
// where the next search starts.
func (sp *SeqPattern) backtrack(ev []SeqEvent, start int) (bool, int) {
	type point struct{ action, event, base int }
	acts := sp.actions
	ai, ei, base := 0, start, start
	var stack []point
	back := func() bool {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ai, ei, base = top.action, top.event+1, top.base
			if ei != len(ev) {
				return true
			}
		}
		return false
	}
	timeOK := func(k seqActionKind, d, s int64) bool {
		switch k {
		case seqTimeLE:
			return d <= s
		case seqTimeLT:
			return d < s
		case seqTimeGE:
			return d >= s
		case seqTimeGT:
			return d > s
		}
		return d == s
	}
	for steps := 0; ai < len(acts) && ei < len(ev); {
		ac := acts[ai]
		switch ac.kind {
		case seqSpecific:
			if ev[ei].Mask&(1<<ac.extra) != 0 {
				base = ei
				ai++
				ei++
			} else if !back() {
				goto done
			}
		case seqAny:
			base = ei
			ai++
			ei++
		case seqKleene:
			stack = append(stack, point{ai, ei, base})
			base = ei
			ai++
		default:
			if timeOK(ac.kind, ev[ei].Sec-ev[base].Sec, ac.extra) {
				stack = append(stack, point{ai, ei, base})
				base = ei
				ai++
			} else if ac.kind == seqTimeLE || ac.kind == seqTimeLT {
				// Later events are only further away.
				if !back() {
					goto done
				}
			} else if ei++; ei == len(ev) && !back() {
				goto done
			}
		}
		if steps++; steps > seqMaxIterations {
			return false, len(ev)
		}
	}
done:
	// Trailing actions that match nothing.
	for ai < len(acts) {
		k := acts[ai].kind
		if k == seqKleene || k == seqTimeLE || k == seqTimeLT || (k == seqTimeGE && acts[ai].extra == 0) {
			ai++
			continue
		}
		break
	}
	if ei == start {
		ei++
	}
	return ai == len(acts), ei
}
