package record

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/typemap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// ChangeTypes is the change-type vector of a batch, aliasing the batch
// bytes (no copy). A batch with the append-only attribute has no vector:
// every record is +A.
type ChangeTypes struct {
	raw []byte // nil ⇒ all AppendOnly
	n   int
}

// Len is the number of records.
func (c ChangeTypes) Len() int { return c.n }

// AppendOnlyBatch reports a batch without a vector (all +A).
func (c ChangeTypes) AppendOnlyBatch() bool { return c.raw == nil }

// At is the change type of record i.
func (c ChangeTypes) At(i int) ChangeType {
	if c.raw == nil {
		return AppendOnly
	}
	return ChangeType(c.raw[i])
}

// Slice copies the vector out.
func (c ChangeTypes) Slice() []ChangeType {
	out := make([]ChangeType, c.n)
	for i := range out {
		out[i] = c.At(i)
	}
	return out
}

// changeTypesOf splits the change-type vector (if any) off a records section.
func changeTypesOf(lb *LogBatch) (ChangeTypes, []byte, error) {
	n := int(lb.Header.RecordCount)
	if lb.Header.AppendOnly() {
		return ChangeTypes{n: n}, lb.Records, nil
	}
	if len(lb.Records) < n {
		return ChangeTypes{}, nil, fmt.Errorf("%w: change-type vector of %d records, only %d bytes in the records section", ErrCorrupt, n, len(lb.Records))
	}
	ct := lb.Records[:n]
	for i, c := range ct {
		if c > byte(Delete) {
			return ChangeTypes{}, nil, fmt.Errorf("%w: change type %d of record %d (byte %d of the records section)", ErrCorrupt, c, i, i)
		}
	}
	return ChangeTypes{raw: ct, n: n}, lb.Records[n:], nil
}

// ArrowOptions tune ARROW decoding.
type ArrowOptions struct {
	// MaxUncompressedBytes caps the decompressed size of one batch body; 0
	// means 1 GiB. Checked before any decompression buffer is allocated.
	MaxUncompressedBytes int64
}

// ArrowDecoder turns ARROW log batches of one schema into Arrow record
// batches. Buffers of uncompressed bodies are slices of one aligned copy of
// the body (no per-row work); compressed buffers are decompressed straight
// into allocator memory. A decoder belongs to one goroutine; Close it.
type ArrowDecoder struct {
	schema   *arrow.Schema
	mem      memory.Allocator
	maxBytes int64
	nNodes   int
	nBufs    int
	zstd     *zstd.Decoder
	lz4      *lz4.Reader
}

// NewArrowDecoder builds a decoder for rows of cols (the batch's schema, or
// the projected columns for a projected fetch).
func NewArrowDecoder(cols []typemap.Column, mem memory.Allocator, opts ArrowOptions) (*ArrowDecoder, error) {
	schema, err := typemap.ArrowSchema(cols)
	if err != nil {
		return nil, err
	}
	d := &ArrowDecoder{schema: schema, mem: mem, maxBytes: opts.MaxUncompressedBytes}
	if d.maxBytes <= 0 {
		d.maxBytes = 1 << 30
	}
	for _, f := range schema.Fields() {
		n, b := countLayout(f.Type)
		d.nNodes += n
		d.nBufs += b
	}
	return d, nil
}

// Schema is the Arrow schema of decoded batches.
func (d *ArrowDecoder) Schema() *arrow.Schema { return d.schema }

// Close frees decompressor state.
func (d *ArrowDecoder) Close() {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}

// countLayout returns the number of field nodes and buffers a type
// contributes to a RecordBatch (pre-order).
func countLayout(t arrow.DataType) (nodes, bufs int) {
	switch t := t.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		return 1, 3
	case *arrow.ListType:
		n, b := countLayout(t.Elem())
		return 1 + n, 2 + b
	case *arrow.MapType:
		n, b := countLayout(t.Elem())
		return 1 + n, 2 + b
	case *arrow.StructType:
		nodes, bufs = 1, 1
		for _, f := range t.Fields() {
			n, b := countLayout(f.Type)
			nodes += n
			bufs += b
		}
		return nodes, bufs
	}
	return 1, 2
}

