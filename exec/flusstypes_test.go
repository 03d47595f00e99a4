package exec

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/exec/expr"
)

// TestFlussArrowTypes runs the Arrow types Fluss's log format uses (BINARY(n)
// as fixed-size binary, TIME as time32/time64, TIMESTAMP(9) in nanoseconds,
// small integers, FLOAT) through the generic paths of several operators.
func TestFlussArrowTypes(t *testing.T) {
	fsb := &arrow.FixedSizeBinaryType{ByteWidth: 2}
	t32 := &arrow.Time32Type{Unit: arrow.Millisecond}
	t64 := arrow.FixedWidthTypes.Time64us
	tsn := &arrow.TimestampType{Unit: arrow.Nanosecond}
	s := sch("b", fsb, "t", t32, "u", t64, "ts", tsn, "i8", arrow.PrimitiveTypes.Int8, "f", arrow.PrimitiveTypes.Float32)
	scan := scanOf(s,
		[][]any{
			{"xy", arrow.Time64(3_723_004_000), arrow.Time64(1_000_001), arrow.Timestamp(1_704_164_645_123_456), int64(-5), 1.5},
			{"ab", arrow.Time64(0), nil, nil, nil, nil},
		},
		[][]any{
			{"xy", arrow.Time64(86_399_999_000), arrow.Time64(59_000_000), arrow.Timestamp(0), int64(127), 0.25},
			{nil, nil, arrow.Time64(0), arrow.Timestamp(-1), int64(-128), -2.0},
		},
	)
	c := func(i int) expr.Expr { f := s.Field(i); return expr.Col(i, f.Name, f.Type) }
	wantRows(t, run(t, scan),
		"xy|01:02:03.004|00:00:01.000001|2024-01-02 03:04:05.123456|-5|1.5",
		"ab|00:00:00.000|NULL|NULL|NULL|NULL",
		"xy|23:59:59.999|00:00:59.000000|1970-01-01 00:00:00.000000|127|0.25",
		"NULL|NULL|00:00:00.000000|1969-12-31 23:59:59.999999|-128|-2",
	)
	sorted := must(NewSort(scan, []SortKey{{Expr: c(1), Desc: true}}))
	wantRows(t, run(t, must(NewProject(sorted, []expr.Expr{c(1), c(0)}, []string{"t", "b"}))),
		"23:59:59.999|xy", "01:02:03.004|xy", "00:00:00.000|ab", "NULL|NULL")
	agg := must(NewHashAggregate(scan, []expr.Expr{c(0)}, []string{"b"}, []AggCall{
		{Func: CountStar, Name: "n"}, {Func: Max, Arg: c(1), Name: "maxt"}, {Func: Min, Arg: c(3), Name: "mints"},
		{Func: Sum, Arg: c(4), Name: "s8"}, {Func: Sum, Arg: c(5), Name: "sf"},
	}, AggSingle))
	wantRows(t, run(t, agg),
		"xy|2|23:59:59.999|1970-01-01 00:00:00.000000|122|1.75",
		"ab|1|00:00:00.000|NULL|NULL|NULL",
		"NULL|1|NULL|1969-12-31 23:59:59.999999|-128|-2",
	)
	wantRows(t, run(t, NewDistinct(must(NewProject(scan, []expr.Expr{c(0)}, []string{"b"})))), "xy", "ab", "NULL")
	// Comparisons with literals in the column's type, and casts to text.
	f := must(NewFilter(scan, must(expr.Cmp(expr.Gt, c(1), expr.Str("01:00:00")))))
	p := must(NewProject(f, []expr.Expr{must(expr.Cast(c(1), expr.StringT())), must(expr.Cmp(expr.Eq, c(0), expr.Str("xy")))}, []string{"t", "isxy"}))
	wantRows(t, run(t, p), "01:02:03.004|1", "23:59:59.999|1")
	// Join on a BINARY(n) key.
	j := must(NewHashJoin(scan, scan, LeftSemiJoin, []expr.Expr{c(0)}, []expr.Expr{c(0)}, nil))
	if got := len(run(t, j)); got != 3 {
		t.Fatalf("semi join on binary key: %d rows, want 3", got)
	}
}

// TestUnsupportedTypesRefused: types the evaluator cannot read are refused
// where values would be hashed, sorted or aggregated, never read as NULL.
func TestUnsupportedTypesRefused(t *testing.T) {
	dur := arrow.FixedWidthTypes.Duration_s
	s := sch("d", dur, "k", expr.Int64T())
	scan := scanOf(s)
	d := expr.Col(0, "d", dur)
	k := expr.Col(1, "k", expr.Int64T())
	errs := []error{}
	_, err := NewHashAggregate(scan, []expr.Expr{d}, []string{"d"}, nil, AggSingle)
	errs = append(errs, err)
	_, err = NewHashAggregate(scan, nil, nil, []AggCall{{Func: Max, Arg: d, Name: "m"}}, AggSingle)
	errs = append(errs, err)
	_, err = NewSort(scan, []SortKey{{Expr: d}})
	errs = append(errs, err)
	_, err = NewHashJoin(scan, scan, InnerJoin, []expr.Expr{d}, []expr.Expr{d}, nil)
	errs = append(errs, err)
	_, err = NewWindow(scan, []expr.Expr{d}, nil, []WindowCall{{Func: RowNumber, Name: "rn"}})
	errs = append(errs, err)
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	_, err = runEnv(env, NewDistinct(scan))
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil || !errors.Is(err, ErrUnsupported) {
			t.Errorf("case %d: err %v, want ErrUnsupported", i, err)
		}
	}
	// Passing such a column through is fine.
	wantRows(t, run(t, must(NewProject(must(NewFilter(scan, must(expr.Cmp(expr.Gt, k, expr.Int(0))))), []expr.Expr{d}, []string{"d"}))))
	// COUNT(x) only looks at NULLs.
	wantRows(t, run(t, must(NewHashAggregate(scan, nil, nil, []AggCall{{Func: Count, Arg: d, Name: "c"}}, AggSingle))), "0")
}
