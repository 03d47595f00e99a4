package orc

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	_ "time/tzdata" // writer time zones must resolve on hosts without zoneinfo

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReadOptions selects what a RecordReader reads. The zero value reads every
// column of every stripe in batches of DefaultBatchSize.
type ReadOptions struct {
	// Columns are root field indexes, in output order.
	Columns []int
	// ColumnNames are root field names, or dotted paths ("a.b") that keep
	// only the named fields of a struct. Appended after Columns.
	ColumnNames []string
	// Stripes are the stripe indexes to read, in order; nil reads all.
	Stripes []int
	// BatchSize is the maximum rows per batch (default DefaultBatchSize).
	BatchSize int
	// Mem allocates the batches; nil uses a fresh Go allocator.
	Mem memory.Allocator
	// TimestampUnit is the Arrow unit of timestamp columns.
	TimestampUnit TimestampUnit
}

// TimestampUnit selects the Arrow unit of timestamp columns. Nanoseconds
// (the default) is exact but spans only the years 1677-2262; the coarser
// units span far wider ranges (sentinels such as 9999-12-31) and refuse a
// value with digits finer than the unit rather than drop them.
type TimestampUnit int

// Timestamp units.
const (
	Nanoseconds TimestampUnit = iota
	Microseconds
	Milliseconds
)

func (u TimestampUnit) arrow() (arrow.TimeUnit, error) {
	switch u {
	case Nanoseconds:
		return arrow.Nanosecond, nil
	case Microseconds:
		return arrow.Microsecond, nil
	case Milliseconds:
		return arrow.Millisecond, nil
	}
	return 0, fmt.Errorf("timestamp unit %d is not one of Nanoseconds, Microseconds, Milliseconds", int(u))
}

// DefaultBatchSize is the batch size used when ReadOptions.BatchSize is 0.
const DefaultBatchSize = 8192

// valueBudget bounds the values a stripe whose selected streams hold
// nbytes can legitimately describe: the densest encodings (RLE runs, empty
// structs under lists) stay far below 1024 values per byte. Lengths and
// dictionary sizes beyond it are corrupt, and refusing them keeps a few
// bytes from claiming gigabytes.
func valueBudget(nbytes int64) int64 {
	return min(1024*(nbytes+64), 1<<31-1)
}

// maxStreamBytes caps one decompressed stream (a corrupt chunk sequence
// could otherwise claim a huge expansion).
const maxStreamBytes = 1 << 31

// NewRecordReader returns a streaming reader over the selected stripes and
// columns. It reads one stripe at a time; no I/O happens before Next.
func (f *File) NewRecordReader(ctx context.Context, opts ReadOptions) (array.RecordReader, error) {
	sel, err := f.selectColumns(opts.Columns, opts.ColumnNames)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	if sel.unit, err = opts.TimestampUnit.arrow(); err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	for id, in := range sel.include {
		if in && f.types[id].kind == KindTimestamp {
			sel.localTimestamps = true
		}
	}
	schema, err := f.arrowSchema(sel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	stripes := opts.Stripes
	if stripes == nil {
		stripes = make([]int, len(f.stripes))
		for i := range stripes {
			stripes[i] = i
		}
	}
	for _, s := range stripes {
		if s < 0 || s >= len(f.stripes) {
			return nil, fmt.Errorf("%s: stripe %d out of range: file has %d stripes", f.name, s, len(f.stripes))
		}
	}
	bs := opts.BatchSize
	if bs <= 0 {
		bs = DefaultBatchSize
	}
	mem := opts.Mem
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	r := &recordReader{f: f, ctx: ctx, sel: sel, schema: schema, stripes: stripes, batch: bs, mem: mem}
	r.refs.Store(1)
	return r, nil
}

// recordReader streams batches; it belongs to one goroutine.
type recordReader struct {
	refs    atomic.Int64
	f       *File
	ctx     context.Context
	sel     *selection
	schema  *arrow.Schema
	stripes []int
	batch   int
	mem     memory.Allocator

	next int // index into stripes
	root *structReader
	left uint64 // rows left in the current stripe
	cur  arrow.RecordBatch
	err  error
	dec  *decompressor
	locs map[string]*time.Location
	// Stream buffers of the current stripe, handed back to bufPools when
	// the next stripe opens or the reader is released: batches copy values
	// out, so nothing handed to the caller points into them.
	held [][]byte
	// check holds the current stripe's values to its statistics (verify.go).
	check *stripeCheck
}

func (r *recordReader) Retain() { r.refs.Add(1) }

func (r *recordReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.root = nil
		r.recycle()
		r.held = nil
		if r.dec != nil {
			r.dec.close()
			r.dec = nil
		}
	}
}

