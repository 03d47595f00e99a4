package fluss

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/typemap"
)

// ErrUnreadablePartition marks a table whose partition column cannot be read
// back from Fluss partition names (or cannot be named in a scan).
var ErrUnreadablePartition = errors.New("unreadable partition column")

// EngineColumn maps one Fluss column to the engine column DESC shows and
// scans produce. Every external column is nullable and a key, with no
// default, as in every Doris external catalog: a Fluss NOT NULL primary key
// must not give the table a different plan than its lake twin, which
// reports every column nullable.
//
// Type is the Arrow type every range of the table is cast to, chosen so both
// the Fluss log reader and the Paimon reader convert to it without loss
// within the engine type: CHAR/STRING Utf8; BINARY/BYTES Utf8 holding the
// raw bytes (string mapping) or Binary (varbinary); TIMESTAMP and
// TIMESTAMP_LTZ microseconds (LTZ with zone UTC, rendered in the session
// zone); DECIMAL Decimal128; nested types built from the same rules with
// every child nullable. A TIME column, or a nested type holding one, is
// Unsupported with Type Null.
func EngineColumn(name string, t typemap.DataType, comment string, o typemap.EngineOptions) catalog.Column {
	et := typemap.EngineTypeOf(t, o)
	col := catalog.Column{Name: name, Nullable: true, Key: true, Comment: comment, Extra: et.Extra}
	if !et.Supported {
		col.Type = arrow.Null
		col.TypeName = typemap.Unsupported
		col.Unsupported = true
		return col
	}
	col.Type = engineArrow(t, o)
	col.TypeName = descTypeName(t, o)
	return col
}

