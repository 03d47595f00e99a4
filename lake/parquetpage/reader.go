package parquetpage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Bounds on what one page may claim, so a corrupt header cannot make the
// reader allocate without limit. Variables for the fuzz target.
var (
	maxPageBytes  = 1 << 30
	maxPageValues = 1 << 28
)

// Reader reads the column chunks of one column, one after another, reusing
// its buffers across chunks. It is not safe for concurrent use.
type Reader struct {
	col Column
	p   plan
	mem memory.Allocator

	ch    Chunk
	chunk *memory.Buffer // the column chunk's bytes
	data  []byte
	pos   int // next page header within data
	// jumpAt, when >= 0: data from jumpAt on was read from file offset
	// jumpOff on (ResetRows reads the dictionary page and a run of data
	// pages into one buffer); errors name file offsets.
	jumpAt  int
	jumpOff int64
	left    int64 // values of the chunk not yet in a loaded page
	dec     decompressor
	pageBuf *memory.Buffer
	// A PLAIN page of values stored as Arrow stores them decompresses
	// into page, its own buffer from pages, so that a batch within it
	// can alias its values instead of copying them (readFixed);
	// pageVals says r.vals lies in page.
	pages    *pagePool
	page     *memory.Buffer
	pageVals bool

	// dictionary, in output form
	hasDict  bool
	dictN    int
	dictFix  []byte  // dictN × ow
	dictOffs []int32 // cvBinary: dictN+1 offsets into dictData
	dictData []byte
	dictGen  uint64 // counts dictionaries loaded (ReadFilter's cache key)

	// ReadFilter: its state during the call, and the last filter's
	// answer per dictionary entry, for dictionary keepDict.
	filt     *filterState
	keep     []bool
	keepFor  *DictFilter
	keepDict uint64

	// current data page
	pageOff  int64  // file offset of its header
	pageLeft int    // values (rows) not yet read
	nonNull  int    // non-NULL values of the page
	valIdx   int    // non-NULL values already read
	defs     []byte // 0/1 per row of the page, when pageNulls
	defPos   int
	// pageNulls: the page has a NULL, so its levels are in defs; a page
	// of an optional column whose levels are all 1 is read as a
	// required column's (no levels expanded, no validity bits).
	pageNulls bool
	enc       int32
	vals      []byte
	vpos      int
	idx       rleDecoder
	idxBuf    []uint32
	tmp       []byte
	boolOut   []byte
	sel       []bool // ReadSelected's selection, during the call
	readN     int    // ReadSelected's row count, during the call
	valid     *memory.Buffer
	vbits     []byte // valid's bytes, once a page with NULLs came
	delta     []byte // a DELTA_BINARY_PACKED page decoded to PLAIN

	// a DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY page (encOffsets):
	// value i is binData[binOffs[i]:binOffs[i+1]]
	binLens   []int32
	binPrefix []int32
	binOffs   []int32
	binData   []byte // the page's bytes, or binBuf
	binBuf    []byte // DELTA_BYTE_ARRAY values rebuilt from prefixes
	// bytes a row of the last byte array batch, to size the next
	binRowBytes int64
}

// NewReader returns a reader of col; every buffer it keeps is allocated
// from mem and freed by Release.
func NewReader(col Column, mem memory.Allocator) (*Reader, error) {
	p, err := makePlan(col)
	if err != nil {
		return nil, err
	}
	return &Reader{col: col, p: p, mem: mem, chunk: memory.NewResizableBuffer(mem), pageBuf: memory.NewResizableBuffer(mem),
		pages: &pagePool{mem: mem}}, nil
}

// Retarget makes the reader read col (of another file, say) from now on,
// keeping its buffers; call Reset before reading. A scan reuses its
// readers across files this way instead of allocating fresh buffers.
func (r *Reader) Retarget(col Column) error {
	if r.chunk == nil {
		return errors.New("parquetpage: reader used after Release")
	}
	p, err := makePlan(col)
	if err != nil {
		return err
	}
	r.col, r.p = col, p
	r.binRowBytes = 0
	r.dropPage()
	r.ch = Chunk{}
	r.data, r.vals = nil, nil
	r.hasDict, r.dictN = false, 0
	r.pageLeft, r.defPos, r.vpos, r.valIdx, r.nonNull = 0, 0, 0, 0, 0
	r.pageNulls = false
	return nil
}

