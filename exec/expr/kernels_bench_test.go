package expr

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchRows is one executor batch: the kernels are measured on the batch
// size the FE/BE pipeline hands them.
const benchRows = 64 << 10

// benchBatch builds a 64K-row batch with every 10th row NULL in every
// column but i, so the kernels pay for their NULL handling:
//
//	i   BIGINT          row - 32768 (negative half, positive half)
//	n   BIGINT          i with NULLs
//	f   DOUBLE          i / 4
//	s   STRING          'k' + (row % 1000), i.e. 'k0' … 'k999'
//	ns  STRING          decimal text of i
//	d   DECIMAL(18,2)   i * 1.01 (scale 2)
//	e   DECIMAL(10,3)   -i * 0.125 (scale 3)
func benchBatch(mem memory.Allocator) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: Int64T()}, {Name: "n", Type: Int64T(), Nullable: true},
		{Name: "f", Type: Float64T(), Nullable: true}, {Name: "s", Type: StringT(), Nullable: true},
		{Name: "ns", Type: StringT(), Nullable: true},
		{Name: "d", Type: DecimalT(18, 2), Nullable: true}, {Name: "e", Type: DecimalT(10, 3), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for r := 0; r < benchRows; r++ {
		v := int64(r - benchRows/2)
		b.Field(0).(*array.Int64Builder).Append(v)
		if r%10 == 9 {
			for c := 1; c < len(sc.Fields()); c++ {
				b.Field(c).AppendNull()
			}
			continue
		}
		b.Field(1).(*array.Int64Builder).Append(v)
		b.Field(2).(*array.Float64Builder).Append(float64(v) / 4)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("k%d", r%1000))
		b.Field(4).(*array.StringBuilder).Append(fmt.Sprint(v))
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(v * 101))
		b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(-v * 125))
	}
	return b.NewRecordBatch()
}

// BenchmarkKernels measures one Eval of each expression over a 64K-row
// batch and reports ns/row besides the usual ns/op and allocs/op. Run:
//
//	go test ./exec/expr -run '^$' -bench Kernels -benchmem
func BenchmarkKernels(b *testing.B) {
	mem := memory.NewGoAllocator()
	batch := benchBatch(mem)
	defer batch.Release()
	c := cols(batch)
	lit := func(v any, t arrow.DataType) Expr { return MustLit(v, t) }
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	cmp := func(op CmpOp, l, r Expr) Expr { return must(Cmp(op, l, r)) }
	ar := func(op ArithOp, l, r Expr) Expr { return must(Arith(op, l, r)) }
	cast := func(e Expr, t arrow.DataType) Expr { return must(Cast(e, t)) }
	in := func(e Expr, vs ...Expr) Expr { return must(In(e, vs, false)) }
	gt0 := cmp(Gt, c["n"], lit(0, Int64T()))
	cases := []struct {
		family, name string
		e            Expr
	}{
		{"cmp", "int=const", cmp(Eq, c["n"], lit(7, Int64T()))},
		{"cmp", "int<int", cmp(Lt, c["n"], c["i"])},
		{"cmp", "double>const", cmp(Gt, c["f"], lit(1.5, Float64T()))},
		{"cmp", "string=const", cmp(Eq, c["s"], lit("k42", StringT()))},
		{"cmp", "string<const", cmp(Lt, c["s"], lit("k5", StringT()))},
		{"cmp", "string!=string", cmp(Ne, c["s"], c["ns"])},
		{"cmp", "decimal>const", cmp(Gt, c["d"], lit("12.34", DecimalT(18, 2)))},
		{"cmp", "decimal<decimal", cmp(Lt, c["d"], c["e"])},
		{"arith", "int+int", ar(Add, c["n"], c["i"])},
		{"arith", "int*int", ar(Mul, c["n"], c["i"])},
		{"arith", "double*double", ar(Mul, c["f"], c["f"])},
		{"arith", "decimal+decimal", ar(Add, c["d"], c["e"])},
		{"arith", "decimal*decimal", ar(Mul, c["d"], c["e"])},
		{"cast", "int->string", cast(c["n"], StringT())},
		{"cast", "string->int", cast(c["ns"], Int64T())},
		{"cast", "decimal->double", cast(c["d"], Float64T())},
		{"string", "upper", fn("upper", c["s"])},
		{"string", "substring", fn("substring", c["s"], lit(2, Int64T()), lit(2, Int64T()))},
		{"string", "concat", fn("concat", c["s"], lit("-", StringT()), c["ns"])},
		{"string", "length", fn("length", c["s"])},
		{"cond", "case-int", must(Case(nil, []When{{Cond: gt0, Then: c["n"]}}, lit(0, Int64T())))},
		{"cond", "case-double", must(Case(nil, []When{{Cond: gt0, Then: c["f"]}}, c["f"]))},
		{"cond", "coalesce-int", must(Coalesce(c["n"], c["i"]))},
		{"cond", "coalesce-double", must(Coalesce(c["f"], lit(0.5, Float64T())))},
		{"cond", "in-int", in(c["n"], lit(1, Int64T()), lit(7, Int64T()), lit(-9, Int64T()))},
		{"cond", "in-string", in(c["s"], lit("k1", StringT()), lit("k7", StringT()), lit("k999", StringT()))},
		{"math", "abs(bigint)", fn("abs", c["n"])},
		{"math", "abs(double)", fn("abs", c["f"])},
		{"math", "abs(decimal)", fn("abs", c["d"])},
	}
	env := &Env{Mem: mem, Now: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
	for _, tc := range cases {
		b.Run(tc.family+"/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := tc.e.Eval(env, batch)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
		})
	}
}