// descTypeName is the type as Doris' DESC prints it: the engine mapping's
// names, with string printed as text ("text", "map<text,int>").
func descTypeName(t typemap.DataType, o typemap.EngineOptions) string {
	switch t.Root {
	case typemap.RootArray:
		return "array<" + descTypeName(*t.Elem, o) + ">"
	case typemap.RootMap:
		return "map<" + descTypeName(*t.Key, o) + "," + descTypeName(*t.Value, o) + ">"
	case typemap.RootRow:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = f.Name + ":" + descTypeName(f.Type, o)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	n := typemap.EngineTypeOf(t, o).Name
	if n == "string" {
		return "text"
	}
	return n
}

// engineArrow is the Arrow type of a supported engine column (see
// EngineColumn).
func engineArrow(t typemap.DataType, o typemap.EngineOptions) arrow.DataType {
	switch t.Root {
	case typemap.RootBoolean:
		return arrow.FixedWidthTypes.Boolean
	case typemap.RootTinyInt:
		return arrow.PrimitiveTypes.Int8
	case typemap.RootSmallInt:
		return arrow.PrimitiveTypes.Int16
	case typemap.RootInt:
		return arrow.PrimitiveTypes.Int32
	case typemap.RootBigInt:
		return arrow.PrimitiveTypes.Int64
	case typemap.RootFloat:
		return arrow.PrimitiveTypes.Float32
	case typemap.RootDouble:
		return arrow.PrimitiveTypes.Float64
	case typemap.RootDecimal:
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}
	case typemap.RootChar, typemap.RootString:
		return arrow.BinaryTypes.String
	case typemap.RootBinary, typemap.RootBytes:
		if o.MapVarbinary {
			return arrow.BinaryTypes.Binary
		}
		return arrow.BinaryTypes.String
	case typemap.RootDate:
		return arrow.FixedWidthTypes.Date32
	case typemap.RootTimestamp:
		return &arrow.TimestampType{Unit: engineTimeUnit(t.Precision)}
	case typemap.RootTimestampLTZ:
		return &arrow.TimestampType{Unit: engineTimeUnit(t.Precision), TimeZone: typemap.LTZTimeZone}
	case typemap.RootArray:
		return arrow.ListOfField(arrow.Field{Name: "element", Type: engineArrow(*t.Elem, o), Nullable: true})
	case typemap.RootMap:
		m := arrow.MapOf(engineArrow(*t.Key, o), engineArrow(*t.Value, o))
		m.SetItemNullable(true)
		return m
	case typemap.RootRow:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = arrow.Field{Name: f.Name, Type: engineArrow(f.Type, o), Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
	// EngineTypeOf reports every other root unsupported, so this is not reached.
	return arrow.Null
}

// readablePartitionTypes are the types whose value survives Fluss's
// partition naming, for the error message.
const readablePartitionTypes = "CHAR, STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT and DATE (and BINARY/BYTES read as text)"

// partitionRejection says why a partition column of type t cannot be read,
// or "" when it can.
func partitionRejection(t typemap.DataType, o typemap.EngineOptions) string {
	switch t.Root {
	case typemap.RootChar, typemap.RootString, typemap.RootBoolean, typemap.RootTinyInt, typemap.RootSmallInt,
		typemap.RootInt, typemap.RootBigInt, typemap.RootDate:
		return ""
	case typemap.RootBinary, typemap.RootBytes:
		if o.MapVarbinary {
			return "fluss names such a partition with the hex text of the bytes, which this catalog cannot read back as the varbinary column that '" +
				PropMapVarbinary + "=true' asks for; turning that property off reads the column, and the partition, as text"
		}
		return ""
	case typemap.RootFloat, typemap.RootDouble, typemap.RootTime, typemap.RootTimestamp, typemap.RootTimestampLTZ:
		return "fluss keeps a partition's value only in its name, where it rewrites every character a name may not contain " +
			"(1.5 is named 1_5 and 2026-01-01 01:02:03 is named 2026-01-01-01-02-03), so the value that was written cannot be read back"
	}
	return "the fluss catalog does not know how a partition of this type is named"
}

// CheckReadablePartitions refuses a read of a table whose partitions cannot
// be read: a partition column of a type whose value does not survive
// Fluss's partition naming (the error names the column and its Fluss type),
// or a partition column whose name contains a comma (partition columns
// travel to the BE as a comma-separated list). It depends on the schema
// alone, so it answers the same whether the table has partitions yet or
// not. The planner calls it for every query; SHOW PARTITIONS calls it too.
func CheckReadablePartitions(t *ScanTarget) error {
	return checkPartitions(t.Path, t.PartitionKeys, t.FlussColumns, typemap.EngineOptions{MapVarbinary: t.Options.MapVarbinary, MapTimestampTZ: t.Options.MapTimestampTZ})
}

func checkPartitions(path client.TablePath, keys []string, cols []typemap.Column, o typemap.EngineOptions) error {
	for _, k := range keys {
		if strings.Contains(k, ",") {
			return catalog.Errorf(ErrUnreadablePartition, "Table '%s' cannot be read: its partition column '%s' contains a comma, "+
				"and partition columns are handed to the scan as a comma-separated list", path, k)
		}
		i := columnIndex(cols, k)
		if i < 0 {
			return catalog.Errorf(ErrUnreadablePartition, "Table '%s' lists '%s' as a partition column but its schema has no such column; refresh the catalog and try again", path, k)
		}
		if why := partitionRejection(cols[i].Type, o); why != "" {
			return catalog.Errorf(ErrUnreadablePartition, "Table '%s' cannot be read: its partition column '%s' has fluss type %s, and %s. "+
				"Partition columns of type %s are stored as written.", path, k, cols[i].Type.WithNullable(true), why, readablePartitionTypes)
		}
	}
	return nil
}

func columnIndex(cols []typemap.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// PartitionName renders a Fluss partition the Hive way, k1=v1/k2=v2 in
// partition-key order, as SHOW PARTITIONS lists it. BINARY/BYTES values
// are the hex text Fluss names them by (p_bin=0102), which is also the
// value the column reads as (spec: the partition value is the hex text).
// The planner must render pruned partition names with this same function.
func PartitionName(p client.PartitionInfo, keys []string, cols []typemap.Column) (string, error) {
	var b strings.Builder
	for i, k := range keys {
		v, ok := specValue(p, k)
		if !ok {
			return "", fmt.Errorf("partition %d (%s) has no value for partition column '%s'", p.ID, p.Name(), k)
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String(), nil
}

// PartitionValues are a partition's values in partition-key order, as Fluss
// stores them in the partition name (BINARY/BYTES as hex text).
func PartitionValues(p client.PartitionInfo, keys []string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		v, ok := specValue(p, k)
		if !ok {
			return nil, fmt.Errorf("partition %d (%s) has no value for partition column '%s'", p.ID, p.Name(), k)
		}
		out[i] = v
	}
	return out, nil
}

func specValue(p client.PartitionInfo, key string) (string, bool) {
	for _, kv := range p.Spec {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// engineTimeUnit is the Arrow unit of datetime(p) as the engine keeps it
// for its own tables: Fluss's own unit for p, capped at microseconds (p > 6
// maps to datetime(6), as the spec says). Rendering prints as many fraction
// digits as the unit has, so TIMESTAMP(3) shows ".456", not ".456000".
func engineTimeUnit(p int32) arrow.TimeUnit {
	return typemap.TimeUnitForPrecision(min(p, typemap.MaxEngineDatetimePrecision))
}
