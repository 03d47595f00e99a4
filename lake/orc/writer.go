package orc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"google.golang.org/protobuf/encoding/protowire"
)

// MetaTypeHint is an Arrow field metadata key the writer reads: "char(n)"
// or "varchar(n)" writes a string column as that ORC type. Every other
// field metadata key except MetaColumnID is written as an ORC type
// attribute (Paimon puts "paimon.id" there).
const MetaTypeHint = "orc.type"

// writerVersion is the postscript writer version: 6 (ORC-135) tells
// readers that timestamp statistics carry UTC bounds and that string and
// decimal statistics are trustworthy.
const writerVersion = 6

// WriterOptions configure a Writer. The zero value of every field but Mem
// means the default.
type WriterOptions struct {
	// Mem holds every stream buffer of the current stripe. Required.
	Mem memory.Allocator
	// Compression is a codec name as Paimon's file.compression and ORC's
	// orc.compress spell it: zstd (default), zlib, snappy, lz4, none.
	Compression string
	// ZstdLevel is the zstd level (default 1, as Paimon's
	// file.compression.zstd-level).
	ZstdLevel int
	// StripeSize bounds the encoded, uncompressed bytes buffered for one
	// stripe (default 64 MiB, as orc.stripe.size).
	StripeSize int64
	// BlockSize is the compression chunk size (default 256 KiB, as
	// orc.compress.size).
	BlockSize int
	// Metadata is written as the file's user metadata.
	Metadata map[string][]byte
}

// ParseCompression maps a codec name (case-insensitive; "uncompressed" is
// NONE) to its kind.
func ParseCompression(name string) (CompressionKind, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "zstd":
		return CompressionZstd, nil
	case "none", "uncompressed":
		return CompressionNone, nil
	case "zlib":
		return CompressionZlib, nil
	case "snappy":
		return CompressionSnappy, nil
	case "lz4":
		return CompressionLZ4, nil
	}
	return 0, fmt.Errorf("%w: ORC compression %q (want zstd, zlib, snappy, lz4 or none)", ErrUnsupported, name)
}

// Writer writes Arrow record batches as one ORC file. Stripes are flushed
// when their buffered streams reach WriterOptions.StripeSize; each stripe's
// statistics go to the file's metadata section and are merged into the
// footer's file statistics. A Writer belongs to one goroutine.
type Writer struct {
	w          io.Writer
	off        uint64
	opts       WriterOptions
	comp       CompressionKind
	schema     *arrow.Schema
	types      [][]byte // encoded Type messages by column id
	root       *colW
	cols       []*colW
	stripes    [][]byte // encoded StripeInformation
	stripeStat [][]byte // encoded StripeStatistics
	rows       uint64
	stripeRows uint64
	zenc       *zstd.Encoder
	scratch    []byte
	closed     bool
	err        error
}

// NewWriter starts an ORC file on w for batches of schema. Supported Arrow
// types: boolean, int8..int64, float32/64, string, binary, date32,
// time32 (as int), timestamp (no zone → ORC timestamp in UTC wall clock;
// a zone → timestamp with local time zone), decimal128, and list, map and
// struct of those.
func NewWriter(w io.Writer, schema *arrow.Schema, opts WriterOptions) (*Writer, error) {
	if opts.Mem == nil {
		return nil, fmt.Errorf("%w: ORC writer needs an allocator", ErrUnsupported)
	}
	comp, err := ParseCompression(opts.Compression)
	if err != nil {
		return nil, err
	}
	if opts.StripeSize <= 0 {
		opts.StripeSize = 64 << 20
	}
	if opts.BlockSize <= 0 {
		opts.BlockSize = defaultBlockSize
	}
	if opts.BlockSize > maxBlockSize || opts.BlockSize >= 1<<23 {
		return nil, fmt.Errorf("%w: ORC compression block size %d too large", ErrUnsupported, opts.BlockSize)
	}
	if opts.ZstdLevel <= 0 {
		opts.ZstdLevel = 1
	}
	wr := &Writer{w: w, opts: opts, comp: comp, schema: schema}
	root := &colW{kind: KindStruct, wr: wr}
	wr.root = root
	wr.add(root)
	var typ []byte
	for _, f := range schema.Fields() {
		c, err := wr.build(f)
		if err != nil {
			wr.release()
			return nil, err
		}
		root.children = append(root.children, c)
		typ = protowire.AppendTag(typ, 3, protowire.BytesType)
		typ = protowire.AppendString(typ, f.Name)
	}
	var sub []byte
	for _, c := range root.children {
		sub = protowire.AppendVarint(sub, uint64(c.id))
	}
	wr.types[0] = appendType(nil, KindStruct, sub, typ, nil)
	if comp == CompressionZstd {
		wr.zenc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(opts.ZstdLevel)), zstd.WithLowerEncoderMem(true))
		if err != nil {
			wr.release()
			return nil, fmt.Errorf("%w: zstd encoder: %v", ErrUnsupported, err)
		}
	}
	if err := wr.emit([]byte(magic)); err != nil {
		wr.release()
		return nil, err
	}
	return wr, nil
}

