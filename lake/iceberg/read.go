package iceberg

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Reserved field ids of position delete files (Iceberg spec).
const (
	posFilePathID = 2147483546
	posPosID      = 2147483545
)

var posDeleteFields = []paimon.DataField{
	{ID: posFilePathID, Name: "file_path", Type: paimon.DataType{Root: paimon.VarChar, Precision: 2147483647}},
	{ID: posPosID, Name: "pos", Type: paimon.DataType{Root: paimon.BigInt}},
}

// ReadPlan is the plan a reader builds from what the planner sent: the
// snapshot and the current schema of the same metadata file, no splits.
// pred, optional, prunes row groups (Plan.Predicate).
func (t *Table) ReadPlan(snapshotID int64, pred *paimon.Predicate) (*Plan, error) {
	fields, err := t.Fields()
	if err != nil {
		return nil, err
	}
	return &Plan{Table: t, SnapshotID: snapshotID, Fields: fields, Predicate: pred}, nil
}

// ReadOptions shape the batches Open returns.
type ReadOptions struct {
	// Columns to return, in order; nil means every column.
	Columns []string
	// BatchSize is the target rows per batch (default 8192).
	BatchSize int
	// Buffers carries page readers from split to split (see
	// paimon.ScanBuffers).
	Buffers *paimon.ScanBuffers
}

// OutputSchema is the Arrow schema Open returns for cols.
func (p *Plan) OutputSchema(cols []string) (*arrow.Schema, error) {
	out, err := p.resolve(cols)
	if err != nil {
		return nil, err
	}
	return paimon.ArrowSchema(out)
}

func (p *Plan) resolve(cols []string) ([]paimon.DataField, error) {
	if cols == nil {
		return p.Fields, nil
	}
	out := make([]paimon.DataField, len(cols))
	for i, c := range cols {
		f, ok := p.field(c)
		if !ok {
			return nil, fmt.Errorf("%w: Iceberg table %s has no column %s", ErrNotFound, p.Table.Name, c)
		}
		out[i] = f
	}
	return out, nil
}

func (p *Plan) field(name string) (paimon.DataField, bool) {
	for _, f := range p.Fields {
		if f.Name == name {
			return f, true
		}
	}
	for _, f := range p.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return paimon.DataField{}, false
}

// Open streams the live rows of one split: the data file's rows minus
// those its position deletes name and those matching an equality delete.
// The reader belongs to one goroutine; the caller releases it.
func (p *Plan) Open(ctx context.Context, s *Split, mem memory.Allocator, ro ReadOptions) (array.RecordReader, error) {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	out, err := p.resolve(ro.Columns)
	if err != nil {
		return nil, err
	}
	outSch, err := paimon.ArrowSchema(out)
	if err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, p: p, split: s, mem: mem, schema: outSch, refs: 1}
	// needed: the output columns, then the equality delete columns.
	needed := append([]paimon.DataField(nil), out...)
	pos := func(id int) int {
		for i, f := range needed {
			if f.ID == id {
				return i
			}
		}
		return -1
	}
	r.outCols = make([]int, len(out))
	for i := range out {
		r.outCols[i] = i
	}
	if r.deleted, err = p.positionDeletes(ctx, s, mem); err != nil {
		return nil, err
	}
	for _, d := range s.EqDeletes {
		g := eqGroup{}
		var fields []paimon.DataField
		for _, id := range d.EqualityIDs {
			f, ok := p.fieldByID(id)
			if !ok {
				return nil, fmt.Errorf("%w: Iceberg table %s: equality delete file %s compares field %d, which the schema does not have", ErrUnsupported, p.Table.Name, d.Path, id)
			}
			fields = append(fields, f)
			if pos(id) < 0 {
				needed = append(needed, f)
			}
			g.cols = append(g.cols, pos(id))
		}
		if g.keys, err = p.equalityKeys(ctx, d, fields, mem); err != nil {
			return nil, err
		}
		r.eq = append(r.eq, g)
	}
	records := s.Records
	if s.Slice != nil {
		records = s.FileRecords
	}
	r.fr, err = p.openFile(ctx, mem, fileRead{path: s.Path, size: s.Size, records: records, format: s.Format, want: needed, fileFields: p.Fields, consts: s.Identity,
		pred: p.Predicate, batch: ro.BatchSize, bufs: ro.Buffers, slice: s.Slice})
	if err != nil {
		return nil, fmt.Errorf("iceberg table %s: %w", p.Table.Name, err)
	}
	return r, nil
}

