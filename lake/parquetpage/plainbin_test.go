package parquetpage

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// plainValues is a PLAIN BYTE_ARRAY page body: each value after its
// 4-byte little-endian length.
func plainValues(vs []string) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	return b
}

// TestPlainStringBatches reads one PLAIN string page in batches: from the
// second batch on, the values are checked and copied in one pass into
// room sized by the batch before, and when they outgrow it the rest are
// sized and copied as the first batch's are. Lengths past the page's end,
// in any batch, are errors naming the page, never a panic or a value.
func TestPlainStringBatches(t *testing.T) {
	str := leafOf(t, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String})
	rep := func(n int, f func(i int) string) []string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = f(i)
		}
		return vs
	}
	uniform := rep(30, func(i int) string { return string(rune('a'+i%26)) + "-value" })
	growing := rep(30, func(i int) string { return strings.Repeat("x", i*3) + "|" })
	shrinking := rep(30, func(i int) string { return strings.Repeat("y", 90-i*3) + "|" })
	mixed := rep(30, func(i int) string { return strings.Repeat("z", (i*7)%40) })
	cases := []struct {
		name  string
		body  []byte
		rows  int
		batch int
		want  []string // nil: an error containing err
		err   string
	}{
		{"uniform", plainValues(uniform), 30, 8, uniform, ""},
		{"growing", plainValues(growing), 30, 7, growing, ""},
		{"shrinking", plainValues(shrinking), 30, 7, shrinking, ""},
		{"mixed, batch of one", plainValues(mixed), 30, 1, mixed, ""},
		{"mixed, one batch", plainValues(mixed), 30, 30, mixed, ""},
		// The 12th value's length says 1000 bytes: the second batch.
		{"length past the end", append(plainValues(uniform[:11]), append(binary.LittleEndian.AppendUint32(nil, 1000), "abc"...)...), 12, 8, nil, "value of 1000 bytes past the page's end"},
		// The same within the room the first batch's long values
		// sized: the one-pass check, not the size pass, refuses it.
		{"length past the end, in room", append(plainValues(append(rep(8, func(int) string { return strings.Repeat("w", 100) }), "a", "b")), append(binary.LittleEndian.AppendUint32(nil, 200), "abc"...)...), 11, 8, nil, "value of 200 bytes past the page's end"},
		// Two bytes where the 10th value's length should be.
		{"length cut", append(plainValues(uniform[:9]), 1, 0), 10, 8, nil, "value length past the page's end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rd, err := NewReader(str, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Release()
			data := append(make([]byte, 100), dataPageV2(c.rows, 0, encPlain, nil, c.body)...)
			if err := rd.Reset(bytes.NewReader(data), Chunk{Offset: 100, Size: int64(len(data) - 100), NumValues: int64(c.rows)}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for left := c.rows; left > 0; left -= c.batch {
				a, err := rd.Read(context.Background(), min(c.batch, left))
				if err != nil {
					if c.want != nil || !strings.Contains(err.Error(), c.err) ||
						!strings.Contains(err.Error(), "data file hand.parquet column s row group 0 page at offset 100") {
						t.Fatalf("error %v, want one naming the page and containing %q", err, c.err)
					}
					return
				}
				for i := 0; i < a.Len(); i++ {
					got = append(got, a.(*array.String).Value(i))
				}
				a.Release()
			}
			if c.want == nil {
				t.Fatalf("read %d values, want the error %q", len(got), c.err)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}
