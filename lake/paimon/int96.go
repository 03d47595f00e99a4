package paimon

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/inlet-db/inlet/lake/parquetpage"
)

// Java Paimon stores TIMESTAMP(7..9) in Parquet as INT96: 8 bytes
// nanoseconds of the day (little-endian), then 4 bytes Julian day. Its
// conversion truncates toward zero, so an instant before 1970 has the
// Julian day rounded up and a negative nanoseconds-of-day. arrow-go refuses
// such values, so INT96 columns are decoded here, by one signed formula
// that also reads the floor form other writers use.

const (
	julianDayOfEpoch = 2440588
	nanosPerDay      = 86400 * 1_000_000_000
)

// Int96Nanos returns the instant of an INT96 timestamp as nanoseconds since
// the epoch: (julianDay − 2440588) × 86400 s + nanosOfDay, the latter
// signed. ok is false when the instant is outside int64 nanoseconds
// (years 1677..2262).
func Int96Nanos(v parquet.Int96) (nanos int64, ok bool) {
	return parquetpage.Int96Nanos(v[:])
}

// Int96FromNanos encodes an instant as Java Paimon does: from the
// Timestamp's millisecond and nano-of-millisecond (always >= 0), Julian day
// = millis / 86400000 and nanoseconds of the day = millis % 86400000 ×
// 10^6 + nano-of-milli, both divisions truncating toward zero, so instants
// before 1970 get a negative nanoseconds-of-day.
func Int96FromNanos(ns int64) parquet.Int96 {
	millis := ns / 1_000_000
	if ns%1_000_000 < 0 {
		millis--
	}
	nom := ns - millis*1_000_000
	const msPerDay = 86400 * 1000
	var v parquet.Int96
	binary.LittleEndian.PutUint64(v[:8], uint64(millis%msPerDay*1_000_000+nom))
	binary.LittleEndian.PutUint32(v[8:], uint32(millis/msPerDay+julianDayOfEpoch))
	return v
}

// int96Col is one top-level INT96 column read beside pqarrow.
type int96Col struct {
	pos    int // position among the selected top-level columns
	name   string
	leaf   int
	maxDef int16
	typ    *arrow.TimestampType
}

// int96Reader reads a row group's pqarrow columns (inner, nil when every
// selected column is INT96) and its INT96 columns in step, and yields
// batches holding all of them in selected order.
type int96Reader struct {
	refs    int64
	path    string
	rg      int
	inner   array.RecordReader
	cols    []int96Col
	readers []*file.Int96ColumnChunkReader
	schema  *arrow.Schema
	left    int64 // rows still to read (used when inner is nil)
	batch   int64
	mem     memory.Allocator
	cur     arrow.RecordBatch
	err     error
	vals    []parquet.Int96
	defs    []int16
}

func newInt96Reader(path string, pf *file.Reader, rg int, inner array.RecordReader, cols []int96Col, ntotal int, batch int64, mem memory.Allocator) (*int96Reader, error) {
	r := &int96Reader{refs: 1, path: path, rg: rg, inner: inner, cols: cols, batch: batch, mem: mem}
	rgr := pf.RowGroup(rg)
	r.left = rgr.NumRows()
	for _, c := range cols {
		cr, err := rgr.Column(c.leaf)
		if err != nil {
			r.Release()
			return nil, fmt.Errorf("%w: data file %s row group %d column %s: %v", ErrCorrupt, path, rg, c.name, err)
		}
		ir, ok := cr.(*file.Int96ColumnChunkReader)
		if !ok {
			cr.Close()
			r.Release()
			return nil, fmt.Errorf("%w: data file %s column %s: not INT96", ErrCorrupt, path, c.name)
		}
		r.readers = append(r.readers, ir)
	}
	fields := make([]arrow.Field, ntotal)
	var inFields []arrow.Field
	if inner != nil {
		inFields = inner.Schema().Fields()
	}
	k, j := 0, 0
	for p := 0; p < ntotal; p++ {
		if j < len(cols) && cols[j].pos == p {
			fields[p] = arrow.Field{Name: cols[j].name, Type: cols[j].typ, Nullable: true}
			j++
			continue
		}
		if k >= len(inFields) {
			r.Release()
			return nil, fmt.Errorf("%w: data file %s: column layout", ErrCorrupt, path)
		}
		fields[p] = inFields[k]
		k++
	}
	r.schema = arrow.NewSchema(fields, nil)
	return r, nil
}

