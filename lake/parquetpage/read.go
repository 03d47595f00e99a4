package parquetpage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Read returns the next n rows of the current chunk as an array of the
// column's output type.
func (r *Reader) Read(ctx context.Context, n int) (arrow.Array, error) {
	return r.ReadSelected(ctx, n, nil)
}

// ReadSelected is Read for a caller that will drop every row i with
// !sel[i] (a row filter evaluated on other columns first): such rows keep
// their NULL-ness but their values may be left zero or empty instead of
// being materialised. sel nil selects every row.
func (r *Reader) ReadSelected(ctx context.Context, n int, sel []bool) (arrow.Array, error) {
	if sel != nil && len(sel) < n {
		return nil, fmt.Errorf("parquetpage: selection of %d rows for a read of %d", len(sel), n)
	}
	r.sel = sel
	defer func() { r.sel = nil }()
	if n < 0 {
		return nil, fmt.Errorf("parquetpage: negative read of %d rows", n)
	}
	// The validity bitmap is made when the first NULL-bearing page
	// comes (newValidity): a batch without NULLs has none.
	r.readN, r.valid, r.vbits = n, nil, nil
	var bufs []*memory.Buffer
	var nulls int
	var err error
	if r.p.cv == cvBinary {
		bufs, nulls, err = r.readBinary(ctx, n)
	} else {
		bufs, nulls, err = r.readFixed(ctx, n)
	}
	valid := r.valid
	r.valid, r.vbits = nil, nil
	if err != nil {
		if valid != nil {
			valid.Release()
		}
		return nil, err
	}
	if nulls == 0 && valid != nil {
		valid.Release()
		valid = nil
	}
	data := array.NewData(r.col.Out, n, append([]*memory.Buffer{valid}, bufs...), nil, nulls, 0)
	a := array.MakeFromData(data)
	data.Release()
	if valid != nil {
		valid.Release()
	}
	for _, b := range bufs {
		b.Release()
	}
	return a, nil
}

// segment is a run of rows within one page.
type segment struct {
	row, k, m int
	defs      []byte // nil: no NULLs possible
}

// next loads a page if needed and returns the next run of at most want
// rows, with its non-NULL count; it marks valid rows in the read's
// validity bitmap, once there is one.
func (r *Reader) next(ctx context.Context, row, want int) (segment, error) {
	if r.pageLeft == 0 {
		if err := r.nextPage(ctx); err != nil {
			return segment{}, err
		}
	}
	k := min(want, r.pageLeft)
	s := segment{row: row, k: k, m: k}
	switch {
	case r.pageNulls:
		if r.vbits == nil {
			r.newValidity(row)
		}
		s.defs = r.defs[r.defPos : r.defPos+k]
		r.defPos += k
		s.m = packLevels(r.vbits, row, s.defs)
	case r.vbits != nil:
		bitutil.SetBitsTo(r.vbits, int64(row), int64(k), true)
	}
	r.pageLeft -= k
	return s, nil
}

// newValidity makes the read's validity bitmap when its first NULL-bearing
// segment starts at row: the rows before it are all valid.
func (r *Reader) newValidity(row int) {
	r.valid = memory.NewResizableBuffer(r.mem)
	r.valid.Resize(int(bitutil.BytesForBits(int64(r.readN))))
	r.vbits = r.valid.Bytes()
	clear(r.vbits)
	bitutil.SetBitsTo(r.vbits, 0, int64(row), true)
}

