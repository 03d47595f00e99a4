package expr

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/render"
)

// arrayOf builds an array of type t from canonical values (nil: NULL).
func arrayOf(mem memory.Allocator, t arrow.DataType, vals ...any) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	app := Appender(b)
	for _, v := range vals {
		app(v)
	}
	return b.NewArray()
}

func renderAll(a arrow.Array) string {
	parts := make([]string, a.Len())
	for i := range parts {
		parts[i] = render.String(a, i)
	}
	return strings.Join(parts, ",")
}

var (
	tsSec   = &arrow.TimestampType{Unit: arrow.Second}
	tsMilli = &arrow.TimestampType{Unit: arrow.Millisecond}
)

// TestTemporalCastKernel holds the typed date casts to hand-derived
// values: leap days, pre-1970 instants (floored, not truncated), year
// 9999, NULLs, empty and invalid text, invalid UTF-8, YYYYMMDD integers.
func TestTemporalCastKernel(t *testing.T) {
	dt := func(s string) any { return MustLit(s, Date32T()).Value }
	ts := func(s string) any { return MustLit(s, DatetimeT()).Value }
	cases := []struct {
		name     string
		from, to arrow.DataType
		in       []any
		want     string
	}{
		{"string->date", StringT(), Date32T(),
			[]any{"2024-02-29", "2023-02-29", "1969-12-31", "9999-12-31", "0001-01-01", nil, "", "2024-01-02 03:04:05",
				"  2024-01-02 ", "20240102", "x", "2024/1/2", "1900-02-29", "2000-02-29", "10000-01-01", "2024-13-01", "Ä", "\xff2024-01-01"},
			"2024-02-29,NULL,1969-12-31,9999-12-31,0001-01-01,NULL,NULL,2024-01-02,2024-01-02,2024-01-02,NULL,2024-01-02,NULL,2000-02-29,NULL,NULL,NULL,NULL"},
		{"string->datetime", StringT(), DatetimeT(),
			[]any{"2024-01-02 03:04:05.1234567", "1969-12-31 23:59:59.999999", "9999-12-31 23:59:59", "2024-01-02T03:04:05",
				"2024-01-02 24:00:00", "2024-01-02 03:04:05.", "2024-01-02 03:04:05.5", "2024-01-02 03:04:05.x", nil, "", "1960-06-30"},
			"2024-01-02 03:04:05.123457,1969-12-31 23:59:59.999999,9999-12-31 23:59:59.000000,2024-01-02 03:04:05.000000," +
				"NULL,2024-01-02 03:04:05.000000,2024-01-02 03:04:05.500000,NULL,NULL,NULL,1960-06-30 00:00:00.000000"},
		{"string->datetime(0)", StringT(), tsSec, []any{"1969-12-31 23:59:59.999999", "2024-01-02 03:04:05.9"},
			"1970-01-01 00:00:00,2024-01-02 03:04:06"}, // rounded half up, as MySQL and Doris do
		{"date->datetime", Date32T(), DatetimeT(), []any{dt("1969-12-31"), nil, dt("9999-12-31"), dt("0001-01-01")},
			"1969-12-31 00:00:00.000000,NULL,9999-12-31 00:00:00.000000,0001-01-01 00:00:00.000000"},
		{"datetime->date", DatetimeT(), Date32T(), []any{ts("1969-12-31 23:59:59.999999"), ts("1970-01-01 00:00:00"), nil, ts("9999-12-31 23:59:59.999999"), ts("1900-01-01 00:00:00.000001")},
			"1969-12-31,1970-01-01,NULL,9999-12-31,1900-01-01"},
		{"datetime(6)->datetime(0)", DatetimeT(), tsSec, []any{ts("1969-12-31 23:59:59.999999"), ts("2024-01-02 03:04:05.5"), nil},
			"1970-01-01 00:00:00,2024-01-02 03:04:06,NULL"}, // rounded half up
		{"datetime(6)->datetime(3)", DatetimeT(), tsMilli, []any{ts("2024-01-02 03:04:05.123999"), ts("1969-12-31 23:59:59.999999")},
			"2024-01-02 03:04:05.124,1970-01-01 00:00:00.000"}, // rounded half up
		{"date->string", Date32T(), StringT(), []any{dt("1969-12-31"), nil, dt("9999-12-31"), dt("0001-01-01")},
			"1969-12-31,NULL,9999-12-31,0001-01-01"},
		{"datetime->string", DatetimeT(), StringT(), []any{ts("1969-12-31 23:59:59.999999"), nil, ts("9999-12-31 23:59:59")},
			"1969-12-31 23:59:59.999999,NULL,9999-12-31 23:59:59.000000"},
		{"int->date", Int64T(), Date32T(), []any{int64(20240229), int64(20230229), int64(19691231), int64(99991231), int64(2024), int64(-20240101), nil, int64(20240102030405), int64(0)},
			"2024-02-29,NULL,1969-12-31,9999-12-31,NULL,NULL,NULL,2024-01-02,NULL"},
		{"int->datetime", Int64T(), DatetimeT(), []any{int64(20240102030405), int64(99991231235959), int64(20240102240000), int64(19700101)},
			"2024-01-02 03:04:05.000000,9999-12-31 23:59:59.000000,NULL,1970-01-01 00:00:00.000000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := arrayOf(mem, tc.from, tc.in...)
			defer in.Release()
			out := castArray(&Env{Mem: mem}, in, tc.to)
			defer out.Release()
			if !arrow.TypeEqual(out.DataType(), tc.to) {
				t.Fatalf("type %s, want %s", out.DataType(), tc.to)
			}
			if got := renderAll(out); got != tc.want {
				t.Errorf("\n got  %s\n want %s", got, tc.want)
			}
		})
	}
}

