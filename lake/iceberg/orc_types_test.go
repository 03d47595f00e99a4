package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// orcTypesSchema is the table: every primitive type the engine reads plus
// a struct, a list and a map; "added" (24) is in no file. The ids are
// the ones iceberg-go assigns on creation (depth first).
func orcTypesSchema() *ice.Schema {
	return ice.NewSchema(0,
		ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64, Required: true},
		ice.NestedField{ID: 2, Name: "b", Type: ice.PrimitiveTypes.Bool},
		ice.NestedField{ID: 3, Name: "i", Type: ice.PrimitiveTypes.Int32},
		ice.NestedField{ID: 4, Name: "l", Type: ice.PrimitiveTypes.Int64},
		ice.NestedField{ID: 5, Name: "f", Type: ice.PrimitiveTypes.Float32},
		ice.NestedField{ID: 6, Name: "d", Type: ice.PrimitiveTypes.Float64},
		ice.NestedField{ID: 7, Name: "dec", Type: ice.DecimalTypeOf(9, 2)},
		ice.NestedField{ID: 8, Name: "day", Type: ice.PrimitiveTypes.Date},
		ice.NestedField{ID: 9, Name: "tm", Type: ice.PrimitiveTypes.Time},
		ice.NestedField{ID: 10, Name: "ts", Type: ice.PrimitiveTypes.Timestamp},
		ice.NestedField{ID: 11, Name: "tstz", Type: ice.PrimitiveTypes.TimestampTz},
		ice.NestedField{ID: 12, Name: "s", Type: ice.PrimitiveTypes.String},
		ice.NestedField{ID: 13, Name: "bin", Type: ice.PrimitiveTypes.Binary},
		ice.NestedField{ID: 14, Name: "u", Type: ice.PrimitiveTypes.UUID},
		ice.NestedField{ID: 15, Name: "st", Type: &ice.StructType{FieldList: []ice.NestedField{
			{ID: 16, Name: "x", Type: ice.PrimitiveTypes.Int32},
			{ID: 17, Name: "y", Type: ice.PrimitiveTypes.String},
			{ID: 18, Name: "z", Type: ice.PrimitiveTypes.Int64}, // in no file
		}}},
		ice.NestedField{ID: 19, Name: "lst", Type: &ice.ListType{ElementID: 20, Element: ice.PrimitiveTypes.Int64}},
		ice.NestedField{ID: 21, Name: "m", Type: &ice.MapType{KeyID: 22, KeyType: ice.PrimitiveTypes.String, ValueID: 23, ValueType: ice.PrimitiveTypes.Int32}},
		ice.NestedField{ID: 24, Name: "added", Type: ice.PrimitiveTypes.String},
	)
}

func valuesOf(kv []string) []string {
	var v []string
	for i := 1; i < len(kv); i += 2 {
		v = append(v, kv[i])
	}
	return v
}

func keysOf(kv []string) []string {
	var k []string
	for i := 0; i < len(kv); i += 2 {
		k = append(k, kv[i])
	}
	return k
}

func meta(id int, kv ...string) arrow.Metadata {
	return arrow.NewMetadata(append([]string{orcIDAttr}, keysOf(kv)...), append([]string{strconv.Itoa(id)}, valuesOf(kv)...))
}