func (r *Reader) readFixed(ctx context.Context, n int) ([]*memory.Buffer, int, error) {
	ow := r.p.ow
	var vb *memory.Buffer
	var out []byte
	if r.p.cv == cvBool {
		if cap(r.boolOut) < n {
			r.boolOut = make([]byte, n)
		}
		out = r.boolOut[:n]
	}
	fail := func(err error) ([]*memory.Buffer, int, error) {
		if vb != nil {
			vb.Release()
		}
		return nil, 0, err
	}
	nulls := 0
	for row := 0; row < n; {
		s, err := r.next(ctx, row, n-row)
		if err != nil {
			return fail(err)
		}
		if s.k == n && s.defs == nil {
			// The whole batch within one page and no NULL: its values
			// may be the page's own bytes.
			if b := r.alias(n); b != nil {
				r.valIdx += n
				return []*memory.Buffer{b}, 0, nil
			}
		}
		if out == nil {
			vb = memory.NewResizableBuffer(r.mem)
			vb.Resize(n * ow)
			out = vb.Bytes()
		}
		seg := out[row*ow : (row+s.k)*ow]
		dict := s.m > 0 && (r.enc == encRLEDict || r.enc == encPlainDict) && (ow == 8 || ow == 4)
		if dict && r.sel != nil && sparse(r.sel[row:row+s.k], len(r.dictFix)) {
			// Few rows selected: decode only their indices.
			var bad int64
			var err error
			sel := r.sel[row : row+s.k]
			if ow == 8 {
				bad, err = decodeDictSparse(&r.idx, arrow.Uint64Traits.CastFromBytes(seg), arrow.Uint64Traits.CastFromBytes(r.dictFix), s.defs, sel)
			} else {
				bad, err = decodeDictSparse(&r.idx, arrow.Uint32Traits.CastFromBytes(seg), arrow.Uint32Traits.CastFromBytes(r.dictFix), s.defs, sel)
			}
			if err == nil && bad >= 0 {
				err = r.badIndex(uint32(bad))
			}
			if err != nil {
				return fail(r.wrapf(err))
			}
		} else {
			// Dense: with a selection every value is decoded anyway
			// (unselected rows may keep theirs), and with NULLs the
			// values are decoded to the front and spread, so dictionary
			// pages go through one kernel either way.
			if err := r.values(seg[:s.m*ow], s.m); err != nil {
				return fail(r.wrapf(err))
			}
			if s.m < s.k {
				spread(seg, s.defs, s.m, ow)
			}
		}
		r.valIdx += s.m
		nulls += s.k - s.m
		row += s.k
	}
	switch {
	case r.p.cv == cvBool:
		vb = memory.NewResizableBuffer(r.mem)
		vb.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := vb.Bytes()
		clear(bits)
		for i, b := range out {
			if b != 0 {
				bitutil.SetBit(bits, i)
			}
		}
	case vb == nil: // no rows
		vb = memory.NewResizableBuffer(r.mem)
	}
	return []*memory.Buffer{vb}, nulls, nil
}

// alias returns the page's next n PLAIN values as a slice of the page's
// own buffer (ownPage), keeping it alive, or nil when they are not there
// as Arrow stores them (another encoding, a page read into the reused
// buffer, values not aligned to their width).
func (r *Reader) alias(n int) *memory.Buffer {
	if !r.pageVals || r.enc != encPlain {
		return nil
	}
	ow := r.p.ow
	if len(r.vals)-r.vpos < n*ow {
		return nil // short page: values reports it
	}
	pb := r.page.Bytes()
	v := r.vals[r.vpos:]
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(v))) - uintptr(unsafe.Pointer(unsafe.SliceData(pb))))
	if off < 0 || off+n*ow > len(pb) || uintptr(unsafe.Pointer(unsafe.SliceData(v)))%uintptr(ow) != 0 {
		return nil
	}
	r.vpos += n * ow
	return memory.SliceBuffer(r.page, off, n*ow)
}

// sparse reports whether decoding only the selected rows' dictionary
// indices (decodeDictSparse) beats decoding them all: under a quarter
// of sel is true, and either the selected rows come in few runs (each
// run costs a skip and a call, about as much as gathering 64 values
// densely) or the dictionary, of dictBytes, is too large for the cache,
// so that every gather skipped is a cache miss saved (measured: dense
// still wins at 1 MiB, skipping at 8 MiB; BenchmarkDictKernel).
func sparse(sel []bool, dictBytes int) bool {
	if len(sel) == 0 {
		return false
	}
	// A bool is one byte, 0 or 1: a word's set bits count its true
	// ones, and those not preceded by a true one start runs.
	b := unsafe.Slice((*byte)(unsafe.Pointer(&sel[0])), len(sel))
	k, runs, i := 0, 0, 0
	var prev uint64 // the previous row's byte
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		k += bits.OnesCount64(w)
		runs += bits.OnesCount64(w &^ (w<<8 | prev))
		prev = w >> 56
	}
	for ; i < len(b); i++ {
		c := uint64(b[i])
		k += int(c)
		runs += int(c &^ prev)
		prev = c
	}
	return 4*k < len(sel) && (64*runs < len(sel) || dictBytes > 4<<20)
}