func (r *recordReader) Schema() *arrow.Schema { return r.schema }

func (r *recordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *recordReader) Record() arrow.RecordBatch { return r.cur }

func (r *recordReader) Err() error { return r.err }

func (r *recordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	for r.left == 0 {
		if r.next >= len(r.stripes) {
			return false
		}
		si := r.stripes[r.next]
		r.next++
		if err := r.openStripe(si); err != nil {
			r.err = fmt.Errorf("%s: %w", r.f.name, err)
			return false
		}
		r.check = nil
		if r.left > 0 {
			r.check = r.newStripeCheck(si)
		}
	}
	n := int(min(uint64(r.batch), r.left))
	d, err := r.root.next(n, nil)
	if err != nil {
		r.err = fmt.Errorf("%s: %w", r.f.name, err)
		r.left = 0
		r.next = len(r.stripes)
		return false
	}
	r.left -= uint64(n)
	st := array.NewStructData(d)
	d.Release()
	cols := make([]arrow.Array, st.NumField())
	for i := range cols {
		cols[i] = st.Field(i)
	}
	r.cur = array.NewRecordBatch(r.schema, cols, int64(n))
	st.Release()
	if r.check != nil {
		err := r.check.batch(r.cur)
		if err == nil && r.left == 0 {
			err = r.check.end()
		}
		if err != nil {
			r.err = fmt.Errorf("%s: %w", r.f.name, err)
			r.cur.Release()
			r.cur = nil
			r.left = 0
			r.next = len(r.stripes)
			return false
		}
	}
	return true
}

// buffer returns a pooled buffer of length n and records it as held by
// the current stripe.
func (r *recordReader) buffer(n int) []byte {
	b := getBuf(n)
	r.held = append(r.held, b)
	return b
}

// recycle returns the current stripe's buffers to the pools; the column
// readers that sliced them must already be gone.
func (r *recordReader) recycle() {
	for i, b := range r.held {
		putBuf(b)
		r.held[i] = nil
	}
	r.held = r.held[:0]
}