// Decode decodes an ARROW batch into a record batch plus its change types.
// The caller owns the record and must Release it. A 0-record batch yields
// an empty record with the decoder's schema.
func (d *ArrowDecoder) Decode(lb *LogBatch) (arrow.RecordBatch, ChangeTypes, error) {
	ct, rest, err := changeTypesOf(lb)
	if err != nil {
		return nil, ChangeTypes{}, err
	}
	n := int64(lb.Header.RecordCount)
	if n == 0 {
		return emptyRecord(d.schema, d.mem), ct, nil
	}
	meta, after, err := splitIPCMessage(rest)
	if err != nil {
		return nil, ChangeTypes{}, err
	}
	m, err := parseRecordBatchMeta(meta, d.nNodes+d.nBufs)
	if err != nil {
		return nil, ChangeTypes{}, err
	}
	if m.bodyLength > int64(len(after)) {
		return nil, ChangeTypes{}, fmt.Errorf("%w: arrow body length %d, %d bytes left in the batch", ErrCorrupt, m.bodyLength, len(after))
	}
	if extra := int64(len(after)) - m.bodyLength; extra != 0 {
		return nil, ChangeTypes{}, fmt.Errorf("%w: %d bytes after the arrow body", ErrCorrupt, extra)
	}
	if m.length != n {
		return nil, ChangeTypes{}, fmt.Errorf("%w: arrow RecordBatch has %d rows, batch header says %d", ErrCorrupt, m.length, n)
	}
	if len(m.nodes) != d.nNodes || len(m.buffers) != d.nBufs {
		return nil, ChangeTypes{}, fmt.Errorf("%w: arrow RecordBatch has %d field nodes and %d buffers, schema %v needs %d and %d",
			ErrCorrupt, len(m.nodes), len(m.buffers), d.schema, d.nNodes, d.nBufs)
	}
	body := memory.NewResizableBuffer(d.mem)
	body.Resize(int(m.bodyLength))
	copy(body.Bytes(), after)
	defer body.Release()
	st := &loadState{d: d, m: &m, body: body, budget: d.maxBytes}
	defer st.releaseAll()
	cols := make([]arrow.Array, 0, len(d.schema.Fields()))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, f := range d.schema.Fields() {
		data, err := st.load(f, n, f.Name)
		if err != nil {
			return nil, ChangeTypes{}, err
		}
		if int64(data.Len()) != n {
			data.Release()
			return nil, ChangeTypes{}, fmt.Errorf("%w: column %q has %d rows, batch has %d", ErrCorrupt, f.Name, data.Len(), n)
		}
		cols = append(cols, array.MakeFromData(data))
		data.Release()
	}
	return array.NewRecordBatch(d.schema, cols, n), ct, nil
}

func emptyRecord(schema *arrow.Schema, mem memory.Allocator) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	return b.NewRecordBatch()
}

type loadState struct {
	d       *ArrowDecoder
	m       *rbMeta
	body    *memory.Buffer
	node    int
	buf     int
	budget  int64
	created []*memory.Buffer
}

func (s *loadState) releaseAll() {
	for _, b := range s.created {
		b.Release()
	}
}

func (s *loadState) keep(b *memory.Buffer) *memory.Buffer {
	s.created = append(s.created, b)
	return b
}

// nextBuffer returns buffer i of the body, decompressed if needed.
func (s *loadState) nextBuffer(col string) (*memory.Buffer, error) {
	i := s.buf
	s.buf++
	spec := s.m.buffers[i]
	if spec.offset < 0 || spec.length < 0 || spec.offset > int64(s.body.Len()) || spec.length > int64(s.body.Len())-spec.offset {
		return nil, fmt.Errorf("%w: column %q buffer %d at body offset %d length %d outside the %d-byte body",
			ErrCorrupt, col, i, spec.offset, spec.length, s.body.Len())
	}
	if spec.length == 0 {
		return nil, nil
	}
	if s.m.codec == codecNone {
		return s.keep(memory.SliceBuffer(s.body, int(spec.offset), int(spec.length))), nil
	}
	raw := s.body.Bytes()[spec.offset : spec.offset+spec.length]
	if len(raw) < 8 {
		return nil, fmt.Errorf("%w: column %q compressed buffer %d of %d bytes lacks its length prefix", ErrCorrupt, col, i, len(raw))
	}
	ul := int64(binary.LittleEndian.Uint64(raw))
	if ul == -1 {
		return s.keep(memory.SliceBuffer(s.body, int(spec.offset)+8, int(spec.length)-8)), nil
	}
	if ul == 0 {
		return nil, nil
	}
	if ul < 0 || ul > s.budget {
		return nil, fmt.Errorf("%w: column %q buffer %d claims %d uncompressed bytes, limit left %d", ErrCorrupt, col, i, ul, s.budget)
	}
	s.budget -= ul
	out := s.keep(memory.NewResizableBuffer(s.d.mem))
	// Room past the end: ZSTD's fast sequence decoder over-writes a few
	// bytes and, without it, takes the bounds-checked path (a quarter
	// slower on the log tail of TPC-H lineitem).
	out.Reserve(int(ul) + zstdSlack)
	out.ResizeNoShrink(int(ul))
	if err := s.d.decompress(s.m.codec, raw[8:], out.Bytes()); err != nil {
		return nil, fmt.Errorf("column %q buffer %d: %w", col, i, err)
	}
	return out, nil
}