// spread moves the m values at the front of seg to the rows whose
// definition level is 1, zeroing the NULL slots, from the back so nothing
// is overwritten before it moves.
func spread(seg, defs []byte, m, ow int) {
	switch ow {
	case 8:
		spreadW(arrow.Uint64Traits.CastFromBytes(seg), defs, m)
		return
	case 4:
		spreadW(arrow.Uint32Traits.CastFromBytes(seg), defs, m)
		return
	case 16:
		d := words128(seg)
		j := m - 1
		for i := len(defs) - 1; i > j; i-- {
			if defs[i] != 0 {
				d[i] = d[j]
				j--
			} else {
				d[i] = [2]uint64{}
			}
		}
		return
	}
	j := m - 1
	for i := len(defs) - 1; i > j; i-- {
		if defs[i] != 0 {
			copy(seg[i*ow:(i+1)*ow], seg[j*ow:(j+1)*ow])
			j--
		} else {
			clear(seg[i*ow : (i+1)*ow])
		}
	}
}

// spreadW is spread for one word width, without a branch per row: each
// row takes the value at j masked by its level, and j moves down by the
// level. Once j passes the front every row left is NULL; once i meets
// j every row left is in place.
func spreadW[T uint32 | uint64](d []T, defs []byte, m int) {
	d = d[:len(defs)]
	j, i := m-1, len(defs)-1
	for ; i > j && j >= 0; i-- {
		def := defs[i]
		d[i] = d[j] & -T(def)
		j -= int(def)
	}
	if j < 0 {
		clear(d[:i+1])
	}
}

// values decodes the page's next m non-NULL values into dst (m × ow).
func (r *Reader) values(dst []byte, m int) error {
	if m == 0 {
		return nil
	}
	switch r.enc {
	case encPlain:
		if r.p.cv == cvBool {
			if (len(r.vals)*8-r.vpos)/1 < m {
				return fmt.Errorf("%d booleans past the page's end", m)
			}
			for i := 0; i < m; i++ {
				b := r.vpos + i
				dst[i] = (r.vals[b>>3] >> (b & 7)) & 1
			}
			r.vpos += m
			return nil
		}
		used, err := r.convert(dst, r.vals[r.vpos:], m)
		r.vpos += used
		return err
	case encPlainDict, encRLEDict:
		var bad int64
		var err error
		switch r.p.ow {
		case 8:
			bad, err = decodeDict(&r.idx, arrow.Uint64Traits.CastFromBytes(dst)[:m], arrow.Uint64Traits.CastFromBytes(r.dictFix))
		case 4:
			bad, err = decodeDict(&r.idx, arrow.Uint32Traits.CastFromBytes(dst)[:m], arrow.Uint32Traits.CastFromBytes(r.dictFix))
		case 16:
			bad, err = decodeDict(&r.idx, words128(dst)[:m], words128(r.dictFix))
		default:
			idx, err := r.indices(m)
			if err != nil {
				return err
			}
			return r.gather(dst, idx)
		}
		if err == nil && bad >= 0 {
			return r.badIndex(uint32(bad))
		}
		return err
	case encRLE:
		idx, err := r.indices(m)
		if err != nil {
			return err
		}
		for i, v := range idx {
			dst[i] = byte(v)
		}
		return nil
	case encByteStreamSplit:
		pw, total := r.p.pw, r.nonNull
		if cap(r.tmp) < m*pw {
			r.tmp = make([]byte, m*pw)
		}
		t := r.tmp[:m*pw]
		for b := 0; b < pw; b++ {
			src := r.vals[b*total+r.valIdx : b*total+r.valIdx+m]
			for i, c := range src {
				t[i*pw+b] = c
			}
		}
		_, err := r.convert(dst, t, m)
		return err
	}
	return fmt.Errorf("encoding %d", r.enc)
}

// words128 views b (a multiple of 16 bytes, 8-byte aligned: an Arrow
// buffer or a Go allocation of at least 16 bytes) as 16-byte values.
func words128(b []byte) [][2]uint64 {
	if len(b) < 16 {
		return nil
	}
	return unsafe.Slice((*[2]uint64)(unsafe.Pointer(&b[0])), len(b)/16)
}