func (wr *Writer) add(c *colW) {
	c.id = len(wr.cols)
	c.wr = wr
	wr.cols = append(wr.cols, c)
	wr.types = append(wr.types, nil)
}

func appendType(b []byte, kind TypeKind, subtypes, rest []byte, attrs [][2]string) []byte {
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(kind))
	if len(subtypes) > 0 {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, subtypes)
	}
	b = append(b, rest...)
	for _, a := range attrs {
		var kv []byte
		kv = protowire.AppendTag(kv, 1, protowire.BytesType)
		kv = protowire.AppendString(kv, a[0])
		kv = protowire.AppendTag(kv, 2, protowire.BytesType)
		kv = protowire.AppendString(kv, a[1])
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		b = protowire.AppendBytes(b, kv)
	}
	return b
}

// build makes the column writer (and ORC types, in pre-order) of field f.
func (wr *Writer) build(f arrow.Field) (*colW, error) {
	c := &colW{dt: f.Type}
	wr.add(c)
	var attrs [][2]string
	hint := ""
	for i, k := range f.Metadata.Keys() {
		switch k {
		case MetaColumnID:
		case MetaTypeHint:
			hint = f.Metadata.Values()[i]
		default:
			attrs = append(attrs, [2]string{k, f.Metadata.Values()[i]})
		}
	}
	var rest, sub []byte
	child := func(cf arrow.Field) error {
		cc, err := wr.build(cf)
		if err != nil {
			return err
		}
		c.children = append(c.children, cc)
		sub = protowire.AppendVarint(sub, uint64(cc.id))
		return nil
	}
	switch t := f.Type.(type) {
	case *arrow.BooleanType:
		c.kind = KindBoolean
	case *arrow.Int8Type:
		c.kind = KindByte
	case *arrow.Int16Type:
		c.kind = KindShort
	case *arrow.Int32Type, *arrow.Time32Type:
		c.kind = KindInt
	case *arrow.Int64Type:
		c.kind = KindLong
	case *arrow.Float32Type:
		c.kind = KindFloat
	case *arrow.Float64Type:
		c.kind = KindDouble
	case *arrow.StringType, *arrow.LargeStringType:
		c.kind = KindString
		if hint != "" {
			k, n, err := parseHint(hint)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
			c.kind = k
			rest = protowire.AppendTag(rest, 4, protowire.VarintType)
			rest = protowire.AppendVarint(rest, uint64(n))
		}
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		c.kind = KindBinary
	case *arrow.Date32Type:
		c.kind = KindDate
	case *arrow.TimestampType:
		c.kind = KindTimestamp
		if t.TimeZone != "" {
			c.kind = KindTimestampInstant
		}
		c.unit = t.Unit
	case *arrow.Decimal128Type:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return nil, fmt.Errorf("%w: column %s: ORC cannot store %s", ErrUnsupported, f.Name, t)
		}
		c.kind = KindDecimal
		rest = protowire.AppendTag(rest, 5, protowire.VarintType)
		rest = protowire.AppendVarint(rest, uint64(t.Precision))
		rest = protowire.AppendTag(rest, 6, protowire.VarintType)
		rest = protowire.AppendVarint(rest, uint64(t.Scale))
		c.scale = t.Scale
	case *arrow.MapType: // before ListType: a map is a list too
		c.kind = KindMap
		if err := child(arrow.Field{Name: "key", Type: t.KeyType()}); err != nil {
			return nil, err
		}
		if err := child(t.ItemField()); err != nil {
			return nil, err
		}
	case *arrow.ListType:
		c.kind = KindList
		if err := child(t.ElemField()); err != nil {
			return nil, err
		}
	case *arrow.StructType:
		c.kind = KindStruct
		for _, cf := range t.Fields() {
			if err := child(cf); err != nil {
				return nil, err
			}
			rest = protowire.AppendTag(rest, 3, protowire.BytesType)
			rest = protowire.AppendString(rest, cf.Name)
		}
	default:
		return nil, fmt.Errorf("%w: column %s: no ORC type for Arrow %s", ErrUnsupported, f.Name, f.Type)
	}
	wr.types[c.id] = appendType(nil, c.kind, sub, rest, attrs)
	c.init(wr.opts.Mem)
	return c, nil
}