// writeTypesORC writes the file the way an older schema had it: columns
// in another order, s under its old name, i/d/dec at narrower types
// (l is an ORC int, d a float, dec decimal(5,2)), the struct's fields
// reversed, no "added". Each row goes to its own stripe.
func writeTypesORC(t testing.TB, path string) {
	t.Helper()
	ts := func(s string) int64 {
		v, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return v.UnixMicro()
	}
	stT := arrow.StructOf(
		arrow.Field{Name: "yy", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(17)},
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta(16)})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "old_s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(12)},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: meta(1, orcLongType, "LONG")},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true, Metadata: meta(2)},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta(3)},
		{Name: "l", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: meta(4)},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true, Metadata: meta(5)},
		{Name: "d", Type: arrow.PrimitiveTypes.Float32, Nullable: true, Metadata: meta(6)},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true, Metadata: meta(7)},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true, Metadata: meta(8)},
		{Name: "tm", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: meta(9, orcLongType, "TIME")},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true, Metadata: meta(10)},
		{Name: "tstz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true, Metadata: meta(11)},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: meta(13)},
		{Name: "u", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: meta(14, "iceberg.binary-type", "UUID")},
		{Name: "st", Type: stT, Nullable: true, Metadata: meta(15)},
		{Name: "lst", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true, Metadata: meta(19)},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true, Metadata: meta(21)},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem := memory.NewGoAllocator()
	w, err := orc.NewWriter(f, sc, orc.WriterOptions{Mem: mem, StripeSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	uuid := bytes.Repeat([]byte{0xab}, 16)
	for row := 1; row <= 3; row++ {
		b := array.NewRecordBuilder(mem, sc)
		nulls := row == 2
		appendOr := func(bld array.Builder, fn func()) {
			if nulls {
				bld.AppendNull()
				return
			}
			fn()
		}
		fb := func(i int) array.Builder { return b.Field(i) }
		neg := row == 3 // pre-epoch and negative values
		appendOr(fb(0), func() { fb(0).(*array.StringBuilder).Append("héllo" + strconv.Itoa(row)) })
		fb(1).(*array.Int64Builder).Append(int64(row))
		appendOr(fb(2), func() { fb(2).(*array.BooleanBuilder).Append(!neg) })
		appendOr(fb(3), func() { fb(3).(*array.Int32Builder).Append(map[bool]int32{false: 2147483647, true: -2147483648}[neg]) })
		appendOr(fb(4), func() { fb(4).(*array.Int32Builder).Append(map[bool]int32{false: 7, true: -7}[neg]) })
		appendOr(fb(5), func() { fb(5).(*array.Float32Builder).Append(map[bool]float32{false: 1.5, true: -0.25}[neg]) })
		appendOr(fb(6), func() { fb(6).(*array.Float32Builder).Append(map[bool]float32{false: 1.1, true: -3.5}[neg]) })
		appendOr(fb(7), func() {
			fb(7).(*array.Decimal128Builder).Append(decimal128.FromI64(map[bool]int64{false: 12345, true: -99999}[neg]))
		})
		appendOr(fb(8), func() {
			fb(8).(*array.Date32Builder).Append(arrow.Date32(map[bool]int32{false: 19000, true: -25567}[neg]))
		})
		appendOr(fb(9), func() { fb(9).(*array.Int64Builder).Append(map[bool]int64{false: 45296789000, true: 0}[neg]) })
		appendOr(fb(10), func() {
			fb(10).(*array.TimestampBuilder).Append(arrow.Timestamp(map[bool]int64{false: ts("2024-02-29 23:59:59.123456"), true: ts("1900-01-01 12:34:56.000001")}[neg]))
		})
		appendOr(fb(11), func() {
			fb(11).(*array.TimestampBuilder).Append(arrow.Timestamp(map[bool]int64{false: ts("2024-03-01 00:00:00"), true: ts("1969-12-31 23:59:59")}[neg]))
		})
		appendOr(fb(12), func() { fb(12).(*array.BinaryBuilder).Append([]byte{0, 1, 2, byte(row)}) })
		appendOr(fb(13), func() { fb(13).(*array.BinaryBuilder).Append(uuid) })
		sb := fb(14).(*array.StructBuilder)
		appendOr(sb, func() {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append("y" + strconv.Itoa(row))
			sb.FieldBuilder(1).(*array.Int32Builder).Append(int32(row * 10))
		})
		if nulls {
			sb.FieldBuilder(0).AppendNull()
			sb.FieldBuilder(1).AppendNull()
		}
		lb := fb(15).(*array.ListBuilder)
		appendOr(lb, func() {
			lb.Append(true)
			lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{int64(row), -1}, []bool{true, !neg})
		})
		mb := fb(16).(*array.MapBuilder)
		appendOr(mb, func() {
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("k")
			if neg {
				mb.ItemBuilder().AppendNull()
			} else {
				mb.ItemBuilder().(*array.Int32Builder).Append(int32(row))
			}
		})
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestORCTypesAndEvolution reads an ORC file written under an older
// schema through the current one: columns found by iceberg.id whatever
// their name or position, promotions, a column and a struct field in no
// file read as NULL, NULLs, pre-epoch dates and timestamps. Expected
// values are derived by hand from what writeTypesORC wrote.
func TestORCTypesAndEvolution(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	loc, err := icebergtest.Create(ctx, wh, "db", "t", orcTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(loc, "data", "f.orc")
	writeTypesORC(t, path)
	st, _ := os.Stat(path)
	if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.OrcFile, 3, st.Size()); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		col  string
		want []string // rows 1, 2 (NULLs), 3 (negative, pre-epoch)
	}{
		{"id", []string{"1", "2", "3"}},
		{"b", []string{"true", "NULL", "false"}},
		{"i", []string{"2147483647", "NULL", "-2147483648"}},
		{"l", []string{"7", "NULL", "-7"}},
		{"f", []string{"1.5", "NULL", "-0.25"}},
		{"d", []string{"1.100000023841858", "NULL", "-3.5"}},
		{"dec", []string{"123.45", "NULL", "-999.99"}},
		{"day", []string{"2022-01-08", "NULL", "1900-01-01"}},
		{"tm", []string{"12:34:56.789", "NULL", "00:00:00.000"}},
		{"ts", []string{"2024-02-29 23:59:59.123456", "NULL", "1900-01-01 12:34:56.000001"}},
		{"tstz", []string{"2024-03-01 00:00:00", "NULL", "1969-12-31 23:59:59"}},
		{"s", []string{"héllo1", "NULL", "héllo3"}},
		{"bin", []string{"00010201", "NULL", "00010203"}},
		{"u", []string{strings.Repeat("ab", 16), "NULL", strings.Repeat("ab", 16)}},
		{"st", []string{"(10 y1 NULL)", "NULL", "(30 y3 NULL)"}},
		{"lst", []string{"[1 -1]", "NULL", "[3 NULL]"}},
		{"m", []string{"{k:1}", "NULL", "{k:NULL}"}},
		{"added", []string{"NULL", "NULL", "NULL"}},
	}
	for _, c := range cases {
		t.Run(c.col, func(t *testing.T) {
			got, plan := readRows(t, tbl, ScanOptions{}, []string{"id", c.col})
			if len(plan.Splits) != 1 || plan.Splits[0].Format != "ORC" {
				t.Fatalf("splits %+v", plan.Splits)
			}
			var want []string
			for i, v := range c.want {
				want = append(want, strconv.Itoa(i+1)+","+v)
			}
			if c.col == "id" {
				want = []string{"1,1", "2,2", "3,3"}
			}
			if !slices.Equal(got, sorted(want...)) {
				t.Fatalf("got %q want %q", got, want)
			}
		})
	}
	// Stripe pruning: rows are never filtered, a stripe the statistics
	// rule out is skipped whole. Expected: every row of each stripe that
	// holds a row matching the predicate (matches by hand).
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	of, err := orc.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var stripeOf []int // stripe of row id-1
	for si, s := range of.Stripes() {
		for range s.NumRows {
			stripeOf = append(stripeOf, si)
		}
	}
	if len(of.Stripes()) < 2 {
		t.Fatalf("want several stripes, got %d", len(of.Stripes()))
	}
	prune := []struct {
		pred    *paimon.Predicate
		matches []int
	}{
		{paimon.Eq("id", int64(2)), []int{2}},
		{paimon.Gt("l", int64(0)), []int{1}},
		{paimon.IsNull("s"), []int{2}},
		{paimon.Or(paimon.Eq("s", "h\u00e9llo3"), paimon.Lt("d", -1.0)), []int{3}},
		{paimon.In("i", int64(5), int64(-2147483648)), []int{3}},
		{paimon.Eq("id", int64(9)), nil},
		{paimon.Eq("day", "2022-01-08"), []int{1}},
		{paimon.Lt("day", int64(0)), []int{3}},
		{paimon.Gt("dec", "100"), []int{1}},
		{paimon.Le("dec", "-999.99"), []int{3}},
		{paimon.Eq("id", float64(2)), []int{2}},       // as JSON decodes it
		{paimon.Eq("id", json.Number("3")), []int{3}}, // as a UseNumber decoder does
		{paimon.Eq("f", 1.5), []int{1}},
		{paimon.Eq("f", 1.1), []int{1, 2, 3}},                           // not a float32: never prunes
		{paimon.Eq("ts", "1900-01-01 12:34:56.000001"), []int{1, 2, 3}}, // timestamps never prune
		{paimon.Eq("b", true), []int{1, 2, 3}},                          // booleans never prune
	}
	for _, c := range prune {
		keep := map[int]bool{}
		for _, id := range c.matches {
			keep[stripeOf[id-1]] = true
		}
		var want []string
		for id := 1; id <= 3; id++ {
			if keep[stripeOf[id-1]] {
				want = append(want, strconv.Itoa(id))
			}
		}
		got, _ := readRows(t, tbl, ScanOptions{Predicate: c.pred}, []string{"id"})
		if !slices.Equal(got, want) {
			t.Errorf("%+v: got %q want %q", c.pred, got, want)
		}
	}
}

// TestORCBadFiles: a data file that is not what the manifest describes
// fails naming the table, the file and (for a type) the column.
func TestORCBadFiles(t *testing.T) {
	ctx := context.Background()
	wh := t.TempDir()
	loc, err := icebergtest.Create(ctx, wh, "db", "t", orcTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(loc, "data", "f.orc")
	writeTypesORC(t, path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A file whose column 3 (i, int) holds strings.
	strPath := filepath.Join(loc, "data", "s.orc")
	{
		sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: meta(3)}}, nil)
		f, err := os.Create(strPath)
		if err != nil {
			t.Fatal(err)
		}
		w, err := orc.NewWriter(f, sc, orc.WriterOptions{Mem: memory.NewGoAllocator()})
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBuilder(memory.NewGoAllocator(), sc)
		b.Field(0).(*array.StringBuilder).Append("x")
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.ReadPlan(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		bytes  []byte
		split  Split
		cols   []string
		target error
		text   string
	}{
		{"size differs", good, Split{Path: path, Format: "ORC", Size: int64(len(good)) + 1, Records: 3}, nil, ErrCorrupt, "its manifest records"},
		{"rows differ", good, Split{Path: path, Format: "ORC", Records: 4}, nil, ErrCorrupt, "holds 3 rows, its manifest records 4"},
		{"truncated", good[:len(good)-10], Split{Path: path, Format: "ORC", Records: 3}, nil, ErrCorrupt, path},
		{"not ORC", []byte("PAR1 not an orc file at all"), Split{Path: path, Format: "ORC", Records: 3}, nil, ErrCorrupt, path},
		{"wrong type", nil, Split{Path: strPath, Format: "ORC", Records: 1}, []string{"i"}, ErrUnsupported, "column i"},
		{"Avro", good, Split{Path: path, Format: "AVRO", Records: 3}, nil, ErrUnsupported, "is AVRO; only Parquet and ORC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.bytes != nil {
				if err := os.WriteFile(path, c.bytes, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rd, err := plan.Open(ctx, &c.split, mem, ReadOptions{Columns: c.cols})
			if err == nil {
				for rd.Next() {
				}
				err = rd.Err()
				rd.Release()
			}
			if !errors.Is(err, c.target) || !strings.Contains(err.Error(), c.text) || !strings.Contains(err.Error(), c.split.Path) {
				t.Fatalf("err = %v, want %v naming %q and the file", err, c.target, c.text)
			}
		})
	}
}

// TestORCNameMapping reads ORC files without iceberg.id attributes (what
// a Hive table migrated in place holds): through the table's
// schema.name-mapping.default, whose aliases resolve renamed columns and
// nested fields inside a list and a map, and, without the property,
// through the current schema's names. Expected rows by hand from what the
// file holds.
func TestORCNameMapping(t *testing.T) {
	sc := ice.NewSchema(0,
		ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64},
		ice.NestedField{ID: 2, Name: "tags", Type: &ice.ListType{ElementID: 3, Element: &ice.StructType{FieldList: []ice.NestedField{
			{ID: 4, Name: "a", Type: ice.PrimitiveTypes.Int32}, {ID: 5, Name: "b", Type: ice.PrimitiveTypes.String}}}}},
		ice.NestedField{ID: 6, Name: "m", Type: &ice.MapType{KeyID: 7, KeyType: ice.PrimitiveTypes.String, ValueID: 8,
			ValueType: &ice.StructType{FieldList: []ice.NestedField{{ID: 9, Name: "c", Type: ice.PrimitiveTypes.Int64}}}}},
	)
	mapping := `[{"field-id":1,"names":["id"]},
		{"field-id":2,"names":["tags","old_tags"],"fields":[{"field-id":3,"names":["element"],"fields":[
			{"field-id":4,"names":["a","old_a"]},{"field-id":5,"names":["b"]}]}]},
		{"field-id":6,"names":["m"],"fields":[{"field-id":7,"names":["key"]},{"field-id":8,"names":["value"],"fields":[
			{"field-id":9,"names":["c","old_c"]}]}]}]`
	for _, c := range []struct {
		name      string
		mapping   string
		fileNames [4]string // tags, tags.element.a, m.value.c, id
		want      []string
	}{
		{"mapping with aliases", mapping, [4]string{"old_tags", "old_a", "old_c", "id"}, []string{"1,[(10 x)],{k:(100)}", "2,[],{}"}},
		{"current names", "", [4]string{"tags", "a", "c", "id"}, []string{"1,[(10 x)],{k:(100)}", "2,[],{}"}},
		// Without the property the aliases mean nothing: only m (same
		// name) is found, and its value's old_c is not c.
		{"no match", "", [4]string{"old_tags", "old_a", "old_c", "ident"}, []string{"NULL,NULL,{k:(NULL)}", "NULL,NULL,{}"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			wh := t.TempDir()
			loc, err := icebergtest.Create(ctx, wh, "db", "t", sc)
			if err != nil {
				t.Fatal(err)
			}
			if c.mapping != "" {
				if err := icebergtest.SetProperties(ctx, wh, "db", "t", map[string]string{"schema.name-mapping.default": c.mapping}); err != nil {
					t.Fatal(err)
				}
			}
			loc = strings.TrimPrefix(loc, "file://")
			if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(loc, "data", "000000_0") // a Hive file name: no extension
			elem := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
				arrow.Field{Name: c.fileNames[1], Type: arrow.PrimitiveTypes.Int32, Nullable: true})
			val := arrow.StructOf(arrow.Field{Name: c.fileNames[2], Type: arrow.PrimitiveTypes.Int64, Nullable: true})
			fsc := arrow.NewSchema([]arrow.Field{
				{Name: c.fileNames[0], Type: arrow.ListOf(elem), Nullable: true},
				{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, val), Nullable: true},
				{Name: c.fileNames[3], Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			}, nil)
			mem := memory.NewGoAllocator()
			b := array.NewRecordBuilder(mem, fsc)
			lb := b.Field(0).(*array.ListBuilder)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			mb := b.Field(1).(*array.MapBuilder)
			vb := mb.ItemBuilder().(*array.StructBuilder)
			lb.Append(true)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append("x")
			sb.FieldBuilder(1).(*array.Int32Builder).Append(10)
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("k")
			vb.Append(true)
			vb.FieldBuilder(0).(*array.Int64Builder).Append(100)
			b.Field(2).(*array.Int64Builder).Append(1)
			lb.Append(true)
			mb.Append(true)
			b.Field(2).(*array.Int64Builder).Append(2)
			rec := b.NewRecordBatch()
			b.Release()
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			w, err := orc.NewWriter(f, fsc, orc.WriterOptions{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			st, _ := os.Stat(path)
			if err := icebergtest.AddFile(ctx, wh, "db", "t", path, ice.OrcFile, 2, st.Size()); err != nil {
				t.Fatal(err)
			}
			tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := readRows(t, tbl, ScanOptions{}, nil)
			if !slices.Equal(got, sorted(c.want...)) {
				t.Fatalf("got %q want %q", got, c.want)
			}
		})
	}
}

// TestORCCancel: a read whose context ends stops with the context's error.
func TestORCCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	wh := t.TempDir()
	loc, err := icebergtest.Create(ctx, wh, "db", "t", orcTypesSchema())
	if err != nil {
		t.Fatal(err)
	}
	loc = strings.TrimPrefix(loc, "file://")
	if err := os.MkdirAll(filepath.Join(loc, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(loc, "data", "f.orc")
	writeTypesORC(t, path)
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "t"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.ReadPlan(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd, err := plan.Open(ctx, &Split{Path: path, Format: "ORC", Records: 3}, mem, ReadOptions{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	if !rd.Next() {
		t.Fatalf("first batch: %v", rd.Err())
	}
	cancel()
	for rd.Next() {
	}
	if !errors.Is(rd.Err(), context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", rd.Err())
	}
}
