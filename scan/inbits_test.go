package scan

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/internal/keybits"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// TestCompileInBits: an IN_BITS filter keeps the rows whose key is in the
// bitmap (keys 5 and 70 from 5; NULL never), and a malformed one is a
// clear error naming what is wrong, not a panic.
func TestCompileInBits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	words := make([]uint64, 2)
	words[0] |= 1 << 0 // 5
	words[1] |= 1 << 1 // 70
	good := keybits.Encode(words)
	for _, c := range []struct {
		name    string
		flt     *inletpb.Filter
		typ     arrow.DataType
		wantErr string
		want    string
	}{
		{"int32", &inletpb.Filter{Op: "IN_BITS", BitsLo: 5, Bits: good}, arrow.PrimitiveTypes.Int32, "", "1001000"},
		{"int64", &inletpb.Filter{Op: "IN_BITS", BitsLo: 5, Bits: good}, arrow.PrimitiveTypes.Int64, "", "1001000"},
		{"empty set", &inletpb.Filter{Op: "IN_BITS", BitsLo: 5}, arrow.PrimitiveTypes.Int64, "", "0000000"},
		{"ragged bitmap", &inletpb.Filter{Op: "IN_BITS", Bits: good[:9]}, arrow.PrimitiveTypes.Int64, "8-byte words", ""},
		{"too big", &inletpb.Filter{Op: "IN_BITS", Bits: make([]byte, maxBitsBytes+8)}, arrow.PrimitiveTypes.Int64, "at most", ""},
		{"values", &inletpb.Filter{Op: "IN_BITS", Bits: good, Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: 1}}}}, arrow.PrimitiveTypes.Int64, "takes no values", ""},
		{"text column", &inletpb.Filter{Op: "IN_BITS", Bits: good}, arrow.BinaryTypes.String, "integer columns only", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := compileFilter(c.flt, 0, "k", c.typ)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewBuilder(mem, c.typ)
			defer b.Release()
			for _, v := range []any{5, 6, nil, 70, 69, 4, 133} {
				switch bb := b.(type) {
				case *array.Int32Builder:
					if v == nil {
						bb.AppendNull()
					} else {
						bb.Append(int32(v.(int)))
					}
				case *array.Int64Builder:
					if v == nil {
						bb.AppendNull()
					} else {
						bb.Append(int64(v.(int)))
					}
				}
			}
			col := b.NewArray()
			defer col.Release()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: c.typ, Nullable: true}}, nil), []arrow.Array{col}, int64(col.Len()))
			defer rec.Release()
			got, err := e.Eval(&expr.Env{Mem: mem}, rec)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			s := ""
			for i := 0; i < got.Len(); i++ {
				if got.IsValid(i) && got.(*array.Boolean).Value(i) {
					s += "1"
				} else {
					s += "0"
				}
			}
			if s != c.want {
				t.Errorf("kept %s, want %s", s, c.want)
			}
		})
	}
}
