package writer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
)

// ORC data files (file.format=orc), laid out as Java Paimon's OrcFileFormat
// writes them: the same columns as the Parquet files, each ORC type
// carrying its field id as the attribute "paimon.id", CHAR(n) and
// VARCHAR(n) as ORC char(n) and varchar(n) (VARCHAR of the maximum length,
// STRING, as ORC string), TIMESTAMP as ORC timestamp (UTC wall clock),
// TIMESTAMP_LTZ as timestamp with local time zone.

// orcIDKey is the ORC type attribute Paimon stores field ids in.
const orcIDKey = "paimon.id"

const maxVarChar = 2147483647

// orcOptions derives the ORC writer's settings from the table options as
// Paimon does: the codec is file.compression (default zstd) — Paimon's
// OrcWriterFactory sets orc.compress from it for every file, so a table's
// own orc.compress never takes effect —, file.compression.zstd-level,
// orc.stripe.size and orc.compress.size in bytes.
func orcOptions(opts map[string]string, path string) (orc.WriterOptions, error) {
	var o orc.WriterOptions
	o.Compression = "zstd"
	if v, ok := opts["file.compression"]; ok {
		o.Compression = v
	}
	if _, err := orc.ParseCompression(o.Compression); err != nil {
		return o, fmt.Errorf("%w: table %s: %v", paimon.ErrUnsupported, path, err)
	}
	for _, n := range []struct {
		key string
		set func(int64)
	}{
		{"file.compression.zstd-level", func(v int64) { o.ZstdLevel = int(v) }},
		{"orc.stripe.size", func(v int64) { o.StripeSize = v }},
		{"orc.compress.size", func(v int64) { o.BlockSize = int(v) }},
	} {
		v, ok := opts[n.key]
		if !ok {
			continue
		}
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || x <= 0 {
			return o, fmt.Errorf("%w: table %s: option %s=%q is not a positive integer", ErrInvalid, path, n.key, v)
		}
		n.set(x)
	}
	return o, nil
}

// orcSchema is the data file schema with Paimon's ORC attributes: field
// ids under "paimon.id" and char/varchar type hints, recursively through
// ROW fields. types are the Paimon types of the fields (nil for system
// columns).
func orcSchema(s *arrow.Schema, types []*paimon.DataType) *arrow.Schema {
	fs := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		fs[i] = orcField(f, types[i])
	}
	return arrow.NewSchema(fs, nil)
}

func orcField(f arrow.Field, pt *paimon.DataType) arrow.Field {
	var keys, vals []string
	if id, ok := f.Metadata.GetValue(paimon.FieldIDKey); ok {
		keys, vals = append(keys, orcIDKey), append(vals, id)
	}
	if pt != nil {
		switch {
		case pt.Root == paimon.Char:
			keys, vals = append(keys, orc.MetaTypeHint), append(vals, fmt.Sprintf("char(%d)", pt.Precision))
		case pt.Root == paimon.VarChar && pt.Precision > 0 && pt.Precision < maxVarChar:
			keys, vals = append(keys, orc.MetaTypeHint), append(vals, fmt.Sprintf("varchar(%d)", pt.Precision))
		}
	}
	out := arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable, Metadata: arrow.NewMetadata(keys, vals)}
	if st, ok := f.Type.(*arrow.StructType); ok && pt != nil && pt.Root == paimon.Row && len(pt.Fields) == st.NumFields() {
		cs := make([]arrow.Field, st.NumFields())
		for i, cf := range st.Fields() {
			cs[i] = orcField(cf, &pt.Fields[i].Type)
		}
		out.Type = arrow.StructOf(cs...)
	}
	return out
}
