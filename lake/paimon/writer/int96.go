package writer

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Java Paimon writes TIMESTAMP(7..9) and TIMESTAMP_LTZ(7..9) as Parquet
// INT96 (its ParquetSchemaConverter), Julian day and nanoseconds of the day
// truncated toward zero (negative before 1970). pqarrow can write INT96
// only for every timestamp of a file and only in floor form, so files of
// such tables are written column by column here: INT96 columns with
// paimon.Int96FromNanos, every other column through pqarrow's column
// encoder. Only flat schemas take this path (nested columns would need
// repetition levels); a table with nested columns keeps nanosecond
// timestamps as INT64, which readers accept too.

// int96Layout reports whether the table's Parquet files take the INT96
// path: some top-level column is a nanosecond timestamp and none is nested.
func int96Layout(s *arrow.Schema) bool {
	any96 := false
	for _, f := range s.Fields() {
		switch t := f.Type.(type) {
		case *arrow.TimestampType:
			any96 = any96 || t.Unit == arrow.Nanosecond
		case arrow.NestedType:
			return false
		}
	}
	return any96
}

// columnWriter writes flat Arrow batches as Parquet, one row group per at
// most rowGroupRows rows, INT96 for nanosecond timestamps.
type columnWriter struct {
	pw           *file.Writer
	schema       *arrow.Schema
	nodes        []schema.Node
	rowGroupRows int64
	ctx          context.Context
	defs         []int16
	i96          []parquet.Int96
}

func newColumnWriter(s *arrow.Schema, w io.Writer, props *parquet.WriterProperties, rowGroupRows int64, arrProps pqarrow.ArrowWriterProperties) (*columnWriter, error) {
	plain, err := pqarrow.ToParquet(s, props, arrProps)
	if err != nil {
		return nil, err
	}
	as96, err := pqarrow.ToParquet(s, props, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)))
	if err != nil {
		return nil, err
	}
	nodes := make(schema.FieldList, len(s.Fields()))
	for i, f := range s.Fields() {
		nodes[i] = plain.Root().Field(i)
		if t, ok := f.Type.(*arrow.TimestampType); ok && t.Unit == arrow.Nanosecond {
			nodes[i] = as96.Root().Field(i)
		}
	}
	root, err := schema.NewGroupNode(plain.Root().Name(), plain.Root().RepetitionType(), nodes, -1)
	if err != nil {
		return nil, err
	}
	pw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props))
	if err != nil {
		return nil, err
	}
	if rowGroupRows <= 0 {
		rowGroupRows = props.MaxRowGroupLength()
	}
	return &columnWriter{pw: pw, schema: s, nodes: nodes, rowGroupRows: rowGroupRows, ctx: pqarrow.NewArrowWriteContext(context.Background(), &arrProps)}, nil
}

func (cw *columnWriter) write(rec arrow.RecordBatch) error {
	n := rec.NumRows()
	for off := int64(0); off < n; off += cw.rowGroupRows {
		end := min(off+cw.rowGroupRows, n)
		rg, err := cw.pw.AppendRowGroupChecked()
		if err != nil {
			return err
		}
		for c, col := range rec.Columns() {
			ccw, err := rg.NextColumn()
			if err != nil {
				return err
			}
			part := array.NewSlice(col, off, end)
			err = cw.writeColumn(ccw, c, part)
			part.Release()
			if err != nil {
				return fmt.Errorf("column %s: %w", cw.schema.Field(c).Name, err)
			}
			if err := ccw.Close(); err != nil {
				return err
			}
		}
		if err := rg.Close(); err != nil {
			return err
		}
	}
	return nil
}

func (cw *columnWriter) writeColumn(ccw file.ColumnChunkWriter, c int, a arrow.Array) error {
	nullable := cw.nodes[c].RepetitionType() == parquet.Repetitions.Optional
	var defs []int16
	if nullable {
		defs = cw.defs[:0]
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				defs = append(defs, 0)
			} else {
				defs = append(defs, 1)
			}
		}
		cw.defs = defs
	} else if a.NullN() > 0 {
		return fmt.Errorf("%w: NULL in a NOT NULL column", ErrInvalid)
	}
	w96, ok := ccw.(*file.Int96ColumnChunkWriter)
	if !ok {
		return pqarrow.WriteArrowToColumn(cw.ctx, ccw, a, defs, nil, nullable)
	}
	ts, ok := a.(*array.Timestamp)
	if !ok {
		return fmt.Errorf("%w: INT96 column of Arrow type %s", ErrInvalid, a.DataType())
	}
	vals := cw.i96[:0]
	for i := 0; i < ts.Len(); i++ {
		if !ts.IsNull(i) {
			vals = append(vals, paimon.Int96FromNanos(int64(ts.Value(i))))
		}
	}
	cw.i96 = vals
	_, err := w96.WriteBatch(vals, defs, nil)
	return err
}

func (cw *columnWriter) close() error { return cw.pw.Close() }
