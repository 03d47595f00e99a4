package local

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fillPartial turns a batch of a partial-column load into whole rows: the
// columns it carries come from it, the others from the key's current row,
// or for a new key from the column's default (NULL without one). The
// caller holds the table's write lock, so the current rows cannot change
// before the load commits. It reads the buckets the batch's keys fall in
// once per batch.
func (t *Table) fillPartial(ctx context.Context, rec arrow.RecordBatch, present []int) (arrow.RecordBatch, error) {
	mem := t.c.mem
	pos := make(map[int]int, len(present)) // table column → column of rec
	for i, j := range present {
		pos[j] = i
	}
	rk := keyCoder{buckets: t.keys.buckets}
	for _, k := range t.keys.cols {
		rk.cols = append(rk.cols, pos[k])
	}
	want := map[string]int32{}
	buckets := map[int]bool{}
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		buf = rk.encode(rec, i, buf)
		want[string(buf)] = -1
		buckets[rk.bucket(buf)] = true
	}
	// Current rows of the wanted keys, gathered as one-row slices.
	files, _, release, err := t.snapshot()
	if err != nil {
		return nil, err
	}
	groups := bucketGroups(files, t.keys.buckets)
	for b := range groups {
		if !buckets[b] {
			groups[b] = nil
		}
	}
	s := &fileScan{ctx: ctx, mem: mem, c: t.c, tid: t.id, table: t.name, files: files, schema: t.arrow,
		full: t.arrow, keys: t.keys, release: release, groups: groups, ahead: scanParallelism(nil)}
	s.refs.Store(1)
	defer s.Release()
	var found []arrow.RecordBatch
	defer func() {
		for _, f := range found {
			f.Release()
		}
	}()
	for s.Next() {
		cur := s.RecordBatch()
		for i := 0; i < int(cur.NumRows()); i++ {
			buf = t.keys.encode(cur, i, buf)
			if v, ok := want[string(buf)]; ok && v < 0 {
				want[string(buf)] = int32(len(found))
				found = append(found, cur.NewSlice(int64(i), int64(i+1)))
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	// idx[r]: row of the current values for rec row r; len(found) = the
	// default row.
	idx := make([]int32, rec.NumRows())
	for i := range idx {
		buf = rk.encode(rec, i, buf)
		if v := want[string(buf)]; v >= 0 {
			idx[i] = v
		} else {
			idx[i] = int32(len(found))
		}
	}
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	defer ia.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, len(t.schema.Columns))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j, col := range t.schema.Columns {
		if i, ok := pos[j]; ok {
			cols[j] = rec.Column(i)
			cols[j].Retain()
			continue
		}
		parts := make([]arrow.Array, 0, len(found)+1)
		for _, f := range found {
			parts = append(parts, f.Column(j))
		}
		def, err := defaultArray(cctx, col.Default, col.Type, mem)
		if err != nil {
			return nil, fmt.Errorf("table %s: column %s: default: %w", t.name, col.Name, err)
		}
		parts = append(parts, def)
		src, err := array.Concatenate(parts, mem)
		def.Release()
		if err != nil {
			return nil, err
		}
		out, err := compute.TakeArray(cctx, src, ia)
		src.Release()
		if err != nil {
			return nil, err
		}
		cols[j] = out
		if !col.Nullable && out.NullN() > 0 {
			return nil, fmt.Errorf("table %s: column '%s' is NOT NULL and has no default: a partial update of a new key must give it", t.name, col.Name)
		}
	}
	return array.NewRecordBatch(t.arrow, cols, rec.NumRows()), nil
}

// defaultArray is a one-row array holding a column's default (NULL when it
// has none).
func defaultArray(ctx context.Context, def *string, typ arrow.DataType, mem memory.Allocator) (arrow.Array, error) {
	if def == nil {
		return array.MakeArrayOfNull(mem, typ, 1), nil
	}
	return constArray(mem, typ, *def)
}