func (r *Reader) indices(m int) ([]uint32, error) {
	if cap(r.idxBuf) < m {
		r.idxBuf = make([]uint32, m)
	}
	idx := r.idxBuf[:m]
	if err := r.idx.decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

func (r *Reader) badIndex(ix uint32) error {
	return fmt.Errorf("dictionary index %d, the dictionary has %d values", ix, r.dictN)
}

// gather writes the dictionary values of idx to dst, for the widths
// other than 4, 8 and 16 (values decodes those straight from the
// indices).
func (r *Reader) gather(dst []byte, idx []uint32) error {
	n := uint32(r.dictN)
	ow := r.p.ow
	for i, ix := range idx {
		if ix >= n {
			return r.badIndex(ix)
		}
		copy(dst[i*ow:(i+1)*ow], r.dictFix[int(ix)*ow:(int(ix)+1)*ow])
	}
	return nil
}

func (r *Reader) readBinary(ctx context.Context, n int) ([]*memory.Buffer, int, error) {
	ob := memory.NewResizableBuffer(r.mem)
	ob.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(ob.Bytes())
	offs[0] = 0
	db := memory.NewResizableBuffer(r.mem)
	var d []byte
	// ensure makes room for extra more bytes of the segment ending at row
	// end. Growing, it aims at the whole batch at the bytes per row seen
	// so far, at least doubling (exactly what the last segment needs), so
	// a batch spanning many pages is neither copied once per doubling nor
	// left with twice its size; at most 8× what is needed now, so one long
	// value early in a batch cannot reserve for thousands like it.
	ensure := func(extra, end int) error {
		need := len(d) + extra
		if need > math.MaxInt32 {
			return fmt.Errorf("more than 2 GiB of values in one batch")
		}
		if need > cap(d) {
			grow := need // the batch's last segment
			if end < n && end > 0 {
				est := int64(need) * int64(n) / int64(end)
				grow = int(min(max(est+est/16, 2*int64(cap(d))), 8*int64(need), math.MaxInt32))
			}
			db.Resize(len(d))
			db.Reserve(max(need, grow))
			d = db.Buf()[:len(d)]
		}
		return nil
	}
	fail := func(err error) ([]*memory.Buffer, int, error) {
		ob.Release()
		db.Release()
		return nil, 0, err
	}
	nulls := 0
	for row := 0; row < n; {
		s, err := r.next(ctx, row, n-row)
		if err != nil {
			return fail(err)
		}
		nulls += s.k - s.m
		o := offs[row+1 : row+1+s.k]
		switch r.enc {
		case encPlain:
			if r.filt != nil {
				r.filterOther(s)
			}
			if cap(d) == 0 && r.binRowBytes > 0 {
				// Room for the batch at the last batch's bytes a row
				// (and a sixteenth): values of about one size then
				// take one pass below, not a size pass and a copy.
				est := r.binRowBytes * int64(n)
				if err := ensure(int(min(est+est/16+wordPad, math.MaxInt32)), 0); err != nil {
					return fail(r.errorf("%v", err))
				}
			}
			// Checked and copied in one pass while the room lasts.
			vals := r.vals
			var i, pos int
			var bad error
			d, i, pos, bad = copyPlainChecked(d, o, s.defs, vals, r.vpos)
			if bad != nil {
				return fail(r.errorf("%v", bad))
			}
			if i < len(o) {
				// Out of room: the rest's sizes (their lengths
				// checked there), so the output grows once to what
				// they need, then a copy.
				rest := s.defs
				if rest != nil {
					rest = rest[i:]
				}
				m := len(o) - i
				if rest != nil {
					m = 0
					for _, l := range rest {
						m += int(l)
					}
				}
				end, total := pos, 0
				for j := 0; j < m; j++ {
					if len(vals)-end < 4 {
						return fail(r.errorf("value length past the page's end"))
					}
					l := int(binary.LittleEndian.Uint32(vals[end:]))
					end += 4
					if l < 0 || l > len(vals)-end {
						return fail(r.errorf("value of %d bytes past the page's end", l))
					}
					end += l
					total += l
				}
				if err := ensure(total+wordPad, row+s.k); err != nil {
					return fail(r.errorf("%v", err))
				}
				d = copyPlain(d, o[i:], rest, vals, pos)
				pos = end
			}
			r.vpos = pos
		case encPlainDict, encRLEDict:
			idx, err := r.indices(s.m)
			if err != nil {
				return fail(r.errorf("%v", err))
			}
			total := 0
			do := r.dictOffs[:r.dictN+1]
			for _, ix := range idx {
				if int(ix) >= len(do)-1 {
					return fail(r.errorf("%v", r.badIndex(ix)))
				}
				total += int(do[ix+1] - do[ix])
			}
			var sel []bool
			if r.filt != nil {
				// Room for the passing rows' strings only: a filter
				// keeping 2/7 of the rows (Q19's l_shipmode) would
				// otherwise reserve, and zero, the whole batch's.
				if sel = r.filterDict(s, idx); sel != nil {
					total = selectedBytes(s.defs, sel, idx, do)
				}
			} else if r.sel != nil {
				sel = r.sel[row : row+s.k]
			}
			if err := ensure(total+wordPad, row+s.k); err != nil {
				return fail(r.errorf("%v", err))
			}
			d = copyDict(d, o, s.defs, sel, idx, r.dictData, do)
		case encOffsets:
			if r.filt != nil {
				r.filterOther(s)
			}
			if r.valIdx+s.m >= len(r.binOffs) {
				return fail(r.errorf("%d values read from a page of %d", r.valIdx+s.m, len(r.binOffs)-1))
			}
			bo := r.binOffs[r.valIdx : r.valIdx+s.m+1]
			if err := ensure(int(bo[s.m]-bo[0]), row+s.k); err != nil {
				return fail(r.errorf("%v", err))
			}
			src := r.binData
			if r.sel == nil {
				// One copy for the segment; the offsets shift by where
				// it lands.
				shift := int32(len(d)) - bo[0]
				d = append(d, src[bo[0]:bo[s.m]]...)
				if s.defs == nil {
					for i := range o {
						o[i] = bo[i+1] + shift
					}
				} else {
					j := 0
					for i := range o {
						j += int(s.defs[i])
						o[i] = bo[j] + shift
					}
				}
			} else {
				sel := r.sel[row : row+s.k]
				j := 0
				for i := range o {
					if s.defs == nil || s.defs[i] != 0 {
						if sel[i] {
							d = append(d, src[bo[j]:bo[j+1]]...)
						}
						j++
					}
					o[i] = int32(len(d))
				}
			}
		default:
			return fail(r.errorf("encoding %d in a byte array column", r.enc))
		}
		r.valIdx += s.m
		row += s.k
	}
	db.Resize(len(d))
	if n > 0 {
		r.binRowBytes = int64(len(d)) / int64(n)
	}
	return []*memory.Buffer{ob, db}, nulls, nil
}

// wordPad is the spare room kept past the dictionary's strings and past
// a string batch's bytes, so a value of up to 16 bytes is copied as two
// 8-byte words instead of a call to memmove.
const wordPad = 16

// copy16 copies the first 16 bytes of src to dst: a value of up to 16
// bytes with whatever follows it, which the next value overwrites.
func copy16(dst, src []byte) {
	dst, src = dst[:16], src[:16]
	binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
	binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[8:]))
}

