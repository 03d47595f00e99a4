package paimontest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/hamba/avro/v2/ocf"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// writeAvro writes rec as an Avro data file the way Paimon's
// AvroSchemaConverter lays it out: one record
// org.apache.paimon.avro.generated.record, a field per column in order,
// nullable columns as ["null", T] unions, TINYINT/SMALLINT/INT as int,
// zstandard blocks of blockRows records. Scalar columns only.
func writeAvro(ctx context.Context, fsys fileio.FS, path string, rec arrow.RecordBatch, blockRows int) (int64, error) {
	type avroField struct {
		Name    string `json:"name"`
		Type    any    `json:"type"`
		Default any    `json:"default,omitempty"`
	}
	var fields []avroField
	kinds := make([]string, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		switch f.Type.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32:
			kinds[i] = "int"
		case arrow.INT64:
			kinds[i] = "long"
		case arrow.STRING:
			kinds[i] = "string"
		case arrow.FLOAT64:
			kinds[i] = "double"
		case arrow.FLOAT32:
			kinds[i] = "float"
		case arrow.BOOL:
			kinds[i] = "boolean"
		default:
			return 0, fmt.Errorf("paimontest: avro column %s of type %s", f.Name, f.Type)
		}
		var t any = kinds[i]
		if f.Nullable {
			t = []any{"null", kinds[i]}
		}
		fields = append(fields, avroField{Name: f.Name, Type: t})
	}
	sch, err := json.Marshal(map[string]any{"type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated", "fields": fields})
	if err != nil {
		return 0, err
	}
	c, ok := fsys.(fileio.Creator)
	if !ok {
		return 0, fmt.Errorf("paimontest: file system cannot create files")
	}
	w, err := c.Create(ctx, path)
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	enc, err := ocf.NewEncoder(string(sch), cw, ocf.WithCodec(ocf.ZStandard), ocf.WithBlockLength(blockRows))
	if err != nil {
		w.Abort()
		return 0, err
	}
	for r := 0; r < int(rec.NumRows()); r++ {
		m := make(map[string]any, rec.NumCols())
		for i, f := range rec.Schema().Fields() {
			v, err := paimon.ArrowValue(rec.Column(i), r)
			if err != nil {
				w.Abort()
				return 0, err
			}
			switch x := v.(type) {
			case int8:
				v = int32(x)
			case int16:
				v = int32(x)
			}
			m[f.Name] = v
		}
		if err := enc.Encode(m); err != nil {
			w.Abort()
			return 0, fmt.Errorf("paimontest: avro row %d: %w", r, err)
		}
	}
	if err := enc.Close(); err != nil {
		w.Abort()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return cw.n, nil
}
