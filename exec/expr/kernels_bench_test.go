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
//	u   STRING          'Ä' + (row % 1000) + 'ß' (multi-byte)
//	dt  DATE            i days from 1970-01-01 (1880-04-14 … 2059-09-17)
//	ts  DATETIME(6)     i hours + 0.123456 s from 1970-01-01 00:00:00
//	ds  STRING          dt as 'YYYY-MM-DD'
//	dts STRING          ts as 'YYYY-MM-DD hh:mm:ss.ffffff'
//	ymd BIGINT          dt as the number YYYYMMDD
//	q   INT             i as INT
//	p   STRING          ' k' + (row % 1000) + ' ' (padded)
func benchBatch(mem memory.Allocator) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: Int64T()}, {Name: "n", Type: Int64T(), Nullable: true},
		{Name: "f", Type: Float64T(), Nullable: true}, {Name: "s", Type: StringT(), Nullable: true},
		{Name: "ns", Type: StringT(), Nullable: true},
		{Name: "d", Type: DecimalT(18, 2), Nullable: true}, {Name: "e", Type: DecimalT(10, 3), Nullable: true},
		{Name: "u", Type: StringT(), Nullable: true}, {Name: "dt", Type: Date32T(), Nullable: true},
		{Name: "ts", Type: DatetimeT(), Nullable: true}, {Name: "ds", Type: StringT(), Nullable: true},
		{Name: "dts", Type: StringT(), Nullable: true}, {Name: "ymd", Type: Int64T(), Nullable: true},
		{Name: "q", Type: Int32T(), Nullable: true}, {Name: "p", Type: StringT(), Nullable: true},
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
		b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("Ä%dß", r%1000))
		b.Field(8).(*array.Date32Builder).Append(arrow.Date32(v))
		us := v*3_600_000_000 + 123456
		b.Field(9).(*array.TimestampBuilder).Append(arrow.Timestamp(us))
		day := time.Unix(v*86400, 0).UTC()
		b.Field(10).(*array.StringBuilder).Append(day.Format("2006-01-02"))
		b.Field(11).(*array.StringBuilder).Append(time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.000000"))
		b.Field(12).(*array.Int64Builder).Append(int64(day.Year()*10000 + int(day.Month())*100 + day.Day()))
		b.Field(13).(*array.Int32Builder).Append(int32(v))
		b.Field(14).(*array.StringBuilder).Append(fmt.Sprintf(" k%d ", r%1000))
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
		{"cmp", "int32<const", cmp(Lt, c["q"], must(Cast(lit(5, Int64T()), Int32T())))},
		{"cmp", "int32=int32", cmp(Eq, c["q"], c["q"])},
		{"cmp", "date>const", cmp(Gt, c["dt"], lit("2000-01-01", Date32T()))},
		{"cmp", "datetime<datetime", cmp(Lt, c["ts"], cast(c["dt"], DatetimeT()))},
		{"arith", "decimal/decimal", ar(Div, c["d"], c["e"])},
		{"arith", "decimal%decimal", ar(Mod, c["d"], c["e"])},
		{"arith", "decimal/const", ar(Div, c["d"], lit("2.5", DecimalT(5, 1)))},
		{"arith", "decimal DIV decimal", ar(IntDiv, c["d"], c["e"])},
		{"cast", "string->date", cast(c["ds"], Date32T())},
		{"cast", "string->datetime", cast(c["dts"], DatetimeT())},
		{"cast", "date->datetime", cast(c["dt"], DatetimeT())},
		{"cast", "datetime->date", cast(c["ts"], Date32T())},
		{"cast", "datetime(6)->datetime(0)", cast(c["ts"], &arrow.TimestampType{Unit: arrow.Second})},
		{"cast", "date->string", cast(c["dt"], StringT())},
		{"cast", "datetime->string", cast(c["ts"], StringT())},
		{"cast", "int->date", cast(c["ymd"], Date32T())},
		{"string", "upper(utf8)", fn("upper", c["u"])},
		{"string", "substring(utf8)", fn("substring", c["u"], lit(2, Int64T()), lit(2, Int64T()))},
		{"string", "char_length", fn("char_length", c["u"])},
		{"string", "replace", fn("replace", c["s"], lit("k", StringT()), lit("key-", StringT()))},
		{"string", "trim", fn("trim", c["p"])},
		{"string", "ltrim", fn("ltrim", c["p"])},
		{"string", "lpad", fn("lpad", c["s"], lit(8, Int64T()), lit("*", StringT()))},
		{"string", "rpad(utf8)", fn("rpad", c["u"], lit(8, Int64T()), lit("é", StringT()))},
		{"string", "locate", fn("locate", lit("9", StringT()), c["s"])},
		{"string", "instr(utf8)", fn("instr", c["u"], lit("ß", StringT()))},
		{"string", "reverse", fn("reverse", c["s"])},
		{"string", "repeat", fn("repeat", c["s"], lit(3, Int64T()))},
		{"string", "left", fn("left", c["s"], lit(2, Int64T()))},
		{"string", "right(utf8)", fn("right", c["u"], lit(2, Int64T()))},
		{"string", "concat_ws", fn("concat_ws", lit(",", StringT()), c["s"], c["ns"], c["u"])},
		{"string", "starts_with", fn("starts_with", c["s"], lit("k9", StringT()))},
		{"string", "like(utf8)", must(Like(c["u"], lit("Ä%9_", StringT()), 0, false))},
		{"date", "year(date)", fn("year", c["dt"])},
		{"date", "hour(datetime)", fn("hour", c["ts"])},
		{"date", "datediff", fn("datediff", c["dt"], lit("2000-01-01", Date32T()))},
		{"date", "date_add(date, 1 day)", fn("date_add", c["dt"], lit(1, Int64T()))},
		{"date", "months_add(datetime, 13)", fn("months_add", c["ts"], lit(13, Int64T()))},
		{"cond", "in-date", in(c["dt"], lit("1969-12-31", Date32T()), lit("2000-01-01", Date32T()))},
		{"cond", "in-double", in(c["f"], lit(0.25, Float64T()), lit(-1.5, Float64T()))},
		{"cond", "in-decimal", in(c["d"], lit("1.01", DecimalT(18, 2)), lit("-2.02", DecimalT(18, 2)))},
		{"cond", "case-string", must(Case(nil, []When{{Cond: gt0, Then: c["s"]}}, lit("neg", StringT())))},
		{"cond", "case-date", must(Case(nil, []When{{Cond: gt0, Then: c["dt"]}}, nil))},
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
