package iceberg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	ice "github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
	"github.com/inlet-db/inlet/lake/orc"
)

// The equality-delete-with-NULL rows of TestEqualityDeleteNulls: id and
// four key columns, NULLs spread so that each key type has NULL and
// non-NULL rows and the composite keys have rows NULL in one column only.
const eqNullRows = `[
{"id": 1, "ki": 10,   "ks": "a",  "kd": "1.50", "kday": "2024-01-01"},
{"id": 2, "ki": null, "ks": "b",  "kd": "2.50", "kday": "2024-01-02"},
{"id": 3, "ki": 30,   "ks": null, "kd": null,   "kday": null},
{"id": 4, "ki": null, "ks": null, "kd": "4.00", "kday": "2024-01-04"},
{"id": 5, "ki": 50,   "ks": "e",  "kd": null,   "kday": "2024-01-05"},
{"id": 6, "ki": null, "ks": "f",  "kd": "6.00", "kday": null}
]`

// eqNullField is column id of the table as a file of format fmt declares
// it: the Parquet field id or ORC's iceberg.id attribute.
func eqNullField(format string, id int) arrow.Field {
	ts := map[int]arrow.Field{
		1: {Name: "id", Type: arrow.PrimitiveTypes.Int64},
		2: {Name: "ki", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		3: {Name: "ks", Type: arrow.BinaryTypes.String, Nullable: true},
		4: {Name: "kd", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		5: {Name: "kday", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}
	f := ts[id]
	key := "PARQUET:field_id"
	if format == "ORC" {
		key = orcIDAttr
	}
	f.Metadata = arrow.NewMetadata([]string{key}, []string{strconv.Itoa(id)})
	return f
}

// writeEqNullFile writes rows (JSON) with columns ids in format fmt.
func writeEqNullFile(t *testing.T, path, format string, ids []int, rows string) int64 {
	t.Helper()
	var fields []arrow.Field
	for _, id := range ids {
		fields = append(fields, eqNullField(format, id))
	}
	sc := arrow.NewSchema(fields, nil)
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rows))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rec.Release()
	var buf bytes.Buffer
	switch format {
	case "PARQUET":
		w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "ORC":
		w, err := orc.NewWriter(&buf, sc, orc.WriterOptions{Mem: memory.DefaultAllocator})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(buf.Len())
}

// TestEqualityDeleteNulls: an equality delete row whose key value is NULL
// deletes the data rows whose value IS NULL, and only those (the spec's
// equality is null-safe); a composite key matches when every column is
// equal or both NULL. Data and delete files are Parquet (pqarrow) and ORC
// (lake/orc's writer), the delete file in the data file's format and in
// the other one. The surviving ids are derived by hand from eqNullRows.
func TestEqualityDeleteNulls(t *testing.T) {
	cases := []struct {
		name string
		ids  []int  // equality field ids
		del  string // delete rows (JSON)
		want []int64
	}{
		{"int NULL", []int{2}, `[{"ki": null}]`, []int64{1, 3, 5}},
		{"int value leaves NULLs", []int{2}, `[{"ki": 30}]`, []int64{1, 2, 4, 5, 6}},
		{"string NULL and value", []int{3}, `[{"ks": null}, {"ks": "a"}]`, []int64{2, 5, 6}},
		{"string empty is not NULL", []int{3}, `[{"ks": ""}]`, []int64{1, 2, 3, 4, 5, 6}},
		{"decimal NULL", []int{4}, `[{"kd": null}]`, []int64{1, 2, 4, 6}},
		{"decimal zero is not NULL", []int{4}, `[{"kd": "0.00"}]`, []int64{1, 2, 3, 4, 5, 6}},
		{"date NULL and value", []int{5}, `[{"kday": null}, {"kday": "2024-01-04"}]`, []int64{1, 2, 5}},
		{"int,string with NULLs", []int{2, 3}, `[{"ki": null, "ks": "b"}, {"ki": 30, "ks": null}, {"ki": null, "ks": null}]`, []int64{1, 5, 6}},
		{"int,decimal NULL in one", []int{2, 4}, `[{"ki": null, "kd": "6.00"}]`, []int64{1, 2, 3, 4, 5}},
		{"decimal,date both NULL", []int{4, 5}, `[{"kd": null, "kday": null}]`, []int64{1, 2, 4, 5, 6}},
	}
	ctx := context.Background()
	wh := t.TempDir()
	sc := ice.NewSchema(0,
		ice.NestedField{ID: 1, Name: "id", Type: ice.PrimitiveTypes.Int64, Required: true},
		ice.NestedField{ID: 2, Name: "ki", Type: ice.PrimitiveTypes.Int32},
		ice.NestedField{ID: 3, Name: "ks", Type: ice.PrimitiveTypes.String},
		ice.NestedField{ID: 4, Name: "kd", Type: ice.DecimalTypeOf(9, 2)},
		ice.NestedField{ID: 5, Name: "kday", Type: ice.PrimitiveTypes.Date},
	)
	loc, err := icebergtest.Create(ctx, wh, "db", "eqnull", sc)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimPrefix(loc, "file://"), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenDir(ctx, fileio.Local{}, filepath.Join(wh, "db", "eqnull"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := tbl.ReadPlan(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, dataFmt := range []string{"PARQUET", "ORC"} {
		data := filepath.Join(dir, "data."+strings.ToLower(dataFmt))
		size := writeEqNullFile(t, data, dataFmt, []int{1, 2, 3, 4, 5}, eqNullRows)
		for _, delFmt := range []string{"PARQUET", "ORC"} {
			for ci, c := range cases {
				t.Run(fmt.Sprintf("%s data, %s deletes, %s", dataFmt, delFmt, c.name), func(t *testing.T) {
					del := filepath.Join(dir, fmt.Sprintf("eq-%s-%s-%d", dataFmt, delFmt, ci))
					n := strings.Count(c.del, "{")
					dsize := writeEqNullFile(t, del, delFmt, c.ids, c.del)
					sp := Split{Path: data, Size: size, Records: 6, Format: dataFmt,
						EqDeletes: []DeleteFile{{Path: del, Size: dsize, Records: int64(n), Format: delFmt, EqualityIDs: c.ids}}}
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					rd, err := plan.Open(ctx, &sp, mem, ReadOptions{Columns: []string{"id"}, BatchSize: 4})
					if err != nil {
						t.Fatal(err)
					}
					defer rd.Release()
					var got []int64
					for rd.Next() {
						ids := rd.RecordBatch().Column(0).(*array.Int64)
						got = append(got, ids.Int64Values()...)
					}
					if err := rd.Err(); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, c.want) {
						t.Fatalf("ids %v, want %v", got, c.want)
					}
				})
			}
		}
	}
}