// temporalPairs are the casts castTemporal takes.
var temporalPairs = [][2]arrow.DataType{
	{StringT(), Date32T()}, {StringT(), DatetimeT()}, {StringT(), tsSec}, {StringT(), tsMilli},
	{Int64T(), Date32T()}, {Int64T(), DatetimeT()},
	{Date32T(), DatetimeT()}, {Date32T(), tsSec}, {Date32T(), StringT()},
	{DatetimeT(), Date32T()}, {DatetimeT(), tsSec}, {DatetimeT(), tsMilli}, {DatetimeT(), StringT()},
	{tsSec, DatetimeT()}, {tsMilli, Date32T()}, {tsMilli, StringT()},
}

// compareCasts casts in to every pair's target from in's type through the
// typed loop and castRowwise and compares them row by row.
func compareCasts(t *testing.T, mem memory.Allocator, in arrow.Array, to arrow.DataType) {
	t.Helper()
	env := &Env{Mem: mem}
	got, ok := castTemporal(env, in, to)
	if !ok {
		t.Fatalf("%s -> %s: no typed loop", in.DataType(), to)
	}
	defer got.Release()
	want := castRowwise(env, in, to)
	defer want.Release()
	for i := 0; i < in.Len(); i++ {
		if g, w := render.String(got, i), render.String(want, i); g != w || got.IsNull(i) != want.IsNull(i) {
			t.Fatalf("%s -> %s row %d (%q): typed %q, row-wise %q", in.DataType(), to, i, render.String(in, i), g, w)
		}
	}
}

