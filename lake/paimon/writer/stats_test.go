package writer_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// The statistics tests below compute the expected min/max/null counts of
// every column from the rows the test wrote, with their own comparison and
// their own copy of the truncate(16) rule, and compare them with the
// decoded SimpleStats of the manifest entries the writer produced.

// Test-side cell values: bool, int64 (integers, DATE days, TIME ms,
// TIMESTAMP nanoseconds since the epoch), float64, string, []byte,
// *big.Int (DECIMAL unscaled), []int64 (ARRAY<BIGINT>); nil is NULL.

func dt(root paimon.TypeRoot, nullable bool, prec, scale int) paimon.DataType {
	return paimon.DataType{Root: root, Nullable: nullable, Precision: prec, Scale: scale}
}

// everyType is one column of each family; statsOf says which have min/max
// in value statistics (none for BYTES, as Java's Parquet stats, and none
// for nested types).
var everyType = []paimon.DataField{
	{Name: "b", Type: dt(paimon.Boolean, true, 0, 0)},
	{Name: "ti", Type: dt(paimon.TinyInt, true, 0, 0)},
	{Name: "si", Type: dt(paimon.SmallInt, true, 0, 0)},
	{Name: "i", Type: dt(paimon.Int, true, 0, 0)},
	{Name: "bi", Type: dt(paimon.BigInt, true, 0, 0)},
	{Name: "f", Type: dt(paimon.Float, true, 0, 0)},
	{Name: "d", Type: dt(paimon.Double, true, 0, 0)},
	{Name: "dec", Type: dt(paimon.Decimal, true, 10, 2)},
	{Name: "bdec", Type: dt(paimon.Decimal, true, 38, 4)},
	{Name: "s", Type: dt(paimon.VarChar, true, 2147483647, 0)},
	{Name: "c", Type: dt(paimon.Char, true, 20, 0)},
	{Name: "bin", Type: dt(paimon.VarBinary, true, 2147483647, 0)},
	{Name: "day", Type: dt(paimon.Date, true, 0, 0)},
	{Name: "tm", Type: dt(paimon.Time, true, 3, 0)},
	{Name: "ts3", Type: dt(paimon.Timestamp, true, 3, 0)},
	{Name: "ts6", Type: dt(paimon.Timestamp, true, 6, 0)},
	{Name: "ts9", Type: dt(paimon.Timestamp, true, 9, 0)},
	{Name: "ltz", Type: dt(paimon.TimestampLTZ, true, 6, 0)},
	{Name: "arr", Type: paimon.DataType{Root: paimon.Array, Nullable: true, Element: &paimon.DataType{Root: paimon.BigInt, Nullable: true}}},
}

// genValue draws a value of t; about one in five is NULL when nullable.
func genValue(r *rand.Rand, t paimon.DataType) any {
	if t.Nullable && r.IntN(5) == 0 {
		return nil
	}
	switch t.Root {
	case paimon.Boolean:
		return r.IntN(2) == 1
	case paimon.TinyInt:
		return int64(r.IntN(256) - 128)
	case paimon.SmallInt:
		return int64(r.IntN(65536) - 32768)
	case paimon.Int:
		return int64(int32(r.Uint32()))
	case paimon.BigInt:
		return int64(r.Uint64())
	case paimon.Float:
		return float64(float32(r.NormFloat64() * 1e3))
	case paimon.Double:
		return r.NormFloat64() * 1e9
	case paimon.Decimal:
		// Up to precision digits, negative half the time.
		digits := make([]byte, 1+r.IntN(t.Precision))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		u, _ := new(big.Int).SetString(string(digits), 10)
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		return u
	case paimon.VarChar, paimon.Char:
		// Mixed lengths around 16 characters, multi-byte runes included.
		alphabet := []rune("abcxyzé€𝄞")
		n := r.IntN(22)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	case paimon.VarBinary, paimon.Binary:
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	case paimon.Date:
		return int64(r.IntN(40000) - 20000) // 1915 .. 2024, pre-1970 included
	case paimon.Time:
		return int64(r.IntN(86400000))
	case paimon.Timestamp, paimon.TimestampLTZ:
		ns := int64(r.IntN(4e9)-2e9) * 1e9 // 1906 .. 2033
		ns += int64(r.IntN(1e9))
		switch {
		case t.Precision <= 3:
			ns = floorTo(ns, 1e6)
		case t.Precision <= 6:
			ns = floorTo(ns, 1e3)
		}
		return ns
	case paimon.Array:
		if r.IntN(3) == 0 {
			return []int64{}
		}
		return []int64{int64(r.IntN(10)), int64(r.IntN(10))}
	}
	panic(fmt.Sprint("genValue: ", t))
}

