package parquetpage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Pages lists where the pages of one column chunk lie and which rows each
// data page holds, so that a reader can start at a row inside the chunk
// (ResetRows) instead of at its first page: a row group too large for one
// scanner is read in row ranges by several.
type Pages struct {
	ch Chunk
	// dictOff, dictLen: the dictionary page, header included (dictLen 0:
	// the chunk has none).
	dictOff, dictLen int64
	// off[i]: file offset of data page i's header; end[i]: just past its
	// body (index pages between data pages fall inside the next one's
	// span and are skipped by the reader).
	off, end []int64
	// first[i]: the row (within the row group) data page i starts at;
	// first[len(off)] is the chunk's row count.
	first []int64
	// plain[i]: data page i is known not to be dictionary-encoded (a
	// writer's fallback to PLAIN part way through the chunk), so a read
	// of such pages only skips the dictionary page, often the chunk's
	// largest. Unknown (an offset index) counts as dictionary-encoded.
	plain []bool
}

// Starts are the rows the chunk's data pages start at, the first 0, in
// order, followed by the chunk's row count.
func (p *Pages) Starts() []int64 { return p.first }

// headerWindow is how much is read at a page header's offset when its
// page's bytes are not already at hand; a header that does not fit (long
// statistics) is read again with a larger window, up to maxHeaderBytes.
const (
	headerWindow   = 4 << 10
	maxHeaderBytes = 16 << 20
)

// maxListedPages bounds a page list (about 40 bytes a page): a chunk of
// more pages is refused rather than listed. Writers cut pages at about
// 20 000 rows or 1 MB, so a real chunk has thousands at most.
var maxListedPages = 1 << 20

// ScanPages lists the pages of chunk ch of col in f: from the chunk's
// offset index when it has one (one read), else by walking its page
// headers, reading only the headers (a window of a few KB at each, or a
// larger one where a header is longer). The column must be flat: a data
// page's value count is its row count. The chunk's value count must equal
// the sum of its data pages'. ResetRows checks every page it reads
// against the list, so an offset index that lies is an error there,
// never rows read twice or lost.
func ScanPages(ctx context.Context, f io.ReaderAt, col Column, ch Chunk) (*Pages, error) {
	errf := func(off int64, format string, args ...any) error {
		return fmt.Errorf("data file %s column %s row group %d page at offset %d: %s",
			col.File, col.Name, ch.RowGroup, off, fmt.Sprintf(format, args...))
	}
	if ch.Size < 0 || ch.Offset < 0 {
		return nil, errf(ch.Offset, "column chunk of %d bytes", ch.Size)
	}
	if ch.OffsetIndexLen > 0 {
		p, err := pagesFromIndex(f, ch)
		if err != nil {
			return nil, fmt.Errorf("data file %s column %s row group %d offset index at %d: %v", col.File, col.Name, ch.RowGroup, ch.OffsetIndex, err)
		}
		return p, nil
	}
	p := &Pages{ch: ch, first: []int64{0}}
	end := ch.Offset + ch.Size
	buf := make([]byte, headerWindow)
	var rows int64
	for pos := ch.Offset; pos < end; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var h pageHeader
		var hl int
		for w := int64(headerWindow); ; w *= 4 {
			w = min(w, end-pos, maxHeaderBytes)
			if int64(cap(buf)) < w {
				buf = make([]byte, w)
			}
			b := buf[:w]
			if n, err := f.ReadAt(b, pos); int64(n) != w {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, errf(pos, "reading a page header: %v", err)
			}
			var err error
			h, hl, err = readPageHeader(b)
			if err == nil {
				break
			}
			if !errors.Is(err, errShort) || w >= end-pos || w >= maxHeaderBytes {
				return nil, errf(pos, "%v", err)
			}
		}
		if int(h.uncompressed) > maxPageBytes || int(h.numValues) > maxPageValues {
			return nil, errf(pos, "page of %d bytes and %d values is beyond the reader's bounds", h.uncompressed, h.numValues)
		}
		next := pos + int64(hl) + int64(h.compressed)
		if next > end {
			return nil, errf(pos, "page of %d bytes runs past the column chunk's end", h.compressed)
		}
		switch h.typ {
		case pageDictionary:
			if p.dictLen > 0 || len(p.off) > 0 {
				return nil, errf(pos, "dictionary page after the chunk's first page")
			}
			p.dictOff, p.dictLen = pos, next-pos
		case pageData, pageDataV2:
			if h.numValues == 0 {
				break
			}
			// Index pages since the last data page (or the dictionary
			// page, or the chunk's start) go with this one.
			start := ch.Offset
			if len(p.off) > 0 {
				start = p.end[len(p.end)-1]
			} else if p.dictLen > 0 {
				start = p.dictOff + p.dictLen
			}
			if len(p.off) >= maxListedPages {
				return nil, errf(pos, "more than %d data pages in one column chunk", maxListedPages)
			}
			rows += int64(h.numValues)
			p.plain = append(p.plain, h.encoding != encPlainDict && h.encoding != encRLEDict)
			p.off = append(p.off, start)
			p.end = append(p.end, next)
			p.first = append(p.first, rows)
		}
		pos = next
	}
	if rows != ch.NumValues {
		return nil, errf(ch.Offset, "data pages hold %d values, the column chunk %d", rows, ch.NumValues)
	}
	return p, nil
}