// Release frees the reader's buffers.
func (r *Reader) Release() {
	if r.chunk != nil {
		r.chunk.Release()
		r.pageBuf.Release()
		r.chunk, r.pageBuf = nil, nil
		r.dropPage()
		r.pages.close()
	}
	r.data, r.vals, r.dictFix, r.dictData, r.dec.buf = nil, nil, nil, nil, nil
	r.binData, r.binBuf = nil, nil
}

func (r *Reader) errorf(format string, args ...any) error {
	return fmt.Errorf("data file %s column %s row group %d page at offset %d: %s",
		r.col.File, r.col.Name, r.ch.RowGroup, r.pageOff, fmt.Sprintf(format, args...))
}

// wrapf is errorf keeping err's chain (ErrRange).
func (r *Reader) wrapf(err error) error {
	return fmt.Errorf("data file %s column %s row group %d page at offset %d: %w",
		r.col.File, r.col.Name, r.ch.RowGroup, r.pageOff, err)
}

// maxChunkBytes bounds the bytes one column chunk (or a run of its pages)
// is read into.
const maxChunkBytes = math.MaxInt32 * 4

// Reset starts reading chunk ch of file f with one ReadAt.
func (r *Reader) Reset(f io.ReaderAt, ch Chunk) error {
	if r.chunk == nil {
		return errors.New("parquetpage: reader used after Release")
	}
	r.ch = ch
	r.pageOff = ch.Offset
	if ch.Size < 0 || ch.Size > maxChunkBytes {
		return r.errorf("column chunk size %d", ch.Size)
	}
	if size := int(ch.Size); r.chunk.Cap() < size {
		// A fresh buffer, not a grown one: growing would copy the last
		// chunk's bytes, all about to be overwritten. An eighth spare,
		// so that the next files' chunks of about this size (a column's
		// chunk sizes differ by a few percent) fit without another.
		r.chunk.Release()
		r.chunk = memory.NewResizableBuffer(r.mem)
		r.chunk.Reserve(size + size/8)
	}
	r.chunk.ResizeNoShrink(int(ch.Size))
	r.data = r.chunk.Bytes()[:ch.Size]
	if n, err := f.ReadAt(r.data, ch.Offset); n != len(r.data) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return r.errorf("reading %d bytes of column chunk: %v", ch.Size, err)
	}
	return r.resetBytes(ch)
}

func (r *Reader) resetBytes(ch Chunk) error {
	r.dropPage()
	r.jumpAt = -1
	r.ch = ch
	r.dec.codec = ch.Codec
	r.pos, r.left = 0, ch.NumValues
	r.hasDict, r.dictN = false, 0
	r.pageLeft, r.defPos, r.vpos, r.valIdx, r.nonNull = 0, 0, 0, 0, 0
	r.pageNulls = false
	return nil
}

// pageBytes returns a page's body decompressed into the reused buffer.
func (r *Reader) pageBytes(body []byte, size int, compressed bool) ([]byte, error) {
	if !compressed || r.dec.codec == compress.Codecs.Uncompressed {
		if len(body) != size {
			return nil, fmt.Errorf("page of %d bytes, header says %d", len(body), size)
		}
		return body, nil
	}
	if r.dec.codec != compress.Codecs.Zstd || cap(r.dec.buf) < size+slack {
		// The decompressor's buffer lives in pageBuf (the allocator's
		// memory); ZSTD may still grow its own when a frame says more.
		r.pageBuf.ResizeNoShrink(size + slack + size/4)
		r.dec.buf = r.pageBuf.Bytes()
	}
	return r.dec.decode(body, size)
}

