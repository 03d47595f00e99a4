package client

import (
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func TestColumnMapByID(t *testing.T) {
	col := func(name string, ty typemap.DataType, id int32) record.TableColumn {
		return record.TableColumn{Name: name, Type: ty, ID: id}
	}
	cur := []typemap.Column{{Name: "a", Type: typemap.Int().NotNull()}, {Name: "b", Type: typemap.String()}, {Name: "c", Type: typemap.BigInt()}}
	for _, tc := range []struct {
		name   string
		old    []record.TableColumn
		curIDs []int32
		want   []int
		err    bool
	}{
		{"appended", []record.TableColumn{col("a", typemap.Int().NotNull(), 0), col("b", typemap.String(), 1)}, []int32{0, 1, 2}, []int{0, 1, -1}, false},
		// Ids decide, not positions: the old schema lists b first.
		{"by id", []record.TableColumn{col("b", typemap.String(), 7), col("a", typemap.Int().NotNull(), 3)}, []int32{3, 7, 9}, []int{1, 0, -1}, false},
		{"positions without ids", []record.TableColumn{col("a", typemap.Int().NotNull(), 0)}, nil, []int{0, -1, -1}, false},
		{"same schema", []record.TableColumn{col("a", typemap.Int().NotNull(), 0), col("b", typemap.String(), 1), col("c", typemap.BigInt(), 2)}, []int32{0, 1, 2}, []int{0, 1, 2}, false},
		{"missing NOT NULL column", []record.TableColumn{col("b", typemap.String(), 1)}, []int32{0, 1, 2}, nil, true},
		{"type changed", []record.TableColumn{col("a", typemap.BigInt().NotNull(), 0)}, []int32{0, 1, 2}, nil, true},
		{"renamed", []record.TableColumn{col("x", typemap.Int().NotNull(), 0)}, []int32{0, 1, 2}, nil, true},
		// A batch of a newer schema than the read's: its extra column is left out.
		{"newer schema", []record.TableColumn{col("a", typemap.Int().NotNull(), 0), col("b", typemap.String(), 1), col("c", typemap.BigInt(), 2), col("d", typemap.Int(), 3)}, []int32{0, 1, 2}, []int{0, 1, 2}, false},
		{"newer schema by position", []record.TableColumn{col("a", typemap.Int().NotNull(), 0), col("b", typemap.String(), 1), col("c", typemap.BigInt(), 2), col("d", typemap.Int(), 3)}, nil, []int{0, 1, 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := columnMap(tc.old, 1, cur, tc.curIDs, 2)
			if tc.err {
				if !errors.Is(err, ErrUnsupported) {
					t.Fatalf("map %v err %v, want ErrUnsupported", m, err)
				}
				return
			}
			if err != nil || !slices.Equal(m, tc.want) {
				t.Fatalf("map %v err %v, want %v", m, err, tc.want)
			}
		})
	}
}

func TestRemapRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	oldSch := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewRecordBuilder(mem, oldSch)
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "y"}, []bool{true, false})
	b.Field(1).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	out := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	got := remapRecord(rec, out, []int{1, 0, -1}, mem)
	defer got.Release()
	var rows []string
	for i := 0; i < int(got.NumRows()); i++ {
		rows = append(rows, got.Column(0).ValueStr(i)+"|"+got.Column(1).ValueStr(i)+"|"+got.Column(2).ValueStr(i))
	}
	if want := []string{"1|x|(null)", "2|(null)|(null)"}; !slices.Equal(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	if v := remapValues([]any{"x", int32(1)}, []int{1, 0, -1}); len(v) != 3 || v[0] != int32(1) || v[1] != "x" || v[2] != nil {
		t.Fatalf("remapValues %v", v)
	}
}