// ResetRows starts reading chunk ch (listed by pg, ScanPages's answer
// for it) at row from; the caller reads at most to-from rows before the
// next Reset. Only the dictionary page and the data pages holding rows
// [from, to) are read, with one ReadAt each; the rows of the first of
// those pages before from are decoded and dropped.
func (r *Reader) ResetRows(ctx context.Context, f io.ReaderAt, ch Chunk, pg *Pages, from, to int64) error {
	if r.chunk == nil {
		return errors.New("parquetpage: reader used after Release")
	}
	r.ch = ch
	r.pageOff = ch.Offset
	if pg == nil || pg.ch != ch {
		return r.errorf("page list of another column chunk")
	}
	n := len(pg.off)
	if from < 0 || to < from || to > pg.first[n] {
		return r.errorf("rows %d..%d of a column chunk of %d", from, to, pg.first[n])
	}
	if from == to {
		// Nothing to read: an empty chunk.
		r.data = r.data[:0]
		return r.resetBytes(Chunk{RowGroup: ch.RowGroup, Offset: ch.Offset, Codec: ch.Codec})
	}
	// i0: the page holding row from; i1: the page holding row to-1.
	i0 := sort.Search(n, func(i int) bool { return pg.first[i+1] > from })
	i1 := sort.Search(n, func(i int) bool { return pg.first[i+1] >= to })
	if i0 >= n || i1 >= n || i1 < i0 {
		return r.errorf("rows %d..%d not in the page list", from, to)
	}
	dictLen := pg.dictLen
	if pg.plain != nil && !slices.Contains(pg.plain[i0:i1+1], false) {
		dictLen = 0
	}
	dataLen := pg.end[i1] - pg.off[i0]
	size := dictLen + dataLen
	if size > maxChunkBytes {
		return r.errorf("column chunk size %d", size)
	}
	if r.chunk.Cap() < int(size) {
		r.chunk.Release()
		r.chunk = memory.NewResizableBuffer(r.mem)
		r.chunk.Reserve(int(size + size/8))
	}
	r.chunk.ResizeNoShrink(int(size))
	r.data = r.chunk.Bytes()[:size]
	read := func(b []byte, off int64) error {
		if n, err := f.ReadAt(b, off); n != len(b) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return r.errorf("reading %d bytes of column chunk at offset %d: %v", len(b), off, err)
		}
		return nil
	}
	if dictLen > 0 {
		if err := read(r.data[:dictLen], pg.dictOff); err != nil {
			return err
		}
	}
	if err := read(r.data[dictLen:], pg.off[i0]); err != nil {
		return err
	}
	if err := r.checkPages(pg, i0, i1, dictLen); err != nil {
		return err
	}
	if err := r.resetBytes(Chunk{RowGroup: ch.RowGroup, Offset: ch.Offset, Size: size,
		NumValues: pg.first[i1+1] - pg.first[i0], Codec: ch.Codec}); err != nil {
		return err
	}
	// Offsets in errors stay file offsets: bytes from jumpAt on were read
	// from jumpOff on.
	if dictLen > 0 {
		r.ch.Offset = pg.dictOff
	} else {
		r.ch.Offset = pg.off[i0]
	}
	r.jumpAt, r.jumpOff = int(dictLen), pg.off[i0]
	return r.Skip(ctx, from-pg.first[i0])
}

// skipSel is an all-false selection: Skip reads with it, so a dictionary
// page's indices are walked but no value is gathered (ReadSelected).
var skipSel = make([]bool, 1<<16)

// Skip reads and drops n rows.
func (r *Reader) Skip(ctx context.Context, n int64) error {
	for n > 0 {
		k := min(n, int64(len(skipSel)))
		a, err := r.ReadSelected(ctx, int(k), skipSel[:k])
		if err != nil {
			return err
		}
		a.Release()
		n -= k
	}
	return nil
}

