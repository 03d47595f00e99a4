package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The stddev/variance family as window functions, over every frame the
// operator supports. Every frame is first turned into [lo, hi) per row
// (stepFrames for the running and whole-partition frames); both ends only
// move forward within a partition, so the state slides: a row enters once
// and leaves once. The state is the aggregate's (count, mean, M2) measured
// from the partition's first non-NULL value, so values far from zero keep
// their variance; a leaving row runs Welford's update backwards (its
// rounding, ~1e-16 of the squared spread of the values that left, stays in
// M2 until the frame is down to one value, when M2 is exactly 0 again).

func isWinStat(f WindowFunc) bool { return f >= WinStddevPop && f <= WinVarSamp }

// WindowFuncByName maps the names of the analytic functions this file and
// windowrank.go add (any stddev/variance alias, ntile, percent_rank,
// cume_dist) to their function.
func WindowFuncByName(name string) (WindowFunc, bool) {
	switch name {
	case "ntile":
		return Ntile, true
	case "percent_rank":
		return PercentRank, true
	case "cume_dist":
		return CumeDist, true
	}
	f, ok := StatAggByName(name)
	if !ok || f > VarSamp {
		return 0, false
	}
	return WinStddevPop + WindowFunc(f-StddevPop), true
}

// stepFrames turns the frames given by frame-step flags (the running value
// is published at the end of each step group; a new partition restarts it)
// into [lo, hi) per row.
func stepFrames(newPart, step []bool) (lo, hi []int) {
	n := len(newPart)
	lo, hi = make([]int, n), make([]int, n)
	start := 0
	for i := 0; i < n; i++ {
		if newPart[i] {
			start = i
		}
		lo[i] = start
	}
	end := n
	for i := n - 1; i >= 0; i-- {
		hi[i] = end
		if step[i] {
			end = i
		}
	}
	return lo, hi
}

// slidingStat is (count, mean, M2) of the values in a frame, relative to
// shift.
type slidingStat struct {
	n           int64
	shift, mean float64
	m2          float64
}

func (s *slidingStat) add(x float64) {
	x -= s.shift
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

func (s *slidingStat) remove(x float64) {
	x -= s.shift
	if s.n <= 1 {
		s.n, s.mean, s.m2 = 0, 0, 0
		return
	}
	s.n--
	d := x - s.mean
	s.mean -= d / float64(s.n)
	s.m2 -= d * (x - s.mean)
	if s.m2 < 0 || s.n == 1 {
		// One value left has M2 exactly 0; the rounding a backward step
		// leaves would otherwise show as a stddev of ~1e-8.
		s.m2 = 0
	}
}

func evalStatWindow(env *Env, c WindowCall, arg arrow.Array, newPart []bool, lo, hi []int) arrow.Array {
	f := c.Func.agg()
	v := arg.(*array.Float64)
	vals := v.Float64Values()
	b := array.NewFloat64Builder(env.Mem)
	defer b.Release()
	b.Reserve(len(newPart))
	var st slidingStat
	curLo, curHi := 0, 0
	for i := range newPart {
		if newPart[i] {
			st = slidingStat{}
			for j := i; j < len(newPart) && (j == i || !newPart[j]); j++ {
				if v.IsValid(j) {
					st.shift = vals[j]
					break
				}
			}
			curLo, curHi = lo[i], lo[i]
		}
		for ; curHi < hi[i]; curHi++ {
			if v.IsValid(curHi) {
				st.add(vals[curHi])
			}
		}
		for ; curLo < lo[i]; curLo++ {
			if v.IsValid(curLo) {
				st.remove(vals[curLo])
			}
		}
		if r, ok := statFinal(f, st.n, st.m2); ok {
			b.Append(r)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}