// aliasable says whether a data page's values, decompressed, are what
// readFixed's output holds byte for byte, so a batch may alias them: PLAIN
// values of 4 or 8 bytes copied unconverted, in a compressed page (an
// uncompressed one lies in the chunk's buffer, reused for the next chunk).
func (r *Reader) aliasable(h pageHeader) bool {
	return h.encoding == encPlain && r.p.cv == cvCopy && (r.p.ow == 4 || r.p.ow == 8) &&
		r.dec.codec != compress.Codecs.Uncompressed && (!h.v2 || h.isCompressed)
}

// ownPage decompresses a page body into a buffer of its own (page), which
// the batches aliasing its values keep alive after the reader moves on.
func (r *Reader) ownPage(body []byte, size int) ([]byte, error) {
	b := memory.NewResizableBuffer(r.pages)
	// Rounded up so that pages of about one size reuse one buffer.
	b.Resize((size + slack + 64<<10 - 1) &^ (64<<10 - 1))
	saved := r.dec.buf
	r.dec.buf = b.Bytes()
	out, err := r.dec.decode(body, size)
	r.dec.buf = saved
	if err != nil {
		b.Release()
		return nil, err
	}
	if len(out) == 0 || &out[0] != &b.Bytes()[0] {
		// Nothing to alias (an empty page), or a decoder that wrote
		// elsewhere: read it as any other page.
		b.Release()
		return out, nil
	}
	r.page = b
	return out, nil
}

// dropPage gives up the reader's hold on the current page's own buffer;
// batches aliasing it keep it until they are released.
func (r *Reader) dropPage() {
	if r.page != nil {
		r.page.Release()
		r.page = nil
	}
	r.pageVals = false
}

// nextPage loads the next data page (reading a dictionary page first if
// one comes).
func (r *Reader) nextPage(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.pageOff = r.ch.Offset + int64(r.pos)
		if r.jumpAt >= 0 && r.pos >= r.jumpAt {
			r.pageOff = r.jumpOff + int64(r.pos-r.jumpAt)
		}
		if r.left <= 0 || r.pos >= len(r.data) {
			return r.errorf("column chunk ends with %d of %d values unread", r.left, r.ch.NumValues)
		}
		h, hl, err := readPageHeader(r.data[r.pos:])
		if err != nil {
			return r.errorf("%v", err)
		}
		start := r.pos + hl
		if int(h.compressed) > len(r.data)-start {
			return r.errorf("page of %d bytes runs past the column chunk's end", h.compressed)
		}
		if int(h.uncompressed) > maxPageBytes || int(h.numValues) > maxPageValues {
			return r.errorf("page of %d bytes and %d values is beyond the reader's bounds", h.uncompressed, h.numValues)
		}
		body := r.data[start : start+int(h.compressed)]
		r.pos = start + int(h.compressed)
		switch h.typ {
		case pageDictionary:
			if r.hasDict {
				return r.errorf("second dictionary page")
			}
			if h.encoding != encPlain && h.encoding != encPlainDict {
				return r.errorf("dictionary page encoding %d", h.encoding)
			}
			var raw []byte
			var err error
			inPlace := r.p.cv == cvCopy && r.p.ow > 0 && r.dec.codec != compress.Codecs.Uncompressed
			if inPlace {
				// Decompressed straight into the dictionary's storage:
				// the values are already in output form.
				raw, err = r.dictInPlace(body, int(h.uncompressed))
			} else {
				raw, err = r.pageBytes(body, int(h.uncompressed), true)
			}
			if err != nil {
				return r.errorf("%v", err)
			}
			if err := r.loadDict(raw, int(h.numValues), inPlace); err != nil {
				return r.errorf("dictionary: %v", err)
			}
		case pageData, pageDataV2:
			if h.numValues == 0 {
				continue
			}
			if int64(h.numValues) > r.left {
				return r.errorf("page of %d values, the column chunk has %d left", h.numValues, r.left)
			}
			if err := r.loadData(h, body); err != nil {
				return r.errorf("%v", err)
			}
			r.left -= int64(h.numValues)
			return nil
		}
		// Index pages and unknown page types carry no values.
	}
}

