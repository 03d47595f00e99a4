package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestPruneType(t *testing.T) {
	inner := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true})
	st := arrow.StructOf(
		arrow.Field{Name: "r_int", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "r_string", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "r_row", Type: inner, Nullable: true},
	)
	cases := []struct {
		paths [][]string
		want  string
	}{
		{[][]string{{"r_int"}}, "struct<r_int: int32>"},
		{[][]string{{"R_ROW", "y"}, {"r_int"}}, "struct<r_int: int32, r_row: struct<y: utf8>>"},
		{[][]string{{"r_row"}, {"r_row", "x"}}, "struct<r_row: struct<x: int32, y: utf8>>"},
		{[][]string{{"r_int"}, {}}, st.String()}, // the whole struct is read somewhere
		{[][]string{{"nope"}}, st.String()},
	}
	for _, c := range cases {
		got := PruneType(st, c.paths)
		// Field nullability prints as " nullable"; compare without it.
		if s := stripNullable(got.String()); s != stripNullable(c.want) {
			t.Errorf("%v: got %s, want %s", c.paths, s, c.want)
		}
	}
}

func stripNullable(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if len(s)-i >= 9 && s[i:i+9] == " nullable" {
			i += 8
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}

// TestPruneSharesChildren narrows a sliced struct array with NULL rows and
// checks every kept value against the unpruned array.
func TestPruneSharesChildren(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	)
	b := array.NewStructBuilder(mem, st)
	defer b.Release()
	for i := 0; i < 10; i++ {
		if i%4 == 3 {
			b.AppendNull()
			b.FieldBuilder(0).(*array.Int64Builder).AppendNull()
			b.FieldBuilder(1).(*array.StringBuilder).AppendNull()
			b.FieldBuilder(2).(*array.Int32Builder).AppendNull()
			continue
		}
		b.Append(true)
		b.FieldBuilder(0).(*array.Int64Builder).Append(int64(i * 10))
		b.FieldBuilder(1).(*array.StringBuilder).Append(string(rune('a' + i)))
		if i%3 == 0 {
			b.FieldBuilder(2).(*array.Int32Builder).AppendNull()
		} else {
			b.FieldBuilder(2).(*array.Int32Builder).Append(int32(-i))
		}
	}
	full := b.NewStructArray()
	defer full.Release()
	sliced := array.NewSlice(full, 2, 9).(*array.Struct)
	defer sliced.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: st, Nullable: true}}, nil), []arrow.Array{sliced}, int64(sliced.Len()))
	defer rec.Release()

	to := PruneType(st, [][]string{{"c"}, {"a"}})
	e, err := Prune(Col(0, "s", st), to)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Eval(&Env{Mem: mem}, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	ps := out.(*array.Struct)
	if ps.Len() != sliced.Len() || ps.NumField() != 2 {
		t.Fatalf("pruned: %d rows, %d fields", ps.Len(), ps.NumField())
	}
	for i := 0; i < ps.Len(); i++ {
		if ps.IsNull(i) != sliced.IsNull(i) {
			t.Errorf("row %d: null %v, want %v", i, ps.IsNull(i), sliced.IsNull(i))
			continue
		}
		if sliced.IsNull(i) {
			continue
		}
		a, wa := ps.Field(0).(*array.Int64), sliced.Field(0).(*array.Int64)
		c, wc := ps.Field(1).(*array.Int32), sliced.Field(2).(*array.Int32)
		if a.Value(i) != wa.Value(i) || c.IsNull(i) != wc.IsNull(i) || (!c.IsNull(i) && c.Value(i) != wc.Value(i)) {
			t.Errorf("row %d: got (%d, %v), want (%d, %v)", i, a.Value(i), c.ValueStr(i), wa.Value(i), wc.ValueStr(i))
		}
	}
	if _, err := Prune(Col(0, "s", st), arrow.StructOf(arrow.Field{Name: "zz", Type: arrow.PrimitiveTypes.Int64})); err == nil {
		t.Error("pruning to a field the struct lacks must fail")
	}
}

func TestStructField(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "r_int", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	e, err := Field(Col(3, "f_row", st), "R_INT")
	if err != nil {
		t.Fatal(err)
	}
	arg, name, ok := StructField(e)
	if !ok || name != "r_int" || arg.(*ColumnRef).Index != 3 {
		t.Errorf("StructField = %v %q %v", arg, name, ok)
	}
	if _, _, ok := StructField(Col(0, "x", st)); ok {
		t.Error("a column is not a field access")
	}
}
