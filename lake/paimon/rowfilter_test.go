package paimon

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// filterBatch builds one batch of every column type evalBatch has a typed
// loop for (and two it has not: DECIMAL, TIME), 7 rows with NULLs, edge and
// repeated values.
func filterBatch(t *testing.T, mem memory.Allocator) ([]DataField, arrow.RecordBatch) {
	t.Helper()
	var fields []DataField
	for i, c := range []struct{ name, typ string }{
		{"i8", "TINYINT"}, {"i16", "SMALLINT"}, {"i32", "INT"}, {"i64", "BIGINT"},
		{"d", "DATE"}, {"f32", "FLOAT"}, {"f64", "DOUBLE"}, {"s", "STRING"},
		{"b", "BYTES"}, {"bo", "BOOLEAN"}, {"ts", "TIMESTAMP(6)"}, {"dec", "DECIMAL(10, 2)"},
		{"tm", "TIME(3)"}, {"absent", "INT"},
	} {
		typ, err := ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, DataField{ID: i, Name: c.name, Type: typ})
	}
	sch, err := ArrowSchema(fields[:len(fields)-1]) // "absent" is not in the batch
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	ints := []int64{1, 0, 3, -5, 2, math.MaxInt8, 3}
	valid := []bool{true, false, true, true, true, true, true}
	floats := []float64{1, 0, math.NaN(), -5.5, 2.5, math.Inf(1), 3}
	strs := []string{"b", "", "abc", "", "ab", "zz", "abc"}
	for r := range ints {
		if !valid[r] {
			for c := range sch.Fields() {
				b.Field(c).AppendNull()
			}
			continue
		}
		x := ints[r]
		b.Field(0).(*array.Int8Builder).Append(int8(x))
		b.Field(1).(*array.Int16Builder).Append(int16(x * 300))
		b.Field(2).(*array.Int32Builder).Append(int32(x))
		b.Field(3).(*array.Int64Builder).Append(x << 40)
		b.Field(4).(*array.Date32Builder).Append(arrow.Date32(x))
		b.Field(5).(*array.Float32Builder).Append(float32(floats[r]))
		b.Field(6).(*array.Float64Builder).Append(floats[r])
		b.Field(7).(*array.StringBuilder).Append(strs[r])
		b.Field(8).(*array.BinaryBuilder).Append([]byte(strs[r]))
		b.Field(9).(*array.BooleanBuilder).Append(x%2 != 0)
		b.Field(10).(*array.TimestampBuilder).Append(arrow.Timestamp(x*1_000_001 - 1)) // sub-millisecond parts, negatives
		b.Field(11).(*array.Decimal128Builder).Append(decimal128.FromI64(x * 150))
		b.Field(12).(*array.Time32Builder).Append(arrow.Time32(x * 1000))
	}
	return fields, b.NewRecordBatch()
}

// TestEvalBatchMatchesEvalRow checks the column-wise row filter against
// the row-at-a-time evaluator it replaced, on every comparable type, every
// operator, NULLs, NaN, mixed integer/float literals and AND/OR trees.
func TestEvalBatchMatchesEvalRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields, rec := filterBatch(t, mem)
	defer rec.Release()
	n := int(rec.NumRows())
	col := func(name string) arrow.Array {
		for i, f := range rec.Schema().Fields() {
			if f.Name == name {
				return rec.Column(i)
			}
		}
		return nil
	}
	lits := map[string][]any{
		"i8": {int64(2), 2.5, int64(127)}, "i16": {int64(600), -1500.0}, "i32": {int64(3), "2", 1.5},
		"i64": {int64(3) << 40, 0.5}, "d": {"1970-01-03", int64(-5)}, "f32": {2.5, int64(3), math.NaN()},
		"f64": {int64(1), math.Inf(1), math.NaN(), -5.5}, "s": {"ab", ""}, "b": {"abc", []byte("zz")},
		"bo": {true, false}, "ts": {"1970-01-01 00:00:03.000002", "1969-12-31 23:59:54.999994"},
		"dec": {"4.5", 3, "4.505", "-7.501", "2.999", "-0.001", "190.5"}, "tm": {int64(2000)}, "absent": {int64(1)},
	}
	var preds []*Predicate
	for _, f := range fields {
		preds = append(preds, IsNull(f.Name), IsNotNull(f.Name))
		ls := lits[f.Name]
		for _, l := range ls {
			for _, op := range []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe} {
				preds = append(preds, &Predicate{Op: op, Field: f.Name, Value: l})
			}
		}
		preds = append(preds, In(f.Name, append([]any{nil}, ls...)...), &Predicate{Op: OpLt, Field: f.Name})
	}
	preds = append(preds,
		And(Gt("i32", 0), Lt("f64", 3), Ne("s", "b")),
		Or(IsNull("i8"), Eq("s", "abc"), And(Ge("ts", "1970-01-01"), Lt("dec", "4"))),
		And(Or(Lt("i64", 0), Gt("i64", int64(2)<<40)), IsNotNull("absent")),
		Or(Gt("f32", 1e30)),
	)
	for _, p := range preds {
		t.Run(p.String(), func(t *testing.T) {
			b, err := p.bind(fields)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]bool, n)
			b.evalBatch(col, n, got)
			for row := 0; row < n; row++ {
				want := b.evalRow(func(name string) any { return arrowValue(col(name), row) })
				if got[row] != want {
					t.Errorf("row %d: evalBatch %v, evalRow %v", row, got[row], want)
				}
			}
		})
	}
}

