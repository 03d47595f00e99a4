package record

import (
	"encoding/binary"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
)

// An ARROW batch's records section after the change types is one
// encapsulated Arrow IPC RecordBatch message, with no Schema message and no
// end-of-stream marker:
//
//	[0xFFFFFFFF continuation][metadata_len int32 LE]
//	[flatbuffer Message, zero-padded so 8+metadata_len is a multiple of 8]
//	[body: buffers at 8-aligned offsets relative to the body start]
//
// Message table fields: 0 version (short, V5 = 4), 1 header_type (ubyte,
// RecordBatch = 3), 2 header (table), 3 bodyLength (long).
// RecordBatch fields: 0 length (long), 1 nodes ([FieldNode{length,
// null_count}]), 2 buffers ([Buffer{offset, length}]), 3 compression
// (BodyCompression{0 codec: LZ4_FRAME=0|ZSTD=1, 1 method: BUFFER=0}).

const (
	ipcContinuation        = 0xFFFFFFFF
	metadataVersionV5      = 4
	headerRecordBatch      = 3
	codecNone         int8 = -1
	codecLZ4Frame     int8 = 0
	codecZstd         int8 = 1
)

type fieldNode struct{ length, nullCount int64 }
type bufSpec struct{ offset, length int64 }

// rbMeta is a parsed RecordBatch message header.
type rbMeta struct {
	version    int16
	bodyLength int64
	length     int64
	nodes      []fieldNode
	buffers    []bufSpec
	codec      int8
}

// fbReader reads flatbuffer tables with bounds checks on every access, so
// corrupt metadata yields an error rather than a panic.
type fbReader struct {
	buf []byte
	err error
}

func (r *fbReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: arrow metadata: "+format, append([]any{ErrCorrupt}, a...)...)
	}
}

func (r *fbReader) u32(pos int) uint32 {
	if pos < 0 || pos+4 > len(r.buf) {
		r.fail("read of 4 bytes at %d outside %d-byte flatbuffer", pos, len(r.buf))
		return 0
	}
	return binary.LittleEndian.Uint32(r.buf[pos:])
}

func (r *fbReader) u16(pos int) uint16 {
	if pos < 0 || pos+2 > len(r.buf) {
		r.fail("read of 2 bytes at %d outside %d-byte flatbuffer", pos, len(r.buf))
		return 0
	}
	return binary.LittleEndian.Uint16(r.buf[pos:])
}

func (r *fbReader) u8(pos int) uint8 {
	if pos < 0 || pos >= len(r.buf) {
		r.fail("read of 1 byte at %d outside %d-byte flatbuffer", pos, len(r.buf))
		return 0
	}
	return r.buf[pos]
}

func (r *fbReader) i64(pos int) int64 {
	if pos < 0 || pos+8 > len(r.buf) {
		r.fail("read of 8 bytes at %d outside %d-byte flatbuffer", pos, len(r.buf))
		return 0
	}
	return int64(binary.LittleEndian.Uint64(r.buf[pos:]))
}

type fbTable struct {
	pos, vt, vtLen int
}

func (r *fbReader) table(pos int) fbTable {
	so := int32(r.u32(pos))
	vt := pos - int(so)
	vtLen := int(r.u16(vt))
	if vtLen < 4 || vt+vtLen > len(r.buf) {
		r.fail("vtable at %d of length %d", vt, vtLen)
		return fbTable{pos: pos, vt: vt}
	}
	return fbTable{pos: pos, vt: vt, vtLen: vtLen}
}

// field returns the absolute position of field i, or 0 when absent.
func (r *fbReader) field(t fbTable, i int) int {
	o := 4 + 2*i
	if o+2 > t.vtLen {
		return 0
	}
	off := int(r.u16(t.vt + o))
	if off == 0 {
		return 0
	}
	return t.pos + off
}

func (r *fbReader) deref(pos int) int { return pos + int(r.u32(pos)) }

// structVector reads a vector of 16-byte structs of two int64s.
func (r *fbReader) structVector(pos int, what string, limit int) [][2]int64 {
	if pos == 0 {
		return nil
	}
	v := r.deref(pos)
	n := int(r.u32(v))
	if r.err != nil {
		return nil
	}
	if n < 0 || n > limit || v+4+16*n > len(r.buf) {
		r.fail("%s vector of %d entries at %d does not fit (limit %d)", what, n, v, limit)
		return nil
	}
	out := make([][2]int64, n)
	for i := range out {
		p := v + 4 + 16*i
		out[i] = [2]int64{r.i64(p), r.i64(p + 8)}
	}
	return out
}

