package typemap_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/typemap"
)

type serdeFile struct {
	DataTypes struct {
		Cases []struct {
			JSON          string `json:"json"`
			OuterNullable bool   `json:"outer_nullable"`
		} `json:"cases"`
	} `json:"data_types"`
	DataTypesDeserializeOnly []struct {
		JSON string `json:"json"`
	} `json:"data_types_deserialize_only"`
}

func loadSerde(t *testing.T) serdeFile {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "fluss", "json_serde.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f serdeFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// expectedTypes mirrors DataTypeJsonSerdeTest#createObjects: each base type
// followed by its nullable and NOT NULL copies.
func expectedTypes() []typemap.DataType {
	row := typemap.Row(
		typemap.NewField("f0", typemap.BigInt()),
		typemap.Field{Name: "f1", Type: typemap.Int().NotNull(), ID: 1},
		typemap.Field{Name: "f2", Type: typemap.String(), ID: 2},
	)
	base := []typemap.DataType{
		typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(), typemap.Int(), typemap.BigInt(),
		typemap.Float(), typemap.Double(), typemap.Decimal(10, 0), typemap.Decimal(15, 5),
		typemap.Char(1), typemap.Char(5), typemap.String(), typemap.Binary(1), typemap.Binary(100),
		typemap.Bytes(), typemap.Date(), typemap.Time(0), typemap.Time(3),
		typemap.Timestamp(6), typemap.Timestamp(3), typemap.TimestampLTZ(6), typemap.TimestampLTZ(3),
		typemap.Array(typemap.Int().NotNull()), typemap.Map(typemap.BigInt(), typemap.Int().NotNull()), row,
	}
	var out []typemap.DataType
	for _, b := range base {
		out = append(out, b.WithNullable(true), b.NotNull())
	}
	return out
}

func TestDataTypeJSONGolden(t *testing.T) {
	f := loadSerde(t)
	want := expectedTypes()
	if len(f.DataTypes.Cases) != len(want) {
		t.Fatalf("fixture has %d cases, test builds %d", len(f.DataTypes.Cases), len(want))
	}
	for i, c := range f.DataTypes.Cases {
		got, err := json.Marshal(want[i])
		if err != nil {
			t.Fatalf("case %d: marshal %v: %v", i, want[i], err)
		}
		if string(got) != c.JSON {
			t.Errorf("case %d: marshal %v\n got %s\nwant %s", i, want[i], got, c.JSON)
		}
		back, err := typemap.ParseDataType([]byte(c.JSON))
		if err != nil {
			t.Fatalf("case %d: parse %s: %v", i, c.JSON, err)
		}
		if !back.Equal(want[i]) {
			t.Errorf("case %d: parse %s = %v, want %v", i, c.JSON, back, want[i])
		}
		if back.Nullable != c.OuterNullable {
			t.Errorf("case %d: nullable %v, fixture says %v", i, back.Nullable, c.OuterNullable)
		}
	}
}

func TestDataTypeJSONDeserializeOnly(t *testing.T) {
	f := loadSerde(t)
	want := typemap.Row(
		typemap.NewField("f0", typemap.BigInt()),
		typemap.Field{Name: "f1", Type: typemap.Int().NotNull(), ID: 1},
		typemap.Field{Name: "f2", Type: typemap.String(), ID: 2},
	).NotNull()
	if len(f.DataTypesDeserializeOnly) == 0 {
		t.Fatal("no deserialize-only cases")
	}
	for _, c := range f.DataTypesDeserializeOnly {
		got, err := typemap.ParseDataType([]byte(c.JSON))
		if err != nil {
			t.Fatalf("parse %s: %v", c.JSON, err)
		}
		if !got.Equal(want) {
			t.Errorf("parse %s = %v, want %v", c.JSON, got, want)
		}
	}
}

func TestDataTypeJSONDefaultsAndErrors(t *testing.T) {
	cases := []struct {
		json string
		want typemap.DataType
		err  bool
	}{
		{json: `{"type":"CHAR"}`, want: typemap.Char(1)},
		{json: `{"type":"DECIMAL"}`, want: typemap.Decimal(10, 0)},
		{json: `{"type":"TIMESTAMP_WITHOUT_TIME_ZONE"}`, want: typemap.Timestamp(6)},
		{json: `{"type":"TIME_WITHOUT_TIME_ZONE"}`, want: typemap.Time(0)},
		{json: `{"type":"INT"}`, err: true},
		{json: `{"type":"DECIMAL","precision":39,"scale":0}`, err: true},
		{json: `{"type":"DECIMAL","precision":5,"scale":6}`, err: true},
		{json: `{"type":"TIMESTAMP_WITHOUT_TIME_ZONE","precision":10}`, err: true},
		{json: `{"type":"CHAR","length":0}`, err: true},
		{json: `{"type":"ARRAY"}`, err: true},
		{json: `{"type":"ROW","fields":[{"name":"a","field_type":{"type":"INTEGER"}},{"name":"a","field_type":{"type":"INTEGER"}}]}`, err: true},
		{json: `{"nullable":false}`, err: true},
		{json: `[1]`, err: true},
	}
	for _, c := range cases {
		got, err := typemap.ParseDataType([]byte(c.json))
		if c.err {
			if err == nil || !errors.Is(err, typemap.ErrInvalidType) {
				t.Errorf("%s: want ErrInvalidType, got %v, %v", c.json, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.json, got, err, c.want)
		}
	}
}

func TestDeepNestingRejected(t *testing.T) {
	s := `{"type":"INTEGER"}`
	for range typemap.MaxJSONDepth + 2 {
		s = `{"type":"ARRAY","element_type":` + s + `}`
	}
	if _, err := typemap.ParseDataType([]byte(s)); err == nil {
		t.Fatal("deep nesting accepted")
	}
}

func TestArrowType(t *testing.T) {
	cases := []struct {
		in   typemap.DataType
		want string
	}{
		{typemap.Boolean(), "bool"},
		{typemap.TinyInt(), "int8"},
		{typemap.SmallInt(), "int16"},
		{typemap.Int(), "int32"},
		{typemap.BigInt(), "int64"},
		{typemap.Float(), "float32"},
		{typemap.Double(), "float64"},
		{typemap.Char(3), "utf8"},
		{typemap.String(), "utf8"},
		{typemap.Binary(4), "fixed_size_binary[4]"},
		{typemap.Bytes(), "binary"},
		{typemap.Decimal(20, 2), "decimal(20, 2)"},
		{typemap.Date(), "date32"},
		{typemap.Time(0), "time32[s]"},
		{typemap.Time(3), "time32[ms]"},
		{typemap.Time(6), "time64[us]"},
		{typemap.Time(9), "time64[ns]"},
		{typemap.Timestamp(0), "timestamp[s]"},
		{typemap.Timestamp(2), "timestamp[ms]"},
		{typemap.Timestamp(5), "timestamp[us]"},
		{typemap.Timestamp(9), "timestamp[ns]"},
		{typemap.TimestampLTZ(3), "timestamp[ms, tz=UTC]"},
		{typemap.Array(typemap.Int()), "list<element: int32, nullable>"},
		{typemap.Map(typemap.String(), typemap.Int()), "map<utf8, int32, items_nullable>"},
		{typemap.Row(typemap.NewField("a", typemap.Int().NotNull()), typemap.NewField("b", typemap.String())), "struct<a: int32, b: utf8 nullable>"},
	}
	for _, c := range cases {
		got, err := typemap.ArrowType(c.in)
		if err != nil {
			t.Fatalf("%v: %v", c.in, err)
		}
		if got.String() != c.want {
			t.Errorf("%v: got %s want %s", c.in, got, c.want)
		}
	}
	// MAP layout: entries struct not null, key not null.
	mt, _ := typemap.ArrowType(typemap.Map(typemap.String(), typemap.Int()))
	m := mt.(*arrow.MapType)
	if m.ElemField().Name != "entries" || m.ElemField().Nullable || m.KeyField().Nullable || m.KeyField().Name != "key" || m.ItemField().Name != "value" {
		t.Errorf("map layout %v", m)
	}
	f, _ := typemap.ArrowField("x", typemap.Int().NotNull())
	if f.Nullable {
		t.Error("NOT NULL column became nullable")
	}
}

func TestEngineType(t *testing.T) {
	def := typemap.EngineOptions{}
	both := typemap.EngineOptions{MapVarbinary: true, MapTimestampTZ: true}
	cases := []struct {
		in        typemap.DataType
		o         typemap.EngineOptions
		name      string
		supported bool
		extra     string
	}{
		{typemap.Boolean(), def, "boolean", true, ""},
		{typemap.TinyInt(), def, "tinyint", true, ""},
		{typemap.SmallInt(), def, "smallint", true, ""},
		{typemap.Int(), def, "int", true, ""},
		{typemap.BigInt(), def, "bigint", true, ""},
		{typemap.Float(), def, "float", true, ""},
		{typemap.Double(), def, "double", true, ""},
		{typemap.Decimal(10, 2), def, "decimal(10,2)", true, ""},
		{typemap.Char(10), def, "char(10)", true, ""},
		{typemap.Char(255), def, "char(255)", true, ""},
		{typemap.Char(256), def, "string", true, ""},
		{typemap.String(), def, "string", true, ""},
		{typemap.Binary(8), def, "string", true, ""},
		{typemap.Binary(8), both, "varbinary(8)", true, ""},
		{typemap.Bytes(), def, "string", true, ""},
		{typemap.Bytes(), both, "varbinary", true, ""},
		{typemap.Date(), def, "date", true, ""},
		{typemap.Time(3), def, "UNSUPPORTED", false, ""},
		{typemap.Timestamp(3), def, "datetime(3)", true, ""},
		{typemap.Timestamp(9), def, "datetime(6)", true, ""},
		{typemap.TimestampLTZ(3), def, "datetime(3)", true, "WITH_TIMEZONE"},
		{typemap.TimestampLTZ(9), both, "timestamptz(6)", true, "WITH_TIMEZONE"},
		{typemap.Array(typemap.Int()), def, "array<int>", true, ""},
		{typemap.Map(typemap.String(), typemap.Decimal(5, 1)), def, "map<string,decimal(5,1)>", true, ""},
		{typemap.Row(typemap.NewField("a", typemap.Int()), typemap.NewField("b", typemap.String())), def, "struct<a:int,b:string>", true, ""},
		{typemap.Array(typemap.Time(0)), def, "array<UNSUPPORTED>", false, ""},
	}
	for _, c := range cases {
		got := typemap.EngineTypeOf(c.in, c.o)
		if got.Name != c.name || got.Supported != c.supported || got.Extra != c.extra {
			t.Errorf("%v %+v: got %+v, want %s supported=%v extra=%q", c.in, c.o, got, c.name, c.supported, c.extra)
		}
	}
}

func TestSQLString(t *testing.T) {
	cases := map[string]typemap.DataType{
		"INT NOT NULL":                       typemap.Int().NotNull(),
		"DECIMAL(10, 2)":                     typemap.Decimal(10, 2),
		"ARRAY<TIMESTAMP_LTZ(3)>":            typemap.Array(typemap.TimestampLTZ(3)),
		"MAP<STRING NOT NULL, BINARY(4)>":    typemap.Map(typemap.String(), typemap.Binary(4)),
		"ROW<`a` INT, `b` CHAR(2) NOT NULL>": typemap.Row(typemap.NewField("a", typemap.Int()), typemap.NewField("b", typemap.Char(2).NotNull())),
	}
	for want, in := range cases {
		if got := in.String(); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
}