// TestEvalBatchHandDerived pins a few answers worked out by hand, so a
// shared mistake of both evaluators shows.
func TestEvalBatchHandDerived(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields, rec := filterBatch(t, mem)
	defer rec.Release()
	col := func(name string) arrow.Array {
		for i, f := range rec.Schema().Fields() {
			if f.Name == name {
				return rec.Column(i)
			}
		}
		return nil
	}
	// rows: i32 = 1, NULL, 3, -5, 2, 127, 3; f64 = 1, NULL, NaN, -5.5, 2.5, +Inf, 3
	for _, c := range []struct {
		p    *Predicate
		want string
	}{
		{Lt("i32", 3), "1001100"},
		{In("i32", 3, 127), "0010011"},
		{Gt("f64", 2.5), "0010011"}, // NaN sorts above everything
		{Ne("f64", math.NaN()), "1001111"},
		{Ge("s", "abc"), "1010011"},
		{IsNull("i64"), "0100000"},
		{IsNull("absent"), "1111111"},
		{Eq("dec", new(big.Rat).SetFrac64(9, 2).FloatString(2)), "0010001"},
	} {
		b, err := c.p.bind(fields)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]bool, rec.NumRows())
		b.evalBatch(col, len(out), out)
		got := ""
		for _, x := range out {
			got += fmt.Sprint(map[bool]int{false: 0, true: 1}[x])
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.p, got, c.want)
		}
	}
}

