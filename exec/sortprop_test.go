package exec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestTopNAgreesWithSortAllTypes compares the byte-encoded keys of TopN
// with the typed comparators of Sort on random data of every sortable type,
// NULLs included, in both directions and both NULL placements.
func TestTopNAgreesWithSortAllTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	types := []arrow.DataType{
		expr.Int32T(), expr.Int64T(), arrow.PrimitiveTypes.Float32, expr.Float64T(), expr.DecimalT(12, 3),
		expr.BoolT(), expr.StringT(), expr.Date32T(), expr.DatetimeT(), arrow.PrimitiveTypes.Int8,
	}
	randVal := func(t arrow.DataType) any {
		if rng.Intn(8) == 0 {
			return nil
		}
		n := int64(rng.Intn(21) - 10)
		switch t.ID() {
		case arrow.FLOAT32, arrow.FLOAT64:
			return float64(n) / 4
		case arrow.DECIMAL128:
			return expr.MustLit(fmt.Sprintf("%d.%03d", n, rng.Intn(1000)), t).Value
		case arrow.BOOL:
			return n > 0
		case arrow.STRING:
			return []string{"", "a", "a\x00", "ab", "b", "é", "A"}[rng.Intn(7)]
		case arrow.DATE32:
			return arrow.Date32(n * 400)
		case arrow.TIMESTAMP:
			return arrow.Timestamp(n * 1_000_003)
		}
		return n
	}
	var fields []any
	for i, ty := range types {
		fields = append(fields, fmt.Sprintf("c%d", i), ty)
	}
	fields = append(fields, "id", expr.Int64T())
	s := sch(fields...)
	var groups [][][]any
	id := int64(0)
	for b := 0; b < 6; b++ {
		var rows [][]any
		for r := 0; r < 40; r++ {
			row := make([]any, 0, len(types)+1)
			for _, ty := range types {
				row = append(row, randVal(ty))
			}
			rows = append(rows, append(row, id))
			id++
		}
		groups = append(groups, rows)
	}
	scan := scanOf(s, groups...)
	for i, ty := range types {
		for _, desc := range []bool{false, true} {
			for _, nulls := range []NullOrder{NullsDefault, NullsFirst, NullsLast} {
				keys := []SortKey{
					{Expr: expr.Col(i, "", ty), Desc: desc, Nulls: nulls},
					{Expr: expr.Col((i+3)%len(types), "", types[(i+3)%len(types)]), Desc: !desc},
				}
				full := run(t, must(NewSort(scan, keys)))
				top := run(t, must(NewTopN(scan, keys, 7, 100)))
				if fmt.Sprint(top) != fmt.Sprint(full[7:107]) {
					t.Fatalf("%s desc=%v nulls=%d: TopN and Sort disagree", expr.TypeName(ty), desc, nulls)
				}
			}
		}
	}
}

// TestPackedSortMatchesComparator checks the packed-word path against the
// per-key comparators on NULL-free keys of every packable type.
func TestPackedSortMatchesComparator(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	s := sch("i64", expr.Int64T(), "i32", expr.Int32T(), "f64", expr.Float64T(), "f32", arrow.PrimitiveTypes.Float32,
		"d", expr.Date32T(), "ts", expr.DatetimeT())
	var rows [][]any
	for r := 0; r < 3000; r++ {
		n := int64(rng.Intn(41) - 20)
		rows = append(rows, []any{n * 1e15, n, float64(n) / 3, float64(n) / 7, arrow.Date32(n), arrow.Timestamp(n * 999)})
	}
	b := mkBatch(env.Mem, s, rows)
	defer b.Release()
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			for _, desc := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				cols := []arrow.Array{b.Column(i), b.Column(j)}
				keys := []SortKey{{Desc: desc[0]}, {Desc: desc[1]}}
				packed, ok := sortPacked(cols, keys)
				if !ok {
					t.Fatalf("columns %d,%d not packable", i, j)
				}
				cmpf := rowComparator(cols, keys)
				for k := 1; k < len(packed); k++ {
					a, z := int(packed[k-1]), int(packed[k])
					if c := cmpf(a, z); c > 0 || (c == 0 && a > z) {
						t.Fatalf("columns %d,%d desc %v: rows %d and %d out of order", i, j, desc, a, z)
					}
				}
			}
		}
	}
}
