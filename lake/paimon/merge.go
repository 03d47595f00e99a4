package paimon

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mergeSource is a k-way merge of a split's files by (key, sequence
// number), each file already sorted by key and unique per key. Per key the
// merge engine picks the output:
//
//	deduplicate:    the record with the highest sequence wins; a winning
//	                -U/-D drops the key (ignore-delete: retracts are skipped).
//	first-row:      the lowest sequence wins; retracts are skipped.
//	partial-update: per field, the latest non-NULL value wins
//	                (retracts need ignore-delete).
//	aggregation:    per field, the field function folds the records in
//	                order (aggregate.go); the result is always emitted.
//
// With sequence.field the records of a key are ordered by those fields
// (field by field, NULL first, reversed for sort-order descending) before
// the sequence number, so "latest" means highest sequence field.
//
// Deletion vectors are applied to each file before it enters the merge.
//
// Speed without boxing: keys are compared through typed views of each
// batch's key columns (mergekeys.go), the cursor heap is sifted by direct
// calls, and deduplicate/first-row emit (batch, row) references that are
// gathered column by column into the output batch (mergegather.go);
// partial-update and aggregation build rows through typed builders.
type mergeSource struct {
	ctx       context.Context
	opts      tableOptions
	nNeeded   int
	keyCols   []int // positions of key columns in cursor batches
	useqCols  []int // positions of sequence.field columns
	aggs      []*fieldAgg
	seqCol    int
	kindCol   int
	h         cursorHeap
	all       []*cursor
	outSchema *arrow.Schema
	bld       *array.RecordBuilder
	batchSize int
	table     string
	parked    []arrow.RecordBatch
	group     []mergeRec
	gkeys     []keyView
	grow      int
	ncol      int
	mem       memory.Allocator
	// Gathered output (deduplicate, first-row): the rows to emit as
	// (source batch, row), copied column by column when a batch is full;
	// srcs holds a reference to every batch a pending row points into.
	gather bool
	pend   []srcRow
	srcs   []arrow.RecordBatch
}

type cursor struct {
	idx   int
	fb    *fileBatches
	dv    *DeletionVector
	rec   arrow.RecordBatch
	src   int32 // rec's index in m.srcs (gathered output)
	seqs  []int64
	kinds []int8
	keys  []keyView
	useq  []keyView
	pos   int64
	row   int
	m     *mergeSource
}

// load moves to the next batch. The finished batch may still be referenced
// by the key group being collected, so it is parked and released after
// that group is emitted.
func (c *cursor) load() error {
	for {
		if c.rec != nil {
			c.m.parked = append(c.m.parked, c.rec)
			c.rec = nil
		}
		rec, pos, err := c.fb.next()
		if err != nil || rec == nil {
			return err
		}
		c.rec, c.pos, c.row = rec, pos, 0
		seq, ok1 := rec.Column(c.m.seqCol).(*array.Int64)
		kind, ok2 := rec.Column(c.m.kindCol).(*array.Int8)
		if !ok1 || !ok2 {
			return fmt.Errorf("%w: table %s: %s/%s columns are not BIGINT/TINYINT", ErrCorrupt, c.m.table, SequenceNumberColumn, ValueKindColumn)
		}
		c.seqs, c.kinds = seq.Int64Values(), kind.Int8Values()
		c.keys = c.keys[:0]
		for _, k := range c.m.keyCols {
			c.keys = append(c.keys, makeKeyView(rec.Column(k)))
		}
		c.useq = c.useq[:0]
		for _, k := range c.m.useqCols {
			c.useq = append(c.useq, makeKeyView(rec.Column(k)))
		}
		c.src = c.m.addSource(rec)
		if c.skipDeleted() {
			return nil
		}
	}
}

func (m *mergeSource) releaseParked() {
	for _, r := range m.parked {
		r.Release()
	}
	m.parked = m.parked[:0]
}

// skipDeleted moves past deleted rows; false when the batch is exhausted.
func (c *cursor) skipDeleted() bool {
	for c.row < int(c.rec.NumRows()) {
		if c.dv == nil || !c.dv.Contains(c.pos+int64(c.row)) {
			return true
		}
		c.row++
	}
	return false
}

func (c *cursor) advance() error {
	c.row++
	if c.skipDeleted() {
		return nil
	}
	return c.load()
}