func parseHint(h string) (TypeKind, int, error) {
	h = strings.ToLower(strings.TrimSpace(h))
	var kind TypeKind
	var num string
	switch {
	case strings.HasPrefix(h, "char(") && strings.HasSuffix(h, ")"):
		kind, num = KindChar, h[5:len(h)-1]
	case strings.HasPrefix(h, "varchar(") && strings.HasSuffix(h, ")"):
		kind, num = KindVarchar, h[8:len(h)-1]
	default:
		return 0, 0, fmt.Errorf("%w: %s %q (want char(n) or varchar(n))", ErrUnsupported, MetaTypeHint, h)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, 0, fmt.Errorf("%w: %s %q: bad length", ErrUnsupported, MetaTypeHint, h)
	}
	return kind, n, nil
}

// writeChunk is the number of rows encoded between stripe-size checks.
const writeChunk = 4096

// Write appends the rows of rec, whose schema must equal the writer's.
func (wr *Writer) Write(rec arrow.RecordBatch) error {
	return wr.WriteContext(context.Background(), rec)
}

// WriteContext is Write that stops between chunks of rows when ctx ends.
func (wr *Writer) WriteContext(ctx context.Context, rec arrow.RecordBatch) error {
	if wr.err != nil {
		return wr.err
	}
	if wr.closed {
		return fmt.Errorf("%w: ORC writer is closed", ErrUnsupported)
	}
	// Types must agree; field names and metadata may differ (the file's
	// schema carries attributes the caller's batches need not).
	if int(rec.NumCols()) != wr.schema.NumFields() {
		return fmt.Errorf("%w: ORC writer: batch has %d columns, the file %d", ErrUnsupported, rec.NumCols(), wr.schema.NumFields())
	}
	for i, f := range wr.schema.Fields() {
		if !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
			return fmt.Errorf("%w: ORC writer: column %s: batch type %s, the file's %s", ErrUnsupported, f.Name, rec.Column(i).DataType(), f.Type)
		}
	}
	n := int(rec.NumRows())
	for lo := 0; lo < n; lo += writeChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+writeChunk)
		for i, c := range wr.root.children {
			col := rec.Column(i)
			if lo != 0 || hi != n {
				col = array.NewSlice(col, int64(lo), int64(hi))
			}
			err := c.write(col, nil)
			if lo != 0 || hi != n {
				col.Release()
			}
			if err != nil {
				return wr.fail(fmt.Errorf("ORC column %s: %w", wr.schema.Field(i).Name, err))
			}
		}
		k := uint64(hi - lo)
		wr.stripeRows += k
		wr.root.stripe.n += k
		if wr.buffered() >= wr.opts.StripeSize {
			if err := wr.flushStripe(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (wr *Writer) fail(err error) error {
	if wr.err == nil {
		wr.err = err
	}
	return err
}

func (wr *Writer) buffered() int64 {
	var n int64
	for _, c := range wr.cols {
		n += c.size()
	}
	return n
}

func (wr *Writer) emit(p []byte) error {
	if _, err := wr.w.Write(p); err != nil {
		return wr.fail(fmt.Errorf("ORC writer: %w", err))
	}
	wr.off += uint64(len(p))
	return nil
}

// emitCompressed writes p in the file's chunked compression framing and
// returns the number of bytes written.
func (wr *Writer) emitCompressed(p []byte) (uint64, error) {
	if wr.comp == CompressionNone {
		return uint64(len(p)), wr.emit(p)
	}
	start := wr.off
	for len(p) > 0 {
		chunk := p[:min(len(p), wr.opts.BlockSize)]
		p = p[len(chunk):]
		z, err := wr.compress(chunk)
		if err != nil {
			return 0, wr.fail(err)
		}
		var h [3]byte
		body := z
		hv := uint32(len(z)) << 1
		if len(z) >= len(chunk) {
			body, hv = chunk, uint32(len(chunk))<<1|1
		}
		h[0], h[1], h[2] = byte(hv), byte(hv>>8), byte(hv>>16)
		if err := wr.emit(h[:]); err != nil {
			return 0, err
		}
		if err := wr.emit(body); err != nil {
			return 0, err
		}
	}
	return wr.off - start, nil
}

func (wr *Writer) compress(src []byte) ([]byte, error) {
	dst := wr.scratch[:0]
	switch wr.comp {
	case CompressionZstd:
		dst = wr.zenc.EncodeAll(src, dst)
	case CompressionZlib:
		var b bytes.Buffer
		fw, err := flate.NewWriter(&b, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		fw.Write(src)
		if err := fw.Close(); err != nil {
			return nil, err
		}
		dst = append(dst, b.Bytes()...)
	case CompressionSnappy:
		dst = snappy.Encode(dst[:cap(dst)], src)
	case CompressionLZ4:
		need := lz4.CompressBlockBound(len(src))
		if cap(dst) < need {
			dst = make([]byte, need)
		}
		var c lz4.Compressor
		n, err := c.CompressBlock(src, dst[:need])
		if err != nil {
			return nil, fmt.Errorf("ORC writer: lz4: %w", err)
		}
		if n == 0 { // incompressible: the caller stores the chunk as original
			return src, nil
		}
		dst = dst[:n]
	}
	wr.scratch = dst
	return dst, nil
}

// flushStripe writes the buffered streams, the stripe footer and records
// the stripe's information and statistics.
func (wr *Writer) flushStripe() error {
	if wr.stripeRows == 0 {
		return nil
	}
	start := wr.off
	var streams []byte
	var encs []byte
	for _, c := range wr.cols {
		c.flushEncoders()
		for _, s := range c.streams() {
			if s.buf == nil {
				continue
			}
			n, err := wr.emitCompressed(s.buf.bytes())
			if err != nil {
				return err
			}
			var m []byte
			m = protowire.AppendTag(m, 1, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(s.kind))
			m = protowire.AppendTag(m, 2, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(c.id))
			m = protowire.AppendTag(m, 3, protowire.VarintType)
			m = protowire.AppendVarint(m, n)
			streams = protowire.AppendTag(streams, 1, protowire.BytesType)
			streams = protowire.AppendBytes(streams, m)
		}
		var e []byte
		e = protowire.AppendTag(e, 1, protowire.VarintType)
		e = protowire.AppendVarint(e, uint64(c.encoding()))
		encs = protowire.AppendTag(encs, 2, protowire.BytesType)
		encs = protowire.AppendBytes(encs, e)
	}
	dataLen := wr.off - start
	sf := append(streams, encs...)
	sf = protowire.AppendTag(sf, 3, protowire.BytesType)
	sf = protowire.AppendString(sf, "UTC")
	footLen, err := wr.emitCompressed(sf)
	if err != nil {
		return err
	}
	var si []byte
	for _, f := range [][2]uint64{{1, start}, {2, 0}, {3, dataLen}, {4, footLen}, {5, wr.stripeRows}} {
		si = protowire.AppendTag(si, protowire.Number(f[0]), protowire.VarintType)
		si = protowire.AppendVarint(si, f[1])
	}
	wr.stripes = append(wr.stripes, si)
	var ss []byte
	for _, c := range wr.cols {
		ss = protowire.AppendTag(ss, 1, protowire.BytesType)
		ss = protowire.AppendBytes(ss, c.stripe.encode(c))
		c.file.merge(&c.stripe, c.kind)
		c.stripe = colStats{}
		c.resetStreams()
	}
	wr.stripeStat = append(wr.stripeStat, ss)
	wr.rows += wr.stripeRows
	wr.stripeRows = 0
	return nil
}

// Close flushes the last stripe and writes the file tail. It does not
// close the underlying writer.
func (wr *Writer) Close() error {
	if wr.closed {
		return wr.err
	}
	wr.closed = true
	defer wr.release()
	if wr.err != nil {
		return wr.err
	}
	if err := wr.flushStripe(); err != nil {
		return err
	}
	contentLen := wr.off
	var md []byte
	for _, s := range wr.stripeStat {
		md = protowire.AppendTag(md, 1, protowire.BytesType)
		md = protowire.AppendBytes(md, s)
	}
	mdLen, err := wr.emitCompressed(md)
	if err != nil {
		return err
	}
	var ft []byte
	ft = protowire.AppendTag(ft, 1, protowire.VarintType)
	ft = protowire.AppendVarint(ft, uint64(len(magic)))
	ft = protowire.AppendTag(ft, 2, protowire.VarintType)
	ft = protowire.AppendVarint(ft, contentLen)
	for _, s := range wr.stripes {
		ft = protowire.AppendTag(ft, 3, protowire.BytesType)
		ft = protowire.AppendBytes(ft, s)
	}
	for _, t := range wr.types {
		ft = protowire.AppendTag(ft, 4, protowire.BytesType)
		ft = protowire.AppendBytes(ft, t)
	}
	for k, v := range wr.opts.Metadata {
		var item []byte
		item = protowire.AppendTag(item, 1, protowire.BytesType)
		item = protowire.AppendString(item, k)
		item = protowire.AppendTag(item, 2, protowire.BytesType)
		item = protowire.AppendBytes(item, v)
		ft = protowire.AppendTag(ft, 5, protowire.BytesType)
		ft = protowire.AppendBytes(ft, item)
	}
	ft = protowire.AppendTag(ft, 6, protowire.VarintType)
	ft = protowire.AppendVarint(ft, wr.rows)
	wr.root.file.n = wr.rows
	for _, c := range wr.cols {
		ft = protowire.AppendTag(ft, 7, protowire.BytesType)
		ft = protowire.AppendBytes(ft, c.file.encode(c))
	}
	// No row index: stripes are the unit readers skip by.
	ft = protowire.AppendTag(ft, 8, protowire.VarintType)
	ft = protowire.AppendVarint(ft, 0)
	// Dates and timestamps are proleptic Gregorian, as in Arrow.
	ft = protowire.AppendTag(ft, 11, protowire.VarintType)
	ft = protowire.AppendVarint(ft, 2)
	ft = protowire.AppendTag(ft, 12, protowire.BytesType)
	ft = protowire.AppendString(ft, "inlet")
	ftLen, err := wr.emitCompressed(ft)
	if err != nil {
		return err
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, ftLen)
	ps = protowire.AppendTag(ps, 2, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(wr.comp))
	if wr.comp != CompressionNone {
		ps = protowire.AppendTag(ps, 3, protowire.VarintType)
		ps = protowire.AppendVarint(ps, uint64(wr.opts.BlockSize))
	}
	ps = protowire.AppendTag(ps, 4, protowire.BytesType)
	ps = protowire.AppendBytes(ps, []byte{0, 12})
	ps = protowire.AppendTag(ps, 5, protowire.VarintType)
	ps = protowire.AppendVarint(ps, mdLen)
	ps = protowire.AppendTag(ps, 6, protowire.VarintType)
	ps = protowire.AppendVarint(ps, writerVersion)
	ps = protowire.AppendTag(ps, 8000, protowire.BytesType)
	ps = protowire.AppendString(ps, magic)
	if len(ps) > 255 {
		return wr.fail(errors.New("ORC writer: postscript longer than 255 bytes"))
	}
	if err := wr.emit(ps); err != nil {
		return err
	}
	return wr.emit([]byte{byte(len(ps))})
}

// Abort releases the writer's buffers without writing the tail.
func (wr *Writer) Abort() {
	wr.closed = true
	wr.fail(errors.New("ORC writer aborted"))
	wr.release()
}

func (wr *Writer) release() {
	for _, c := range wr.cols {
		c.release()
	}
	if wr.zenc != nil {
		wr.zenc.Close()
		wr.zenc = nil
	}
}

// Rows is the number of rows written so far.
func (wr *Writer) Rows() uint64 { return wr.rows + wr.stripeRows }
