package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestGatherFastMatchesTake compares the typed row copy with arrow's Take
// on every type it takes, over sliced arrays (a non-zero offset), with
// and without NULLs, empty strings, repeated and unordered rows.
func TestGatherFastMatchesTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(5))
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_us, &arrow.Decimal128Type{Precision: 15, Scale: 2},
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
	}
	const n = 300
	for _, typ := range types {
		for _, nulls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nulls=%v", typ, nulls), func(t *testing.T) {
				b := array.NewBuilder(mem, typ)
				defer b.Release()
				for i := 0; i < n; i++ {
					if nulls && rng.Intn(4) == 0 {
						b.AppendNull()
						continue
					}
					v := rng.Int63n(100)
					switch bb := b.(type) {
					case *array.Int8Builder:
						bb.Append(int8(v))
					case *array.Int16Builder:
						bb.Append(int16(v))
					case *array.Int32Builder:
						bb.Append(int32(v))
					case *array.Int64Builder:
						bb.Append(v)
					case *array.Uint8Builder:
						bb.Append(uint8(v))
					case *array.Float32Builder:
						bb.Append(float32(v) / 3)
					case *array.Float64Builder:
						bb.Append(float64(v) / 3)
					case *array.Date32Builder:
						bb.Append(arrow.Date32(v))
					case *array.TimestampBuilder:
						bb.Append(arrow.Timestamp(v * 1e9))
					case *array.Decimal128Builder:
						bb.Append(decimal128.New(v-50, uint64(v)))
					case *array.StringBuilder:
						bb.Append(fmt.Sprintf("%.*s", int(v%12), "abcdefghijklmnop"))
					case *array.BinaryBuilder:
						bb.Append([]byte(fmt.Sprint(v)))
					}
				}
				whole := b.NewArray()
				defer whole.Release()
				a := array.NewSlice(whole, 3, n-5)
				defer a.Release()
				rows := make([]int64, 500)
				for i := range rows {
					rows[i] = rng.Int63n(int64(a.Len()))
				}
				got := gatherFast(mem, a, rows)
				if got == nil {
					t.Fatal("type not taken")
				}
				defer got.Release()
				ib := array.NewInt64Builder(mem)
				ib.AppendValues(rows, nil)
				idx := ib.NewArray()
				ib.Release()
				defer idx.Release()
				want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), a, idx)
				if err != nil {
					t.Fatal(err)
				}
				defer want.Release()
				if !array.Equal(got, want) || got.NullN() != want.NullN() {
					t.Fatalf("gather differs from Take:\n%v\n%v", got, want)
				}
			})
		}
	}
}

// TestTakeRowsCancelled: a cancelled statement's copy stops with its
// error, as arrow's Take does.
func TestTakeRowsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	a := b.NewArray()
	b.Release()
	defer a.Release()
	if _, err := takeRows(ctx, memory.DefaultAllocator, a, []int64{0, 2}, nil); err != context.Canceled {
		t.Fatalf("error %v, want context canceled", err)
	}
}