func (p *Plan) fieldByID(id int) (paimon.DataField, bool) {
	for _, f := range p.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return paimon.DataField{}, false
}

// positionDeletes collects the positions of s.Path that its position
// delete files name; nil when there are none.
func (p *Plan) positionDeletes(ctx context.Context, s *Split, mem memory.Allocator) (map[int64]struct{}, error) {
	if len(s.PosDeletes) == 0 {
		return nil, nil
	}
	out := map[int64]struct{}{}
	for _, d := range s.PosDeletes {
		err := p.eachBatch(ctx, d, posDeleteFields, mem, func(rec arrow.RecordBatch) error {
			paths, ok1 := rec.Column(0).(*array.String)
			poss, ok2 := rec.Column(1).(*array.Int64)
			if !ok1 || !ok2 {
				return fmt.Errorf("%w: Iceberg table %s: position delete file %s: unexpected column types", ErrCorrupt, p.Table.Name, d.Path)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				if paths.IsNull(i) || poss.IsNull(i) {
					return fmt.Errorf("%w: Iceberg table %s: position delete file %s: NULL file_path or pos", ErrCorrupt, p.Table.Name, d.Path)
				}
				if paths.Value(i) == s.Path {
					out[poss.Value(i)] = struct{}{}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// equalityKeys reads one equality delete file into the set of its rows'
// keys (see appendKey).
func (p *Plan) equalityKeys(ctx context.Context, d DeleteFile, fields []paimon.DataField, mem memory.Allocator) (map[string]struct{}, error) {
	keys := map[string]struct{}{}
	var buf []byte
	err := p.eachBatch(ctx, d, fields, mem, func(rec arrow.RecordBatch) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			buf = buf[:0]
			for c := range fields {
				var err error
				if buf, err = appendKey(buf, rec.Column(c), i); err != nil {
					return fmt.Errorf("iceberg table %s: equality delete file %s: %w", p.Table.Name, d.Path, err)
				}
			}
			keys[string(buf)] = struct{}{}
		}
		return nil
	})
	return keys, err
}

func (p *Plan) eachBatch(ctx context.Context, d DeleteFile, fields []paimon.DataField, mem memory.Allocator, fn func(arrow.RecordBatch) error) error {
	fr, err := p.openFile(ctx, mem, fileRead{path: d.Path, size: d.Size, records: d.Records, format: d.Format, want: fields})
	if err != nil {
		return fmt.Errorf("iceberg table %s: delete file: %w", p.Table.Name, err)
	}
	defer fr.Close()
	for {
		rec, _, err := fr.Next()
		if err != nil {
			return fmt.Errorf("iceberg table %s: delete file %s: %w", p.Table.Name, d.Path, err)
		}
		if rec == nil {
			return nil
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// appendKey appends one value in a form equal exactly for equal values of
// the same column type; NULL equals NULL, as equality deletes define.
func appendKey(b []byte, a arrow.Array, i int) ([]byte, error) {
	if a.IsNull(i) {
		return append(b, 0), nil
	}
	b = append(b, 1)
	switch x := a.(type) {
	case *array.Boolean:
		if x.Value(i) {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case *array.Int8:
		return append(b, byte(x.Value(i))), nil
	case *array.Int16:
		return binary.LittleEndian.AppendUint16(b, uint16(x.Value(i))), nil
	case *array.Int32:
		return binary.LittleEndian.AppendUint32(b, uint32(x.Value(i))), nil
	case *array.Int64:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i))), nil
	case *array.Float32:
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(x.Value(i))), nil
	case *array.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(x.Value(i))), nil
	case *array.Date32:
		return binary.LittleEndian.AppendUint32(b, uint32(x.Value(i))), nil
	case *array.Time64:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i))), nil
	case *array.Timestamp:
		return binary.LittleEndian.AppendUint64(b, uint64(x.Value(i))), nil
	case *array.Decimal128:
		v := x.Value(i)
		b = binary.LittleEndian.AppendUint64(b, v.LowBits())
		return binary.LittleEndian.AppendUint64(b, uint64(v.HighBits())), nil
	case *array.String:
		s := x.Value(i)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...), nil
	case *array.LargeString:
		s := x.Value(i)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...), nil
	case *array.Binary:
		v := x.Value(i)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		return append(b, v...), nil
	case *array.FixedSizeBinary:
		return append(b, x.Value(i)...), nil
	}
	return nil, fmt.Errorf("%w: equality deletes on a %s column", ErrUnsupported, a.DataType())
}

