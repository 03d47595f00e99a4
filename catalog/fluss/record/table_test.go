package record_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

type serdeCases struct {
	Columns struct {
		Cases []struct{ JSON string } `json:"cases"`
	} `json:"columns"`
	ColumnsDeserializeOnly []struct{ JSON string } `json:"columns_deserialize_only"`
	Schemas                struct {
		Cases []struct {
			Object string `json:"object"`
			JSON   string `json:"json"`
		} `json:"cases"`
	} `json:"schemas"`
	SchemasDeserializeOnly []struct {
		JSON           string `json:"json"`
		ExpectedObject string `json:"expected_object"`
	} `json:"schemas_deserialize_only"`
	TableDescriptors struct {
		Cases []struct{ JSON string } `json:"cases"`
	} `json:"table_descriptors"`
}

func col(name string, t typemap.DataType, comment string, id int32) record.TableColumn {
	return record.TableColumn{Name: name, Type: t, Comment: comment, ID: id}
}

func expectedSchemas() map[string]record.Schema {
	s1 := record.Schema{Columns: []record.TableColumn{
		col("a", typemap.Int().NotNull(), "", 0),
		col("b", typemap.String(), "b is second column", 1),
		col("c", typemap.Timestamp(6), "c is third column", 2),
	}, PrimaryKey: []string{"a"}, HighestFieldID: 2}
	return map[string]record.Schema{
		"SCHEMA_0": {Columns: []record.TableColumn{
			col("a", typemap.Int().NotNull(), "a is first column", 0),
			col("b", typemap.String(), "b is second column", 1),
			col("c", typemap.Char(10).NotNull(), "c is third column", 2),
		}, PrimaryKey: []string{"a", "c"}, HighestFieldID: 2},
		"SCHEMA_1": s1,
		"SCHEMA_2": s1,
		"SCHEMA_3": {Columns: []record.TableColumn{
			col("a", typemap.BigInt(), "a is first column", 0),
			col("b", typemap.String(), "b is second column", 1),
			col("c", typemap.Timestamp(6), "c is third column", 2),
		}, HighestFieldID: 2},
		"SCHEMA_4": {Columns: []record.TableColumn{
			col("a", typemap.Int().NotNull(), "a is first column", 0),
			col("b", typemap.Int(), "b is second column", 1),
			col("c", typemap.Char(10).NotNull(), "c is third column", 2),
		}, PrimaryKey: []string{"a", "c"}, AutoIncrementColumns: []string{"b"}, HighestFieldID: 2},
		"SCHEMA_5": {Columns: []record.TableColumn{
			col("a", typemap.Int(), "a is first column", 0),
			col("b", typemap.Row(
				typemap.Field{Name: "c", Type: typemap.Int(), Description: "a is first column", ID: 2},
				typemap.Field{Name: "d", Type: typemap.Int(), Description: "a is first column", ID: 3},
			), "b is second column", 1),
		}, HighestFieldID: 3},
		"SCHEMA_WITH_AGG": {Columns: []record.TableColumn{
			col("product_id", typemap.BigInt().NotNull(), "", 0),
			{Name: "total_sales", Type: typemap.BigInt(), AggFunction: &record.AggFunction{Type: "sum"}, ID: 1},
			{Name: "max_price", Type: typemap.Decimal(10, 2), AggFunction: &record.AggFunction{Type: "max"}, ID: 2},
			{Name: "last_update_time", Type: typemap.Timestamp(6), AggFunction: &record.AggFunction{Type: "last_value_ignore_nulls"}, ID: 3},
			{Name: "tags", Type: typemap.String(), AggFunction: &record.AggFunction{Type: "listagg", Parameters: map[string]string{"delimiter": ";"}}, ID: 4},
			{Name: "categories", Type: typemap.String(), AggFunction: &record.AggFunction{Type: "string_agg", Parameters: map[string]string{"delimiter": "|"}}, ID: 5},
			{Name: "labels", Type: typemap.String(), AggFunction: &record.AggFunction{Type: "listagg"}, ID: 6},
		}, PrimaryKey: []string{"product_id"}, HighestFieldID: 6},
	}
}

func schemaEqual(a, b record.Schema) bool {
	if len(a.Columns) != len(b.Columns) || !reflect.DeepEqual(a.PrimaryKey, b.PrimaryKey) ||
		!reflect.DeepEqual(a.AutoIncrementColumns, b.AutoIncrementColumns) || a.HighestFieldID != b.HighestFieldID {
		return false
	}
	for i := range a.Columns {
		x, y := a.Columns[i], b.Columns[i]
		if x.Name != y.Name || x.Comment != y.Comment || x.ID != y.ID || !x.Type.Equal(y.Type) || !reflect.DeepEqual(x.AggFunction, y.AggFunction) {
			return false
		}
	}
	return true
}