func (r *recordReader) openStripe(si int) error {
	s := r.f.stripes[si]
	r.root = nil
	r.recycle()
	if s.NumRows == 0 {
		return nil
	}
	if r.dec == nil {
		blockSize := defaultBlockSize
		if r.f.ps.hasBlockSize {
			blockSize = int(r.f.ps.blockSize)
		}
		dec, err := newDecompressor(r.f.ps.compression, blockSize)
		if err != nil {
			return err
		}
		r.dec = dec
	}
	footOff := int64(s.Offset + s.IndexLength + s.DataLength)
	raw := make([]byte, s.FooterLength)
	if err := readFull(r.f.r, raw, footOff); err != nil {
		return fmt.Errorf("stripe %d: read footer at offset %d: %w", si, footOff, err)
	}
	what := fmt.Sprintf("stripe %d footer at offset %d", si, footOff)
	// The footer is parsed into values (no slices of fb survive), so it
	// decompresses into a stripe buffer rather than a fresh block-sized one.
	fb, err := r.dec.expand(r.buffer(r.dec.expandedBound(raw))[:0], raw, what)
	if err != nil {
		return err
	}
	sf, err := parseStripeFooter(fb)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(sf.columns) < len(r.f.types) {
		return fmt.Errorf("%w: %s: %d column encodings for %d columns", ErrCorrupt, what, len(sf.columns), len(r.f.types))
	}
	// Locate the selected streams; they follow each other from the stripe start.
	type loc struct {
		key      streamKey
		off, len uint64
	}
	var want []loc
	off := s.Offset
	end := s.Offset + s.IndexLength + s.DataLength
	for _, st := range sf.streams {
		if st.length > end-off {
			return fmt.Errorf("%w: %s: stream %s of column %d (%d bytes at offset %d) overruns the stripe ending at %d",
				ErrCorrupt, what, st.kind, st.column, st.length, off, end)
		}
		if int(st.column) < len(r.f.types) && r.sel.include[st.column] && st.kind <= StreamSecondary {
			want = append(want, loc{streamKey{st.column, st.kind}, off, st.length})
		}
		off += st.length
	}
	sort.Slice(want, func(i, j int) bool { return want[i].off < want[j].off })
	streams := make(map[streamKey][]byte, len(want))
	// Read the selected streams with one read per contiguous run.
	for i := 0; i < len(want); {
		j := i + 1
		for j < len(want) && want[j].off-(want[j-1].off+want[j-1].len) < 64<<10 {
			j++
		}
		start, stop := want[i].off, want[j-1].off+want[j-1].len
		buf := r.buffer(int(stop - start))
		if err := readFull(r.f.r, buf, int64(start)); err != nil {
			return fmt.Errorf("stripe %d: read streams at offset %d: %w", si, start, err)
		}
		for _, w := range want[i:j] {
			b := buf[w.off-start : w.off-start+w.len]
			sw := fmt.Sprintf("stripe %d column %d stream %s at offset %d", si, w.key.col, w.key.kind, w.off)
			if _, dup := streams[w.key]; dup {
				return fmt.Errorf("%w: %s: duplicate stream", ErrCorrupt, sw)
			}
			if r.f.ps.compression != CompressionNone {
				if b, err = r.dec.expand(r.buffer(r.dec.expandedBound(b))[:0], b, sw); err != nil {
					return err
				}
				if len(b) > maxStreamBytes {
					return fmt.Errorf("%w: %s: decompresses to %d bytes", ErrUnsupported, sw, len(b))
				}
			}
			streams[w.key] = b
		}
		i = j
	}
	var total int64
	for _, b := range streams {
		total += int64(len(b))
	}
	c := &stripeCtx{mem: r.mem, streams: streams, enc: sf.columns, stripe: si, version: r.f.ps.version, unit: r.sel.unit,
		maxValues: valueBudget(total), scratch: r.buffer}
	// The zone matters only to TIMESTAMP columns; a name this reader cannot
	// resolve must not fail reads that do not need it.
	if sf.hasTZ && sf.timezone != "" && r.sel.localTimestamps {
		l, err := r.location(sf.timezone)
		if err != nil {
			return fmt.Errorf("%w: %s: writer time zone %q: %v", ErrUnsupported, what, sf.timezone, err)
		}
		c.loc = l
	}
	root, err := r.f.buildReader(c, 0, r.sel, 0)
	if err != nil {
		return err
	}
	if !r.f.rootIsStruct() {
		r.root = &structReader{c: c, dt: arrow.StructOf(r.schema.Fields()...), children: []colReader{root}}
		r.left = s.NumRows
		return nil
	}
	sr := root.(*structReader)
	// Order the root's children as the selection asks.
	rootT := r.f.types[0]
	pos := map[int]int{}
	k := 0
	for i := range rootT.subtypes {
		if r.sel.include[rootT.subtypes[i]] {
			pos[i] = k
			k++
		}
	}
	kids := make([]colReader, len(r.sel.top))
	for i, fi := range r.sel.top {
		kids[i] = sr.children[pos[fi]]
	}
	sr.children = kids
	sr.dt = arrow.StructOf(r.schema.Fields()...)
	r.root = sr
	r.left = s.NumRows
	return nil
}

func (r *recordReader) location(name string) (*time.Location, error) {
	if l, ok := r.locs[name]; ok {
		return l, nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		var ok bool
		if l, ok = fixedZone(name); !ok {
			return nil, err
		}
	}
	if r.locs == nil {
		r.locs = map[string]*time.Location{}
	}
	r.locs[name] = l
	return l, nil
}

