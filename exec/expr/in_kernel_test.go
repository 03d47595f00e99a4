package expr

import (
	"fmt"
	"testing"
	"time"

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

// TestInZonedTimestamp: a TIMESTAMP WITH TIME ZONE column IN a list of
// wall-clock constants (which only evaluation converts, in the session's
// zone) is built as = joined by OR, not a constant set: no panic, and the
// constants compare as the session zone reads them.
func TestInZonedTimestamp(t *testing.T) {
	tz := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	col := Col(0, "ts", tz)
	e, err := In(col, []Expr{Str("2024-01-02 03:04:05"), Str("2024-01-03 00:00:00")}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, isIn := e.(*InExpr); isIn {
		t.Fatalf("%s: a constant set of wall-clock times", e)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewTimestampBuilder(mem, tz)
	for _, s := range []string{"2024-01-02T03:04:05Z", "2024-01-02T03:04:06Z", "2024-01-03T00:00:00Z"} {
		ts, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		b.Append(arrow.Timestamp(ts.UnixMicro()))
	}
	b.AppendNull()
	a := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "ts", Type: tz, Nullable: true}}, nil), []arrow.Array{a}, 4)
	a.Release()
	defer rec.Release()
	out, err := e.Eval(&Env{Mem: mem, Now: time.Now(), Loc: time.UTC}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := out.(*array.Boolean)
	want := []string{"true", "false", "true", "(null)"}
	for i, w := range want {
		g := "(null)"
		if got.IsValid(i) {
			g = fmt.Sprint(got.Value(i))
		}
		if g != w {
			t.Fatalf("row %d: %s, want %s", i, g, w)
		}
	}
}
