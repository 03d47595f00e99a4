package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/arrowcopy"
)

// mapping is the bytes of one segment file, mapped read-only (or, in
// tests and fuzzing, any byte slice). Batches decoded from it point into
// it; it is unmapped when the last reference goes: the segment reader's,
// and one per IPC message body still referenced by some array. Removing
// the file (compaction, overwrite, DROP) does not end a mapping: the
// kernel keeps the pages until munmap, so a batch kept past its scan (or
// past the file's deletion) reads the values it was read with.
type mapping struct {
	refs  atomic.Int64
	data  []byte
	unmap func([]byte) error // nil: heap bytes, nothing to give back
}

// liveMappings counts mappings not yet unmapped, for the tests' leak checks.
var liveMappings atomic.Int64

func newMapping(data []byte, unmap func([]byte) error) *mapping {
	m := &mapping{data: data, unmap: unmap}
	m.refs.Store(1)
	liveMappings.Add(1)
	return m
}

func (m *mapping) retain() { m.refs.Add(1) }

func (m *mapping) release() {
	switch n := m.refs.Add(-1); {
	case n == 0:
		if m.unmap != nil {
			// munmap of a range we mapped cannot fail short of a bug;
			// nothing useful can be done with the error here.
			_ = m.unmap(m.data)
		}
		m.data = nil
		liveMappings.Add(-1)
	case n < 0:
		panic("internal catalog: segment mapping released too often")
	}
}

// externalCharger is implemented by an allocator that accounts memory it
// did not allocate (the statement account of exec/memlimit): mapped bytes
// a query keeps are charged to it, as a copy would have been allocated.
type externalCharger interface {
	ChargeExternal(n int64)
	RefundExternal(n int64)
}

// bodyRef is the memory.Allocator of one message body buffer: it never
// allocates, and its Free, called by arrow when the last array slice of
// the body is released, gives back the body's charge and its reference to
// the mapping.
type bodyRef struct {
	m       *mapping
	charged externalCharger // nil until the batch was charged
	n       int64
}

func (b *bodyRef) Allocate(int) []byte {
	panic("internal catalog: a mapped segment buffer is read-only")
}

func (b *bodyRef) Reallocate(int, []byte) []byte {
	panic("internal catalog: a mapped segment buffer is read-only")
}

func (b *bodyRef) Free([]byte) {
	if b.charged != nil {
		b.charged.RefundExternal(b.n)
		b.charged = nil
	}
	b.m.release()
}

// hashedBytes counts the bytes verifyBytes has hashed, for the tests that
// check a file is hashed once (verified.go), not once per scan.
var hashedBytes atomic.Int64

// verifyBytes is verifyFile over bytes already in memory (mapped): the
// same checks and messages, without copying them out.
func verifyBytes(ctx context.Context, data []byte, fi fileInfo) error {
	if fi.CRC32C == nil {
		return nil
	}
	hashedBytes.Add(int64(len(data)))
	if int64(len(data)) != fi.Bytes {
		return fmt.Errorf("size %d bytes, manifest says %d", len(data), fi.Bytes)
	}
	const piece = 8 << 20 // ctx is checked between pieces
	var crc uint32
	for off := 0; off < len(data); off += piece {
		if err := ctx.Err(); err != nil {
			return err
		}
		crc = crc32.Update(crc, castagnoli, data[off:min(off+piece, len(data))])
	}
	if crc != *fi.CRC32C {
		return fmt.Errorf("checksum mismatch: CRC-32C %08x, manifest says %08x", crc, *fi.CRC32C)
	}
	return nil
}

const (
	ipcMagic    = "ARROW1"
	ipcFileHead = 8 // magic and its padding
	ipcFileTail = 4 + len(ipcMagic)
	ipcContinue = 0xFFFFFFFF
)

