package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestImpalaMigratedParquet reads Hive Parquet tables migrated in place to
// Iceberg (testdata/impala, see PROVENANCE.md): files named 000000_0 with
// no field ids, partition columns only in the directory names, so every
// partition column reads from the data file's identity partition value
// (the Iceberg spec's rule for a column the file lacks). Expected rows are
// Impala's (iceberg-migrated-tables.test,
// iceberg-migrated-table-field-id-resolution.test, same commit).
func TestImpalaMigratedParquet(t *testing.T) {
	cases := []struct {
		table string
		cols  []string
		pred  *paimon.Predicate
		want  []string
	}{
		{table: "iceberg_alltypes_part", want: []string{
			"1,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala",
			"2,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala"}},
		{table: "iceberg_alltypes_part", cols: []string{"p_bool", "p_int", "p_bigint", "p_float", "p_double", "p_decimal", "p_date", "p_string"},
			want: []string{"true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala", "true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala"}},
		{table: "iceberg_alltypes_part", pred: paimon.Eq("p_int", int64(1)), want: []string{
			"1,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala",
			"2,true,1,11,1.100000023841858,2.222,123.321,2022-02-22,impala"}},
		// The predicate only prunes: p_int = 2 prunes the one file.
		{table: "iceberg_alltypes_part", pred: paimon.Eq("p_int", int64(2))},
		{table: "iceberg_legacy_partition_schema_evolution", want: []string{"1,1.100000023841858,2.718,2", "1,1.100000023841858,3.141,1"}},
		{table: "iceberg_legacy_partition_schema_evolution", cols: []string{"p_int_long", "p_float_double", "p_dec_dec"},
			want: []string{"1,1.100000023841858,3.141", "1,1.100000023841858,2.718"}},
		{table: "iceberg_legacy_partition_schema_evolution", pred: paimon.Eq("p_dec_dec", "2.718"), want: []string{"1,1.100000023841858,2.718,2"}},
		{table: "iceberg_migrated_alter_test", want: []string{"0,A,0.5", "1,B,1.5", "2,C,2.5"}},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%v", c.table, c.cols)
		if c.pred != nil {
			name += "/where"
		}
		t.Run(name, func(t *testing.T) {
			got, plan := readRows(t, impala(t, c.table), ScanOptions{Predicate: c.pred}, c.cols)
			for _, sp := range plan.Splits {
				if sp.Format != "" {
					t.Fatalf("split %s format %q, want Parquet", sp.Path, sp.Format)
				}
			}
			if want := sorted(c.want...); !slices.Equal(got, want) {
				t.Fatalf("rows\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestParquetIdentityColumnInFile replaces the data file of
// iceberg_alltypes_part (partition p_int=1) by one that has the partition
// column: its values are read, an all-NULL column reads as the partition
// value (what an absent column reads as), and a column holding NULL and
// values contradicts the partition and is refused naming it.
func TestParquetIdentityColumnInFile(t *testing.T) {
	one := func(v int32) *int32 { return &v }
	cases := []struct {
		name    string
		p       []*int32
		want    []string
		wantErr string
	}{
		{name: "values", p: []*int32{one(1), one(1)}, want: []string{"1,1", "2,1"}},
		{name: "all null", p: []*int32{nil, nil}, want: []string{"1,1", "2,1"}},
		{name: "null and value", p: []*int32{one(1), nil}, wantErr: "column p_int holds NULL and non-NULL values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("testdata/impala/iceberg_alltypes_part")); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tbl, err := OpenDir(ctx, fileio.Local{}, dir)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := tbl.Plan(ctx, ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Splits) != 1 {
				t.Fatalf("%d splits", len(plan.Splits))
			}
			sp := plan.Splits[0]
			sp.Size = writeIPParquet(t, tbl.rel.apply(sp.Path), c.p)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rd, err := plan.Open(ctx, &sp, mem, ReadOptions{Columns: []string{"i", "p_int"}})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Release()
			var got []string
			for rd.Next() {
				rec := rd.RecordBatch()
				for r := 0; r < int(rec.NumRows()); r++ {
					got = append(got, renderValue(rec.Column(0), r)+","+renderValue(rec.Column(1), r))
				}
			}
			if c.wantErr != "" {
				if err := rd.Err(); err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q (ErrCorrupt)", err, c.wantErr)
				}
				return
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sorted(got...), c.want) {
				t.Fatalf("rows %q, want %q", got, c.want)
			}
		})
	}
}

// writeIPParquet writes rows (i, p_int) = (1, p[0]), (2, p[1]), ... to
// path, with no field ids (a Hive file); it returns the file's size.
func writeIPParquet(t *testing.T, path string, p []*int32) int64 {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "p_int", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	defer b.Release()
	for k, v := range p {
		b.Field(0).(*array.Int32Builder).Append(int32(k + 1))
		if v == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int32Builder).Append(*v)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(buf.Len())
}

// TestMigratedSchemaEvolution evolves iceberg_migrated_alter_test and its
// ORC twin (a Hive file with columns int_col, string_col, double_col and
// no field ids; rows 0,A,0.5 1,B,1.5 2,C,2.5) as Impala's
// iceberg-migrated-table-field-id-resolution.test does and reads it under
// each schema: the file's columns are found through the name mapping, not
// the current names. A renamed column keeps its values (Java Iceberg adds
// the new name to the mapping); a column dropped and added again under
// the same name is a new field the mapping does not name, read as NULL,
// as are columns added later (Impala's stated rows for both).
func TestMigratedSchemaEvolution(t *testing.T) {
	type fld struct {
		id   int
		name string
		typ  string
	}
	cases := []struct {
		name    string
		fields  []fld
		mapping map[int][]string // field id → names; nil keeps the table's
		want    []string
	}{
		{name: "as migrated", fields: []fld{{1, "int_col", "int"}, {2, "string_col", "string"}, {3, "double_col", "double"}},
			want: []string{"0,A,0.5", "1,B,1.5", "2,C,2.5"}},
		{name: "string_col dropped", fields: []fld{{1, "int_col", "int"}, {3, "double_col", "double"}},
			want: []string{"0,0.5", "1,1.5", "2,2.5"}},
		{name: "string_col added again", fields: []fld{{1, "int_col", "int"}, {3, "double_col", "double"}, {4, "string_col", "string"}},
			mapping: map[int][]string{1: {"int_col"}, 2: {"string_col"}, 3: {"double_col"}},
			want:    []string{"0,0.5,NULL", "1,1.5,NULL", "2,2.5,NULL"}},
		{name: "double_col renamed", fields: []fld{{1, "int_col", "int"}, {3, "renamed_double_col", "double"}, {4, "string_col", "string"}},
			mapping: map[int][]string{1: {"int_col"}, 2: {"string_col"}, 3: {"double_col", "renamed_double_col"}},
			want:    []string{"0,0.5,NULL", "1,1.5,NULL", "2,2.5,NULL"}},
		{name: "double_col added again", fields: []fld{{1, "int_col", "int"}, {3, "renamed_double_col", "double"}, {4, "string_col", "string"}, {5, "double_col", "double"}},
			mapping: map[int][]string{1: {"int_col"}, 2: {"string_col"}, 3: {"double_col", "renamed_double_col"}},
			want:    []string{"0,0.5,NULL,NULL", "1,1.5,NULL,NULL", "2,2.5,NULL,NULL"}},
	}
	for _, c := range cases {
		for _, table := range []string{"iceberg_migrated_alter_test", "iceberg_migrated_alter_test_orc"} {
			t.Run(table+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS("testdata/impala/"+table)); err != nil {
					t.Fatal(err)
				}
				raw, err := os.ReadFile(filepath.Join(dir, "metadata", "v2.metadata.json"))
				if err != nil {
					t.Fatal(err)
				}
				var md map[string]any
				if err := json.Unmarshal(raw, &md); err != nil {
					t.Fatal(err)
				}
				var fields []any
				last := 0
				for _, f := range c.fields {
					fields = append(fields, map[string]any{"id": f.id, "name": f.name, "required": false, "type": f.typ})
					last = max(last, f.id)
				}
				sc := map[string]any{"type": "struct", "schema-id": 1, "fields": fields}
				md["schema"], md["schemas"], md["current-schema-id"] = sc, []any{md["schemas"].([]any)[0], sc}, 1
				md["last-column-id"] = max(last, 3)
				if c.mapping != nil {
					var nm []any
					for id := 1; id <= 5; id++ {
						if names, ok := c.mapping[id]; ok {
							nm = append(nm, map[string]any{"field-id": id, "names": names})
						}
					}
					b, _ := json.Marshal(nm)
					md["properties"].(map[string]any)["schema.name-mapping.default"] = string(b)
				}
				out, err := json.Marshal(md)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "metadata", "v3.metadata.json"), out, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "metadata", "version-hint.text"), []byte("3"), 0o644); err != nil {
					t.Fatal(err)
				}
				tbl, err := OpenDir(context.Background(), fileio.Local{}, dir)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := readRows(t, tbl, ScanOptions{}, nil)
				if want := sorted(c.want...); !slices.Equal(got, want) {
					t.Fatalf("rows\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}
