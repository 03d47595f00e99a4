package colstats

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestCollector: counts, NULLs, bounds and sizes derived by hand, and NDVs
// within the sketch's error, over batches that split the values.
func TestCollector(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	c := NewCollector([]string{"n", "s"})
	// 3 batches of 10000: n = i%5000 (NULL when i%100 == 0), s = "x"+i%300.
	for b := range 3 {
		rb := array.NewRecordBuilder(mem, sc)
		for j := range 10000 {
			i := b*10000 + j
			if i%100 == 0 {
				rb.Field(0).AppendNull()
			} else {
				rb.Field(0).(*array.Int64Builder).Append(int64(i % 5000))
			}
			rb.Field(1).(*array.StringBuilder).Append("x" + strings.Repeat("y", i%300%3) + string(rune('a'+i%300/3%26)) + string(rune('a'+i%300/78)))
		}
		rec := rb.NewRecordBatch()
		c.Add(rec)
		rec.Release()
		rb.Release()
	}
	st := c.Stats(7)
	if st.Rows != 30000 || st.UpdatedMS != 7 {
		t.Fatalf("rows %d updated %d", st.Rows, st.UpdatedMS)
	}
	n := st.Columns["n"]
	// i%100 == 0 means i%5000 is a multiple of 100: those 50 values never
	// appear, 4950 do.
	if n.Count != 30000 || n.Nulls != 300 || n.Min != "1" || n.Max != "4999" || !n.Numeric || n.Lo != 1 || n.Hi != 4999 || n.DataSize != 8*30000 {
		t.Errorf("n: %+v", n)
	}
	if n.NDV < 4950*97/100 || n.NDV > 4950*103/100 {
		t.Errorf("n: NDV %d, want 4950 ± 3%%", n.NDV)
	}
	s := st.Columns["s"]
	if s.Count != 30000 || s.Nulls != 0 || s.Numeric || s.Min != "'xaa'" || s.Max != "'xzc'" || s.DataSize != 4*30000 {
		t.Errorf("s: %+v", s)
	}
	if s.NDV < 297 || s.NDV > 303 {
		t.Errorf("s: NDV %d, want 300 ± 1%%", s.NDV)
	}
}

func ts(rows int64, cols map[string]catalog.ColumnStats) *catalog.TableStats {
	return &catalog.TableStats{Rows: rows, UpdatedMS: rows, Columns: cols}
}