type cursorHeap []*cursor

func newMergeSource(ctx context.Context, p *Plan, s *Split, needed []DataField, opts tableOptions, mem memory.Allocator, batchSize int, metrics *Metrics) (*mergeSource, error) {
	if batchSize <= 0 {
		batchSize = 8192
	}
	for _, f := range s.Files {
		if f.Slice != nil {
			// A slice holds part of the file's keys: merging it alone
			// would miss the versions in the other slices.
			return nil, fmt.Errorf("%w: data file %s: slice %d/%d of a file cannot be merged by key", ErrUnsupported, f.Path, f.Slice.Index, f.Slice.Count)
		}
	}
	fields := append([]DataField(nil), needed...)
	if opts.mergeEngine == "partial-update" {
		// Every field is merged; reading them all keeps the per-field rule
		// independent of the projection.
		for _, f := range p.Schema.Fields {
			if !hasField(fields, f.Name) {
				fields = append(fields, f)
			}
		}
	}
	m := &mergeSource{ctx: ctx, opts: opts, nNeeded: len(needed), batchSize: batchSize, table: p.Table.name, mem: mem,
		gather: opts.mergeEngine == "deduplicate" || opts.mergeEngine == "first-row"}
	for _, k := range p.Schema.TrimmedPrimaryKeys() {
		if !hasField(fields, k.Name) {
			fields = append(fields, k)
		}
		for i, f := range fields {
			if f.Name == k.Name {
				m.keyCols = append(m.keyCols, i)
			}
		}
	}
	for _, name := range opts.sequenceFields {
		name = strings.TrimSpace(name)
		f, ok := p.Schema.Field(name)
		if !ok {
			return nil, fmt.Errorf("paimon: table %s: sequence.field %q is not a column", p.Table.name, name)
		}
		if !hasField(fields, name) {
			fields = append(fields, f)
		}
		for i, g := range fields {
			if g.Name == name {
				m.useqCols = append(m.useqCols, i)
			}
		}
	}
	m.seqCol, m.kindCol = len(fields), len(fields)+1
	var err error
	if m.outSchema, err = ArrowSchema(fields); err != nil {
		return nil, err
	}
	m.ncol = len(fields)
	if opts.mergeEngine == "aggregation" {
		for i, f := range m.outSchema.Fields() {
			isKey := false
			for _, k := range p.Schema.PrimaryKeys {
				isKey = isKey || k == fields[i].Name
			}
			a, err := newFieldAgg(f, i, isKey, opts.agg)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", p.Table.name, err)
			}
			m.aggs = append(m.aggs, a)
		}
	}
	m.bld = array.NewRecordBuilder(mem, m.outSchema)
	ok := false
	defer func() {
		if !ok {
			m.close()
		}
	}()
	for i, f := range s.Files {
		fs := p.Schema
		if f.Meta.SchemaID != p.Schema.ID {
			if fs, err = p.Table.Schema(ctx, f.Meta.SchemaID); err != nil {
				return nil, err
			}
		}
		c := &cursor{idx: i, m: m, src: -1}
		if f.DV != nil {
			if c.dv, err = ReadDeletionVector(ctx, p.Table.fs, *f.DV); err != nil {
				return nil, err
			}
		}
		if c.fb, err = openDataFile(ctx, fileReadSpec{fsys: p.Table.fs, path: f.Path, fileSchema: fs, want: fields, system: true, batchSize: batchSize, mem: mem, metrics: metrics, size: f.Meta.FileSize}); err != nil {
			return nil, err
		}
		m.all = append(m.all, c)
		if err := c.load(); err != nil {
			return nil, err
		}
		if c.rec != nil {
			m.h = append(m.h, c)
		}
	}
	m.h.init()
	ok = true
	return m, nil
}

type mergeRec struct {
	rec  arrow.RecordBatch
	src  int32
	row  int
	kind int8
}

// sameKey reports whether the cursor's row has the key of the group being
// collected (gkeys, grow: the key columns and row of its first record).
func (m *mergeSource) sameKey(c *cursor) bool {
	for k := range m.gkeys {
		if compareKey(&m.gkeys[k], m.grow, &c.keys[k], c.row) != 0 {
			return false
		}
	}
	return true
}

