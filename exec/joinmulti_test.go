package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestJoinTwoKeys: two 32-bit integer or date keys join as a nested loop
// over the same rows says (NULL in either key matches nothing, also in a
// batch whose only NULLs are the second key's; negative values,
// duplicates, several probe batches), for every join type.
func TestJoinTwoKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	val := func() any {
		if r.IntN(10) == 0 {
			return nil
		}
		return r.IntN(7) - 3 // -3..3: many matches, negative values
	}
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32} {
		ls := sch("a", arrow.PrimitiveTypes.Int32, "b", typ, "lid", arrow.PrimitiveTypes.Int64)
		rs := sch("a", arrow.PrimitiveTypes.Int32, "b", typ, "rid", arrow.PrimitiveTypes.Int64)
		// mk makes n rows numbered from id; aSet: never a NULL a (a batch
		// whose only NULLs are b's).
		mk := func(n, id int, aSet bool) [][]any {
			var rows [][]any
			for i := range n {
				b := val()
				if b != nil && typ.ID() == arrow.DATE32 {
					b = arrow.Date32(b.(int))
				}
				a := val()
				for aSet && a == nil {
					a = val()
				}
				rows = append(rows, []any{a, b, id + i})
			}
			return rows
		}
		left := [][][]any{mk(40, 0, false), mk(40, 40, false), mk(40, 80, true)}
		right := [][][]any{mk(30, 1000, false), mk(30, 1030, true)}
		all := func(g [][][]any) [][]any { return slices.Concat(g...) }
		eq := func(x, y []any) bool {
			return x[0] != nil && x[1] != nil && y[0] != nil && y[1] != nil && x[0] == y[0] && x[1] == y[1]
		}
		id := func(v any) string { return fmt.Sprint(v) }
		for _, jt := range []JoinType{InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin, FullOuterJoin, RightOuterJoin} {
			t.Run(typ.String()+" "+jt.String(), func(t *testing.T) {
				// The reference: (left id, right id) of each output row.
				var want []string
				matched := map[int]bool{}
				for _, l := range all(left) {
					any := false
					for k, rr := range all(right) {
						if eq(l, rr) {
							any = true
							matched[k] = true
							if jt != LeftSemiJoin && jt != LeftAntiJoin {
								want = append(want, id(l[2])+"|"+id(rr[2]))
							}
						}
					}
					switch {
					case jt == LeftSemiJoin && any, jt == LeftAntiJoin && !any:
						want = append(want, id(l[2]))
					case !any && (jt == LeftOuterJoin || jt == FullOuterJoin):
						want = append(want, id(l[2])+"|NULL")
					}
				}
				if jt == FullOuterJoin || jt == RightOuterJoin {
					for k, rr := range all(right) {
						if !matched[k] {
							want = append(want, "NULL|"+id(rr[2]))
						}
					}
				}
				lk := []expr.Expr{expr.Col(0, "a", arrow.PrimitiveTypes.Int32), expr.Col(1, "b", typ)}
				j := must(NewHashJoin(scanOf(ls, left...), scanOf(rs, right...), jt, lk, lk, nil))
				var got []string
				for _, row := range run(t, j) {
					if len(row) == 3 {
						got = append(got, row[2])
					} else {
						got = append(got, row[2]+"|"+row[5])
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("got %d rows %v\nwant %d rows %v", len(got), got, len(want), want)
				}
			})
		}
	}
}