// buildReader makes the reader of type id for one stripe.
func (f *File) buildReader(c *stripeCtx, id int, sel *selection, depth int) (colReader, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: types nested deeper than %d", ErrUnsupported, maxNesting)
	}
	t := f.types[id]
	var inc []bool
	if sel != nil {
		inc = sel.include
	}
	dt, err := f.arrowType(id, inc, depth, c.unit)
	if err != nil {
		return nil, err
	}
	enc := c.enc[id].kind
	v2 := enc == encDirectV2 || enc == encDictionaryV2
	data, _ := c.stream(id, StreamData)
	checkEnc := func(ok ...encodingKind) error {
		for _, k := range ok {
			if enc == k {
				return nil
			}
		}
		return fmt.Errorf("%w: stripe %d column %d: encoding %s is invalid for %s", ErrCorrupt, c.stripe, id, enc, t.kind)
	}
	switch t.kind {
	case KindBoolean:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		return &boolReader{c: c, p: newPresence(c, id), data: newBoolRLE(data, c.what(id, StreamData))}, nil
	case KindByte:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		return &intReader{c: c, col: id, p: newPresence(c, id), dt: dt,
			data: &byteSource{d: byteRLE{src: data, what: c.what(id, StreamData)}}}, nil
	case KindShort, KindInt, KindLong, KindDate:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		return &intReader{c: c, col: id, p: newPresence(c, id), dt: dt,
			data: newIntDecoder(data, true, v2, c.what(id, StreamData))}, nil
	case KindFloat, KindDouble:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		w := 8
		if t.kind == KindFloat {
			w = 4
		}
		return &floatReader{c: c, col: id, p: newPresence(c, id), data: data, width: w, dt: dt}, nil
	case KindString, KindVarchar, KindChar, KindBinary:
		if t.kind == KindBinary {
			if err := checkEnc(encDirect, encDirectV2); err != nil {
				return nil, err
			}
		}
		return newStringReader(c, id, dt)
	case KindTimestamp, KindTimestampInstant:
		return newTimestampReader(c, id, t.kind == KindTimestampInstant, dt)
	case KindDecimal:
		return newDecimalReader(c, id, t, dt.(*arrow.Decimal128Type))
	case KindStruct:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		sr := &structReader{c: c, p: newPresence(c, id), dt: dt.(*arrow.StructType)}
		for _, sub := range t.subtypes {
			if sel != nil && !sel.include[sub] {
				continue
			}
			ch, err := f.buildReader(c, int(sub), sel, depth+1)
			if err != nil {
				return nil, err
			}
			sr.children = append(sr.children, ch)
		}
		return sr, nil
	case KindList, KindMap:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		lb, _ := c.stream(id, StreamLength)
		lr := &listReader{c: c, col: id, p: newPresence(c, id), dt: dt}
		if lb != nil {
			lr.lengths = newIntDecoder(lb, false, v2, c.what(id, StreamLength))
		}
		for _, sub := range t.subtypes {
			ch, err := f.buildReader(c, int(sub), nil, depth+1)
			if err != nil {
				return nil, err
			}
			lr.elems = append(lr.elems, ch)
		}
		return lr, nil
	case KindUnion:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		ur := &unionReader{c: c, col: id, p: newPresence(c, id), dt: dt.(*arrow.StructType),
			tags: byteRLE{src: data, what: c.what(id, StreamData)}}
		for _, sub := range t.subtypes {
			ch, err := f.buildReader(c, int(sub), nil, depth+1)
			if err != nil {
				return nil, err
			}
			ur.children = append(ur.children, ch)
		}
		return ur, nil
	}
	return nil, fmt.Errorf("%w: column %d has type %s", ErrUnsupported, id, t.kind)
}

// fixedZone parses the custom zone ids Java writes for fixed offsets:
// "GMT+08:00", "GMT-0530", "UTC+8".
func fixedZone(name string) (*time.Location, bool) {
	var rest string
	switch {
	case strings.HasPrefix(name, "GMT"):
		rest = name[3:]
	case strings.HasPrefix(name, "UTC"):
		rest = name[3:]
	default:
		return nil, false
	}
	if len(rest) < 2 || (rest[0] != '+' && rest[0] != '-') {
		return nil, false
	}
	sign := 1
	if rest[0] == '-' {
		sign = -1
	}
	digits := strings.ReplaceAll(rest[1:], ":", "")
	var h, m int
	switch len(digits) {
	case 1, 2:
		h = atoiOr(digits, -1)
	case 3, 4:
		h, m = atoiOr(digits[:len(digits)-2], -1), atoiOr(digits[len(digits)-2:], -1)
	default:
		return nil, false
	}
	if h < 0 || h > 18 || m < 0 || m > 59 {
		return nil, false
	}
	return time.FixedZone(name, sign*(h*3600+m*60)), true
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}