func floorTo(x, unit int64) int64 {
	q := x / unit
	if x%unit < 0 {
		q--
	}
	return q * unit
}

// buildBatch builds the Arrow batch of fields from test-side rows.
func buildBatch(t *testing.T, mem memory.Allocator, fields []paimon.DataField, rows [][]any) arrow.RecordBatch {
	t.Helper()
	sch, err := paimon.ArrowSchema(fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, row := range rows {
		for c, v := range row {
			fb := b.Field(c)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			case *array.Int8Builder:
				x.Append(int8(v.(int64)))
			case *array.Int16Builder:
				x.Append(int16(v.(int64)))
			case *array.Int32Builder:
				x.Append(int32(v.(int64)))
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float32Builder:
				x.Append(float32(v.(float64)))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.Decimal128Builder:
				x.Append(decimal128.FromBigInt(v.(*big.Int)))
			case *array.StringBuilder:
				x.Append(v.(string))
			case *array.BinaryBuilder:
				x.Append(v.([]byte))
			case *array.Date32Builder:
				x.Append(arrow.Date32(v.(int64)))
			case *array.Time32Builder:
				x.Append(arrow.Time32(v.(int64)))
			case *array.TimestampBuilder:
				ns := v.(int64)
				switch x.Type().(*arrow.TimestampType).Unit {
				case arrow.Millisecond:
					ns /= 1e6
				case arrow.Microsecond:
					ns /= 1e3
				}
				x.Append(arrow.Timestamp(ns))
			case *array.ListBuilder:
				x.Append(true)
				eb := x.ValueBuilder().(*array.Int64Builder)
				for _, e := range v.([]int64) {
					eb.Append(e)
				}
			default:
				t.Fatalf("buildBatch: column %s: builder %T", fields[c].Name, fb)
			}
		}
	}
	return b.NewRecordBatch()
}

// statsCanon turns a decoded stats value into the test-side form.
func statsCanon(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case paimon.DecimalValue:
		return x.Unscaled
	case paimon.TimestampValue:
		return x.Millis*1e6 + int64(x.NanoOfMilli)
	}
	return v
}

// less is the test's own order: false < true, numbers, strings and bytes
// as unsigned bytes, decimals by unscaled value (one scale per column).
func less(a, b any) bool {
	switch x := a.(type) {
	case bool:
		return !x && b.(bool)
	case int64:
		return x < b.(int64)
	case float64:
		return x < b.(float64)
	case string:
		return x < b.(string)
	case []byte:
		return bytes.Compare(x, b.([]byte)) < 0
	case *big.Int:
		return x.Cmp(b.(*big.Int)) < 0
	}
	panic(fmt.Sprintf("less %T", a))
}

type colExpect struct {
	min, max any
	nulls    int64
}

// expectStats computes per-column statistics of rows; truncate applies the
// value-statistics rules (truncate(16) for strings, no bounds for bytes).
func expectStats(rows [][]any, cols []int, types []paimon.DataType, truncate bool) []colExpect {
	out := make([]colExpect, len(cols))
	for j, c := range cols {
		e := &out[j]
		bounded := true
		switch types[j].Root {
		case paimon.Array, paimon.Map, paimon.Multiset, paimon.Row:
			bounded = false
		case paimon.VarBinary, paimon.Binary:
			bounded = !truncate // keys keep full bytes; value stats have none
		}
		nan := false
		for _, r := range rows {
			v := r[c]
			if v == nil {
				e.nulls++
				continue
			}
			if !bounded {
				continue
			}
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				nan = true
				continue
			}
			if e.min == nil || less(v, e.min) {
				e.min = v
			}
			if e.max == nil || less(e.max, v) {
				e.max = v
			}
		}
		if !bounded || nan {
			e.min, e.max = nil, nil
		}
		if s, ok := e.min.(string); ok && truncate {
			e.min = truncMin(s)
			e.max = truncMax(e.max.(string))
		}
	}
	return out
}