// FuzzEvalBatch: on arbitrary BIGINT/DOUBLE/STRING cells (NULL when the
// null byte says so) and literals, every operator of evalBatch agrees with
// evalRow.
func FuzzEvalBatch(f *testing.F) {
	f.Add([]byte{0, 1, 2, 255, 7, 128}, int64(3), 2.5, "ab", uint8(0))
	f.Add([]byte{9, 9, 9}, int64(-1), math.NaN(), "", uint8(5))
	f.Fuzz(func(t *testing.T, cells []byte, li int64, lf float64, ls string, nullMask uint8) {
		if len(cells) > 64 {
			cells = cells[:64]
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		var fields []DataField
		for i, c := range []struct{ name, typ string }{{"i", "BIGINT"}, {"f", "DOUBLE"}, {"s", "STRING"}} {
			typ, _ := ParseType(c.typ)
			fields = append(fields, DataField{ID: i, Name: c.name, Type: typ})
		}
		sch, err := ArrowSchema(fields)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBuilder(mem, sch)
		defer b.Release()
		for r, c := range cells {
			if nullMask != 0 && (r+int(nullMask))%int(nullMask%7+2) == 0 {
				for j := range fields {
					b.Field(j).AppendNull()
				}
				continue
			}
			b.Field(0).(*array.Int64Builder).Append(int64(int8(c)) * li)
			b.Field(1).(*array.Float64Builder).Append(float64(int8(c)) / 3)
			b.Field(2).(*array.StringBuilder).Append(string(rune('a' + c%5)))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		col := func(name string) arrow.Array {
			for i, f := range fields {
				if f.Name == name {
					return rec.Column(i)
				}
			}
			return nil
		}
		n := int(rec.NumRows())
		lits := map[string][]any{"i": {li, lf}, "f": {lf, li}, "s": {ls}}
		for name, ls := range lits {
			for _, l := range ls {
				for _, op := range []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe} {
					for _, p := range []*Predicate{{Op: op, Field: name, Value: l}, In(name, l, ls[0]), Or(IsNull(name), &Predicate{Op: op, Field: name, Value: l})} {
						bd, err := p.bind(fields)
						if err != nil {
							continue // a literal the type rejects
						}
						got := make([]bool, n)
						bd.evalBatch(col, n, got)
						for row := 0; row < n; row++ {
							if want := bd.evalRow(func(nm string) any { return arrowValue(col(nm), row) }); got[row] != want {
								t.Fatalf("%s row %d: evalBatch %v, evalRow %v", p, row, got[row], want)
							}
						}
					}
				}
			}
		}
	})
}

// TestEvalBatchWideDecimals drives cmpDecimals' int64 path and its
// fallbacks: cells at and beyond the int64 range (where the high word is
// not the low word's sign), literals next to math.MinInt64/MaxInt64 (where
// Lt and Ge cannot become Le and Gt of f-1) and literals between two
// units of the scale. evalRow (exact big.Rat comparison) is the reference.
func TestEvalBatchWideDecimals(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	typ, err := ParseType("DECIMAL(38, 0)")
	if err != nil {
		t.Fatal(err)
	}
	fields := []DataField{{ID: 0, Name: "w", Type: typ}}
	sch, err := ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	big10 := func(s string) decimal128.Num {
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatal(s)
		}
		return decimal128.FromBigInt(v)
	}
	cells := []string{"0", "1", "-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616", "-18446744073709551616",
		"99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "42", ""}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, c := range cells {
		if c == "" {
			b.Field(0).AppendNull()
			continue
		}
		b.Field(0).(*array.Decimal128Builder).Append(big10(c))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	col := func(string) arrow.Array { return rec.Column(0) }
	n := int(rec.NumRows())
	lits := []any{"0", "42", "41.5", "-0.5", "9223372036854775807", "9223372036854775806.5", "-9223372036854775808",
		"-9223372036854775808.5", "-9223372036854775807.5", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "1e37"}
	for _, l := range lits {
		for _, op := range []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe} {
			p := &Predicate{Op: op, Field: "w", Value: l}
			t.Run(p.String(), func(t *testing.T) {
				bd, err := p.bind(fields)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]bool, n)
				bd.evalBatch(col, n, got)
				for row := 0; row < n; row++ {
					if want := bd.evalRow(func(string) any { return arrowValue(col(""), row) }); got[row] != want {
						t.Errorf("row %d (%s): evalBatch %v, evalRow %v", row, cells[row], got[row], want)
					}
				}
			})
		}
	}
	// Hand-derived: x < -9223372036854775808 holds only for the cells
	// below the int64 range; x >= 41.5 for 42, MaxInt64 and everything
	// above it.
	for _, c := range []struct {
		p    *Predicate
		want string
	}{
		{Lt("w", "-9223372036854775808"), "00000010010100"},
		{Ge("w", "41.5"), "00011001101010"},
	} {
		bd, err := c.p.bind(fields)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]bool, n)
		bd.evalBatch(col, n, got)
		if s := bits(got); s != c.want {
			t.Errorf("%s: got %s, want %s", c.p, s, c.want)
		}
	}
}

func bits(bs []bool) string {
	s := ""
	for _, b := range bs {
		if b {
			s += "1"
		} else {
			s += "0"
		}
	}
	return s
}