// parseRecordBatchMeta decodes a flatbuffer Message holding a RecordBatch.
// maxEntries caps the node and buffer vectors before anything is allocated.
func parseRecordBatchMeta(meta []byte, maxEntries int) (rbMeta, error) {
	r := &fbReader{buf: meta}
	var m rbMeta
	m.codec = codecNone
	root := r.deref(0)
	msg := r.table(root)
	if p := r.field(msg, 0); p != 0 {
		m.version = int16(r.u16(p))
	}
	ht := uint8(0)
	if p := r.field(msg, 1); p != 0 {
		ht = r.u8(p)
	}
	if p := r.field(msg, 3); p != 0 {
		m.bodyLength = r.i64(p)
	}
	hp := r.field(msg, 2)
	if r.err != nil {
		return m, r.err
	}
	if ht != headerRecordBatch {
		return m, fmt.Errorf("%w: arrow message header type %d, want RecordBatch (3)", ErrCorrupt, ht)
	}
	if m.version < metadataVersionV5-1 {
		return m, fmt.Errorf("%w: arrow metadata version %d (want V4 or V5)", ErrUnsupported, m.version+1)
	}
	if hp == 0 {
		return m, fmt.Errorf("%w: arrow RecordBatch message has no header", ErrCorrupt)
	}
	rb := r.table(r.deref(hp))
	if p := r.field(rb, 0); p != 0 {
		m.length = r.i64(p)
	}
	for _, n := range r.structVector(r.field(rb, 1), "nodes", maxEntries) {
		m.nodes = append(m.nodes, fieldNode{length: n[0], nullCount: n[1]})
	}
	for _, b := range r.structVector(r.field(rb, 2), "buffers", maxEntries) {
		m.buffers = append(m.buffers, bufSpec{offset: b[0], length: b[1]})
	}
	if p := r.field(rb, 3); p != 0 {
		c := r.table(r.deref(p))
		m.codec = codecLZ4Frame
		if cp := r.field(c, 0); cp != 0 {
			m.codec = int8(r.u8(cp))
		}
		if mp := r.field(c, 1); mp != 0 && r.u8(mp) != 0 {
			return m, fmt.Errorf("%w: arrow body compression method %d (only BUFFER)", ErrUnsupported, r.u8(mp))
		}
	}
	if r.err != nil {
		return m, r.err
	}
	if m.codec != codecNone && m.codec != codecLZ4Frame && m.codec != codecZstd {
		return m, fmt.Errorf("%w: arrow compression codec %d", ErrUnsupported, m.codec)
	}
	if m.bodyLength < 0 || m.length < 0 {
		return m, fmt.Errorf("%w: arrow body length %d, row count %d", ErrCorrupt, m.bodyLength, m.length)
	}
	return m, nil
}

// buildRecordBatchMeta writes the Message flatbuffer in the same call order
// as Arrow Java's ArrowRecordBatch.writeTo + MessageSerializer, so the bytes
// equal what a Java writer produces.
func buildRecordBatchMeta(length int64, nodes []fieldNode, buffers []bufSpec, codec int8, bodyLength int64) []byte {
	b := flatbuffers.NewBuilder(1024)
	b.StartVector(16, len(nodes), 8)
	for i := len(nodes) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PlaceInt64(nodes[i].nullCount)
		b.PlaceInt64(nodes[i].length)
	}
	nodesOff := b.EndVector(len(nodes))
	b.StartVector(16, len(buffers), 8)
	for i := len(buffers) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PlaceInt64(buffers[i].length)
		b.PlaceInt64(buffers[i].offset)
	}
	bufOff := b.EndVector(len(buffers))
	var compOff flatbuffers.UOffsetT
	if codec != codecNone {
		b.StartObject(2)
		b.PrependByteSlot(1, 0, 0)
		b.PrependByteSlot(0, byte(codec), 0)
		compOff = b.EndObject()
	}
	b.StartObject(5)
	b.PrependInt64Slot(0, length, 0)
	b.PrependUOffsetTSlot(1, nodesOff, 0)
	b.PrependUOffsetTSlot(2, bufOff, 0)
	if codec != codecNone {
		b.PrependUOffsetTSlot(3, compOff, 0)
	}
	rb := b.EndObject()
	b.StartObject(5)
	b.PrependByteSlot(1, headerRecordBatch, 0)
	b.PrependUOffsetTSlot(2, rb, 0)
	b.PrependInt16Slot(0, metadataVersionV5, 0)
	b.PrependInt64Slot(3, bodyLength, 0)
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

// appendIPCMessage frames a flatbuffer message: continuation, padded
// length, metadata and its zero padding.
func appendIPCMessage(dst []byte, meta []byte) []byte {
	n := len(meta)
	if pad := (n + 8) % 8; pad != 0 {
		n += 8 - pad
	}
	dst = binary.LittleEndian.AppendUint32(dst, ipcContinuation)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, meta...)
	for i := len(meta); i < n; i++ {
		dst = append(dst, 0)
	}
	return dst
}

// splitIPCMessage splits an encapsulated message into metadata and body
// (body trimmed to bodyLength, which the caller reads from the metadata).
func splitIPCMessage(b []byte) (meta []byte, rest []byte, err error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("%w: arrow message of %d bytes has no prefix", ErrCorrupt, len(b))
	}
	p := 0
	if binary.LittleEndian.Uint32(b) == ipcContinuation {
		p = 4
	}
	ml := int32(binary.LittleEndian.Uint32(b[p:]))
	p += 4
	if ml <= 0 || int64(ml) > int64(len(b)-p) {
		return nil, nil, fmt.Errorf("%w: arrow metadata length %d with %d bytes left", ErrCorrupt, ml, len(b)-p)
	}
	return b[p : p+int(ml)], b[p+int(ml):], nil
}