// TestMerge: hand-derived merges of manifest and analysed statistics.
func TestMerge(t *testing.T) {
	num := func(count, ndv, nulls int64, lo, hi float64, min, max string) catalog.ColumnStats {
		return catalog.ColumnStats{Count: count, NDV: ndv, Nulls: nulls, Numeric: true, Lo: lo, Hi: hi, Min: min, Max: max, DataSize: count * 8}
	}
	manifest := ts(1000, map[string]catalog.ColumnStats{
		"key":  num(1000, 1000, 0, 0, 3996, "0", "3996"),
		"v":    num(1000, 1000, 10, 0, 99, "0.00", "99.00"),
		"only": num(1000, 0, 0, 1, 2, "1", "2"),
	})
	analyzed := ts(1000, map[string]catalog.ColumnStats{
		"key":   num(1000, 250, 0, 0, 3996, "0", "3996"),
		"v":     num(1000, 40, 12, -5, 99, "-5", "99"),
		"added": num(1000, 3, 0, 1, 3, "1", "3"),
	})
	for _, c := range []struct {
		name         string
		m, a         *catalog.TableStats
		want         *catalog.TableStats
		wantSameAs_m bool
	}{
		{name: "no ANALYZE", m: manifest, a: nil, wantSameAs_m: true},
		{name: "no manifests", m: nil, a: analyzed, want: analyzed},
		{name: "same rows: analysed NDV and counts, manifest text, widened bounds", m: manifest, a: analyzed, want: ts(1000, map[string]catalog.ColumnStats{
			"key":   num(1000, 250, 0, 0, 3996, "0", "3996"),
			"v":     {Count: 1000, NDV: 40, Nulls: 12, Numeric: true, Lo: -5, Hi: 99, Min: "-5", Max: "99.00", DataSize: 8000},
			"added": num(1000, 3, 0, 1, 3, "1", "3"),
			"only":  num(1000, 0, 0, 1, 2, "1", "2"),
		})},
		{name: "the table doubled since: what ANALYZE counted, the bounds widened", m: ts(2000, map[string]catalog.ColumnStats{
			"key": num(2000, 2000, 0, 0, 7996, "0", "7996"),
			"v":   num(2000, 2000, 20, 0, 99, "0.00", "99.00"),
		}), a: ts(1000, map[string]catalog.ColumnStats{
			"key": num(1000, 900, 0, 0, 3996, "0", "3996"),
			"v":   num(1000, 40, 12, 0, 50, "0", "50"),
		}), want: ts(1000, map[string]catalog.ColumnStats{
			"key": num(1000, 900, 0, 0, 7996, "0", "7996"),
			"v":   {Count: 1000, NDV: 40, Nulls: 12, Numeric: true, Lo: 0, Hi: 99, Min: "0.00", Max: "99.00", DataSize: 8000},
		})},
		{name: "a Fluss tail: ANALYZE covered more rows than the lake", m: ts(100, map[string]catalog.ColumnStats{
			"key": num(100, 100, 0, 0, 99, "0", "99"),
		}), a: ts(150, map[string]catalog.ColumnStats{
			"key": num(150, 148, 3, 0, 160, "0", "160"),
		}), want: ts(150, map[string]catalog.ColumnStats{
			"key": num(150, 148, 3, 0, 160, "0", "160"),
		})},
	} {
		got := Merge(c.m, c.a)
		if c.wantSameAs_m {
			if got != c.m {
				t.Errorf("%s: got %+v, want the manifests' own", c.name, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
	if manifest.Columns["v"].Min != "0.00" || analyzed.Columns["v"].Max != "99" {
		t.Errorf("Merge modified its arguments")
	}
}

// TestStore: statistics survive a reopen, an ANALYZE of some columns
// keeps the others, another incarnation's are not returned, a damaged file
// is an error naming it, and names are escaped into the directory.
func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "stats")
	s := OpenStore(dir)
	if got, err := s.Get("db", "t", "1"); got != nil || err != nil {
		t.Fatalf("empty store: %v %v", got, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Get created %s: %v", dir, err)
	}
	a := ts(10, map[string]catalog.ColumnStats{"a": {Count: 10, NDV: 3}, "b": {Count: 10, NDV: 4}})
	if err := s.Put("db", "t", "1", a); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("db", "t", "1", ts(12, map[string]catalog.ColumnStats{"a": {Count: 12, NDV: 5}})); err != nil {
		t.Fatal(err)
	}
	want := ts(12, map[string]catalog.ColumnStats{"a": {Count: 12, NDV: 5}, "b": {Count: 10, NDV: 4}})
	for _, st := range []*Store{s, OpenStore(dir)} {
		got, err := st.Get("db", "t", "1")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Get: %+v %v, want %+v", got, err, want)
		}
		if got, err := st.Get("db", "t", "2"); got != nil || err != nil {
			t.Errorf("another incarnation: %+v %v", got, err)
		}
	}
	// A new incarnation replaces the old one's columns.
	if err := s.Put("db", "t", "2", ts(1, map[string]catalog.ColumnStats{"c": {Count: 1, NDV: 1}})); err != nil {
		t.Fatal(err)
	}
	if got, _ := OpenStore(dir).Get("db", "t", "2"); got == nil || len(got.Columns) != 1 {
		t.Errorf("new incarnation: %+v", got)
	}
	// Names with separators stay inside the directory.
	if err := s.Put("../x", "a/b", "", a); err != nil {
		t.Fatal(err)
	}
	if got, err := OpenStore(dir).Get("../x", "a/b", ""); err != nil || got == nil {
		t.Errorf("escaped names: %+v %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); !os.IsNotExist(err) {
		t.Errorf("a name escaped the directory: %v", err)
	}
	// A damaged file is an error naming it.
	p := filepath.Join(dir, "d_db", "t_bad.json")
	if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := OpenStore(dir)
	if _, err := bad.Get("db", "bad", ""); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("damaged file: %v", err)
	}
	// Reported once; an ANALYZE replaces it.
	if got, err := bad.Get("db", "bad", ""); got != nil || err != nil {
		t.Errorf("damaged file, again: %v %v", got, err)
	}
	if err := bad.Put("db", "bad", "", a); err != nil {
		t.Fatal(err)
	}
	if got, err := OpenStore(dir).Get("db", "bad", ""); got == nil || err != nil {
		t.Errorf("replaced damaged file: %v %v", got, err)
	}
	// No directory: nothing kept, Put refused.
	none := OpenStore("")
	if got, err := none.Get("db", "t", ""); got != nil || err != nil {
		t.Errorf("no dir Get: %v %v", got, err)
	}
	if err := none.Put("db", "t", "", a); err == nil {
		t.Errorf("no dir Put succeeded")
	}
}