// TestEvalBatchStringKernels checks the offset-based string and binary
// loops on sliced arrays (a non-zero array offset, so the offsets do not
// start at 0), IN lists with NULL and repeated literals, and ANDs whose
// later string leaves only compare the rows the earlier ones kept, against
// evalRow and a hand-derived answer.
func TestEvalBatchStringKernels(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var fields []DataField
	for i, c := range []struct{ name, typ string }{{"s", "STRING"}, {"b", "BYTES"}, {"i", "INT"}} {
		typ, err := ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, DataField{ID: i, Name: c.name, Type: typ})
	}
	sch, err := ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	// The first three rows are sliced away below.
	strs := []string{"AIR", "MAIL", "", "AIR", "AIR REG", "", "MAIL", "AI", "AIR REGX", "SHIP", "~", "AIR"}
	for r, s := range strs {
		if r == 5 {
			for j := range fields {
				b.Field(j).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(s)
		b.Field(1).(*array.BinaryBuilder).Append([]byte(s))
		b.Field(2).(*array.Int32Builder).Append(int32(r))
	}
	whole := b.NewRecordBatch()
	defer whole.Release()
	rec := whole.NewSlice(3, int64(len(strs)))
	defer rec.Release()
	col := func(name string) arrow.Array {
		for i, f := range fields {
			if f.Name == name {
				return rec.Column(i)
			}
		}
		return nil
	}
	n := int(rec.NumRows())
	// sliced rows: AIR, AIR REG, NULL, MAIL, AI, AIR REGX, SHIP, ~, AIR; i = 3..11 (NULL at 5)
	for _, c := range []struct {
		p    *Predicate
		want string
	}{
		{In("s", "AIR", "AIR REG"), "110000001"},
		{In("b", nil, "SHIP", "AIR", "SHIP"), "100000101"},
		{Eq("b", "AIR REG"), "010000000"},
		{Ne("s", "AIR"), "010111110"},
		{Lt("s", "AIR REG"), "100010001"},
		{Ge("b", "AIR REG"), "010101110"},
		{And(Gt("i", 6), In("s", "AIR", "SHIP", "~"), Ne("b", "~")), "000000101"},
		{And(In("s", "AIR", "AIR REG"), Or(Eq("b", "AIR"), Gt("i", 10))), "100000001"},
		{Or(And(Eq("s", "MAIL"), Lt("i", 7)), And(Eq("s", "AIR"), Lt("i", 7))), "100100000"},
		{And(Eq("s", "nothing"), Eq("b", "AIR")), "000000000"},
		{And(Eq("s", "AIR"), Gt("i", 4)), "000000001"},
		{And(Ne("b", "MAIL"), Or(Lt("i", 4), Eq("s", "SHIP")), IsNotNull("i")), "100000100"},
	} {
		bd, err := c.p.bind(fields)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]bool, n)
		bd.evalBatch(col, n, got)
		if s := bits(got); s != c.want {
			t.Errorf("%s: got %s, want %s", c.p, s, c.want)
		}
		for row := 0; row < n; row++ {
			if want := bd.evalRow(func(nm string) any { return arrowValue(col(nm), row) }); got[row] != want {
				t.Errorf("%s row %d: evalBatch %v, evalRow %v", c.p, row, got[row], want)
			}
		}
	}
}

// TestInStringsLengths covers inVarlen's length mask at its edges: empty
// cells and literals, lengths around 63 (every longer length shares one
// bit, so a 65-byte cell passes the mask for a 64-byte literal and must
// still not match) and cells equal to a literal but for the first byte.
func TestInStringsLengths(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	typ, err := ParseType("STRING")
	if err != nil {
		t.Fatal(err)
	}
	fields := []DataField{{ID: 0, Name: "s", Type: typ}}
	sch, err := ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	rep := func(c byte, k int) string { return string(bytes.Repeat([]byte{c}, k)) }
	cells := []string{"", "a", "b", rep('x', 62), rep('x', 63), rep('x', 64), rep('x', 65), "y" + rep('x', 63), rep('x', 100)}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, c := range cells {
		b.Field(0).(*array.StringBuilder).Append(c)
	}
	b.Field(0).AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	col := func(string) arrow.Array { return rec.Column(0) }
	n := int(rec.NumRows())
	for _, c := range []struct {
		lits []any
		want string
	}{
		{[]any{"", "b"}, "1010000000"},
		{[]any{rep('x', 64)}, "0000010000"},
		{[]any{rep('x', 63), rep('x', 100)}, "0000100010"},
		{[]any{"z" + rep('x', 63), rep('x', 65)}, "0000001000"},
		{[]any{nil, "c"}, "0000000000"},
	} {
		p := In("s", c.lits...)
		bd, err := p.bind(fields)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]bool, n)
		bd.evalBatch(col, n, got)
		if s := bits(got); s != c.want {
			t.Errorf("%d literals: got %s, want %s", len(c.lits), s, c.want)
		}
		for row := 0; row < n; row++ {
			if want := bd.evalRow(func(string) any { return arrowValue(col(""), row) }); got[row] != want {
				t.Errorf("row %d: evalBatch %v, evalRow %v", row, got[row], want)
			}
		}
	}
}
