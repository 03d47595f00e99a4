package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkInProbe: l_shipmode IN ('MAIL', 'SHIP') over 64 K rows of the
// seven ship modes, selecting through the compiled probe and evaluating
// through it and through the hash set it replaced
// (go test ./exec/expr -run XXX -bench InProbe).
func BenchmarkInProbe(b *testing.B) {
	mem := memory.NewGoAllocator()
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	sb := array.NewStringBuilder(mem)
	const n = 1 << 16
	x := uint32(1)
	for i := 0; i < n; i++ {
		x = x*1664525 + 1013904223
		sb.Append(modes[(x>>16)%7])
	}
	a := sb.NewStringArray()
	defer a.Release()
	e, err := In(Col(0, "m", StringT()), []Expr{Str("MAIL"), Str("SHIP")}, false)
	if err != nil {
		b.Fatal(err)
	}
	in := e.(*InExpr)
	out := make([]int64, 0, n)
	b.Run("select", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			out, _ = in.SelectIn(a, nil, out[:0])
		}
	})
	b.Run("eval", func(b *testing.B) {
		b.SetBytes(n)
		for b.Loop() {
			r, _ := in.evalProbe(mem, a)
			r.Release()
		}
	})
	b.Run("hashset", func(b *testing.B) {
		b.SetBytes(n)
		old := *in
		old.probe = nil
		env := &Env{Mem: mem}
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "m", Type: StringT(), Nullable: true}}, nil), []arrow.Array{a}, n)
		defer rec.Release()
		for b.Loop() {
			r, err := old.Eval(env, rec)
			if err != nil {
				b.Fatal(err)
			}
			r.Release()
		}
	})
}