// mappedMessages is an ipc.MessageReader over the stream part of an Arrow
// IPC file held in a mapping: metadata and bodies are slices of the
// mapping, never copies. Each body buffer holds a reference to the mapping
// until arrow releases it. Every length read from the file is checked
// against the bytes there before it is used.
type mappedMessages struct {
	m        *mapping
	pos, end int
	cur      *ipc.Message
	body     *bodyRef // of cur
	meta     []byte   // of cur: its flatbuffer
	bodyBuf  *memory.Buffer
	refs     atomic.Int64
}

var errTruncatedIPC = errors.New("IPC stream ends inside a message")

// newMappedMessages checks the file's frame (leading and trailing magic,
// footer length) and positions the reader at its first message.
func newMappedMessages(m *mapping) (*mappedMessages, error) {
	d := m.data
	if len(d) < ipcFileHead+ipcFileTail || string(d[:len(ipcMagic)]) != ipcMagic || string(d[len(d)-len(ipcMagic):]) != ipcMagic {
		return nil, errors.New("not an Arrow IPC file (magic missing)")
	}
	footer := int64(binary.LittleEndian.Uint32(d[len(d)-ipcFileTail:]))
	end := int64(len(d)-ipcFileTail) - footer
	if footer <= 0 || end < ipcFileHead {
		return nil, fmt.Errorf("IPC footer length %d does not fit the file's %d bytes", footer, len(d))
	}
	r := &mappedMessages{m: m, pos: ipcFileHead, end: int(end)}
	r.refs.Store(1)
	return r, nil
}

func (r *mappedMessages) Retain() { r.refs.Add(1) }

