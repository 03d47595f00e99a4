package exec

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestSumSmall checks the interleaved folds against a row-at-a-time
// loop: every group count up to smallGroups, with and without a
// selection, lengths that are and are not multiples of four, and a group
// whose values cancel out (present, sum 0).
func TestSumSmall(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, groups := range []int{1, 2, 4, 15, smallGroups} {
		for _, n := range []int{0, 1, 3, 4, 7, 1029} {
			for _, withSel := range []bool{false, true} {
				t.Run(fmt.Sprintf("g=%d/n=%d/sel=%v", groups, n, withSel), func(t *testing.T) {
					rows := n
					var sel []int64
					if withSel {
						rows = 2*n + 1
						for j := range n {
							sel = append(sel, int64(2*j+1))
						}
					}
					vals := make([]int64, rows)
					for r := range vals {
						vals[r] = rng.Int63n(1<<40) - 1<<39
					}
					gids := make([]uint32, n)
					for j := range gids {
						// Group 0 only every 5th row; the last group never.
						gids[j] = uint32(rng.Intn(max(groups-1, 1)))
						if j%5 != 0 && gids[j] == 0 && groups > 2 {
							gids[j] = 1
						}
					}
					lane := make([]int64, groups)
					want := make([]int64, groups)
					for g := range lane {
						lane[g] = int64(g) * 1000
						want[g] = lane[g]
					}
					var wantPresent uint32
					c := make([]int64, groups)
					wantC := make([]int64, groups)
					for j, g := range gids {
						r := j
						if sel != nil {
							r = int(sel[j])
						}
						want[g] += vals[r]
						wantPresent |= 1 << g
						wantC[g]++
					}
					if got := sumSmall(lane, gids, vals, sel); got != wantPresent {
						t.Fatalf("present %b, want %b", got, wantPresent)
					}
					countSmall(c, gids)
					for g := range groups {
						if lane[g] != want[g] || c[g] != wantC[g] {
							t.Fatalf("group %d: sum %d count %d, want %d %d", g, lane[g], c[g], want[g], wantC[g])
						}
					}
				})
			}
		}
	}
}

// TestSmallGroupsAggregate runs SUM, AVG, COUNT and COUNT(*) of a
// DECIMAL grouped by a short string on both sides of smallGroups, with
// a filter below (rows grouped in place) and without, against sums and
// counts taken here in plain Go (v has NULLs, w none: the int64 lanes'
// small-group fold). Group k0's values cancel out: its sum is
// 0.00, not NULL; group k1 has only NULL values: its sum is NULL and its
// COUNT(v) 0 while COUNT(*) counts its rows; a NULL key is a group too.
func TestSmallGroupsAggregate(t *testing.T) {
	d15 := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	s := sch("g", expr.StringT(), "v", d15, "d", expr.Int32T(), "w", d15)
	for _, groups := range []int{4, smallGroups - 1, smallGroups + 3} {
		for _, filtered := range []bool{false, true} {
			t.Run(fmt.Sprintf("groups=%d/filtered=%v", groups, filtered), func(t *testing.T) {
				mem := memory.NewGoAllocator()
				rng := rand.New(rand.NewSource(int64(groups)))
				sums, sumsW := map[string]int64{}, map[string]int64{}
				cnt, star := map[string]int64{}, map[string]int64{}
				var batches []arrow.RecordBatch
				sign := int64(1)
				for b := 0; b < 6; b++ {
					gb, vb, db, wb := array.NewStringBuilder(mem), array.NewDecimal128Builder(mem, d15), array.NewInt32Builder(mem), array.NewDecimal128Builder(mem, d15)
					for i := 0; i < 1000+b/2; i++ { // pairs of batches of one length
						k := rng.Intn(groups - 1) // groups-1 keys and NULL
						key := fmt.Sprintf("k%d", k)
						if k == groups-2 {
							key = "NULL"
							gb.AppendNull()
						} else {
							gb.Append(key)
						}
						d := int32(rng.Intn(10))
						db.Append(d)
						var v int64
						switch k {
						case 0:
							v, sign = 12345*sign, -sign // +123.45, -123.45, ...
						default:
							v = rng.Int63n(1_000_000_000)
						}
						keep := !filtered || d < 9
						if keep {
							star[key]++
							sumsW[key] += v
						}
						wb.Append(decimal128.FromI64(v))
						if k == 1 || (k > 1 && rng.Intn(50) == 0) {
							vb.AppendNull()
							continue
						}
						vb.Append(decimal128.FromI64(v))
						if keep {
							sums[key] += v
							cnt[key]++
						}
					}
					cols := []arrow.Array{gb.NewArray(), vb.NewArray(), db.NewArray(), wb.NewArray()}
					wb.Release()
					gb.Release()
					vb.Release()
					db.Release()
					batches = append(batches, array.NewRecordBatch(s, cols, int64(cols[0].Len())))
					releaseArrays(cols)
				}
				defer releaseBatches(batches)
				// Group k0's +/- pairs cancel only when both rows are kept.
				var in Operator = memScan(s, batches)
				if filtered {
					in = must(NewFilter(in, must(expr.Cmp(expr.Lt, expr.Col(2, "d", expr.Int32T()), expr.Int(9)))))
				}
				v, w := expr.Col(1, "v", d15), expr.Col(3, "w", d15)
				op := must(NewHashAggregate(in, []expr.Expr{expr.Col(0, "g", expr.StringT())}, []string{"g"},
					[]AggCall{{Func: Sum, Arg: v, Name: "s"}, {Func: Avg, Arg: v, Name: "a"},
						{Func: Count, Arg: v, Name: "c"}, {Func: CountStar, Name: "n"},
						{Func: Sum, Arg: w, Name: "sw"}, {Func: Avg, Arg: w, Name: "aw"}}, AggSingle))
				got := run(t, op)
				if len(got) != len(star) {
					t.Fatalf("%d groups, want %d: %v", len(got), len(star), got)
				}
				for _, r := range got {
					key := r[0]
					wantSum := "NULL"
					if cnt[key] > 0 {
						wantSum = decimal128.FromI64(sums[key]).ToString(2)
					}
					want := fmt.Sprintf("%s|%d|%d|%s", wantSum, cnt[key], star[key], decimal128.FromI64(sumsW[key]).ToString(2))
					if g := strings.Join([]string{r[1], r[3], r[4], r[5]}, "|"); g != want {
						t.Errorf("group %s: sum|count|count(*)|sum(w) %s, want %s", key, g, want)
					}
					if (r[2] == "NULL") != (cnt[key] == 0) {
						t.Errorf("group %s: avg %s with %d values", key, r[2], cnt[key])
					}
				}
				if !filtered && (sums["k0"] != 0 || sumsW["k0"] != 0) && cnt["k0"]%2 == 0 {
					t.Fatalf("k0 should cancel out: %d", sums["k0"])
				}
			})
		}
	}
}
