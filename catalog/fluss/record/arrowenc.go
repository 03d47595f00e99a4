package record

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// ArrowCompression is table.log.arrow.compression.type.
type ArrowCompression uint8

// Arrow body compressions.
const (
	CompressionNone ArrowCompression = iota
	CompressionLZ4Frame
	CompressionZstd
)

// ParseArrowCompression reads table.log.arrow.compression.type; "" means
// the 1.0 default, ZSTD.
func ParseArrowCompression(s string) (ArrowCompression, error) {
	switch s {
	case "", "ZSTD", "zstd":
		return CompressionZstd, nil
	case "NONE", "none":
		return CompressionNone, nil
	case "LZ4_FRAME", "lz4_frame":
		return CompressionLZ4Frame, nil
	}
	return 0, fmt.Errorf("%w: arrow compression %q (want NONE, LZ4_FRAME or ZSTD)", ErrUnsupported, s)
}

func (c ArrowCompression) codec() int8 {
	switch c {
	case CompressionLZ4Frame:
		return codecLZ4Frame
	case CompressionZstd:
		return codecZstd
	}
	return codecNone
}

// ArrowEncoder writes Arrow record batches as Fluss ARROW records sections
// and batches, laid out as Arrow Java does (validity bitmaps always
// written, buffers 8-aligned, flatbuffer built in Java's call order), so an
// uncompressed batch is byte-identical to a Java-written one. Belongs to
// one goroutine; Close it.
type ArrowEncoder struct {
	comp  ArrowCompression
	level int
	zstd  *zstd.Encoder
}

// NewArrowEncoder makes an encoder; zstdLevel 0 means Fluss's default 3.
func NewArrowEncoder(comp ArrowCompression, zstdLevel int) (*ArrowEncoder, error) {
	e := &ArrowEncoder{comp: comp, level: zstdLevel}
	if e.level == 0 {
		e.level = 3
	}
	if comp == CompressionZstd {
		z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(e.level)), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		e.zstd = z
	}
	return e, nil
}

// Close frees compressor state.
func (e *ArrowEncoder) Close() {
	if e.zstd != nil {
		_ = e.zstd.Close()
		e.zstd = nil
	}
}

// AppendRecords appends the records section of an ARROW batch: the
// change-type vector (omitted when changeTypes is nil, i.e. append-only)
// and the IPC RecordBatch message. A 0-row record writes nothing at all.
func (e *ArrowEncoder) AppendRecords(dst []byte, rec arrow.RecordBatch, changeTypes []ChangeType) ([]byte, error) {
	n := rec.NumRows()
	if changeTypes != nil && int64(len(changeTypes)) != n {
		return dst, fmt.Errorf("%w: %d change types for %d rows", ErrInvalid, len(changeTypes), n)
	}
	for i, c := range changeTypes {
		if !c.Valid() {
			return dst, fmt.Errorf("%w: change type %d of row %d", ErrInvalid, c, i)
		}
		dst = append(dst, byte(c))
	}
	if n == 0 {
		return dst, nil
	}
	w := &bodyWriter{enc: e}
	for i, col := range rec.Columns() {
		if err := w.array(col); err != nil {
			return dst, fmt.Errorf("column %q: %w", rec.Schema().Field(i).Name, err)
		}
	}
	meta := buildRecordBatchMeta(n, w.nodes, w.specs, e.comp.codec(), int64(w.body.Len()))
	dst = appendIPCMessage(dst, meta)
	return append(dst, w.body.Bytes()...), nil
}

// AppendBatch appends a whole ARROW log batch. changeTypes nil means an
// append-only batch (p.AppendOnly is then forced on); p.RecordCount is
// taken from the record.
func (e *ArrowEncoder) AppendBatch(dst []byte, p BatchParams, rec arrow.RecordBatch, changeTypes []ChangeType) ([]byte, error) {
	p.AppendOnly = changeTypes == nil
	if rec.NumRows() > 1<<31-1 {
		return dst, fmt.Errorf("%w: %d rows in one batch", ErrInvalid, rec.NumRows())
	}
	p.RecordCount = int32(rec.NumRows())
	recs, err := e.AppendRecords(nil, rec, changeTypes)
	if err != nil {
		return dst, err
	}
	return AppendLogBatch(dst, p, recs)
}

type bodyWriter struct {
	enc   *ArrowEncoder
	nodes []fieldNode
	specs []bufSpec
	body  bytes.Buffer
	tmp   []byte
}

// buffer appends one body buffer (compressed if configured) at an 8-aligned
// offset, as Arrow Java's MessageSerializer does.
func (w *bodyWriter) buffer(b []byte) error {
	off := int64(w.body.Len())
	if w.enc.comp != CompressionNone {
		out, err := w.enc.compress(b, w.tmp[:0])
		if err != nil {
			return err
		}
		w.tmp = out
		b = out
	}
	w.body.Write(b)
	w.specs = append(w.specs, bufSpec{offset: off, length: int64(len(b))})
	for w.body.Len()%8 != 0 {
		w.body.WriteByte(0)
	}
	return nil
}