// truncMin keeps the first 16 characters (code points).
func truncMin(s string) string {
	rs := []rune(s)
	if len(rs) <= 16 {
		return s
	}
	return string(rs[:16])
}

// truncMax keeps the first 16 characters and bumps the last one that can
// be bumped, dropping what follows; no such character → NULL.
func truncMax(s string) any {
	rs := []rune(s)
	if len(rs) <= 16 {
		return s
	}
	rs = rs[:16]
	for i := 15; i >= 0; i-- {
		n := rs[i] + 1
		if n >= 0xD800 && n <= 0xDFFF {
			n = 0xE000
		}
		if n <= utf8.MaxRune {
			rs[i] = n
			return string(rs[:i+1])
		}
	}
	return nil
}

func checkStats(t *testing.T, what string, s *paimon.SimpleStats, names []string, types []paimon.DataType, want []colExpect) {
	t.Helper()
	nt := make([]paimon.DataType, len(types))
	for i, ty := range types {
		ty.Nullable = true
		nt[i] = ty
	}
	mn, err := paimon.DeserializeRow(s.MinValues, nt)
	if err != nil {
		t.Fatalf("%s min: %v", what, err)
	}
	mx, err := paimon.DeserializeRow(s.MaxValues, nt)
	if err != nil {
		t.Fatalf("%s max: %v", what, err)
	}
	if s.NullCounts == nil || len(*s.NullCounts) != len(types) {
		t.Fatalf("%s: null counts %v for %d columns", what, s.NullCounts, len(types))
	}
	for i := range types {
		got := colExpect{min: statsCanon(mn[i]), max: statsCanon(mx[i])}
		if nc := (*s.NullCounts)[i]; nc != nil {
			got.nulls = *nc
		} else {
			got.nulls = -1
		}
		if showStats(got) != showStats(want[i]) {
			t.Errorf("%s column %s: min %v max %v nulls %d, want min %v max %v nulls %d", what, names[i],
				got.min, got.max, got.nulls, want[i].min, want[i].max, want[i].nulls)
		}
	}
}

// showStats renders a column's statistics with the Go types of min and max.
func showStats(e colExpect) string {
	return fmt.Sprintf("%T:%v %T:%v %d", e.min, e.min, e.max, e.max, e.nulls)
}

func fieldsWithIDs(fs []paimon.DataField) []paimon.DataField {
	out := make([]paimon.DataField, len(fs))
	for i, f := range fs {
		f.ID = i
		out[i] = f
	}
	return out
}