func (r *int96Reader) Retain() { r.refs++ }

func (r *int96Reader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.inner != nil {
		r.inner.Release()
		r.inner = nil
	}
	for _, cr := range r.readers {
		cr.Close()
	}
	r.readers = nil
}

func (r *int96Reader) Schema() *arrow.Schema          { return r.schema }
func (r *int96Reader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *int96Reader) Record() arrow.RecordBatch      { return r.cur }
func (r *int96Reader) Err() error                     { return r.err }

func (r *int96Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	var in arrow.RecordBatch
	var n int64
	if r.inner != nil {
		if !r.inner.Next() {
			r.err = r.inner.Err()
			return false
		}
		in = r.inner.RecordBatch()
		n = in.NumRows()
	} else {
		n = min(r.batch, r.left)
		if n <= 0 {
			return false
		}
	}
	r.left -= n
	arrs := make([]arrow.Array, 0, len(r.cols))
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	for i := range r.cols {
		a, err := r.readColumn(i, n)
		if err != nil {
			r.err = err
			return false
		}
		arrs = append(arrs, a)
	}
	out := make([]arrow.Array, len(r.schema.Fields()))
	k, j := 0, 0
	for p := range out {
		if j < len(r.cols) && r.cols[j].pos == p {
			out[p] = arrs[j]
			j++
			continue
		}
		out[p] = in.Column(k)
		k++
	}
	r.cur = array.NewRecordBatch(r.schema, out, n)
	return true
}

// readColumn reads the next n rows of INT96 column i into an Arrow
// timestamp array of the column's unit (floor division below ns).
func (r *int96Reader) readColumn(i int, n int64) (arrow.Array, error) {
	c := r.cols[i]
	if int64(cap(r.vals)) < n {
		r.vals = make([]parquet.Int96, n)
		r.defs = make([]int16, n)
	}
	vals, defs := r.vals[:n], r.defs[:n]
	var rows int64
	nv := 0
	for rows < n {
		var d []int16
		if c.maxDef > 0 {
			d = defs[rows:]
		}
		t, v, err := r.readers[i].ReadBatch(n-rows, vals[nv:], d, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: data file %s row group %d column %s: %v", ErrCorrupt, r.path, r.rg, c.name, err)
		}
		if t == 0 {
			return nil, fmt.Errorf("%w: data file %s row group %d column %s: %d rows, the row group has more", ErrCorrupt, r.path, r.rg, c.name, rows)
		}
		rows += t
		nv += v
	}
	b := array.NewTimestampBuilder(r.mem, c.typ)
	defer b.Release()
	b.Reserve(int(n))
	var per int64 = 1
	switch c.typ.Unit {
	case arrow.Millisecond:
		per = 1_000_000
	case arrow.Microsecond:
		per = 1_000
	case arrow.Second:
		per = 1_000_000_000
	}
	vi := 0
	for row := int64(0); row < n; row++ {
		if c.maxDef > 0 && defs[row] < c.maxDef {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		ns, ok := Int96Nanos(vals[vi])
		if !ok {
			return nil, fmt.Errorf("%w: data file %s row group %d column %s: INT96 timestamp (Julian day %d) is outside the nanosecond range of years 1677..2262",
				ErrUnsupported, r.path, r.rg, c.name, binary.LittleEndian.Uint32(vals[vi][8:]))
		}
		vi++
		q := ns / per
		if ns%per < 0 {
			q--
		}
		b.UnsafeAppend(arrow.Timestamp(q))
	}
	return b.NewArray(), nil
}