// compress frames one buffer: int64 uncompressed length + compressed bytes,
// or -1 + raw bytes when compression does not help, or a bare 0 for an
// empty buffer (Arrow Java AbstractCompressionCodec rules).
func (e *ArrowEncoder) compress(b, dst []byte) ([]byte, error) {
	if len(b) == 0 {
		return binary.LittleEndian.AppendUint64(dst, 0), nil
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(b)))
	switch e.comp {
	case CompressionZstd:
		dst = e.zstd.EncodeAll(b, dst)
	case CompressionLZ4Frame:
		var buf bytes.Buffer
		zw := lz4.NewWriter(&buf)
		if err := zw.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)); err != nil {
			return nil, err
		}
		if _, err := zw.Write(b); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		dst = append(dst, buf.Bytes()...)
	}
	if len(dst)-8 > len(b) {
		dst = binary.LittleEndian.AppendUint64(dst[:0], ^uint64(0))
		dst = append(dst, b...)
	}
	return dst, nil
}

// validity writes the bitmap of arr (all ones when it has none), exactly
// ceil(len/8) bytes with unused bits cleared; nothing for an empty array.
func (w *bodyWriter) validity(arr arrow.Array) error {
	n := arr.Len()
	out := make([]byte, bitutil.BytesForBits(int64(n)))
	if bm := arr.NullBitmapBytes(); arr.NullN() > 0 && bm != nil {
		bitutil.CopyBitmap(bm, arr.Data().Offset(), n, out, 0)
	} else {
		for i := range n {
			bitutil.SetBit(out, i)
		}
	}
	return w.buffer(out)
}

func (w *bodyWriter) array(arr arrow.Array) error {
	n := arr.Len()
	w.nodes = append(w.nodes, fieldNode{length: int64(n), nullCount: int64(arr.NullN())})
	if err := w.validity(arr); err != nil {
		return err
	}
	off := arr.Data().Offset()
	switch a := arr.(type) {
	case *array.String:
		return w.varBinary(a.ValueOffsets(), a.ValueBytes(), n)
	case *array.Binary:
		return w.varBinary(a.ValueOffsets(), a.ValueBytes(), n)
	case *array.Map:
		return w.list(sliceOffsets(a.Offsets(), off, n), a.ListValues(), n)
	case *array.List:
		return w.list(sliceOffsets(a.Offsets(), off, n), a.ListValues(), n)
	case *array.Struct:
		for i := range a.NumField() {
			f := a.Field(i)
			if f.Len() != n {
				s := array.NewSlice(f, 0, int64(n))
				err := w.array(s)
				s.Release()
				if err != nil {
					return err
				}
				continue
			}
			if err := w.array(f); err != nil {
				return err
			}
		}
		return nil
	case *array.Boolean:
		out := make([]byte, bitutil.BytesForBits(int64(n)))
		if n > 0 {
			bitutil.CopyBitmap(a.Data().Buffers()[1].Bytes(), off, n, out, 0)
		}
		return w.buffer(out)
	}
	width, _ := fixedWidth(arr.DataType())
	if width == 0 {
		return fmt.Errorf("%w: arrow type %s", ErrUnsupported, arr.DataType())
	}
	if n == 0 {
		return w.buffer(nil)
	}
	data := arr.Data().Buffers()[1].Bytes()
	return w.buffer(data[off*width : (off+n)*width])
}

func (w *bodyWriter) varBinary(offsets []int32, data []byte, n int) error {
	if n == 0 {
		if err := w.buffer(nil); err != nil {
			return err
		}
		return w.buffer(nil)
	}
	if err := w.buffer(rebasedOffsets(offsets, n)); err != nil {
		return err
	}
	return w.buffer(data) // ValueBytes is already cut to this array's values
}

// rebasedOffsets returns the n+1 offsets of a sliced array as a little-endian
// buffer that starts at 0, as IPC wants for a slice.
func rebasedOffsets(offsets []int32, n int) []byte {
	out := make([]byte, 4*(n+1))
	for i := 0; i <= n; i++ {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(offsets[i]-offsets[0]))
	}
	return out
}

func sliceOffsets(o []int32, off, n int) []int32 {
	if n == 0 {
		return nil
	}
	return o[off : off+n+1]
}

func (w *bodyWriter) list(offsets []int32, values arrow.Array, n int) error {
	if n == 0 {
		if err := w.buffer(nil); err != nil {
			return err
		}
		empty := array.NewSlice(values, 0, 0)
		defer empty.Release()
		return w.array(empty)
	}
	if err := w.buffer(rebasedOffsets(offsets, n)); err != nil {
		return err
	}
	child := array.NewSlice(values, int64(offsets[0]), int64(offsets[n]))
	defer child.Release()
	return w.array(child)
}