func (r *Reader) loadData(h pageHeader, body []byte) error {
	nv := int(h.numValues)
	r.dropPage()
	own := r.aliasable(h)
	var levels, raw []byte
	if h.v2 {
		if h.repLen != 0 {
			return fmt.Errorf("repetition levels in a flat column")
		}
		if int(h.defLen) > len(body) {
			return fmt.Errorf("definition levels of %d bytes in a page of %d", h.defLen, len(body))
		}
		levels = body[:h.defLen]
		size := int(h.uncompressed) - int(h.defLen)
		if size < 0 {
			return fmt.Errorf("uncompressed size %d below the levels' %d bytes", h.uncompressed, h.defLen)
		}
		var err error
		if own {
			raw, err = r.ownPage(body[h.defLen:], size)
		} else {
			raw, err = r.pageBytes(body[h.defLen:], size, h.isCompressed)
		}
		if err != nil {
			return err
		}
	} else {
		var err error
		if own {
			raw, err = r.ownPage(body, int(h.uncompressed))
		} else {
			raw, err = r.pageBytes(body, int(h.uncompressed), true)
		}
		if err != nil {
			return err
		}
		if r.p.optional && h.defEnc == encBitPacked {
			// Deprecated: no length prefix, one bit per level from the
			// most significant bit.
			nb := (nv + 7) / 8
			if len(raw) < nb {
				return fmt.Errorf("bit-packed definition levels past the page's end")
			}
			if cap(r.defs) < nv {
				r.defs = make([]byte, nv)
			}
			r.defs = r.defs[:nv]
			ones := 0
			for i := range r.defs {
				v := raw[i>>3] >> (7 - uint(i&7)) & 1
				r.defs[i] = v
				ones += int(v)
			}
			raw = raw[nb:]
			r.pageLeft, r.defPos, r.valIdx, r.vpos, r.nonNull = nv, 0, 0, 0, ones
			r.pageNulls = ones < nv
			return r.setValues(h, raw)
		}
		if r.p.optional {
			if h.defEnc != encRLE {
				return fmt.Errorf("definition level encoding %d", h.defEnc)
			}
			if len(raw) < 4 {
				return fmt.Errorf("definition levels' length missing")
			}
			n := binary.LittleEndian.Uint32(raw)
			if uint64(n) > uint64(len(raw)-4) {
				return fmt.Errorf("definition levels of %d bytes in a page of %d", n, len(raw))
			}
			levels, raw = raw[4:4+n], raw[4+n:]
		}
	}
	r.pageLeft, r.defPos, r.valIdx, r.vpos = nv, 0, 0, 0
	r.nonNull = nv
	r.pageNulls = false
	if r.p.optional && !allOnes(levels, nv) {
		if cap(r.defs) < nv {
			r.defs = make([]byte, nv)
		}
		r.defs = r.defs[:nv]
		var d rleDecoder
		_ = d.init(levels, 1)
		ones, err := d.decodeLevels(r.defs)
		if err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		r.nonNull = ones
		r.pageNulls = ones < nv
	}
	return r.setValues(h, raw)
}