// zstdSlack is the spare capacity a decompressed buffer gets.
const zstdSlack = 64

func (d *ArrowDecoder) decompress(codec int8, src, dst []byte) error {
	switch codec {
	case codecZstd:
		if d.zstd == nil {
			z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(d.maxBytes)))
			if err != nil {
				return err
			}
			d.zstd = z
		}
		out, err := d.zstd.DecodeAll(src, dst[:0])
		if err != nil {
			return fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
		}
		if len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[0]) {
			return fmt.Errorf("%w: zstd buffer decompressed to %d bytes, prefix says %d", ErrCorrupt, len(out), len(dst))
		}
	case codecLZ4Frame:
		if d.lz4 == nil {
			d.lz4 = lz4.NewReader(nil)
		}
		d.lz4.Reset(bytes.NewReader(src))
		if _, err := io.ReadFull(d.lz4, dst); err != nil {
			return fmt.Errorf("%w: lz4 frame: %v", ErrCorrupt, err)
		}
		var one [1]byte
		if k, _ := d.lz4.Read(one[:]); k != 0 {
			return fmt.Errorf("%w: lz4 frame longer than its prefix says (%d bytes)", ErrCorrupt, len(dst))
		}
	default:
		return fmt.Errorf("%w: arrow compression codec %d", ErrUnsupported, codec)
	}
	return nil
}

var zeroOffsets = [4]byte{}

// load builds the ArrayData of one field from the next nodes and buffers,
// checking every size the arrays will rely on.
func (s *loadState) load(f arrow.Field, maxLen int64, col string) (arrow.ArrayData, error) {
	node := s.m.nodes[s.node]
	s.node++
	length := node.length
	if length < 0 || node.nullCount < 0 || node.nullCount > length {
		return nil, fmt.Errorf("%w: column %q field node length %d null count %d", ErrCorrupt, col, length, node.nullCount)
	}
	if length > maxLen {
		return nil, fmt.Errorf("%w: column %q has %d values, at most %d possible", ErrCorrupt, col, length, maxLen)
	}
	validity, err := s.nextBuffer(col)
	if err != nil {
		return nil, err
	}
	nulls := 0
	if validity != nil && int64(validity.Len()) >= bitutil.BytesForBits(length) {
		nulls = int(length) - bitutil.CountSetBits(validity.Bytes(), 0, int(length))
	} else if node.nullCount != 0 {
		return nil, fmt.Errorf("%w: column %q has %d nulls but a %d-byte validity buffer for %d values", ErrCorrupt, col, node.nullCount, bufLen(validity), length)
	} else {
		validity = nil
	}
	n := int(length)
	switch t := f.Type.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		offsets, err := s.nextBuffer(col)
		if err != nil {
			return nil, err
		}
		data, err := s.nextBuffer(col)
		if err != nil {
			return nil, err
		}
		offsets, err = checkOffsets(offsets, n, int64(bufLen(data)), col)
		if err != nil {
			return nil, err
		}
		return array.NewData(t, n, []*memory.Buffer{validity, offsets, data}, nil, nulls, 0), nil
	case *arrow.ListType, *arrow.MapType:
		offsets, err := s.nextBuffer(col)
		if err != nil {
			return nil, err
		}
		elem := t.(arrow.ListLikeType).ElemField()
		child, err := s.load(elem, s.budgetRows(), col+"."+elem.Name)
		if err != nil {
			return nil, err
		}
		if offsets, err = checkOffsets(offsets, n, int64(child.Len()), col); err != nil {
			child.Release()
			return nil, err
		}
		if _, ok := t.(*arrow.MapType); ok && n > 0 {
			if err := checkMapKeys(child, col); err != nil {
				child.Release()
				return nil, err
			}
		}
		d := array.NewData(t, n, []*memory.Buffer{validity, offsets}, []arrow.ArrayData{child}, nulls, 0)
		child.Release()
		return d, nil
	case *arrow.StructType:
		children := make([]arrow.ArrayData, 0, t.NumFields())
		release := func() {
			for _, c := range children {
				c.Release()
			}
		}
		for _, cf := range t.Fields() {
			c, err := s.load(cf, s.budgetRows(), col+"."+cf.Name)
			if err != nil {
				release()
				return nil, err
			}
			children = append(children, c)
			if c.Len() < n {
				release()
				return nil, fmt.Errorf("%w: struct column %q child %q has %d values, parent %d", ErrCorrupt, col, cf.Name, c.Len(), n)
			}
		}
		d := array.NewData(t, n, []*memory.Buffer{validity}, children, nulls, 0)
		release()
		return d, nil
	}
	width, bits := fixedWidth(f.Type)
	if width == 0 && !bits {
		return nil, fmt.Errorf("%w: arrow type %s of column %q", ErrUnsupported, f.Type, col)
	}
	data, err := s.nextBuffer(col)
	if err != nil {
		return nil, err
	}
	need := int64(n) * int64(width)
	if bits {
		need = bitutil.BytesForBits(int64(n))
	}
	if int64(bufLen(data)) < need {
		return nil, fmt.Errorf("%w: column %q data buffer of %d bytes for %d %s values (need %d)", ErrCorrupt, col, bufLen(data), n, f.Type, need)
	}
	return array.NewData(f.Type, n, []*memory.Buffer{validity, data}, nil, nulls, 0), nil
}