type eqGroup struct {
	cols []int // positions in the read batch
	keys map[string]struct{}
}

type reader struct {
	ctx     context.Context
	p       *Plan
	split   *Split
	mem     memory.Allocator
	schema  *arrow.Schema
	fr      fileReader
	outCols []int
	deleted map[int64]struct{}
	eq      []eqGroup
	cur     arrow.RecordBatch
	err     error
	refs    int64
	keyBuf  []byte

	asIsSchema *arrow.Schema // the schema asIs last judged, and its answer
	asIsOK     bool
}

func (r *reader) Schema() *arrow.Schema          { return r.schema }
func (r *reader) Err() error                     { return r.err }
func (r *reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch (array.RecordReader's older name).
func (r *reader) Record() arrow.RecordBatch { return r.cur }
func (r *reader) Retain()                   { r.refs++ }
func (r *reader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.fr != nil {
		r.fr.Close()
		r.fr = nil
	}
}

func (r *reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.fr == nil {
		return false
	}
	for {
		rec, pos, err := r.fr.Next()
		if err != nil {
			r.err = fmt.Errorf("iceberg table %s: %w", r.p.Table.Name, err)
			return false
		}
		if rec == nil {
			return false
		}
		out, err := r.apply(rec, pos)
		rec.Release()
		if err != nil {
			r.err = err
			return false
		}
		if out == nil {
			continue
		}
		r.cur = out
		return true
	}
}

// asIs reports whether batches of schema sc are the output unprojected:
// the output's fields, in order, at positions 0, 1, ... The answer for the
// last schema seen is kept (a file's batches share theirs).
func (r *reader) asIs(sc *arrow.Schema) bool {
	if sc == r.asIsSchema {
		return r.asIsOK
	}
	ok := sc.NumFields() == len(r.outCols) && sc.Equal(r.schema)
	for i, c := range r.outCols {
		ok = ok && c == i
	}
	r.asIsSchema, r.asIsOK = sc, ok
	return ok
}

// apply drops deleted rows and keeps the output columns; nil when every
// row is deleted.
func (r *reader) apply(rec arrow.RecordBatch, pos int64) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	var keep []bool
	drop := 0
	if len(r.deleted) > 0 || len(r.eq) > 0 {
		keep = make([]bool, n)
		for i := range keep {
			keep[i] = true
			if _, ok := r.deleted[pos+int64(i)]; ok {
				keep[i] = false
				drop++
				continue
			}
			for _, g := range r.eq {
				buf := r.keyBuf[:0]
				for _, c := range g.cols {
					var err error
					if buf, err = appendKey(buf, rec.Column(c), i); err != nil {
						return nil, fmt.Errorf("iceberg table %s: data file %s: %w", r.p.Table.Name, r.split.Path, err)
					}
				}
				r.keyBuf = buf
				if _, ok := g.keys[string(buf)]; ok {
					keep[i] = false
					drop++
					break
				}
			}
		}
	}
	var proj arrow.RecordBatch
	if r.asIs(rec.Schema()) {
		// The file batch is the output as it is (no columns only the
		// deletes needed): passed on, not rebuilt, once a batch.
		rec.Retain()
		proj = rec
	} else {
		cols := make([]arrow.Array, len(r.outCols))
		for i, c := range r.outCols {
			cols[i] = rec.Column(c)
		}
		proj = array.NewRecordBatch(r.schema, cols, int64(n))
	}
	if drop == 0 {
		return proj, nil
	}
	defer proj.Release()
	if drop == n {
		return nil, nil
	}
	bb := array.NewBooleanBuilder(r.mem)
	bb.AppendValues(keep, nil)
	mask := bb.NewBooleanArray()
	bb.Release()
	defer mask.Release()
	return compute.FilterRecordBatch(r.ctx, proj, mask, compute.DefaultFilterOptions())
}
