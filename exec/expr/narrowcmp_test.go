package expr

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// An INT/SMALLINT/TINYINT column compared with a BIGINT constant compares
// in the column's type when the constant fits (no per-row widening), and
// in BIGINT when it does not; the answers are those of the widened
// comparison, worked out by hand for each row.
func TestCmpNarrowIntLiteral(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := &Env{Mem: mem}
	b32 := array.NewInt32Builder(mem)
	b32.AppendValues([]int32{math.MinInt32, -1, 0, 99, 100, math.MaxInt32}, nil)
	b32.AppendNull()
	c32 := b32.NewArray()
	b32.Release()
	b8 := array.NewInt8Builder(mem)
	b8.AppendValues([]int8{-128, 0, 127}, nil)
	c8 := b8.NewArray()
	b8.Release()
	defer c32.Release()
	defer c8.Release()
	for _, tc := range []struct {
		col      arrow.Array
		op       CmpOp
		lit      int64
		want     string // per row: 1, 0 or N (NULL)
		narrowed bool
	}{
		{c32, Lt, 100, "111100N", true},
		{c32, Le, math.MaxInt32, "111111N", true},
		{c32, Ge, math.MinInt32, "111111N", true},
		{c32, Lt, math.MaxInt32 + 1, "111111N", false},
		{c32, Gt, math.MinInt32 - 1, "111111N", false},
		{c32, Eq, -1, "010000N", true},
		{c8, Gt, 127, "000", true},
		{c8, Lt, 128, "111", false},
		{c8, Ne, -128, "011", true},
	} {
		col := Col(0, "k", tc.col.DataType())
		lit, _ := Lit(tc.lit, Int64T())
		e, err := Cmp(tc.op, col, lit)
		if err != nil {
			t.Fatal(err)
		}
		if got := !strings.Contains(e.String(), "CAST"); got != tc.narrowed {
			t.Errorf("%s: narrowed %v, want %v", e, got, tc.narrowed)
		}
		batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: tc.col.DataType(), Nullable: true}}, nil), []arrow.Array{tc.col}, int64(tc.col.Len()))
		out, err := e.Eval(env, batch)
		batch.Release()
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		res := out.(*array.Boolean)
		for i := 0; i < res.Len(); i++ {
			switch {
			case res.IsNull(i):
				got.WriteByte('N')
			case res.Value(i):
				got.WriteByte('1')
			default:
				got.WriteByte('0')
			}
		}
		out.Release()
		if want := tc.want; got.String() != want {
			t.Errorf("%s: got %s, want %s", e, got.String(), want)
		}
	}
}