func (m *mergeSource) next() (arrow.RecordBatch, []bool, error) {
	rows := 0
	for len(m.h) > 0 {
		if rows&1023 == 0 {
			if err := m.ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		c := m.h[0]
		if len(m.group) > 0 && !m.sameKey(c) {
			err := m.emit(m.group)
			m.group = m.group[:0]
			m.releaseParked()
			if err != nil {
				return nil, nil, err
			}
			rows++
			if m.outRows() >= m.batchSize {
				rec, err := m.flush()
				return rec, nil, err
			}
			continue
		}
		if len(m.group) == 0 {
			m.gkeys, m.grow = append(m.gkeys[:0], c.keys...), c.row
		}
		m.group = append(m.group, mergeRec{rec: c.rec, src: c.src, row: c.row, kind: c.kinds[c.row]})
		if err := c.advance(); err != nil {
			return nil, nil, err
		}
		if c.rec == nil {
			m.h.popTop()
		} else {
			m.h.down(0)
		}
	}
	if len(m.group) > 0 {
		err := m.emit(m.group)
		m.group = m.group[:0]
		m.releaseParked()
		if err != nil {
			return nil, nil, err
		}
	}
	if m.outRows() > 0 {
		rec, err := m.flush()
		return rec, nil, err
	}
	return nil, nil, nil
}

func isRetract(k int8) bool { return k == KindUpdateBefore || k == KindDelete }

// emit applies the merge engine to the records of one key (ascending
// sequence order) and appends the surviving row, if any.
//
// As Java's ReducerMergeFunctionWrapper does, a key with a single record
// skips the merge function: the record is emitted as stored, or dropped
// when it is a retraction (batch reads drop -U/-D). With ignore-delete the
// retractions are removed first, as the writer would have done.
func (m *mergeSource) emit(group []mergeRec) error {
	ncol := m.ncol
	if m.opts.ignoreDelete && m.opts.mergeEngine != "first-row" {
		kept := group[:0]
		for _, g := range group {
			if !isRetract(g.kind) {
				kept = append(kept, g)
			}
		}
		group = kept
	}
	switch len(group) {
	case 0:
		return nil
	case 1:
		if isRetract(group[0].kind) {
			return nil
		}
		return m.appendRow(&group[0], ncol)
	}
	switch m.opts.mergeEngine {
	case "deduplicate":
		var win *mergeRec
		for i := range group {
			if m.opts.ignoreDelete && isRetract(group[i].kind) {
				continue
			}
			win = &group[i]
		}
		if win == nil || isRetract(win.kind) {
			return nil
		}
		return m.appendRow(win, ncol)
	case "first-row":
		for i := range group {
			if !isRetract(group[i].kind) {
				return m.appendRow(&group[i], ncol)
			}
		}
		return nil
	case "partial-update":
		src := make([]int, ncol) // group index supplying each column, -1 none
		for i := range src {
			src[i] = -1
		}
		seen := false
		for gi, g := range group {
			if isRetract(g.kind) {
				if m.opts.ignoreDelete {
					continue
				}
				return fmt.Errorf("%w: table %s: partial-update met a delete record; set ignore-delete", ErrUnsupported, m.table)
			}
			seen = true
			for c := 0; c < ncol; c++ {
				if !g.rec.Column(c).IsNull(g.row) {
					src[c] = gi
				}
			}
		}
		if !seen {
			return nil
		}
		for c := 0; c < ncol; c++ {
			if src[c] < 0 {
				m.bld.Field(c).AppendNull()
				continue
			}
			g := group[src[c]]
			if err := appendValue(m.bld.Field(c), g.rec.Column(c), g.row); err != nil {
				return err
			}
		}
		return nil
	case "aggregation":
		return m.aggregate(group)
	}
	return fmt.Errorf("%w: merge-engine %s", ErrUnsupported, m.opts.mergeEngine)
}

// aggregate folds the key's records field by field; like Java's
// AggregateMergeFunction the result is an insert even when the last
// record was a retraction (ignore-delete drops retractions first).
func (m *mergeSource) aggregate(group []mergeRec) error {
	for _, a := range m.aggs {
		a.reset()
	}
	seen := false
	for _, g := range group {
		retract := isRetract(g.kind)
		if retract && m.opts.ignoreDelete {
			continue
		}
		seen = true
		for _, a := range m.aggs {
			var err error
			if retract {
				err = a.retract(g.rec.Column(a.col), g.row, m.table)
			} else {
				err = a.add(g.rec.Column(a.col), g.row)
			}
			if err != nil {
				return err
			}
		}
	}
	if !seen {
		return nil
	}
	for _, a := range m.aggs {
		if err := a.appendTo(m.bld.Field(a.col)); err != nil {
			return fmt.Errorf("column %s: %w", a.field, err)
		}
	}
	return nil
}

func (m *mergeSource) appendRow(g *mergeRec, ncol int) error {
	if m.gather {
		m.pend = append(m.pend, srcRow{src: g.src, row: int32(g.row)})
		return nil
	}
	rec, row := g.rec, g.row
	for c := 0; c < ncol; c++ {
		if err := appendValue(m.bld.Field(c), rec.Column(c), row); err != nil {
			return fmt.Errorf("column %s: %w", m.outSchema.Field(c).Name, err)
		}
	}
	return nil
}

func (m *mergeSource) close() {
	m.group = nil
	m.releaseParked()
	m.releaseSources()
	for _, c := range m.all {
		if c.rec != nil {
			c.rec.Release()
			c.rec = nil
		}
		if c.fb != nil {
			c.fb.close()
			c.fb = nil
		}
	}
	m.h = nil
	if m.bld != nil {
		m.bld.Release()
		m.bld = nil
	}
}

// compareArrow orders two non-key-typed cells; NULL sorts first. Strings and
// bytes compare as unsigned bytes, as Paimon's key comparator does.
func compareArrow(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	switch x := a.(type) {
	case *array.Int32:
		return cmp3(x.Value(i) < b.(*array.Int32).Value(j), x.Value(i) > b.(*array.Int32).Value(j))
	case *array.Int64:
		return cmp3(x.Value(i) < b.(*array.Int64).Value(j), x.Value(i) > b.(*array.Int64).Value(j))
	case *array.String:
		return strings.Compare(x.Value(i), b.(*array.String).Value(j))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	}
	c, _ := compareNorm(arrowValue(a, i), arrowValue(b, j))
	return c
}

// appendValue appends arr[i] to bld; both have the same Arrow type.
func appendValue(bld array.Builder, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		bld.AppendNull()
		return nil
	}
	switch b := bld.(type) {
	case *array.BooleanBuilder:
		b.Append(arr.(*array.Boolean).Value(i))
	case *array.Int8Builder:
		b.Append(arr.(*array.Int8).Value(i))
	case *array.Int16Builder:
		b.Append(arr.(*array.Int16).Value(i))
	case *array.Int32Builder:
		b.Append(arr.(*array.Int32).Value(i))
	case *array.Int64Builder:
		b.Append(arr.(*array.Int64).Value(i))
	case *array.Float32Builder:
		b.Append(arr.(*array.Float32).Value(i))
	case *array.Float64Builder:
		b.Append(arr.(*array.Float64).Value(i))
	case *array.StringBuilder:
		b.Append(arr.(*array.String).Value(i))
	case *array.BinaryBuilder:
		b.Append(arr.(*array.Binary).Value(i))
	case *array.Date32Builder:
		b.Append(arr.(*array.Date32).Value(i))
	case *array.Time32Builder:
		b.Append(arr.(*array.Time32).Value(i))
	case *array.TimestampBuilder:
		b.Append(arr.(*array.Timestamp).Value(i))
	case *array.Decimal128Builder:
		b.Append(arr.(*array.Decimal128).Value(i))
	case *array.MapBuilder:
		a := arr.(*array.Map)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for k := s; k < e; k++ {
			if err := appendValue(b.KeyBuilder(), a.Keys(), int(k)); err != nil {
				return err
			}
			if err := appendValue(b.ItemBuilder(), a.Items(), int(k)); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		a := arr.(*array.List)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for k := s; k < e; k++ {
			if err := appendValue(b.ValueBuilder(), a.ListValues(), int(k)); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		a := arr.(*array.Struct)
		b.Append(true)
		for f := 0; f < a.NumField(); f++ {
			if err := appendValue(b.FieldBuilder(f), a.Field(f), i); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: merge of %s values", ErrUnsupported, arr.DataType())
	}
	return nil
}