// TestStatsCompositeKeyEveryType writes a primary-key table whose key is
// (k1 INT, k2 INT) with the rows (1,9),(1,10),(2,1) and more, plus
// a column of every type, and an append table of every type: key and value
// statistics must equal a computation over the written rows, and a
// predicate on the second key column must find its rows.
func TestStatsCompositeKeyEveryType(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(11, 2))

	for _, tc := range []struct {
		pk     bool
		format string
	}{{true, "parquet"}, {false, "parquet"}, {true, "orc"}, {false, "orc"}} {
		pk := tc.pk
		t.Run(fmt.Sprintf("%s/pk=%v", tc.format, pk), func(t *testing.T) {
			fields := append([]paimon.DataField{
				{Name: "k1", Type: dt(paimon.Int, !pk, 0, 0)},
				{Name: "k2", Type: dt(paimon.Int, !pk, 0, 0)},
				{Name: "ks", Type: dt(paimon.VarChar, !pk, 2147483647, 0)},
				{Name: "kb", Type: dt(paimon.VarBinary, !pk, 2147483647, 0)},
			}, everyType...)
			fields = fieldsWithIDs(fields)
			s := &paimon.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1", "partition.legacy-name": "false"}}
			if pk {
				s.PrimaryKeys = []string{"k1", "k2", "ks", "kb"}
				s.Options = map[string]string{"bucket": "1", "partition.legacy-name": "false", "changelog-producer": "input"}
			}
			s.Options["file.format"] = tc.format
			if tc.format == "orc" {
				s.Options["orc.stripe.size"] = "300" // several stripes, each pruned on its own
			}
			path := filepath.Join(t.TempDir(), "db.db", "t")
			if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), RowGroupRows: 7})
			if err != nil {
				t.Fatal(err)
			}
			// Keys ascending: k1 drives the order, the other key columns
			// wander so that their extremes sit inside the file.
			keys := [][]any{{int64(1), int64(9)}, {int64(1), int64(10)}, {int64(2), int64(1)}}
			for k1 := int64(3); k1 < 40; k1++ {
				keys = append(keys, []any{k1, int64(r.IntN(200) - 100)})
			}
			var rows [][]any
			for _, k := range keys {
				row := []any{k[0], k[1], genValue(r, dt(paimon.VarChar, false, 0, 0)), genValue(r, dt(paimon.VarBinary, false, 0, 0))}
				for _, f := range everyType {
					row = append(row, genValue(r, f.Type))
				}
				rows = append(rows, row)
			}
			if !pk {
				rows[5][0] = nil // NULLs in the first columns too
				rows[6][1] = nil
			}
			// NaN in one float column only: that column has no bounds.
			rows[3][4+6] = math.NaN()
			c := w.NewCommit()
			fw, err := c.NewFile(ctx, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < len(rows); lo += 8 { // several batches
				hi := min(lo+8, len(rows))
				rec := buildBatch(t, mem, fields, rows[lo:hi])
				if err := fw.Write(rec, nil); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			if err := fw.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Commit(ctx, nil); err != nil {
				t.Fatal(err)
			}
			live := w.LiveFiles()
			if len(live) != 1 {
				t.Fatalf("%d live files", len(live))
			}
			meta := live[0].File
			if ext := filepath.Ext(meta.FileName); ext != "."+tc.format {
				t.Fatalf("data file %s: want a .%s file", meta.FileName, tc.format)
			}

			var names []string
			var types []paimon.DataType
			var cols []int
			for i, f := range fields {
				names, types, cols = append(names, f.Name), append(types, f.Type), append(cols, i)
			}
			if meta.ValueStatsCols != nil && len(*meta.ValueStatsCols) != 0 {
				t.Fatalf("value stats columns %v: want all columns (null)", *meta.ValueStatsCols)
			}
			checkStats(t, "value stats", meta.ValueStats, names, types, expectStats(rows, cols, types, true))
			if pk {
				kt := types[:4]
				checkStats(t, "key stats", meta.KeyStats, names[:4], kt, expectStats(rows, cols[:4], kt, false))
			}

			// The case: k2 = 10 lives in a file whose first and
			// last keys have k2 9 and something else.
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, probe := range []int64{10, int64(rows[20][1].(int64))} {
				p, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: paimon.Eq("k2", probe)})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for i := range p.Splits {
					rr, err := p.Open(ctx, &p.Splits[i], mem, paimon.ReadOptions{})
					if err != nil {
						t.Fatal(err)
					}
					for rr.Next() {
						rec := rr.RecordBatch()
						for j := 0; j < int(rec.NumRows()); j++ {
							got = append(got, fmt.Sprint(paimon.JSONRow(rec, j)[0]))
						}
					}
					if err := rr.Err(); err != nil {
						t.Fatal(err)
					}
					rr.Release()
				}
				var want []string
				for _, row := range rows {
					if row[1] != nil && row[1].(int64) == probe {
						want = append(want, fmt.Sprint(row[0]))
					}
				}
				sort.Strings(got)
				sort.Strings(want)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("k2 = %d: k1 %v, want %v (splits %d)", probe, got, want, len(p.Splits))
				}
			}
		})
	}
}
