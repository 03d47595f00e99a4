package streamload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge is a body or a row over its size limit.
var ErrTooLarge = errors.New("too large")

// ErrFormat is a body that cannot be decoded at all (not one bad row: a
// bad row is filtered and logged, the load goes on).
var ErrFormat = errors.New("malformed body")

// buffer is a refillable window over the body. Decoders keep [start, end)
// as unread bytes; refill moves them to the front and reads more, growing
// the window up to max bytes so that one row always fits.
type buffer struct {
	r          io.Reader
	buf        []byte
	start, end int
	eof        bool
	max        int
	offset     int64 // body offset of buf[0]
}

func newBuffer(r io.Reader, max int) *buffer {
	n := 1 << 20
	if n > max {
		n = max
	}
	return &buffer{r: r, buf: make([]byte, n), max: max}
}

// refill reads more bytes; it reports false at the end of the body. When
// the window is full of one unfinished row and may not grow, it fails.
func (b *buffer) refill() (bool, error) {
	if b.eof {
		return false, nil
	}
	if b.start > 0 {
		copy(b.buf, b.buf[b.start:b.end])
		b.offset += int64(b.start)
		b.end -= b.start
		b.start = 0
	}
	if b.end == len(b.buf) {
		if len(b.buf) >= b.max {
			return false, fmt.Errorf("%w: a row at byte %d is longer than %d bytes", ErrTooLarge, b.offset, b.max)
		}
		n := 2 * len(b.buf)
		if n > b.max {
			n = b.max
		}
		nb := make([]byte, n)
		copy(nb, b.buf[:b.end])
		b.buf = nb
	}
	for {
		n, err := b.r.Read(b.buf[b.end:])
		b.end += n
		if err == io.EOF {
			b.eof = true
			return n > 0, nil
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
}

// csvReader splits a CSV body into rows of fields, Doris style: fields are
// separated by column_separator and rows by line_delimiter (both may be
// several bytes); with enclose set, a field that starts with it runs to
// the matching enclose and may hold separators and delimiters, with escape
// making the next byte literal; `\N` unenclosed is NULL; empty rows are
// skipped.
type csvReader struct {
	b          *buffer
	sep, delim []byte
	enclose    byte
	escape     byte
	trimQuotes bool

	fields  [][]byte
	nulls   []bool
	scratch []byte
	raw     []byte
}

func newCSVReader(r io.Reader, p *Params, maxRow int) *csvReader {
	return &csvReader{b: newBuffer(r, maxRow), sep: p.ColumnSeparator, delim: p.LineDelimiter,
		enclose: p.Enclose, escape: p.Escape, trimQuotes: p.TrimDoubleQuote}
}

// next returns the next row's fields (nil-flagged in nulls) and its raw
// bytes, valid until the next call; io.EOF at the end of the body.
func (c *csvReader) next() ([][]byte, []bool, error) {
	for {
		rec, err := c.record()
		if err != nil {
			return nil, nil, err
		}
		if len(rec) == 0 {
			continue
		}
		c.raw = rec
		c.split(rec)
		return c.fields, c.nulls, nil
	}
}

// record finds the next row's bytes (without its delimiter).
func (c *csvReader) record() ([]byte, error) {
	b := c.b
	for {
		win := b.buf[b.start:b.end]
		n := c.scan(win)
		if n >= 0 {
			b.start += n + len(c.delim)
			return win[:n], nil
		}
		more, err := b.refill()
		if err != nil {
			return nil, err
		}
		if !more {
			if b.start == b.end {
				return nil, io.EOF
			}
			rec := b.buf[b.start:b.end]
			b.start = b.end
			return rec, nil
		}
	}
}

// scan returns the length of the first row of win, or -1 if win holds no
// complete row.
func (c *csvReader) scan(win []byte) int {
	if c.enclose == 0 {
		return bytes.Index(win, c.delim)
	}
	fieldStart, inQuote := true, false
	for i := 0; i < len(win); i++ {
		ch := win[i]
		if inQuote {
			switch {
			case c.escape != 0 && ch == c.escape:
				i++
			case ch == c.enclose:
				inQuote = false
			}
			continue
		}
		if fieldStart && ch == c.enclose {
			inQuote, fieldStart = true, false
			continue
		}
		fieldStart = false
		if ch == c.delim[0] && bytes.HasPrefix(win[i:], c.delim) {
			return i
		}
		if ch == c.sep[0] && bytes.HasPrefix(win[i:], c.sep) {
			fieldStart = true
			i += len(c.sep) - 1
		}
	}
	return -1
}

func (c *csvReader) split(rec []byte) {
	c.fields, c.nulls = c.fields[:0], c.nulls[:0]
	if cap(c.scratch) < len(rec) {
		c.scratch = make([]byte, 0, len(rec))
	}
	c.scratch = c.scratch[:0]
	for {
		var f []byte
		var rest []byte
		last := false
		if c.enclose != 0 && len(rec) > 0 && rec[0] == c.enclose {
			f, rest, last = c.enclosed(rec)
		} else {
			i := bytes.Index(rec, c.sep)
			if i < 0 {
				f, last = rec, true
			} else {
				f, rest = rec[:i], rec[i+len(c.sep):]
			}
		}
		null := len(f) == 2 && f[0] == '\\' && f[1] == 'N' && !(c.enclose != 0 && len(rec) > 0 && rec[0] == c.enclose)
		if c.trimQuotes && len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
			f = f[1 : len(f)-1]
		}
		c.fields = append(c.fields, f)
		c.nulls = append(c.nulls, null)
		if last {
			return
		}
		rec = rest
	}
}

// enclosed decodes an enclosed field at the start of rec into scratch and
// returns it with what follows its separator. Bytes between the closing
// enclose and the next separator are kept, as Doris keeps them.
func (c *csvReader) enclosed(rec []byte) (f, rest []byte, last bool) {
	start := len(c.scratch)
	i := 1
	for ; i < len(rec); i++ {
		ch := rec[i]
		if c.escape != 0 && ch == c.escape && i+1 < len(rec) {
			i++
			c.scratch = append(c.scratch, rec[i])
			continue
		}
		if ch == c.enclose {
			i++
			break
		}
		c.scratch = append(c.scratch, ch)
	}
	if i > len(rec) {
		i = len(rec)
	}
	tail := rec[i:]
	j := bytes.Index(tail, c.sep)
	if j < 0 {
		c.scratch = append(c.scratch, tail...)
		return c.scratch[start:], nil, true
	}
	c.scratch = append(c.scratch, tail[:j]...)
	return c.scratch[start:], tail[j+len(c.sep):], false
}
