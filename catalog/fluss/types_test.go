package fluss

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/typemap"
)

// The spec's column type mapping table, with the DESC names of anchors §1.3
// and the test_fluss_catalog baseline (string prints as text).
func TestEngineColumnEveryType(t *testing.T) {
	def := typemap.EngineOptions{}
	vb := typemap.EngineOptions{MapVarbinary: true}
	tz := typemap.EngineOptions{MapTimestampTZ: true}
	us := &arrow.TimestampType{Unit: arrow.Microsecond}
	usUTC := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	// datetime(p) keeps the engine's units: seconds, ms up to 3 digits.
	sec := &arrow.TimestampType{Unit: arrow.Second}
	ms := &arrow.TimestampType{Unit: arrow.Millisecond}
	msUTC := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	cases := []struct {
		in    typemap.DataType
		o     typemap.EngineOptions
		name  string
		arrow arrow.DataType
		extra string
	}{
		{typemap.Boolean(), def, "boolean", arrow.FixedWidthTypes.Boolean, ""},
		{typemap.TinyInt(), def, "tinyint", arrow.PrimitiveTypes.Int8, ""},
		{typemap.SmallInt(), def, "smallint", arrow.PrimitiveTypes.Int16, ""},
		{typemap.Int().NotNull(), def, "int", arrow.PrimitiveTypes.Int32, ""},
		{typemap.BigInt(), def, "bigint", arrow.PrimitiveTypes.Int64, ""},
		{typemap.Float(), def, "float", arrow.PrimitiveTypes.Float32, ""},
		{typemap.Double(), def, "double", arrow.PrimitiveTypes.Float64, ""},
		{typemap.Decimal(10, 2), def, "decimal(10,2)", &arrow.Decimal128Type{Precision: 10, Scale: 2}, ""},
		{typemap.Decimal(38, 0), def, "decimal(38,0)", &arrow.Decimal128Type{Precision: 38, Scale: 0}, ""},
		{typemap.Char(5), def, "char(5)", arrow.BinaryTypes.String, ""},
		{typemap.Char(255), def, "char(255)", arrow.BinaryTypes.String, ""},
		{typemap.Char(256), def, "text", arrow.BinaryTypes.String, ""},
		{typemap.String(), def, "text", arrow.BinaryTypes.String, ""},
		{typemap.Binary(3), def, "text", arrow.BinaryTypes.String, ""},
		{typemap.Binary(3), vb, "varbinary(3)", arrow.BinaryTypes.Binary, ""},
		{typemap.Bytes(), def, "text", arrow.BinaryTypes.String, ""},
		{typemap.Bytes(), vb, "varbinary", arrow.BinaryTypes.Binary, ""},
		{typemap.Date(), def, "date", arrow.FixedWidthTypes.Date32, ""},
		{typemap.Timestamp(0), def, "datetime(0)", sec, ""},
		{typemap.Timestamp(3), def, "datetime(3)", ms, ""},
		{typemap.Timestamp(6), def, "datetime(6)", us, ""},
		{typemap.Timestamp(9), def, "datetime(6)", us, ""},
		{typemap.TimestampLTZ(3), def, "datetime(3)", msUTC, "WITH_TIMEZONE"},
		{typemap.TimestampLTZ(9), def, "datetime(6)", usUTC, "WITH_TIMEZONE"},
		{typemap.TimestampLTZ(3), tz, "timestamptz(3)", msUTC, "WITH_TIMEZONE"},
		{typemap.TimestampLTZ(9), tz, "timestamptz(6)", usUTC, "WITH_TIMEZONE"},
		{typemap.Timestamp(3), tz, "datetime(3)", ms, ""},
		{typemap.Array(typemap.Int()), def, "array<int>", arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), ""},
		{typemap.Array(typemap.Array(typemap.String())), def, "array<array<text>>",
			arrow.ListOfField(arrow.Field{Name: "element", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true})}), ""},
		{typemap.Map(typemap.String(), typemap.Int()), def, "map<text,int>", mapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), ""},
		{typemap.Map(typemap.Int(), typemap.Bytes()), vb, "map<int,varbinary>", mapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.Binary), ""},
		{typemap.Row(typemap.NewField("r_int", typemap.Int()), typemap.NewField("r_string", typemap.String())), def, "struct<r_int:int,r_string:text>",
			arrow.StructOf(arrow.Field{Name: "r_int", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "r_string", Type: arrow.BinaryTypes.String, Nullable: true}), ""},
		{typemap.Row(typemap.NewField("ts", typemap.TimestampLTZ(3))), def, "struct<ts:datetime(3)>",
			arrow.StructOf(arrow.Field{Name: "ts", Type: msUTC, Nullable: true}), ""},
	}
	for _, c := range cases {
		col := EngineColumn("c", c.in, "a comment", c.o)
		if col.TypeName != c.name || col.DisplayType() != c.name {
			t.Errorf("%v %+v: DESC type %q, want %q", c.in, c.o, col.TypeName, c.name)
		}
		if !arrow.TypeEqual(col.Type, c.arrow) {
			t.Errorf("%v %+v: arrow %v, want %v", c.in, c.o, col.Type, c.arrow)
		}
		if col.Extra != c.extra || !col.Nullable || !col.Key || col.Default != nil || col.Unsupported || col.Comment != "a comment" {
			t.Errorf("%v: column %+v", c.in, col)
		}
	}
}

