package local

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// zoneCol is a column of the zone-map test table: its value in row i of
// batch b as text ("NULL" for NULL) and as an exact number (days for a
// date) for the reference filter.
type zoneCol struct {
	name string
	typ  arrow.DataType
	val  func(b, i int) string
}

func zoneNum(typ arrow.DataType, s string) *big.Rat {
	if typ.ID() == arrow.DATE32 {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			panic(err)
		}
		return new(big.Rat).SetInt64(t.Unix() / 86400)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// holds is the reference: SQL's reading of column op constant for one
// value (NULL never satisfies a comparison).
func holds(typ arrow.DataType, v string, p catalog.Predicate) bool {
	switch p.Op {
	case "IS NULL":
		return v == "NULL"
	case "IS NOT NULL":
		return v != "NULL"
	}
	if v == "NULL" {
		return false
	}
	x := zoneNum(typ, v)
	for _, c := range p.Values {
		var k *big.Rat
		switch c := c.(type) {
		case int64:
			k = new(big.Rat).SetInt64(c)
		case float64:
			k = new(big.Rat).SetFloat64(c)
		case string:
			k = zoneNum(typ, c)
		}
		d := x.Cmp(k)
		var ok bool
		switch p.Op {
		case "=", "IN":
			ok = d == 0
		case "<":
			ok = d < 0
		case "<=":
			ok = d <= 0
		case ">":
			ok = d > 0
		case ">=":
			ok = d >= 0
		}
		if ok {
			return true
		}
	}
	return false
}

// TestZoneMapsNeverHideRows: scans with predicates skip batches by their
// zone maps, over every zoned type (integers, DATE before and after the
// epoch, DECIMAL within and past int64), with NULLs and all-NULL batches,
// constants inside, between, on and past the batches' bounds, with more
// fraction digits than the column, as floats and as text: the rows that
// satisfy the predicate are always all there (the reference filters every
// row), and some predicates do skip (fewer rows come back), before and
// after a restart.
func TestZoneMapsNeverHideRows(t *testing.T) {
	const batches, per = 12, 40
	day0 := time.Date(1969, 11, 1, 0, 0, 0, 0, time.UTC) // batches 0-1 are before the epoch
	cols := []zoneCol{
		{"i8", arrow.PrimitiveTypes.Int8, func(b, i int) string { return fmt.Sprint((b-6)*10 + i%10) }},
		{"i16", arrow.PrimitiveTypes.Int16, func(b, i int) string { return fmt.Sprint((b-6)*1000 + i) }},
		{"i32", arrow.PrimitiveTypes.Int32, func(b, i int) string {
			if i%7 == 3 {
				return "NULL"
			}
			return fmt.Sprint((b-6)*100 + i)
		}},
		{"i64", arrow.PrimitiveTypes.Int64, func(b, i int) string {
			if b == 4 {
				return "NULL" // a batch of NULLs only
			}
			return fmt.Sprint(int64(b-6)*1e15 + int64(i))
		}},
		{"d", arrow.FixedWidthTypes.Date32, func(b, i int) string {
			return day0.AddDate(0, 0, b*30+i%30).Format(time.DateOnly)
		}},
		{"dec", &arrow.Decimal128Type{Precision: 15, Scale: 2}, func(b, i int) string {
			if b == 7 && i == 5 {
				return "NULL"
			}
			return fmt.Sprintf("%d.%02d", b, i) // b + i/100
		}},
		{"big", &arrow.Decimal128Type{Precision: 38, Scale: 1}, func(b, i int) string {
			if b == 9 && i == 0 {
				return "99999999999999999999999.5" // past int64: no bounds for this batch
			}
			return fmt.Sprintf("%d.%d", (b-6)*100+i, i%10)
		}},
		{"s", arrow.BinaryTypes.String, func(b, i int) string { return fmt.Sprintf("s%d", b) }},
	}
	var sch catalog.Schema
	var fields []arrow.Field
	for _, c := range cols {
		sch.Columns = append(sch.Columns, catalog.Column{Name: c.name, Type: c.typ, Nullable: true})
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: true})
	}
	as := arrow.NewSchema(fields, nil)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{CompactAt: -1})
	tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "z", Schema: sch})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for b := range batches {
		bld := array.NewRecordBuilder(mem, as)
		for i := range per {
			for j, c := range cols {
				v := c.val(b, i)
				if v == "NULL" {
					bld.Field(j).AppendNull()
				} else if err := bld.Field(j).AppendValueFromString(v); err != nil {
					t.Fatal(err)
				}
			}
		}
		recs = append(recs, bld.NewRecordBatch())
		bld.Release()
	}
	rr, err := array.NewRecordReader(as, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	if _, err := load(t, tb, rr, catalog.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	p := func(col, op string, vals ...any) catalog.Predicate {
		return catalog.Predicate{Column: col, Op: op, Values: vals}
	}
	preds := []catalog.Predicate{
		p("i8", "<", int64(-50)), p("i8", "<", int64(-51)), p("i8", ">=", int64(49)), p("i8", ">", int64(49)),
		p("i8", "=", int64(3)), p("i8", "IN", int64(-60), int64(55)), p("i8", "<=", "-55.5"), p("i8", ">", 12.5),
		p("i16", "<=", int64(-5961)), p("i16", "=", "1039"), p("i16", ">", int64(4000)), p("i16", "<", int64(-1e9)),
		p("i32", "IS NULL"), p("i32", "IS NOT NULL"), p("i32", ">=", int64(539)), p("i32", "<", int64(-599)),
		p("i64", "IS NULL"), p("i64", "IS NOT NULL"), p("i64", "<", int64(-2e15)), p("i64", "=", int64(-2e15+39)),
		p("i64", ">", "4999999999999999.5"),
		p("d", "<", "1969-12-31"), p("d", "<=", "1970-01-01"), p("d", ">=", "1970-09-28"), p("d", "=", "1969-11-30"),
		p("d", "IN", "1970-01-01", "1970-08-29"), p("d", ">", "1970-10-27"), p("d", "<", "1960-01-01"),
		p("dec", "<", "0.39"), p("dec", "<=", "0.39"), p("dec", "<", "0.391"), p("dec", ">", "10.385"),
		p("dec", "=", "7.05"), p("dec", ">=", int64(11)), p("dec", "<", 3.0), p("dec", "IN", "2.5", "4.41"),
		p("dec", "IS NULL"),
		p("big", ">", "350"), p("big", "<", "-599.05"), p("big", "=", "99999999999999999999999.5"),
		p("big", ">", "99999999999999999999999"), p("big", "<=", int64(-560)),
	}
	check := func(t *testing.T, tb catalog.Table) (skipped int) {
		for _, pr := range preds {
			ci := sch.Index(pr.Column)
			var want []string
			for b := range batches {
				for i := range per {
					if holds(cols[ci].typ, cols[ci].val(b, i), pr) {
						want = append(want, rowText(cols, b, i))
					}
				}
			}
			r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Predicates: []catalog.Predicate{pr}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			n := 0
			for r.Next() {
				rec := r.RecordBatch()
				for i := range int(rec.NumRows()) {
					n++
					v := "NULL"
					if a := rec.Column(ci); a.IsValid(i) {
						v = a.ValueStr(i)
					}
					if holds(cols[ci].typ, v, pr) {
						got = append(got, scanText(rec, i))
					}
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			r.Release()
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				k := 0
				for k < min(len(got), len(want)) && got[k] == want[k] {
					k++
				}
				t.Errorf("%s: %d matching rows come back, want %d (first difference at %d: %q, want %q)", pr, len(got), len(want), k, got[k:min(k+1, len(got))], want[k:min(k+1, len(want))])
			}
			if n < batches*per {
				skipped++
			}
		}
		return skipped
	}
	if n := check(t, tb); n < len(preds)/2 {
		t.Errorf("only %d of %d predicates skipped a batch", n, len(preds))
	}
	c.Close()
	c2, d2 := openDB(t, dir, mem, Options{CompactAt: -1})
	if n := check(t, mustTable(t, d2, "z")); n < len(preds)/2 {
		t.Errorf("after reopen only %d of %d predicates skipped a batch", n, len(preds))
	}
	c2.Close()
	mem.AssertSize(t, 0)
}

func rowText(cols []zoneCol, b, i int) string {
	var f []string
	for _, c := range cols {
		v := c.val(b, i)
		if v != "NULL" {
			v = zoneNorm(c.typ, v)
		}
		f = append(f, v)
	}
	return strings.Join(f, "|")
}

// zoneNorm renders a value as arrow's ValueStr does.
func zoneNorm(typ arrow.DataType, v string) string {
	switch t := typ.(type) {
	case *arrow.Decimal128Type:
		r := zoneNum(typ, v)
		return r.FloatString(int(t.Scale))
	}
	return v
}

func scanText(rec arrow.RecordBatch, i int) string {
	var f []string
	for c := range int(rec.NumCols()) {
		a := rec.Column(c)
		if a.IsNull(i) {
			f = append(f, "NULL")
		} else {
			f = append(f, zoneNorm(a.DataType(), a.ValueStr(i)))
		}
	}
	return strings.Join(f, "|")
}

// TestZoneMapsUniqueKey: on a UNIQUE KEY table the merge skips batches
// only after it has seen every key, so a skipped batch never brings back
// an older version of a key (the latest was updated out of the range) nor
// hides the latest (updated into it), with deleted keys, several buckets,
// before and after compaction.
func TestZoneMapsUniqueKey(t *testing.T) {
	for _, buckets := range []int{1, 3} {
		for _, compactAt := range []int{-1, 2} {
			t.Run(fmt.Sprintf("buckets=%d/compactAt=%d", buckets, compactAt), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				c, d := openDB(t, t.TempDir(), mem, Options{CompactAt: compactAt})
				defer c.Close()
				tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), ukSpec("u", buckets))
				if err != nil {
					t.Fatal(err)
				}
				final := map[int]string{} // k1 → v ("" deleted)
				var first, second []row
				for k := range 100 {
					first = append(first, row{fmt.Sprint(k), "a", fmt.Sprint(k), "x"})
					final[k] = fmt.Sprint(k)
					if k%3 == 0 {
						v := fmt.Sprint(1000 + k)
						if k%9 == 0 {
							v = "NULL"
						}
						second = append(second, row{fmt.Sprint(k), "a", v, "y"})
						final[k] = v
					}
				}
				for _, rows := range [][]row{first, second} {
					if _, err := load(t, tb, rowsReader(t, mem, nil, rows, 10), catalog.LoadOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				var gone []row
				for k := 0; k < 100; k += 5 {
					gone = append(gone, row{fmt.Sprint(k), "a", "NULL", "NULL"})
					delete(final, k)
				}
				r := rowsReader(t, mem, nil, gone, 10)
				if _, err := tb.(catalog.KeyDeleter).DeleteKeys(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				r.Release()
				waitCompaction(t, c, tb, compactAt)
				p := func(op string, vals ...any) catalog.Predicate {
					return catalog.Predicate{Column: "v", Op: op, Values: vals}
				}
				for _, pr := range []catalog.Predicate{
					p("<", int64(50)), p(">=", int64(1000)), p("=", int64(33)), p("=", int64(1033)),
					p("IN", int64(3), int64(4), int64(1006)), p("IS NULL"), p("IS NOT NULL"), p(">", int64(98)),
				} {
					var want []string
					for k, v := range final {
						if holds(arrow.PrimitiveTypes.Int64, v, pr) {
							want = append(want, fmt.Sprintf("%d|%s", k, v))
						}
					}
					rd, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Predicates: []catalog.Predicate{pr}})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for rd.Next() {
						rec := rd.RecordBatch()
						for i := range int(rec.NumRows()) {
							v := "NULL"
							if rec.Column(2).IsValid(i) {
								v = rec.Column(2).ValueStr(i)
							}
							if holds(arrow.PrimitiveTypes.Int64, v, pr) {
								got = append(got, fmt.Sprintf("%s|%s", rec.Column(0).ValueStr(i), v))
							}
						}
					}
					if err := rd.Err(); err != nil {
						t.Fatal(err)
					}
					rd.Release()
					slices.Sort(got)
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Errorf("%s: rows %q, want %q", pr, got, want)
					}
				}
				c.Close()
				mem.AssertSize(t, 0)
			})
		}
	}
}