// budgetRows bounds child lengths by what the remaining decompression
// budget and body could hold; the real check is against buffer sizes.
func (s *loadState) budgetRows() int64 { return int64(s.body.Len())*8 + s.d.maxBytes*8 }

func bufLen(b *memory.Buffer) int {
	if b == nil {
		return 0
	}
	return b.Len()
}

func fixedWidth(t arrow.DataType) (width int, bits bool) {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return 0, true
	case *arrow.FixedSizeBinaryType:
		return t.ByteWidth, false
	case arrow.FixedWidthDataType:
		return t.BitWidth() / 8, false
	}
	return 0, false
}

// checkOffsets validates an int32 offsets buffer of n values against the
// size of what it indexes; an absent buffer is fine only for n == 0.
func checkOffsets(offsets *memory.Buffer, n int, limit int64, col string) (*memory.Buffer, error) {
	if n == 0 {
		if offsets == nil {
			return memory.NewBufferBytes(zeroOffsets[:]), nil
		}
		return offsets, nil
	}
	if bufLen(offsets) < 4*(n+1) {
		return nil, fmt.Errorf("%w: column %q offsets buffer of %d bytes for %d values", ErrCorrupt, col, bufLen(offsets), n)
	}
	b := offsets.Bytes()
	prev := int32(binary.LittleEndian.Uint32(b))
	if prev < 0 {
		return nil, fmt.Errorf("%w: column %q first offset %d", ErrCorrupt, col, prev)
	}
	for i := 1; i <= n; i++ {
		o := int32(binary.LittleEndian.Uint32(b[4*i:]))
		if o < prev {
			return nil, fmt.Errorf("%w: column %q offset %d of value %d is below the previous %d", ErrCorrupt, col, o, i, prev)
		}
		prev = o
	}
	if int64(prev) > limit {
		return nil, fmt.Errorf("%w: column %q last offset %d beyond the %d bytes or values it indexes", ErrCorrupt, col, prev, limit)
	}
	return offsets, nil
}

// checkMapKeys rejects null map keys, which arrow-go's Map array refuses.
func checkMapKeys(entries arrow.ArrayData, col string) error {
	if entries.NullN() != 0 {
		return fmt.Errorf("%w: map column %q has null entries", ErrCorrupt, col)
	}
	if ch := entries.Children(); len(ch) > 0 && ch[0].NullN() != 0 {
		return fmt.Errorf("%w: map column %q has null keys", ErrCorrupt, col)
	}
	return nil
}