// checkPages walks the page headers of the bytes ResetRows read (the
// dictionary page, then data pages i0..i1 of pg) and checks each data
// page where pg says it is, holding the rows pg says it holds.
func (r *Reader) checkPages(pg *Pages, i0, i1 int, dictLen int64) error {
	pos, i := 0, i0
	base := dictLen
	for pos < len(r.data) {
		off := pg.dictOff + int64(pos)
		if int64(pos) >= base {
			off = pg.off[i0] + int64(pos) - base
		}
		h, hl, err := readPageHeader(r.data[pos:])
		if err != nil {
			r.pageOff = off
			return r.errorf("%v", err)
		}
		next := pos + hl + int(h.compressed)
		if h.compressed < 0 || next > len(r.data) {
			r.pageOff = off
			return r.errorf("page of %d bytes runs past the pages listed", h.compressed)
		}
		if (h.typ == pageData || h.typ == pageDataV2) && h.numValues > 0 {
			if i > i1 || off+int64(next-pos) != pg.end[i] || int64(h.numValues) != pg.first[i+1]-pg.first[i] ||
				(dictLen == 0 && pg.dictLen > 0 && (h.encoding == encPlainDict || h.encoding == encRLEDict)) {
				r.pageOff = off
				return r.errorf("data page of %d values does not match the page list (page %d: rows %d..%d, ending at %d)",
					h.numValues, i, pg.first[min(i, len(pg.first)-1)], pg.first[min(i+1, len(pg.first)-1)], pg.end[min(i, len(pg.end)-1)])
			}
			i++
		}
		pos = next
	}
	if i != i1+1 {
		return r.errorf("%d data pages where the page list has %d", i-i0, i1+1-i0)
	}
	return nil
}

// pagesFromIndex lists ch's pages from its offset index. The dictionary
// page, if any, is what lies between the chunk's start and its first data
// page.
func pagesFromIndex(f io.ReaderAt, ch Chunk) (*Pages, error) {
	if ch.OffsetIndexLen > maxHeaderBytes {
		return nil, fmt.Errorf("offset index of %d bytes", ch.OffsetIndexLen)
	}
	b := make([]byte, ch.OffsetIndexLen)
	if n, err := f.ReadAt(b, ch.OffsetIndex); n != len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d bytes: %v", len(b), err)
	}
	locs, err := readOffsetIndex(b)
	if err != nil {
		return nil, err
	}
	if len(locs) > maxListedPages {
		return nil, fmt.Errorf("%d pages, more than %d in one column chunk", len(locs), maxListedPages)
	}
	end := ch.Offset + ch.Size
	p := &Pages{ch: ch, first: make([]int64, 0, len(locs)+1)}
	for i, l := range locs {
		if l.size <= 0 || l.off < ch.Offset || l.off+int64(l.size) > end {
			return nil, fmt.Errorf("page %d at %d of %d bytes outside the column chunk (%d..%d)", i, l.off, l.size, ch.Offset, end)
		}
		if i == 0 {
			if l.first != 0 {
				return nil, fmt.Errorf("first page starts at row %d", l.first)
			}
			if l.off > ch.Offset {
				p.dictOff, p.dictLen = ch.Offset, l.off-ch.Offset
			}
		} else if l.off < p.end[i-1] || l.first <= p.first[i-1] {
			return nil, fmt.Errorf("page %d (at %d, row %d) not after page %d", i, l.off, l.first, i-1)
		}
		p.off = append(p.off, l.off)
		p.end = append(p.end, l.off+int64(l.size))
		p.first = append(p.first, l.first)
	}
	if len(locs) == 0 || ch.NumValues <= p.first[len(p.first)-1] {
		return nil, fmt.Errorf("%d pages for %d values", len(locs), ch.NumValues)
	}
	p.first = append(p.first, ch.NumValues)
	return p, nil
}

type pageLoc struct {
	off   int64
	size  int32
	first int64
}

// readOffsetIndex decodes an OffsetIndex (parquet.thrift): its
// page_locations, field 1, a list of PageLocation {1: offset, 2:
// compressed_page_size, 3: first_row_index}.
func readOffsetIndex(b []byte) ([]pageLoc, error) {
	t := thriftReader{b: b}
	var locs []pageLoc
	seen := false
	err := t.fields(func(id int16, typ byte) (bool, error) {
		if id != 1 {
			return false, nil
		}
		if typ != tList {
			return false, fmt.Errorf("thrift type %d for page_locations", typ)
		}
		seen = true
		h, err := t.byte1()
		if err != nil {
			return false, err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return false, err
			}
		}
		if h&0x0f != tStruct {
			return false, fmt.Errorf("page_locations of thrift type %d", h&0x0f)
		}
		if n > uint64(len(t.b)-t.pos) {
			return false, errShort
		}
		locs = make([]pageLoc, 0, n)
		for ; n > 0; n-- {
			l := pageLoc{off: -1, size: -1, first: -1}
			err := t.fields(func(fid int16, ft byte) (bool, error) {
				switch fid {
				case 1, 3:
					if ft != tI64 {
						return false, fmt.Errorf("thrift type %d for an i64 field", ft)
					}
					v, err := t.varint()
					if fid == 1 {
						l.off = v
					} else {
						l.first = v
					}
					return true, err
				case 2:
					if ft != tI32 {
						return false, fmt.Errorf("thrift type %d for an i32 field", ft)
					}
					v, err := t.i32()
					l.size = v
					return true, err
				}
				return false, nil
			})
			if err != nil {
				return false, err
			}
			if l.off < 0 || l.size < 0 || l.first < 0 {
				return false, errors.New("page location without offset, size or first row")
			}
			locs = append(locs, l)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errors.New("no page locations")
	}
	return locs, nil
}