func TestSchemaJSONGolden(t *testing.T) {
	var f serdeCases
	loadJSON(t, "json_serde.json", &f)
	want := expectedSchemas()
	if len(f.Schemas.Cases) != len(want) {
		t.Fatalf("fixture has %d schemas, test knows %d", len(f.Schemas.Cases), len(want))
	}
	for _, c := range f.Schemas.Cases {
		w := want[c.Object]
		got, err := record.MarshalSchema(&w)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.JSON {
			t.Errorf("%s: marshal\n got %s\nwant %s", c.Object, got, c.JSON)
		}
		s, err := record.ParseSchema([]byte(c.JSON))
		if err != nil {
			t.Fatalf("%s: %v", c.Object, err)
		}
		if !schemaEqual(*s, w) {
			t.Errorf("%s: parse = %+v", c.Object, s)
		}
	}
	for _, c := range f.SchemasDeserializeOnly {
		name := strings.Fields(c.ExpectedObject)[0]
		s, err := record.ParseSchema([]byte(c.JSON))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !schemaEqual(*s, want[name]) {
			t.Errorf("deserialize-only %s: got %+v", name, s)
		}
	}
}

func TestColumnJSONGolden(t *testing.T) {
	var f serdeCases
	loadJSON(t, "json_serde.json", &f)
	// Hand-written from the fixture's "describes" (ColumnJsonSerdeTest).
	both := []record.TableColumn{
		col("a", typemap.String(), "", -1),
		col("b", typemap.Int(), "hello b", -1),
		col("c", typemap.Int().NotNull(), "hello c", -1),
		col("d", typemap.Int().NotNull(), "hello c", 2),
		col("e", typemap.Row(
			typemap.Field{Name: "f", Type: typemap.String(), ID: -1},
			typemap.Field{Name: "g", Type: typemap.String(), ID: 1},
		), "hello c", 2),
	}
	// The deserialize-only JSON lacks "id": the column reads as id -1, and a
	// schema holding only such columns numbers them 0..n-1 on read, as the
	// schemas_deserialize_only cases say.
	deserOnly := []record.TableColumn{
		col("a", typemap.String(), "", 0),
		col("b", typemap.Int(), "hello b", 0),
		col("c", typemap.Int().NotNull(), "hello c", 0),
	}
	if len(f.Columns.Cases) != len(both) || len(f.ColumnsDeserializeOnly) != len(deserOnly) {
		t.Fatalf("fixture has %d+%d column cases, test knows %d+%d", len(f.Columns.Cases), len(f.ColumnsDeserializeOnly), len(both), len(deserOnly))
	}
	check := func(what, js string, w record.TableColumn) *record.Schema {
		t.Helper()
		// Columns are checked through a one-column schema wrapper.
		s, err := record.ParseSchema([]byte(`{"version":1,"columns":[` + js + `]}`))
		if err != nil {
			t.Fatalf("%s %s: %v", what, js, err)
		}
		g := s.Columns[0]
		if len(s.Columns) != 1 || g.Name != w.Name || !g.Type.Equal(w.Type) || g.Comment != w.Comment || g.ID != w.ID || g.AggFunction != nil {
			t.Errorf("%s %s: parsed %+v, want %+v", what, js, g, w)
		}
		if g.Type.Root == typemap.RootRow {
			for i, fl := range g.Type.Fields {
				if fl.ID != w.Type.Fields[i].ID {
					t.Errorf("%s %s: field %s id %d, want %d", what, js, fl.Name, fl.ID, w.Type.Fields[i].ID)
				}
			}
		}
		return s
	}
	for i, c := range f.Columns.Cases {
		s := check("column", c.JSON, both[i])
		out, err := record.MarshalSchema(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"columns":[`+c.JSON+`]`) {
			t.Errorf("column %s re-marshalled as %s", c.JSON, out)
		}
	}
	var all []string
	for i, c := range f.ColumnsDeserializeOnly {
		if strings.Contains(c.JSON, `"id"`) {
			t.Fatalf("deserialize-only column %s has an id", c.JSON)
		}
		s := check("deserialize-only column", c.JSON, deserOnly[i])
		if s.HighestFieldID != 0 {
			t.Errorf("deserialize-only column %s: highest field id %d, want 0", c.JSON, s.HighestFieldID)
		}
		// Re-marshalled, the column is the matching both-ways case with the
		// id the schema gave it.
		out, err := record.MarshalSchema(s)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(c.JSON, "}") + `,"id":0}`
		if !strings.Contains(string(out), `"columns":[`+want+`]`) {
			t.Errorf("deserialize-only column %s re-marshalled as %s, want column %s", c.JSON, out, want)
		}
		all = append(all, c.JSON)
	}
	// Together, ids follow column order.
	s, err := record.ParseSchema([]byte(`{"version":1,"columns":[` + strings.Join(all, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range s.Columns {
		if c.ID != int32(i) || c.Name != deserOnly[i].Name || c.Comment != deserOnly[i].Comment || !c.Type.Equal(deserOnly[i].Type) {
			t.Errorf("deserialize-only columns together: column %d = %+v", i, c)
		}
	}
	if s.HighestFieldID != int32(len(all)-1) {
		t.Errorf("deserialize-only columns together: highest field id %d", s.HighestFieldID)
	}
}

func TestTableDescriptorJSONGolden(t *testing.T) {
	var f serdeCases
	loadJSON(t, "json_serde.json", &f)
	if len(f.TableDescriptors.Cases) != 2 {
		t.Fatalf("%d table descriptor cases", len(f.TableDescriptors.Cases))
	}
	schemas := expectedSchemas()
	want := []record.TableDescriptor{
		{Schema: schemas["SCHEMA_0"], Comment: "first table", PartitionKeys: []string{"c"},
			Distribution:     &record.Distribution{BucketKeys: []string{"a"}, BucketCount: 16},
			Properties:       map[string]string{"option-1": "100", "option-2": "200"},
			CustomProperties: map[string]string{"custom-1": `"value-1"`}},
		{Schema: schemas["SCHEMA_1"], PartitionKeys: []string{},
			Distribution:     &record.Distribution{BucketKeys: []string{"a"}, BucketCount: 32},
			Properties:       map[string]string{"option-3": "300", "option-4": "400", "table.log.format": "INDEXED", "table.kv.format": "INDEXED"},
			CustomProperties: map[string]string{}},
	}
	for i, c := range f.TableDescriptors.Cases {
		d, err := record.ParseTableDescriptor([]byte(c.JSON))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		w := want[i]
		if !schemaEqual(d.Schema, w.Schema) || d.Comment != w.Comment || !reflect.DeepEqual(d.PartitionKeys, w.PartitionKeys) ||
			!reflect.DeepEqual(d.Distribution, w.Distribution) || !reflect.DeepEqual(d.Properties, w.Properties) ||
			!reflect.DeepEqual(d.CustomProperties, w.CustomProperties) {
			t.Errorf("case %d: parse = %+v", i, d)
		}
		out, err := record.MarshalTableDescriptor(&w)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEquivalent(t, out, []byte(c.JSON)) {
			t.Errorf("case %d: marshal\n got %s\nwant %s", i, out, c.JSON)
		}
		// Everything outside the two maps is byte-exact.
		if stripMaps(string(out)) != stripMaps(c.JSON) {
			t.Errorf("case %d: key order differs\n got %s\nwant %s", i, stripMaps(string(out)), stripMaps(c.JSON))
		}
	}
	d, _ := record.ParseTableDescriptor([]byte(f.TableDescriptors.Cases[1].JSON))
	if lf, _ := d.LogFormat(); lf != record.LogFormatIndexed {
		t.Errorf("log format %v", lf)
	}
	if kf, _ := d.KvFormat(); kf != record.KvFormatIndexed {
		t.Errorf("kv format %v", kf)
	}
	if v, _ := d.KvFormatVersion(); v != 1 {
		t.Errorf("kv format version %d", v)
	}
	if !d.IsDefaultBucketKey() {
		t.Error("bucket key [a] of PK [a] is the default")
	}
}

func stripMaps(s string) string {
	for _, k := range []string{`"properties":`, `"custom_properties":`} {
		i := strings.Index(s, k)
		j := strings.Index(s[i:], "}")
		s = s[:i+len(k)] + s[i+j+1:]
	}
	return s
}

func jsonEquivalent(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestTableDescriptorErrors(t *testing.T) {
	cases := []string{
		`not json`,
		`{"version":2,"schema":{"version":1,"columns":[]}}`,
		`{"version":1}`,
		`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"}}]},"partition_key":["zz"]}`,
		`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"}}]},"bucket_key":["b"]}`,
		`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"}},{"name":"a","data_type":{"type":"INTEGER"}}]}}`,
		`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"INTEGER"}}]},"bucket_count":0}`,
		`{"version":1,"schema":{"version":1,"columns":[{"name":"a","data_type":{"type":"NOPE"}}]}}`,
	}
	for _, c := range cases {
		if _, err := record.ParseTableDescriptor([]byte(c)); err == nil {
			t.Errorf("%s: accepted", c)
		} else if !errors.Is(err, record.ErrCorrupt) && !errors.Is(err, record.ErrUnsupported) && !errors.Is(err, typemap.ErrInvalidType) {
			t.Errorf("%s: error kind %v", c, err)
		}
	}
}