func (r *mappedMessages) Release() {
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

// Message returns the next message; the previous one is released (as
// arrow's own reader does): arrays keep their bodies alive by reference.
func (r *mappedMessages) Message() (*ipc.Message, error) {
	if r.cur != nil {
		r.cur.Release()
		r.cur, r.body, r.meta, r.bodyBuf = nil, nil, nil, nil
	}
	d := r.m.data[:r.end]
	if r.pos == r.end {
		return nil, io.EOF
	}
	if r.pos+4 > r.end {
		return nil, errTruncatedIPC
	}
	n := int64(binary.LittleEndian.Uint32(d[r.pos:]))
	r.pos += 4
	if n == ipcContinue {
		if r.pos+4 > r.end {
			return nil, errTruncatedIPC
		}
		n = int64(binary.LittleEndian.Uint32(d[r.pos:]))
		r.pos += 4
	}
	if n == 0 { // end-of-stream marker
		r.pos = r.end
		return nil, io.EOF
	}
	if n > int64(r.end-r.pos) {
		return nil, fmt.Errorf("IPC message metadata of %d bytes at offset %d passes the stream end %d", n, r.pos, r.end)
	}
	meta := memory.NewBufferBytes(d[r.pos : r.pos+int(n)])
	r.pos += int(n)
	empty := memory.NewBufferBytes(nil)
	probe := ipc.NewMessage(meta, empty)
	bl := probe.BodyLen()
	probe.Release()
	if bl < 0 || bl > int64(r.end-r.pos) {
		return nil, fmt.Errorf("IPC message body of %d bytes at offset %d passes the stream end %d", bl, r.pos, r.end)
	}
	r.m.retain()
	ref := &bodyRef{m: r.m, n: bl}
	body := memory.NewBufferWithAllocator(d[r.pos:r.pos+int(bl)], ref)
	r.pos += int(bl)
	r.cur = ipc.NewMessage(meta, body)
	body.Release() // the message holds it now
	r.body, r.meta, r.bodyBuf = ref, meta.Bytes(), body
	return r.cur, nil
}

// mappedSegment yields the batches of one mapped segment.
type mappedSegment struct {
	msgs *mappedMessages
	rd   *ipc.Reader
}

func openMapped(m *mapping, mem memory.Allocator, full *arrow.Schema) (*mappedSegment, error) {
	msgs, err := newMappedMessages(m)
	if err != nil {
		return nil, err
	}
	// The schema message must be the one this build writes for the table:
	// arrow's schema decoder trusts the lengths in it (a damaged one can
	// ask for any amount of memory), and a file written otherwise (an
	// older writer) is read with pread instead (errSchemaDiffers).
	want, err := schemaMessage(full)
	if err != nil {
		return nil, err
	}
	if !msgs.startsWith(want) {
		return nil, errSchemaDiffers
	}
	rd, err := ipc.NewReaderFromMessageReader(msgs, ipc.WithAllocator(mem))
	if err != nil {
		msgs.Release()
		return nil, err
	}
	if !rd.Schema().Equal(full) {
		rd.Release()
		return nil, errSchemaDiffers
	}
	return &mappedSegment{msgs: msgs, rd: rd}, nil
}

var errSchemaDiffers = errors.New("schema differs from the table's")

// schemaMessage is the encapsulated schema message (continuation, length,
// metadata) an IPC writer puts first for schema s.
func schemaMessage(s *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) < 8 || binary.LittleEndian.Uint32(b) != ipcContinue {
		return nil, errors.New("unexpected IPC stream framing")
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if 8+n > len(b) {
		return nil, errors.New("unexpected IPC stream framing")
	}
	return b[:8+n], nil
}

// startsWith reports whether the stream's next bytes are p.
func (r *mappedMessages) startsWith(p []byte) bool {
	return r.end-r.pos >= len(p) && bytes.Equal(r.m.data[r.pos:r.pos+len(p)], p)
}

// next returns the next batch (owned by the caller) and the reference of
// its message body, or nil at the end.
func (s *mappedSegment) next() (arrow.RecordBatch, *bodyRef, error) {
	if !s.rd.Next() {
		return nil, nil, s.rd.Err()
	}
	rec := s.rd.RecordBatch()
	rec.Retain()
	return rec, s.msgs.body, nil
}

// nextPicked is next decoding only p's columns (p.flat, not nil): the
// batch holds slices of the message body, as arrow's reader's would.
func (s *mappedSegment) nextPicked(p *colPick) (arrow.RecordBatch, *bodyRef, error) {
	msg, err := s.msgs.Message()
	if err == io.EOF {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if msg.Type() != ipc.MessageRecordBatch {
		return nil, nil, errNotRecordBatch
	}
	rec, err := p.decodeFlat(s.msgs.meta, s.msgs.bodyBuf)
	if err != nil {
		return nil, nil, err
	}
	return rec, s.msgs.body, nil
}

// skip passes over the next message (a record batch a zone filter
// skips) without decoding it; at the end it does nothing.
func (s *mappedSegment) skip() error {
	if _, err := s.msgs.Message(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

func (s *mappedSegment) close() {
	s.rd.Release() // releases msgs too
}

// mapFile maps the whole of f read-only. The descriptor may be closed
// afterwards; the mapping stays.
func mapFile(f *os.File) (*mapping, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() <= 0 || int64(int(st.Size())) != st.Size() {
		return nil, fmt.Errorf("cannot map %d bytes", st.Size())
	}
	data, err := mmapFile(f, int(st.Size()))
	if err != nil {
		return nil, err
	}
	return newMapping(data, unmapLater), nil
}

var _ ipc.MessageReader = (*mappedMessages)(nil)
var _ memory.Allocator = (*bodyRef)(nil)

// detach returns rec with every column whose values alias its buffers
// copied into buffers from mem (rec itself when there is none); it
// consumes rec.
func detach(mem memory.Allocator, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := rec.Columns()
	var out []arrow.Array
	for i, c := range cols {
		if !arrowcopy.AliasesValues(c.DataType()) {
			continue
		}
		if out == nil {
			out = make([]arrow.Array, len(cols))
			copy(out, cols)
			for _, x := range out {
				x.Retain()
			}
		}
		cp, err := arrowcopy.Column(mem, c)
		if err != nil {
			for _, x := range out {
				x.Release()
			}
			rec.Release()
			return nil, err
		}
		out[i].Release()
		out[i] = cp
	}
	if out == nil {
		return rec, nil
	}
	d := array.NewRecordBatch(rec.Schema(), out, rec.NumRows())
	for _, x := range out {
		x.Release()
	}
	rec.Release()
	return d, nil
}
