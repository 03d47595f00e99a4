package orc

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
	"google.golang.org/protobuf/encoding/protowire"
)

// A minimal ORC writer for tests: flat schemas, DIRECT (RLE v1) encodings,
// NONE or ZLIB compression, several stripes, column statistics. It covers
// what the fixtures do not (TIMESTAMP_INSTANT, writer-chosen stripe sizes)
// and makes large files for benchmarks.

type wcol struct {
	name  string
	kind  TypeKind
	prec  uint32
	scale uint32
	// value returns the row's value (int64, float64, string, bool,
	// time.Time, or int64 unscaled decimal) and whether it is non-null.
	value func(row int) (any, bool)
}

type wopts struct {
	stripeRows  int
	compression CompressionKind // NONE or ZLIB
	blockSize   int
	tz          string // stripe writer time zone for TIMESTAMP
	version     []byte // postscript version (packed varints), default 0.12
	dictStrings bool   // string columns DICTIONARY (v1) instead of DIRECT
}

// wdict is a string column's stripe dictionary in the test writer.
type wdict struct {
	col  int
	size uint64
	blob []byte
}

// dictEncode encodes strings as a DICTIONARY (v1) column: entries in
// first-seen order (readers must not assume sorted entries), the row
// indexes as DATA, the entry lengths as LENGTH.
func dictEncode(vals []any) (data, length []byte, d wdict) {
	pos := map[string]uint64{}
	var entries []uint64
	idx := make([]uint64, len(vals))
	for i, v := range vals {
		sv := v.(string)
		p, seen := pos[sv]
		if !seen {
			p = uint64(len(entries))
			pos[sv] = p
			entries = append(entries, uint64(len(sv)))
			d.blob = append(d.blob, sv...)
		}
		idx[i] = p
	}
	d.size = uint64(len(entries))
	return appendV1Unsigned(nil, idx), appendV1Unsigned(nil, entries), d
}

type wstream struct {
	kind StreamKind
	col  int
	data []byte
}

func appendV1Signed(dst []byte, vals []int64) []byte {
	for len(vals) > 0 {
		n := min(len(vals), 128)
		dst = append(dst, byte(256-n))
		for _, v := range vals[:n] {
			dst = binary.AppendUvarint(dst, uint64(v<<1^v>>63))
		}
		vals = vals[n:]
	}
	return dst
}

func appendV1Unsigned(dst []byte, vals []uint64) []byte {
	for len(vals) > 0 {
		n := min(len(vals), 128)
		dst = append(dst, byte(256-n))
		for _, v := range vals[:n] {
			dst = binary.AppendUvarint(dst, v)
		}
		vals = vals[n:]
	}
	return dst
}

func appendByteLiterals(dst, vals []byte) []byte {
	for len(vals) > 0 {
		n := min(len(vals), 128)
		dst = append(dst, byte(256-n))
		dst = append(dst, vals[:n]...)
		vals = vals[n:]
	}
	return dst
}

func appendBools(dst []byte, vals []bool) []byte {
	packed := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			packed[i/8] |= 0x80 >> (i % 8)
		}
	}
	return appendByteLiterals(dst, packed)
}