// copyPlain appends the PLAIN byte arrays of vals from pos (every length
// already checked against vals) to d, which has room for them and
// wordPad more, and sets the end offset of each row in o (NULL rows,
// defs[i] == 0, add nothing).
// copyPlainChecked is copyPlain checking each value's length against the
// page as it goes, for as many rows as d has room for (each value plus
// wordPad): it returns d, the first row it did not copy (len(o) when
// all) and the position of that row's value in vals. A length past the
// page's end is an error.
func copyPlainChecked(d []byte, o []int32, defs, vals []byte, pos int) ([]byte, int, int, error) {
	buf, p := d[:cap(d)], len(d)
	for i := range o {
		if defs == nil || defs[i] != 0 {
			if len(vals)-pos < 4 {
				return nil, 0, 0, errors.New("value length past the page's end")
			}
			l := int(binary.LittleEndian.Uint32(vals[pos:]))
			if l < 0 || l > len(vals)-pos-4 {
				return nil, 0, 0, fmt.Errorf("value of %d bytes past the page's end", l)
			}
			if l > len(buf)-p-wordPad {
				return buf[:p], i, pos, nil
			}
			pos += 4
			if l <= 16 && len(vals)-pos >= 16 {
				copy16(buf[p:], vals[pos:])
			} else {
				copy(buf[p:p+l], vals[pos:pos+l])
			}
			p += l
			pos += l
		}
		o[i] = int32(p)
	}
	return buf[:p], len(o), pos, nil
}

