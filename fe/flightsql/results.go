package flightsql

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/memlimit"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/server"
)

// textRows is how results of statements that are not queries (SHOW,
// EXPLAIN, SET) become Arrow: the text the MySQL port would send, one
// string column per column, cut into batches of textBatchRows rows.
type textRows struct {
	mem    memory.Allocator
	schema *arrow.Schema
	b      *array.RecordBuilder
	n      int
	emit   func(arrow.RecordBatch) error
}

const textBatchRows = 1024

func (t *textRows) columns(cols []mysqlwire.Column) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		typ := arrow.DataType(arrow.BinaryTypes.String)
		if c.Type == mysqlwire.TypeBlob {
			typ = arrow.BinaryTypes.Binary
		}
		fields[i] = arrow.Field{Name: c.Name, Type: typ, Nullable: !c.NotNull}
	}
	t.schema = arrow.NewSchema(fields, nil)
	t.b = array.NewRecordBuilder(t.mem, t.schema)
	return t.schema
}

func (t *textRows) row(values [][]byte) error {
	for i, v := range values {
		switch fb := t.b.Field(i).(type) {
		case *array.StringBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.BinaryBuilder.Append(v)
			}
		case *array.BinaryBuilder:
			if v == nil {
				fb.AppendNull()
			} else {
				fb.Append(v)
			}
		}
	}
	t.n++
	if t.n >= textBatchRows {
		return t.flush()
	}
	return nil
}

func (t *textRows) flush() error {
	if t.b == nil || t.n == 0 {
		return nil
	}
	rec := t.b.NewRecordBatch()
	defer rec.Release()
	t.n = 0
	return t.emit(rec)
}

func (t *textRows) release() {
	if t.b != nil {
		t.b.Release()
		t.b = nil
	}
}

// streamWriter writes a statement's result straight to a DoGet stream:
// a query's batches as they come (server.ArrowWriter), other results as
// text batches.
type streamWriter struct {
	stream flight.DataStreamWriter
	w      *flight.Writer
	text   textRows
	rows   int64
}

var _ server.ArrowWriter = (*streamWriter)(nil)

func newStreamWriter(stream flight.DataStreamWriter, mem memory.Allocator) *streamWriter {
	sw := &streamWriter{stream: stream}
	sw.text = textRows{mem: mem, emit: sw.Batch}
	return sw
}

func (w *streamWriter) Schema(s *arrow.Schema) error {
	w.w = flight.NewRecordWriter(w.stream, ipc.WithSchema(s))
	return nil
}

// maxMessageBytes bounds one Flight message: gRPC clients refuse
// messages over 4 MiB by default, and executors yield batches of any size
// (a join's output can be tens of megabytes).
const maxMessageBytes = 2 << 20

func (w *streamWriter) Batch(rec arrow.RecordBatch) error {
	n := rec.NumRows()
	w.rows += n
	size := memlimit.BatchBytes(rec)
	if size <= maxMessageBytes || n <= 1 {
		return w.w.Write(rec)
	}
	step := max(1, n*maxMessageBytes/size)
	for off := int64(0); off < n; off += step {
		part := rec.NewSlice(off, min(off+step, n))
		err := w.w.Write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *streamWriter) Columns(cols []mysqlwire.Column) error {
	return w.Schema(w.text.columns(cols))
}

func (w *streamWriter) Row(values [][]byte) error { return w.text.row(values) }

func (w *streamWriter) OK(mysqlwire.OKResult) error { return nil }

// close flushes the text rows and ends the stream; a statement that wrote
// nothing still sends an (empty) schema so the client's reader opens.
func (w *streamWriter) close() error {
	defer w.text.release()
	if err := w.text.flush(); err != nil {
		return err
	}
	if w.w == nil {
		w.w = flight.NewRecordWriter(w.stream, ipc.WithSchema(arrow.NewSchema(nil, nil)))
	}
	return w.w.Close()
}

// bufferWriter keeps a small result (a statement that is not a query) for
// a later DoGet.
type bufferWriter struct {
	text     textRows
	schema   *arrow.Schema
	recs     []arrow.RecordBatch
	affected int64
}

var _ server.ArrowWriter = (*bufferWriter)(nil)

func newBufferWriter(mem memory.Allocator) *bufferWriter {
	b := &bufferWriter{}
	b.text = textRows{mem: mem, emit: func(r arrow.RecordBatch) error {
		r.Retain()
		b.recs = append(b.recs, r)
		return nil
	}}
	return b
}

func (b *bufferWriter) Schema(s *arrow.Schema) error { b.schema = s; return nil }

func (b *bufferWriter) Batch(rec arrow.RecordBatch) error {
	rec.Retain()
	b.recs = append(b.recs, rec)
	return nil
}

func (b *bufferWriter) Columns(cols []mysqlwire.Column) error {
	b.schema = b.text.columns(cols)
	return nil
}

func (b *bufferWriter) Row(values [][]byte) error { return b.text.row(values) }

func (b *bufferWriter) OK(r mysqlwire.OKResult) error {
	b.affected = int64(r.AffectedRows)
	return nil
}

// done flushes the last text rows; the result is complete.
func (b *bufferWriter) done() error {
	defer b.text.release()
	if b.schema == nil {
		b.schema = arrow.NewSchema(nil, nil)
	}
	return b.text.flush()
}

func (b *bufferWriter) release() {
	b.text.release()
	for _, r := range b.recs {
		r.Release()
	}
	b.recs = nil
}

// writeTo sends the kept result to a DoGet stream.
func (b *bufferWriter) writeTo(stream flight.DataStreamWriter) error {
	w := flight.NewRecordWriter(stream, ipc.WithSchema(b.schema))
	for _, r := range b.recs {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return w.Close()
}
