package orc

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// stringColumns are string columns that stress the string decoders:
// empty strings next to NULLs, multi-byte text, a column NULL in whole
// stripes, and one with a single distinct value.
func stringColumns() []wcol {
	return []wcol{
		{name: "empties", kind: KindString, value: func(r int) (any, bool) {
			if r%4 == 1 {
				return "", true
			}
			return strings.Repeat("x", r%9), r%6 != 0
		}},
		{name: "text", kind: KindVarchar, value: func(r int) (any, bool) { return fmt.Sprintf("żółw-%d-€", r%37), r%3 != 2 }},
		{name: "sparse", kind: KindString, value: func(r int) (any, bool) { return fmt.Sprint(r), (r/500)%2 == 1 }},
		{name: "same", kind: KindChar, value: func(r int) (any, bool) { return "only", true }},
		{name: "bin", kind: KindBinary, value: func(r int) (any, bool) { return string([]byte{0, byte(r), 0xff}), r%10 != 3 }},
	}
}

// TestDecodeEveryTypeLayouts reads every flat type with NULLs, strings
// encoded DIRECT and DICTIONARY, at stripe sizes from one row to the
// whole file and batch sizes that do and do not divide them, and checks
// every value and NULL against the generator.
func TestDecodeEveryTypeLayouts(t *testing.T) {
	cols := append(testColumns(), stringColumns()...)
	const rows = 3000
	for _, dict := range []bool{false, true} {
		for _, stripeRows := range []int{1, 7, 1000, rows} {
			for _, comp := range []CompressionKind{CompressionNone, CompressionZlib} {
				// UTC: TestRoundTrip covers writer zones; the test writer loads the
				// zone per value, which would dominate this test.
				o := wopts{stripeRows: stripeRows, compression: comp, blockSize: 700, tz: "UTC", dictStrings: dict}
				if stripeRows < 1000 && comp == CompressionZlib {
					continue // the test writer's per-stream compressor would dominate
				}
				data := writeORC(t, cols, rows, o)
				f, err := Open(bytes.NewReader(data), int64(len(data)), WithName("layouts.orc"))
				if err != nil {
					t.Fatal(err)
				}
				for _, batch := range []int{1, 333, 8192} {
					// one-row batches cost a batch per row: once per layout
					if (stripeRows == 1) != (batch == 1) && !(batch == 1 && stripeRows == 7 && comp == CompressionNone) {
						continue
					}
					t.Run(fmt.Sprintf("dict=%v/stripe=%d/%s/batch=%d", dict, stripeRows, comp, batch), func(t *testing.T) {
						checkRows(t, f, cols, rows, batch)
					})
				}
			}
		}
	}
}

func checkRows(t *testing.T, f *File, cols []wcol, rows, batch int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := f.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	row := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			for ci, c := range cols {
				v, ok := c.value(row)
				col := rec.Column(ci)
				if col.IsNull(i) != !ok {
					t.Fatalf("row %d %s: null=%v, want %v", row, c.name, col.IsNull(i), !ok)
				}
				if !ok {
					continue
				}
				got := gotArrow(col, i)
				if b, isBin := col.(*array.Binary); isBin {
					got = string(b.Value(i))
				}
				if want := wantArrow(c, v); got != want {
					t.Fatalf("row %d %s: got %v want %v", row, c.name, got, want)
				}
			}
			row++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if row != rows {
		t.Fatalf("read %d rows, want %d", row, rows)
	}
}

// TestExpandedBoundCapped: chunk headers claiming a full block each must
// not make the reader reserve block size × chunks (3 bytes would claim
// 16 MiB), while an honest stream gets room for every chunk.
func TestExpandedBoundCapped(t *testing.T) {
	d, err := newDecompressor(CompressionZstd, maxBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	hostile := bytes.Repeat([]byte{0, 0, 0}, 1000) // 1000 empty compressed chunks
	if got, limit := d.expandedBound(hostile), maxExpansion*len(hostile)+zstdSlack; got > limit {
		t.Errorf("bound %d for %d header bytes, want at most %d", got, len(hostile), limit)
	}
	small, err := newDecompressor(CompressionZstd, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer small.close()
	// two compressed chunks of 100 bytes and one original of 50
	src := append(append(append([]byte{200, 0, 0}, make([]byte, 100)...), 200, 0, 0), make([]byte, 100)...)
	src = append(append(src, 101, 0, 0), make([]byte, 50)...)
	if got, want := small.expandedBound(src), 2*1000+50+zstdSlack; got != want {
		t.Errorf("bound %d, want %d", got, want)
	}
}