func compressStream(t testing.TB, o wopts, b []byte) []byte {
	if o.compression == CompressionNone {
		return b
	}
	var out []byte
	for len(b) > 0 {
		n := min(len(b), o.blockSize)
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, flate.DefaultCompression)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b[:n])
		w.Close()
		if buf.Len() < n {
			h := buf.Len() << 1
			out = append(out, byte(h), byte(h>>8), byte(h>>16))
			out = append(out, buf.Bytes()...)
		} else {
			h := n<<1 | 1
			out = append(out, byte(h), byte(h>>8), byte(h>>16))
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

func pbVarint(dst []byte, num protowire.Number, v uint64) []byte {
	dst = protowire.AppendTag(dst, num, protowire.VarintType)
	return protowire.AppendVarint(dst, v)
}

func pbBytes(dst []byte, num protowire.Number, b []byte) []byte {
	dst = protowire.AppendTag(dst, num, protowire.BytesType)
	return protowire.AppendBytes(dst, b)
}

type wstats struct {
	n        uint64
	hasNull  bool
	min, max int64
	seen     bool
}

func (s *wstats) encode(kind TypeKind) []byte {
	var b []byte
	b = pbVarint(b, 1, s.n)
	if s.seen && (kind == KindLong || kind == KindInt) {
		var is []byte
		is = pbVarint(is, 1, protowire.EncodeZigZag(s.min))
		is = pbVarint(is, 2, protowire.EncodeZigZag(s.max))
		b = pbBytes(b, 2, is)
	}
	if s.hasNull {
		b = pbVarint(b, 10, 1)
	}
	return b
}

// writeORC returns the bytes of an ORC file with the given columns and rows.
func writeORC(t testing.TB, cols []wcol, rows int, o wopts) []byte {
	if o.stripeRows == 0 {
		o.stripeRows = rows
	}
	if o.blockSize == 0 {
		o.blockSize = 64 << 10
	}
	out := []byte(magic)
	var stripeInfos [][]byte
	var stripeStats [][]byte
	fileStats := make([]wstats, len(cols)+1)
	base := int64(orcEpoch)
	if o.tz != "" {
		loc, err := time.LoadLocation(o.tz)
		if err != nil {
			t.Fatal(err)
		}
		base = time.Date(2015, 1, 1, 0, 0, 0, 0, loc).Unix()
	}
	for start := 0; start < rows; start += o.stripeRows {
		end := min(rows, start+o.stripeRows)
		var streams []wstream
		var dicts []wdict
		stats := make([]wstats, len(cols)+1)
		stats[0].n = uint64(end - start)
		for ci, c := range cols {
			id := ci + 1
			var present []bool
			var vals []any
			st := &stats[id]
			for r := start; r < end; r++ {
				v, ok := c.value(r)
				present = append(present, ok)
				if !ok {
					st.hasNull = true
					continue
				}
				st.n++
				vals = append(vals, v)
				if iv, isInt := v.(int64); isInt {
					if !st.seen || iv < st.min {
						st.min = iv
					}
					if !st.seen || iv > st.max {
						st.max = iv
					}
					st.seen = true
				}
			}
			if st.hasNull {
				streams = append(streams, wstream{StreamPresent, id, appendBools(nil, present)})
			}
			var data, second, length []byte
			switch c.kind {
			case KindBoolean:
				bs := make([]bool, len(vals))
				for i, v := range vals {
					bs[i] = v.(bool)
				}
				data = appendBools(nil, bs)
			case KindByte:
				bs := make([]byte, len(vals))
				for i, v := range vals {
					bs[i] = byte(v.(int64))
				}
				data = appendByteLiterals(nil, bs)
			case KindShort, KindInt, KindLong, KindDate:
				is := make([]int64, len(vals))
				for i, v := range vals {
					is[i] = v.(int64)
				}
				data = appendV1Signed(nil, is)
			case KindDouble:
				for _, v := range vals {
					data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v.(float64)))
				}
			case KindString, KindBinary, KindVarchar, KindChar:
				if o.dictStrings && c.kind != KindBinary {
					var d wdict
					data, length, d = dictEncode(vals)
					d.col = id
					dicts = append(dicts, d)
					break
				}
				ls := make([]uint64, len(vals))
				for i, v := range vals {
					s := v.(string)
					data = append(data, s...)
					ls[i] = uint64(len(s))
				}
				length = appendV1Unsigned(nil, ls)
			case KindTimestamp, KindTimestampInstant:
				secs := make([]int64, len(vals))
				nanos := make([]uint64, len(vals))
				for i, v := range vals {
					tm := v.(time.Time)
					s, ns := tm.Unix(), int64(tm.Nanosecond())
					if c.kind == KindTimestamp && o.tz != "" {
						// wall clock in the writer zone
						loc, _ := time.LoadLocation(o.tz)
						w := time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), 0, loc)
						s = w.Unix()
					}
					if s < 0 && ns >= 1e6 {
						// the Java writer divides milliseconds, truncating
						// toward zero whenever there are whole milliseconds
						s++
					}
					secs[i] = s - base
					if c.kind == KindTimestampInstant {
						secs[i] = s - orcEpoch
					}
					z := 0
					for ns != 0 && ns%10 == 0 && z < 8 {
						ns /= 10
						z++
					}
					if z >= 2 {
						nanos[i] = uint64(ns)<<3 | uint64(z-1)
					} else {
						for ; z > 0; z-- {
							ns *= 10
						}
						nanos[i] = uint64(ns) << 3
					}
				}
				data = appendV1Signed(nil, secs)
				second = appendV1Unsigned(nil, nanos)
			case KindDecimal:
				scales := make([]int64, len(vals))
				for i, v := range vals {
					x := v.(int64)
					data = binary.AppendUvarint(data, uint64(x<<1^x>>63))
					scales[i] = int64(c.scale)
				}
				second = appendV1Signed(nil, scales)
			default:
				t.Fatalf("writer: kind %s not supported", c.kind)
			}
			streams = append(streams, wstream{StreamData, id, data})
			if length != nil {
				streams = append(streams, wstream{StreamLength, id, length})
			}
			if second != nil {
				streams = append(streams, wstream{StreamSecondary, id, second})
			}
			if len(dicts) > 0 && dicts[len(dicts)-1].col == id {
				streams = append(streams, wstream{StreamDictionaryData, id, dicts[len(dicts)-1].blob})
			}
		}
		offset := len(out)
		var sf []byte
		for _, s := range streams {
			c := compressStream(t, o, s.data)
			out = append(out, c...)
			var sb []byte
			sb = pbVarint(sb, 1, uint64(s.kind))
			sb = pbVarint(sb, 2, uint64(s.col))
			sb = pbVarint(sb, 3, uint64(len(c)))
			sf = pbBytes(sf, 1, sb)
		}
		dataLen := len(out) - offset
		for id := range len(cols) + 1 {
			enc := pbVarint(nil, 1, uint64(encDirect))
			for _, d := range dicts {
				if d.col == id {
					enc = pbVarint(pbVarint(nil, 1, uint64(encDictionary)), 2, d.size)
				}
			}
			sf = pbBytes(sf, 2, enc)
		}
		if o.tz != "" {
			sf = pbBytes(sf, 3, []byte(o.tz))
		}
		sfc := compressStream(t, o, sf)
		out = append(out, sfc...)
		var si []byte
		si = pbVarint(si, 1, uint64(offset))
		si = pbVarint(si, 2, 0)
		si = pbVarint(si, 3, uint64(dataLen))
		si = pbVarint(si, 4, uint64(len(sfc)))
		si = pbVarint(si, 5, uint64(end-start))
		stripeInfos = append(stripeInfos, si)
		var ss []byte
		for i := range stats {
			ss = pbBytes(ss, 1, stats[i].encode(colKind(cols, i)))
			fs := &fileStats[i]
			fs.n += stats[i].n
			fs.hasNull = fs.hasNull || stats[i].hasNull
			if stats[i].seen {
				if !fs.seen || stats[i].min < fs.min {
					fs.min = stats[i].min
				}
				if !fs.seen || stats[i].max > fs.max {
					fs.max = stats[i].max
				}
				fs.seen = true
			}
		}
		stripeStats = append(stripeStats, ss)
	}
	contentLen := len(out)
	var md []byte
	for _, ss := range stripeStats {
		md = pbBytes(md, 1, ss)
	}
	mdc := compressStream(t, o, md)
	out = append(out, mdc...)
	var ft []byte
	ft = pbVarint(ft, 1, 3)
	ft = pbVarint(ft, 2, uint64(contentLen))
	for _, si := range stripeInfos {
		ft = pbBytes(ft, 3, si)
	}
	var root []byte
	root = pbVarint(root, 1, uint64(KindStruct))
	var subs []byte
	for i := range cols {
		subs = protowire.AppendVarint(subs, uint64(i+1))
	}
	root = pbBytes(root, 2, subs)
	for _, c := range cols {
		root = pbBytes(root, 3, []byte(c.name))
	}
	ft = pbBytes(ft, 4, root)
	for _, c := range cols {
		var tb []byte
		tb = pbVarint(tb, 1, uint64(c.kind))
		if c.kind == KindDecimal {
			tb = pbVarint(tb, 5, uint64(c.prec))
			tb = pbVarint(tb, 6, uint64(c.scale))
		}
		ft = pbBytes(ft, 4, tb)
	}
	ft = pbVarint(ft, 6, uint64(rows))
	for i := range fileStats {
		ft = pbBytes(ft, 7, fileStats[i].encode(colKind(cols, i)))
	}
	ftc := compressStream(t, o, ft)
	out = append(out, ftc...)
	var ps []byte
	ps = pbVarint(ps, 1, uint64(len(ftc)))
	ps = pbVarint(ps, 2, uint64(o.compression))
	ps = pbVarint(ps, 3, uint64(o.blockSize))
	if o.version == nil {
		o.version = []byte{0, 12}
	}
	ps = pbBytes(ps, 4, o.version)
	ps = pbVarint(ps, 5, uint64(len(mdc)))
	ps = pbVarint(ps, 6, 6)
	ps = pbBytes(ps, 8000, []byte(magic))
	out = append(out, ps...)
	return append(out, byte(len(ps)))
}

func colKind(cols []wcol, id int) TypeKind {
	if id == 0 {
		return KindStruct
	}
	return cols[id-1].kind
}