// randTemporal makes n random values of t: text in the fast forms and
// near them (bad separators, out-of-range fields, two-digit years,
// spaces), integers around 8 and 14 digits, dates and instants over
// years 1..9999.
func randTemporal(rng *rand.Rand, t arrow.DataType, n int) []any {
	out := make([]any, n)
	for i := range out {
		if i%11 == 5 {
			continue // NULL
		}
		day := rng.Int63n(2932897+719162) - 719162 // 0001-01-01 … 9999-12-31
		us := day*dayMicros + rng.Int63n(dayMicros)
		switch t.ID() {
		case arrow.STRING:
			s := render.FormatDatetime(us, rng.Intn(7))
			switch rng.Intn(8) {
			case 0:
				s = s[:10]
			case 1:
				b := []byte(s)
				b[rng.Intn(len(b))] = "-/: T.x9"[rng.Intn(8)]
				s = string(b)
			case 2:
				s = fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", rng.Intn(10001), rng.Intn(14), rng.Intn(33), rng.Intn(26), rng.Intn(61), rng.Intn(61))
			case 3:
				s = s[2:]
			case 4:
				s = " " + s
			case 5:
				s += strings.Repeat("7", rng.Intn(4))
			}
			out[i] = s
		case arrow.INT64:
			switch rng.Intn(3) {
			case 0:
				out[i] = rng.Int63n(100_000_000)
			case 1:
				out[i] = rng.Int63n(100_000_000_000_000)
			default:
				out[i] = rng.Int63n(20_000_000) + 19_000_000
			}
		case arrow.DATE32:
			out[i] = arrow.Date32(day)
		case arrow.TIMESTAMP:
			out[i] = arrow.Timestamp(us)
		}
	}
	return out
}

// TestTemporalCastMatchesRowwise compares every typed temporal cast with
// the row-wise cast on random values.
func TestTemporalCastMatchesRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(14))
	for _, p := range temporalPairs {
		in := arrayOf(mem, p[0], randTemporal(rng, p[0], 20000)...)
		compareCasts(t, mem, in, p[1])
		in.Release()
	}
}

// FuzzTemporalCast compares the typed temporal casts with the row-wise
// ones on arbitrary text and integers (as YYYYMMDD numbers, days and
// instants).
func FuzzTemporalCast(f *testing.F) {
	f.Add("2024-02-29 23:59:59.999999", int64(20240229))
	f.Add("1969-12-31", int64(-1))
	f.Add("9999-12-31T00:00:00.", int64(99991231235959))
	f.Add("0000-01-01 00:00:00.1234567", int64(2932896))
	f.Fuzz(func(t *testing.T, s string, v int64) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		day := v % 3_700_000
		inst := arrow.Timestamp(day*dayMicros + v%dayMicros)
		inputs := func(t arrow.DataType) []any {
			switch t.ID() {
			case arrow.STRING:
				return []any{s, nil, strings.TrimSpace(s)}
			case arrow.INT64:
				return []any{v, nil, v / 1_000_000}
			case arrow.DATE32:
				return []any{arrow.Date32(day), nil}
			}
			return []any{inst, nil}
		}
		for _, p := range temporalPairs {
			in := arrayOf(mem, p[0], inputs(p[0])...)
			compareCasts(t, mem, in, p[1])
			in.Release()
		}
	})
}

// dateFuncBatch: a DATE column dt and a DATETIME column ts with pre-1970
// values, leap days, year 1 and year 9999, and a NULL row.
func dateFuncBatch(mem memory.Allocator) arrow.RecordBatch {
	dt := func(s string) any { return MustLit(s, Date32T()).Value }
	ts := func(s string) any { return MustLit(s, DatetimeT()).Value }
	d := arrayOf(mem, Date32T(), dt("1969-12-31"), dt("2024-02-29"), nil, dt("9999-12-31"), dt("0001-01-01"))
	x := arrayOf(mem, DatetimeT(), ts("1969-12-31 23:59:59.999999"), ts("2024-02-29 12:34:56.5"), nil, ts("9999-12-31 23:59:59"), ts("1900-03-01 00:00:00"))
	sc := arrow.NewSchema([]arrow.Field{{Name: "dt", Type: Date32T()}, {Name: "ts", Type: DatetimeT()}}, nil)
	b := array.NewRecordBatch(sc, []arrow.Array{d, x}, 5)
	d.Release()
	x.Release()
	return b
}