func copyPlain(d []byte, o []int32, defs, vals []byte, pos int) []byte {
	buf, p := d[:cap(d)], len(d)
	for i := range o {
		if defs == nil || defs[i] != 0 {
			l := int(binary.LittleEndian.Uint32(vals[pos:]))
			pos += 4
			if l <= 16 && len(vals)-pos >= 16 {
				copy16(buf[p:], vals[pos:])
			} else {
				copy(buf[p:p+l], vals[pos:pos+l])
			}
			p += l
			pos += l
		}
		o[i] = int32(p)
	}
	return buf[:p]
}

// copyDict appends the dictionary strings of idx (every index already
// checked) to the rows of d, which has room for them and wordPad more:
// each row whose level is 1 takes the next index, and its string when
// it is selected (sel nil: every row). dict has wordPad bytes past its
// last string. o gets each row's end offset.
func copyDict(d []byte, o []int32, defs []byte, sel []bool, idx []uint32, dict []byte, do []int32) []byte {
	buf, p := d[:cap(d)], len(d)
	if defs == nil && sel == nil {
		o = o[:len(idx)]
		for i, ix := range idx {
			a, e := int(do[ix]), int(do[ix+1])
			if l := e - a; l <= 16 {
				copy16(buf[p:], dict[a:])
				p += l
			} else {
				p += copy(buf[p:p+l], dict[a:e])
			}
			o[i] = int32(p)
		}
		return buf[:p]
	}
	j := 0
	for i := range o {
		if defs == nil || defs[i] != 0 {
			ix := idx[j]
			j++
			if sel == nil || sel[i] {
				a, e := int(do[ix]), int(do[ix+1])
				if l := e - a; l <= 16 {
					copy16(buf[p:], dict[a:])
					p += l
				} else {
					p += copy(buf[p:p+l], dict[a:e])
				}
			}
		}
		o[i] = int32(p)
	}
	return buf[:p]
}

// selectedBytes is the length of the dictionary strings of the selected
// rows (every index already checked; defs as copyDict takes them).
func selectedBytes(defs []byte, sel []bool, idx []uint32, do []int32) int {
	total, j := 0, 0
	for i, ok := range sel {
		if defs != nil && defs[i] == 0 {
			continue
		}
		if ok {
			ix := idx[j]
			total += int(do[ix+1] - do[ix])
		}
		j++
	}
	return total
}

// packLevels sets the validity bits of rows row… from 0/1 definition
// levels and returns how many are 1. vbits is clear past row.
func packLevels(vbits []byte, row int, defs []byte) int {
	ones, i := 0, 0
	for ; i < len(defs) && (row+i)&7 != 0; i++ {
		if defs[i] != 0 {
			vbits[(row+i)>>3] |= 1 << uint((row+i)&7)
			ones++
		}
	}
	// Eight levels (bytes of 0 or 1) to one bitmap byte: the multiply
	// gathers byte j's low bit into bit 56+j.
	out := vbits[(row+i)>>3:]
	o := 0
	for ; i+8 <= len(defs); i += 8 {
		w := binary.LittleEndian.Uint64(defs[i:])
		b := byte((w * 0x0102040810204080) >> 56)
		out[o] = b
		o++
		ones += bits.OnesCount8(b)
	}
	for ; i < len(defs); i++ {
		if defs[i] != 0 {
			vbits[(row+i)>>3] |= 1 << uint((row+i)&7)
			ones++
		}
	}
	return ones
}

// ReadSelectedWith is ReadSelected with the output array's buffers (and
// any page buffer the read happens to load) allocated from mem instead of
// the reader's allocator. mem must hand out memory of that same allocator
// (a pool in front of it): the reader frees its own buffers there later.
func (r *Reader) ReadSelectedWith(ctx context.Context, n int, sel []bool, mem memory.Allocator) (arrow.Array, error) {
	old := r.mem
	r.mem = mem
	defer func() { r.mem = old }()
	return r.ReadSelected(ctx, n, sel)
}