func mapOf(k, v arrow.DataType) arrow.DataType {
	m := arrow.MapOf(k, v)
	m.SetItemNullable(true)
	return m
}

func TestEngineColumnUnsupported(t *testing.T) {
	for _, in := range []typemap.DataType{typemap.Time(0), typemap.Time(9), typemap.Array(typemap.Time(3)),
		typemap.Map(typemap.String(), typemap.Time(0)), typemap.Row(typemap.NewField("a", typemap.Int()), typemap.NewField("t", typemap.Time(0)))} {
		for _, o := range []typemap.EngineOptions{{}, {MapVarbinary: true, MapTimestampTZ: true}} {
			col := EngineColumn("f_time", in, "", o)
			if !col.Unsupported || col.TypeName != "UNSUPPORTED" || col.Type.ID() != arrow.NULL || !col.Nullable {
				t.Errorf("%v: %+v", in, col)
			}
		}
	}
}

func TestCheckPartitions(t *testing.T) {
	path := client.TablePath{Database: "fluss_test", Table: "t"}
	readable := []typemap.DataType{typemap.Char(2), typemap.String().NotNull(), typemap.Boolean(), typemap.TinyInt(), typemap.SmallInt(),
		typemap.Int(), typemap.BigInt(), typemap.Date(), typemap.Binary(2), typemap.Bytes()}
	for _, ty := range readable {
		cols := []typemap.Column{{Name: "id", Type: typemap.Int()}, {Name: "p", Type: ty}}
		if err := checkPartitions(path, []string{"p"}, cols, typemap.EngineOptions{}); err != nil {
			t.Errorf("%v: %v", ty, err)
		}
	}
	cases := []struct {
		ty   typemap.DataType
		o    typemap.EngineOptions
		want string
	}{
		{typemap.Timestamp(3), typemap.EngineOptions{}, "Table 'fluss_test.t' cannot be read: its partition column 'p' has fluss type TIMESTAMP(3), and fluss keeps"},
		{typemap.Timestamp(3).NotNull(), typemap.EngineOptions{}, "has fluss type TIMESTAMP(3), and"},
		{typemap.TimestampLTZ(6), typemap.EngineOptions{MapTimestampTZ: true}, "has fluss type TIMESTAMP_LTZ(6)"},
		{typemap.Float(), typemap.EngineOptions{}, "has fluss type FLOAT"},
		{typemap.Double(), typemap.EngineOptions{}, "has fluss type DOUBLE"},
		{typemap.Time(0), typemap.EngineOptions{}, "has fluss type TIME(0)"},
		{typemap.Binary(2), typemap.EngineOptions{MapVarbinary: true}, "has fluss type BINARY(2), and fluss names such a partition with the hex text"},
		{typemap.Bytes(), typemap.EngineOptions{MapVarbinary: true}, "has fluss type BYTES"},
		{typemap.Decimal(10, 2), typemap.EngineOptions{}, "does not know how a partition of this type is named"},
	}
	for _, c := range cases {
		cols := []typemap.Column{{Name: "id", Type: typemap.Int()}, {Name: "p", Type: c.ty}}
		err := checkPartitions(path, []string{"p"}, cols, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrUnreadablePartition) {
			t.Errorf("%v: got %v, want %q", c.ty, err, c.want)
		}
		// The check is the planner's too, through the ScanTarget.
		st := &ScanTarget{Path: path, PartitionKeys: []string{"p"}, FlussColumns: cols, Options: Options{MapVarbinary: c.o.MapVarbinary, MapTimestampTZ: c.o.MapTimestampTZ}}
		if err2 := CheckReadablePartitions(st); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("CheckReadablePartitions: %v", err2)
		}
	}
	cols := []typemap.Column{{Name: "region,code", Type: typemap.String()}}
	err := checkPartitions(path, []string{"region,code"}, cols, typemap.EngineOptions{})
	if err == nil || !strings.Contains(err.Error(), "partition column 'region,code' contains a comma") {
		t.Errorf("comma: %v", err)
	}
	if err := checkPartitions(path, []string{"gone"}, cols, typemap.EngineOptions{}); err == nil || !strings.Contains(err.Error(), "'gone'") {
		t.Errorf("missing column: %v", err)
	}
}

func TestPartitionName(t *testing.T) {
	cols := []typemap.Column{{Name: "p_str", Type: typemap.String()}, {Name: "p_bool", Type: typemap.Boolean()},
		{Name: "p_date", Type: typemap.Date()}, {Name: "p_bin", Type: typemap.Binary(2)}}
	keys := []string{"p_str", "p_bool", "p_date", "p_bin"}
	p := client.PartitionInfo{ID: 7, Spec: []client.KeyValue{{Key: "p_str", Value: "cn"}, {Key: "p_bool", Value: "true"},
		{Key: "p_date", Value: "2026-01-01"}, {Key: "p_bin", Value: "0102"}}}
	n, err := PartitionName(p, keys, cols)
	if err != nil || n != "p_str=cn/p_bool=true/p_date=2026-01-01/p_bin=0102" {
		t.Errorf("got %q %v", n, err)
	}
	vals, err := PartitionValues(p, keys)
	if err != nil || strings.Join(vals, "|") != "cn|true|2026-01-01|0102" {
		t.Errorf("values %v %v", vals, err)
	}
	if _, err := PartitionName(client.PartitionInfo{ID: 8, Spec: p.Spec[:1]}, keys, cols); err == nil {
		t.Error("partition without a value for every key was named")
	}
}