// setValues prepares the page's values for decoding.
func (r *Reader) setValues(h pageHeader, raw []byte) error {
	r.enc, r.vals = h.encoding, raw
	r.pageVals = r.page != nil && h.encoding == encPlain
	switch h.encoding {
	case encPlain:
	case encPlainDict, encRLEDict:
		if !r.hasDict {
			return fmt.Errorf("dictionary-encoded page without a dictionary page")
		}
		if r.nonNull == 0 {
			return nil
		}
		if len(raw) < 1 {
			return fmt.Errorf("dictionary index bit width missing")
		}
		if err := r.idx.init(raw[1:], int(raw[0])); err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
	case encRLE:
		if r.p.cv != cvBool {
			return fmt.Errorf("RLE values in a %s column", r.col.Descr.PhysicalType())
		}
		if len(raw) < 4 {
			return fmt.Errorf("RLE boolean length missing")
		}
		n := binary.LittleEndian.Uint32(raw)
		if uint64(n) > uint64(len(raw)-4) {
			return fmt.Errorf("RLE booleans of %d bytes in a page of %d", n, len(raw))
		}
		_ = r.idx.init(raw[4:4+n], 1)
	case encDeltaBinary:
		if r.p.pw != 4 && r.p.pw != 8 || r.p.cv == cvBool || r.p.cv == cvBinary {
			return fmt.Errorf("DELTA_BINARY_PACKED values in a %s column", r.col.Descr.PhysicalType())
		}
		d, err := decodeDeltaBinary(r.delta, raw, r.nonNull, r.p.pw)
		if err != nil {
			return err
		}
		r.delta = d
		r.enc, r.vals = encPlain, d
	case encDeltaLength, encDeltaByteArray:
		return r.setDeltaBytes(h.encoding, raw)
	case encByteStreamSplit:
		if r.p.pw == 0 || r.p.cv == cvBool {
			return fmt.Errorf("BYTE_STREAM_SPLIT values in a %s column", r.col.Descr.PhysicalType())
		}
		if len(raw) != r.nonNull*r.p.pw {
			return fmt.Errorf("BYTE_STREAM_SPLIT page of %d bytes for %d values of %d bytes", len(raw), r.nonNull, r.p.pw)
		}
	default:
		return fmt.Errorf("encoding %d", h.encoding)
	}
	return nil
}

// dictInPlace decompresses a dictionary page into dictFix's storage.
func (r *Reader) dictInPlace(body []byte, size int) ([]byte, error) {
	if cap(r.dictFix) < size+slack {
		r.dictFix = make([]byte, 0, size+slack+size/4)
	}
	saved := r.dec.buf
	r.dec.buf = r.dictFix[:0:cap(r.dictFix)]
	out, err := r.dec.decode(body, size)
	r.dec.buf = saved
	return out, err
}

// loadDict takes the dictionary page's n values from raw; inPlace says
// raw lies in dictFix's storage, in output form (dictInPlace).
func (r *Reader) loadDict(raw []byte, n int, inPlace bool) error {
	if r.p.cv == cvBool {
		return fmt.Errorf("dictionary for a boolean column")
	}
	if n < 0 || (r.p.pw > 0 && n > len(raw)/r.p.pw) || n > len(raw)/4+1 && r.p.pw == 0 {
		return fmt.Errorf("%d values in %d bytes", n, len(raw))
	}
	if r.p.cv == cvBinary {
		if cap(r.dictOffs) < n+1 {
			r.dictOffs = make([]int32, n+1)
		}
		r.dictOffs = r.dictOffs[:n+1]
		if cap(r.dictData) < len(raw)+wordPad {
			r.dictData = make([]byte, 0, len(raw)+wordPad)
		}
		d := r.dictData[:0]
		pos := 0
		for i := 0; i < n; i++ {
			if len(raw)-pos < 4 {
				return errShort
			}
			l := binary.LittleEndian.Uint32(raw[pos:])
			pos += 4
			if uint64(l) > uint64(len(raw)-pos) {
				return errShort
			}
			r.dictOffs[i] = int32(len(d))
			d = append(d, raw[pos:pos+int(l)]...)
			pos += int(l)
		}
		r.dictOffs[n] = int32(len(d))
		r.dictData = append(d, make([]byte, wordPad)...) // see copyDict
	} else if inPlace {
		r.dictFix = raw[:n*r.p.ow]
	} else {
		if cap(r.dictFix) < n*r.p.ow {
			r.dictFix = make([]byte, n*r.p.ow)
		}
		r.dictFix = r.dictFix[:n*r.p.ow]
		if _, err := r.convert(r.dictFix, raw, n); err != nil {
			return err
		}
	}
	r.hasDict, r.dictN = true, n
	r.dictGen++
	return nil
}