// TestDateFuncKernels holds the typed date functions to hand-derived
// values (weekday and day-of-year figures checked against Python's
// datetime).
func TestDateFuncKernels(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batch := dateFuncBatch(mem)
	defer batch.Release()
	c := cols(batch)
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	one := MustLit(1, Int64T())
	cases := []struct {
		e    Expr
		want string
	}{
		{fn("year", c["dt"]), "1969,2024,NULL,9999,1"},
		{fn("month", c["ts"]), "12,2,NULL,12,3"},
		{fn("dayofweek", c["dt"]), "4,5,NULL,6,2"},
		{fn("hour", c["ts"]), "23,12,NULL,23,0"},
		{fn("second", c["ts"]), "59,56,NULL,59,0"},
		{fn("dayofyear", c["dt"]), "365,60,NULL,365,1"},
		{fn("datediff", c["dt"], MustLit("1970-01-01", Date32T())), "-1,19782,NULL,2932896,-719162"},
		{fn("datediff", c["ts"], c["dt"]), "0,0,NULL,0,693654"},
		{fn("date_add", c["dt"], one), "1970-01-01,2024-03-01,NULL,NULL,0001-01-02"},
		{fn("date_sub", c["dt"], one), "1969-12-30,2024-02-28,NULL,9999-12-30,NULL"},
		{fn("months_add", c["dt"], MustLit(12, Int64T())), "1970-12-31,2025-02-28,NULL,NULL,0002-01-01"},
		{fn("hours_add", c["ts"], one), "1970-01-01 00:59:59.999999,2024-02-29 13:34:56.500000,NULL,NULL,1900-03-01 01:00:00.000000"},
		{must(DateArith(c["dt"], one, "HOUR", true)), "1969-12-30 23:00:00,2024-02-28 23:00:00,NULL,9999-12-30 23:00:00,NULL"}, // DATE by hours: DATETIME(0)
	}
	for _, tc := range cases {
		if f, ok := tc.e.(*rowFunc); !ok || f.vec == nil {
			t.Fatalf("%s has no typed kernel", tc.e)
		}
		a, err := tc.e.Eval(&Env{Mem: mem}, batch)
		if err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		if got := renderAll(a); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.e, got, tc.want)
		}
		a.Release()
	}
}

// TestDateFuncsMatchRowwise compares the typed date functions with their
// row-wise forms over random DATE and DATETIME(0/3/6) values and
// amounts.
func TestDateFuncsMatchRowwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(14))
	const n = 5000
	for _, typ := range []arrow.DataType{Date32T(), DatetimeT(), tsSec, tsMilli} {
		vals := randTemporal(rng, typ, n)
		ks := make([]any, n)
		for i := range ks {
			ks[i] = rng.Int63n(4001) - 2000
			if i%13 == 0 {
				ks[i] = []int64{math.MaxInt64, math.MinInt64, 3_000_000, -3_000_000}[rng.Intn(4)]
			}
			if i%17 == 1 {
				ks[i] = nil
			}
		}
		x, k := arrayOf(mem, typ, vals...), arrayOf(mem, Int64T(), ks...)
		sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ}, {Name: "k", Type: Int64T()}}, nil)
		batch := array.NewRecordBatch(sc, []arrow.Array{x, k}, n)
		x.Release()
		k.Release()
		cx, ck := Col(0, "x", typ), Col(1, "k", Int64T())
		env := &Env{Mem: mem}
		var exprs []Expr
		for _, name := range []string{"year", "quarter", "month", "day", "dayofweek", "weekday", "dayofyear", "hour", "minute", "second"} {
			exprs = append(exprs, must(Func(name, cx)))
		}
		exprs = append(exprs, must(Func("datediff", cx, MustLit("2000-01-01", Date32T()))))
		for _, unit := range []string{"MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"} {
			exprs = append(exprs, must(DateArith(cx, ck, unit, false)), must(DateArith(cx, ck, unit, true)))
		}
		for _, e := range exprs {
			compareRowwise(t, env, e, batch)
		}
		batch.Release()
	}
}
