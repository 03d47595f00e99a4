package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// SentSchema is the schema of the batches a BE sends for a fragment whose
// output is full: full without the filter_only positions (the columns the
// BE reads to filter but does not return). Positions out of range are
// ignored here; the BE refuses such a fragment.
func SentSchema(full *arrow.Schema, filterOnly []int32) *arrow.Schema {
	if len(filterOnly) == 0 || full == nil {
		return full
	}
	drop := make([]bool, full.NumFields())
	for _, c := range filterOnly {
		if c >= 0 && int(c) < len(drop) {
			drop[c] = true
		}
	}
	var fields []arrow.Field
	for i, f := range full.Fields() {
		if !drop[i] {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}

// WithPlaceholders turns the batches of rr, which lack the columns unread
// marks (a BE's batches without the filter-only columns), into batches of
// full: rr's columns in order in the other places, and in each unread one
// a placeholder of the right type and length that nothing reads (a slice
// of one all-NULL array, grown as batches need). The reader owns rr.
func WithPlaceholders(rr array.RecordReader, full *arrow.Schema, unread []bool, mem memory.Allocator) (array.RecordReader, error) {
	kept := 0
	for _, u := range unread {
		if !u {
			kept++
		}
	}
	if len(unread) != full.NumFields() || int(rr.Schema().NumFields()) != kept {
		rr.Release()
		return nil, fmt.Errorf("exec: %d of %d columns read, but the source returns %d", kept, full.NumFields(), rr.Schema().NumFields())
	}
	return &placeholderReader{in: rr, schema: full, unread: unread, mem: mem, nulls: make([]arrow.Array, len(unread)), refs: 1}, nil
}

type placeholderReader struct {
	in     array.RecordReader
	schema *arrow.Schema
	unread []bool
	mem    memory.Allocator
	nulls  []arrow.Array // per unread column, the all-NULL array sliced
	cur    arrow.RecordBatch
	err    error
	refs   int64
}

func (r *placeholderReader) Schema() *arrow.Schema          { return r.schema }
func (r *placeholderReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *placeholderReader) Record() arrow.RecordBatch { return r.cur }
func (r *placeholderReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.in.Err()
}
func (r *placeholderReader) Retain() { r.refs++ }

func (r *placeholderReader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	releaseArrays(r.nulls)
	r.nulls = nil
	r.in.Release()
}

func (r *placeholderReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.in.Next() {
		return false
	}
	b := r.in.RecordBatch()
	n := int(b.NumRows())
	cols := make([]arrow.Array, len(r.unread))
	k := 0
	for i, u := range r.unread {
		if !u {
			cols[i] = b.Column(k)
			cols[i].Retain()
			k++
			continue
		}
		if a := r.nulls[i]; a == nil || a.Len() < n {
			if a != nil {
				a.Release()
			}
			r.nulls[i] = array.MakeArrayOfNull(r.mem, r.schema.Field(i).Type, n)
		}
		cols[i] = array.NewSlice(r.nulls[i], 0, int64(n))
	}
	r.cur = array.NewRecordBatch(r.schema, cols, int64(n))
	releaseArrays(cols)
	return true
}
