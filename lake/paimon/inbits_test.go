package paimon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func bitsOf(lo int64, keys ...int64) []uint64 {
	var w []uint64
	for _, k := range keys {
		p := k - lo
		for int(p/64) >= len(w) {
			w = append(w, 0)
		}
		w[p/64] |= 1 << (p % 64)
	}
	return w
}

// TestInBitsRows: a key bitmap leaf keeps, on every integer width, the
// rows written out by hand (NULL never), column-wise and row by row alike,
// alone and under an AND.
func TestInBitsRows(t *testing.T) {
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
	// rows: i8 = i32 = 1, NULL, 3, -5, 2, 127, 3; i16 = 300 × that; i64 = that << 40
	for _, c := range []struct {
		p    *Predicate
		want string
	}{
		{InBits("i32", -5, bitsOf(-5, -5, 3)), "0011001"},
		{InBits("i8", 0, bitsOf(0, 127, 1)), "1000010"},
		{InBits("i8", 2, bitsOf(2, 2)), "0000100"},
		{InBits("i16", -1500, bitsOf(-1500, -1500, 900)), "0011001"},
		{InBits("i64", 3<<40, bitsOf(3<<40, 3<<40)), "0010001"},
		{InBits("i32", 0, nil), "0000000"},
		{InBits("i32", -5, bitsOf(-5, 0, 3)), "0010001"}, // a NULL row's slot holds 0
		{InBits("i64", 0, bitsOf(0, 0)), "0000000"},
		{And(InBits("i32", 1, bitsOf(1, 1, 2, 3)), Gt("f64", 2)), "0010101"},
	} {
		b, err := c.p.bind(fields)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]bool, rec.NumRows())
		b.evalBatch(col, len(out), out)
		got, byRow := "", ""
		for row, x := range out {
			got += fmt.Sprint(map[bool]int{false: 0, true: 1}[x])
			byRow += fmt.Sprint(map[bool]int{false: 0, true: 1}[b.evalRow(func(name string) any { return arrowValue(col(name), row) })])
		}
		if got != c.want || byRow != c.want {
			t.Errorf("%s: column-wise %s, row by row %s, want %s", c.p, got, byRow, c.want)
		}
	}
}

// TestInBitsBind: only integer columns take a key bitmap.
func TestInBitsBind(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields, rec := filterBatch(t, mem)
	defer rec.Release()
	for _, f := range []string{"d", "s", "f64", "dec"} {
		_, err := InBits(f, 0, bitsOf(0, 1)).bind(fields)
		if err == nil || !strings.Contains(err.Error(), "column "+f) {
			t.Errorf("%s: %v, want an error naming the column", f, err)
		}
	}
}

// TestInBitsMayMatch: statistics prune a file or row group whose range
// holds no key of the set (keys 10, 75, 200).
func TestInBitsMayMatch(t *testing.T) {
	typ, _ := ParseType("BIGINT")
	fields := []DataField{{Name: "k", Type: typ}}
	b, err := InBits("k", 10, bitsOf(10, 10, 75, 200)).bind(fields)
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := InBits("k", 10, nil).bind(fields)
	for _, c := range []struct {
		name  string
		b     *bound
		s     colStats
		rows  int64
		match bool
	}{
		{"below", b, colStats{min: int64(0), max: int64(9), known: true}, 5, false},
		{"between keys", b, colStats{min: int64(11), max: int64(74), known: true}, 5, false},
		{"between keys, second word", b, colStats{min: int64(76), max: int64(199), known: true}, 5, false},
		{"at the first key", b, colStats{min: int64(0), max: int64(10), known: true}, 5, true},
		{"at a middle key", b, colStats{min: int64(75), max: int64(75), known: true}, 5, true},
		{"past the last key", b, colStats{min: int64(201), max: int64(1 << 40), known: true}, 5, false},
		{"around all", b, colStats{min: int64(-1 << 40), max: int64(1 << 40), known: true}, 5, true},
		{"bounds unknown", b, colStats{nullCount: -1, known: true}, 5, true},
		{"all NULL", b, colStats{nullCount: 5, known: true}, 5, false},
		{"no statistics", b, colStats{}, 5, true},
		{"empty set", empty, colStats{min: int64(0), max: int64(100), known: true}, 5, false},
	} {
		if got := c.b.mayMatch(func(string) colStats { return c.s }, c.rows); got != c.match {
			t.Errorf("%s: mayMatch %v, want %v", c.name, got, c.match)
		}
	}
}
