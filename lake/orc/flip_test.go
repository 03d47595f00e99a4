package orc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readText opens b and renders every row, or returns the first error.
func readText(b []byte, name string) (string, error) {
	mem := memory.NewGoAllocator()
	file, err := Open(bytes.NewReader(b), int64(len(b)), WithName(name))
	if err != nil {
		return "", err
	}
	rr, err := file.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: 1000})
	if err != nil {
		return "", err
	}
	defer rr.Release()
	var sb strings.Builder
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			for _, c := range rec.Columns() {
				fmt.Fprintf(&sb, "%v|", c.GetOneForMarshal(i))
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String(), rr.Err()
}

// floatData are the byte ranges of the DATA streams of FLOAT and DOUBLE
// columns: raw IEEE values whose only redundancy is the stripe's min and
// max, so a flip of a low mantissa byte stays a plausible value.
func floatData(t *testing.T, b []byte) [][2]int {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int
	for _, s := range f.Stripes() {
		fb := b[s.Offset+s.IndexLength+s.DataLength : s.Offset+s.IndexLength+s.DataLength+s.FooterLength]
		d, err := newDecompressor(f.ps.compression, int(f.ps.blockSize))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := d.expand(nil, fb, "stripe footer")
		if err != nil {
			t.Fatal(err)
		}
		sf, err := parseStripeFooter(dec)
		if err != nil {
			t.Fatal(err)
		}
		off := int(s.Offset)
		for _, st := range sf.streams {
			if k := f.types[st.column].kind; st.kind == StreamData && (k == KindFloat || k == KindDouble) {
				out = append(out, [2]int{off, off + int(st.length)})
			}
			off += int(st.length)
		}
	}
	return out
}

// TestSingleByteFlips: every single-byte flip (xor 0xff) of each ORC data
// file of the Paimon fixtures reads as an error of ErrCorrupt (or
// ErrUnsupported/ErrVersion) naming the file, or as the intact rows: never
// as other rows. Flips inside the raw values of FLOAT/DOUBLE columns are
// the exception ORC's format leaves (no checksums; the stripe's min and
// max are their only check); they are counted, not failed.
func TestSingleByteFlips(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "paimon", "orc", "*", "*", "*", "*", "*.orc"))
	if len(paths) == 0 {
		t.Fatal("no ORC fixtures")
	}
	total, floats := 0, 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		fd := floatData(t, b)
		_, _, silent := flipOutcomes(t, b, name, 0, len(b))
		total += len(b)
	next:
		for _, i := range silent {
			for _, r := range fd {
				if i >= r[0] && i < r[1] {
					floats++
					continue next
				}
			}
			t.Errorf("%s: the flip at byte %d reads as other rows without an error", name, i)
		}
	}
	t.Logf("%d files, %d flips; %d silent ones inside FLOAT/DOUBLE values", len(paths), total, floats)
}

// flipOutcomes flips every byte of b in [lo, hi) (xor 0xff) and counts
// what reading the damaged file gives.
func flipOutcomes(t *testing.T, b []byte, name string, lo, hi int) (errs, same int, silent []int) {
	t.Helper()
	want, err := readText(b, name)
	if err != nil {
		t.Fatal(err)
	}
	d := append([]byte(nil), b...)
	for i := lo; i < hi; i++ {
		d[i] ^= 0xff
		got, err := readText(d, name)
		d[i] ^= 0xff
		switch {
		case err != nil:
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), name) {
				t.Errorf("flip at %d: error of no kind or not naming the file: %v", i, err)
			}
			errs++
		case got == want:
			same++
		default:
			silent = append(silent, i)
		}
	}
	return errs, same, silent
}
