package orc

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The file tail is protobuf (orc_proto.proto). It is decoded by hand with
// protowire so that every length is checked against the bytes present and
// unknown fields are skipped, as protobuf requires.

// pbField is one decoded field: for varint and fixed types v holds the value,
// for length-delimited fields b holds the payload.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// pbWalk calls fn for every field of the message in b.
func pbWalk(b []byte, msg string, fn func(f pbField) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %s: bad protobuf tag: %v", ErrCorrupt, msg, protowire.ParseError(n))
		}
		b = b[n:]
		f := pbField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: %s: field %d: %v", ErrCorrupt, msg, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func (f pbField) wantVarint(msg string) error {
	if f.typ != protowire.VarintType {
		return fmt.Errorf("%w: %s: field %d has wire type %d, want varint", ErrCorrupt, msg, f.num, f.typ)
	}
	return nil
}

func (f pbField) wantBytes(msg string) error {
	if f.typ != protowire.BytesType {
		return fmt.Errorf("%w: %s: field %d has wire type %d, want bytes", ErrCorrupt, msg, f.num, f.typ)
	}
	return nil
}

// walkSub checks that f holds an embedded message and calls fn for each of
// its fields; errors name the message as msg followed by name.
func (f pbField) walkSub(msg, name string, fn func(g pbField) error) error {
	if err := f.wantBytes(msg); err != nil {
		return err
	}
	return pbWalk(f.b, msg+" "+name, fn)
}

func (f pbField) sint64() int64 { return protowire.DecodeZigZag(f.v) }

// packedUint32s appends a repeated uint32 field, packed or not.
func (f pbField) packedUint32s(dst []uint32, msg string) ([]uint32, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, uint32(f.v)), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: %s: packed field %d: %v", ErrCorrupt, msg, f.num, protowire.ParseError(n))
			}
			dst = append(dst, uint32(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%w: %s: field %d has wire type %d, want packed varints", ErrCorrupt, msg, f.num, f.typ)
}

// CompressionKind is the codec of a file's streams and tail.
type CompressionKind int

// Compression kinds, numbered as in the ORC specification.
const (
	CompressionNone CompressionKind = iota
	CompressionZlib
	CompressionSnappy
	CompressionLZO
	CompressionLZ4
	CompressionZstd
)

func (c CompressionKind) String() string {
	switch c {
	case CompressionNone:
		return "NONE"
	case CompressionZlib:
		return "ZLIB"
	case CompressionSnappy:
		return "SNAPPY"
	case CompressionLZO:
		return "LZO"
	case CompressionLZ4:
		return "LZ4"
	case CompressionZstd:
		return "ZSTD"
	}
	return fmt.Sprintf("CompressionKind(%d)", int(c))
}

type postScript struct {
	footerLength   uint64
	compression    CompressionKind
	blockSize      uint64
	hasBlockSize   bool
	version        []uint32
	metadataLength uint64
	writerVersion  uint32
	magic          string
	stripeStatsLen uint64
}

func parsePostScript(b []byte) (*postScript, error) {
	const msg = "postscript"
	ps := &postScript{}
	err := pbWalk(b, msg, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			err = f.wantVarint(msg)
			ps.footerLength = f.v
		case 2:
			err = f.wantVarint(msg)
			ps.compression = CompressionKind(f.v)
		case 3:
			err = f.wantVarint(msg)
			ps.blockSize = f.v
			ps.hasBlockSize = true
		case 4:
			ps.version, err = f.packedUint32s(ps.version, msg)
		case 5:
			err = f.wantVarint(msg)
			ps.metadataLength = f.v
		case 6:
			err = f.wantVarint(msg)
			ps.writerVersion = uint32(f.v)
		case 7:
			err = f.wantVarint(msg)
			ps.writerVersion = uint32(f.v)
		case 8:
			err = f.wantVarint(msg)
			ps.stripeStatsLen = f.v
		case 8000:
			err = f.wantBytes(msg)
			ps.magic = string(f.b)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ps, nil
}

// TypeKind is the kind of an ORC type, numbered as in the specification.
type TypeKind int

// ORC type kinds.
const (
	KindBoolean TypeKind = iota
	KindByte
	KindShort
	KindInt
	KindLong
	KindFloat
	KindDouble
	KindString
	KindBinary
	KindTimestamp
	KindList
	KindMap
	KindStruct
	KindUnion
	KindDecimal
	KindDate
	KindVarchar
	KindChar
	KindTimestampInstant
)

var kindNames = [...]string{"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
	"string", "binary", "timestamp", "array", "map", "struct", "uniontype", "decimal", "date",
	"varchar", "char", "timestamp with local time zone"}

func (k TypeKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("TypeKind(%d)", int(k))
}

type orcType struct {
	kind       TypeKind
	subtypes   []uint32
	fieldNames []string
	maxLength  uint32
	precision  uint32
	scale      uint32
	attrKeys   []string // type attributes (e.g. "iceberg.id"), in file order
	attrVals   []string
}

func parseType(b []byte, idx int) (orcType, error) {
	msg := fmt.Sprintf("footer type %d", idx)
	var t orcType
	err := pbWalk(b, msg, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			err = f.wantVarint(msg)
			t.kind = TypeKind(f.v)
		case 2:
			t.subtypes, err = f.packedUint32s(t.subtypes, msg)
		case 3:
			err = f.wantBytes(msg)
			t.fieldNames = append(t.fieldNames, string(f.b))
		case 4:
			err = f.wantVarint(msg)
			t.maxLength = uint32(f.v)
		case 5:
			err = f.wantVarint(msg)
			t.precision = uint32(f.v)
		case 6:
			err = f.wantVarint(msg)
			t.scale = uint32(f.v)
		case 7:
			if err = f.wantBytes(msg); err != nil {
				return err
			}
			var k, v string
			err = pbWalk(f.b, msg+" attribute", func(g pbField) error {
				if g.typ == protowire.BytesType {
					switch g.num {
					case 1:
						k = string(g.b)
					case 2:
						v = string(g.b)
					}
				}
				return nil
			})
			t.attrKeys = append(t.attrKeys, k)
			t.attrVals = append(t.attrVals, v)
		}
		return err
	})
	return t, err
}

// StripeInfo describes one stripe: where it lives and its statistics.
type StripeInfo struct {
	Offset       uint64
	IndexLength  uint64
	DataLength   uint64
	FooterLength uint64
	NumRows      uint64
	// Stats holds one entry per ORC column id (0 is the root struct), from
	// the file's metadata section; nil when the file has none or when they
	// contradict the stripe (root count != NumRows), i.e. "unknown".
	Stats []ColumnStats
}

func parseStripeInfo(b []byte, idx int) (StripeInfo, error) {
	msg := fmt.Sprintf("footer stripe %d", idx)
	var s StripeInfo
	err := pbWalk(b, msg, func(f pbField) error {
		if f.num >= 1 && f.num <= 5 {
			if err := f.wantVarint(msg); err != nil {
				return err
			}
		}
		switch f.num {
		case 1:
			s.Offset = f.v
		case 2:
			s.IndexLength = f.v
		case 3:
			s.DataLength = f.v
		case 4:
			s.FooterLength = f.v
		case 5:
			s.NumRows = f.v
		}
		return nil
	})
	return s, err
}

// ColumnStats are the statistics of one column over a stripe or the file.
// Only the pointer matching the column's type is set, and only when the
// writer recorded it.
type ColumnStats struct {
	// NumValues counts the non-null values; HasNumValues says whether the
	// writer recorded it (some old writers leave whole statistics empty,
	// which must read as "unknown", never as "no values").
	NumValues    uint64
	HasNumValues bool
	HasNull      bool
	Int          *IntStats
	Double       *DoubleStats
	String       *StringStats
	Bucket       *BucketStats
	Decimal      *DecimalStats
	Date         *DateStats
	Binary       *BinaryStats
	Timestamp    *TimestampStats
}

// IntStats: integer min/max/sum (sum absent on overflow).
type IntStats struct {
	Min, Max int64
	HasMin   bool
	HasMax   bool
	Sum      int64
	HasSum   bool
}

// DoubleStats: floating point min/max/sum.
type DoubleStats struct {
	Min, Max, Sum float64
	HasMin        bool
	HasMax        bool
	HasSum        bool
}

// StringStats: string min/max (may be absent for long values) and total length.
type StringStats struct {
	Min, Max string
	HasMin   bool
	HasMax   bool
	Sum      int64
	HasSum   bool
}

// BucketStats: boolean counts (TrueCount of the non-null values).
type BucketStats struct{ TrueCount uint64 }

// DecimalStats: decimal min/max/sum as decimal strings.
type DecimalStats struct{ Min, Max, Sum string }

// DateStats: min/max days since 1970-01-01.
type DateStats struct {
	Min, Max int32
	HasMin   bool
	HasMax   bool
}

// BinaryStats: total binary length.
type BinaryStats struct{ Sum int64 }

// TimestampStats: min/max in milliseconds since the epoch. MinUTC/MaxUTC
// (writer version 6 and later) are UTC based; Min/Max are in the writer's
// local time.
type TimestampStats struct {
	Min, Max       int64
	MinUTC, MaxUTC int64
	HasMin         bool
	HasMax         bool
	HasUTC         bool
}

func parseColumnStats(b []byte, msg string) (ColumnStats, error) {
	var s ColumnStats
	err := pbWalk(b, msg, func(f pbField) error {
		switch f.num {
		case 1:
			if err := f.wantVarint(msg); err != nil {
				return err
			}
			s.NumValues, s.HasNumValues = f.v, true
		case 10:
			if err := f.wantVarint(msg); err != nil {
				return err
			}
			s.HasNull = f.v != 0
		case 2:
			st := &IntStats{}
			s.Int = st
			return f.walkSub(msg, "int stats", func(g pbField) error {
				if g.typ != protowire.VarintType {
					return nil
				}
				switch g.num {
				case 1:
					st.Min, st.HasMin = g.sint64(), true
				case 2:
					st.Max, st.HasMax = g.sint64(), true
				case 3:
					st.Sum, st.HasSum = g.sint64(), true
				}
				return nil
			})
		case 3:
			st := &DoubleStats{}
			s.Double = st
			return f.walkSub(msg, "double stats", func(g pbField) error {
				if g.typ != protowire.Fixed64Type {
					return nil
				}
				v := math.Float64frombits(g.v)
				switch g.num {
				case 1:
					st.Min, st.HasMin = v, true
				case 2:
					st.Max, st.HasMax = v, true
				case 3:
					st.Sum, st.HasSum = v, true
				}
				return nil
			})
		case 4:
			st := &StringStats{}
			s.String = st
			return f.walkSub(msg, "string stats", func(g pbField) error {
				switch {
				case g.num == 1 && g.typ == protowire.BytesType:
					st.Min, st.HasMin = string(g.b), true
				case g.num == 2 && g.typ == protowire.BytesType:
					st.Max, st.HasMax = string(g.b), true
				case g.num == 3 && g.typ == protowire.VarintType:
					st.Sum, st.HasSum = g.sint64(), true
				}
				return nil
			})
		case 5:
			st := &BucketStats{}
			s.Bucket = st
			return f.walkSub(msg, "bucket stats", func(g pbField) error {
				if g.num != 1 {
					return nil
				}
				c, err := g.packedUint64First(msg)
				st.TrueCount = c
				return err
			})
		case 6:
			st := &DecimalStats{}
			s.Decimal = st
			return f.walkSub(msg, "decimal stats", func(g pbField) error {
				if g.typ != protowire.BytesType {
					return nil
				}
				switch g.num {
				case 1:
					st.Min = string(g.b)
				case 2:
					st.Max = string(g.b)
				case 3:
					st.Sum = string(g.b)
				}
				return nil
			})
		case 7:
			st := &DateStats{}
			s.Date = st
			return f.walkSub(msg, "date stats", func(g pbField) error {
				if g.typ != protowire.VarintType {
					return nil
				}
				switch g.num {
				case 1:
					st.Min, st.HasMin = int32(protowire.DecodeZigZag(g.v&math.MaxUint32)), true
				case 2:
					st.Max, st.HasMax = int32(protowire.DecodeZigZag(g.v&math.MaxUint32)), true
				}
				return nil
			})
		case 8:
			st := &BinaryStats{}
			s.Binary = st
			return f.walkSub(msg, "binary stats", func(g pbField) error {
				if g.num == 1 && g.typ == protowire.VarintType {
					st.Sum = g.sint64()
				}
				return nil
			})
		case 9:
			st := &TimestampStats{}
			s.Timestamp = st
			return f.walkSub(msg, "timestamp stats", func(g pbField) error {
				if g.typ != protowire.VarintType {
					return nil
				}
				switch g.num {
				case 1:
					st.Min, st.HasMin = g.sint64(), true
				case 2:
					st.Max, st.HasMax = g.sint64(), true
				case 3:
					st.MinUTC, st.HasUTC = g.sint64(), true
				case 4:
					st.MaxUTC = g.sint64()
				}
				return nil
			})
		}
		return nil
	})
	return s, err
}

// packedUint64First returns the first value of a repeated uint64 field.
func (f pbField) packedUint64First(msg string) (uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return f.v, nil
	case protowire.BytesType:
		if len(f.b) == 0 {
			return 0, nil
		}
		v, n := protowire.ConsumeVarint(f.b)
		if n < 0 {
			return 0, fmt.Errorf("%w: %s: packed field %d: %v", ErrCorrupt, msg, f.num, protowire.ParseError(n))
		}
		return v, nil
	}
	return 0, nil
}

type footer struct {
	headerLength   uint64
	contentLength  uint64
	stripes        []StripeInfo
	types          []orcType
	metadata       map[string][]byte
	numRows        uint64
	stats          []ColumnStats
	rowIndexStride uint32
	writer         uint32
	encrypted      bool
	calendar       uint64
	software       string
}

func parseFooter(b []byte) (*footer, error) {
	const msg = "footer"
	ft := &footer{}
	err := pbWalk(b, msg, func(f pbField) error {
		switch f.num {
		case 1, 2, 6, 8, 9, 11:
			if err := f.wantVarint(msg); err != nil {
				return err
			}
		case 3, 4, 5, 7, 12:
			if err := f.wantBytes(msg); err != nil {
				return err
			}
		}
		switch f.num {
		case 1:
			ft.headerLength = f.v
		case 2:
			ft.contentLength = f.v
		case 3:
			s, err := parseStripeInfo(f.b, len(ft.stripes))
			if err != nil {
				return err
			}
			ft.stripes = append(ft.stripes, s)
		case 4:
			t, err := parseType(f.b, len(ft.types))
			if err != nil {
				return err
			}
			ft.types = append(ft.types, t)
		case 5:
			var name string
			var val []byte
			if err := pbWalk(f.b, "footer user metadata", func(g pbField) error {
				if g.typ == protowire.BytesType {
					switch g.num {
					case 1:
						name = string(g.b)
					case 2:
						val = g.b
					}
				}
				return nil
			}); err != nil {
				return err
			}
			if ft.metadata == nil {
				ft.metadata = map[string][]byte{}
			}
			ft.metadata[name] = val
		case 6:
			ft.numRows = f.v
		case 7:
			s, err := parseColumnStats(f.b, fmt.Sprintf("footer statistics of column %d", len(ft.stats)))
			if err != nil {
				return err
			}
			ft.stats = append(ft.stats, s)
		case 8:
			ft.rowIndexStride = uint32(f.v)
		case 9:
			ft.writer = uint32(f.v)
		case 10:
			ft.encrypted = true
		case 11:
			ft.calendar = f.v
		case 12:
			ft.software = string(f.b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ft, nil
}

// parseMetadata returns per-stripe column statistics.
func parseMetadata(b []byte) ([][]ColumnStats, error) {
	var out [][]ColumnStats
	err := pbWalk(b, "metadata", func(f pbField) error {
		if f.num != 1 {
			return nil
		}
		if err := f.wantBytes("metadata"); err != nil {
			return err
		}
		si := len(out)
		var cols []ColumnStats
		if err := pbWalk(f.b, "metadata stripe statistics", func(g pbField) error {
			if g.num != 1 {
				return nil
			}
			if err := g.wantBytes("metadata stripe statistics"); err != nil {
				return err
			}
			s, err := parseColumnStats(g.b, fmt.Sprintf("metadata stripe %d column %d", si, len(cols)))
			if err != nil {
				return err
			}
			cols = append(cols, s)
			return nil
		}); err != nil {
			return err
		}
		out = append(out, cols)
		return nil
	})
	return out, err
}

// StreamKind is the kind of a stripe stream.
type StreamKind int

// Stream kinds, numbered as in the specification.
const (
	StreamPresent StreamKind = iota
	StreamData
	StreamLength
	StreamDictionaryData
	StreamDictionaryCount
	StreamSecondary
	StreamRowIndex
	StreamBloomFilter
	StreamBloomFilterUTF8
	StreamEncryptedIndex
	StreamEncryptedData
)

var streamNames = [...]string{"PRESENT", "DATA", "LENGTH", "DICTIONARY_DATA", "DICTIONARY_COUNT",
	"SECONDARY", "ROW_INDEX", "BLOOM_FILTER", "BLOOM_FILTER_UTF8", "ENCRYPTED_INDEX", "ENCRYPTED_DATA"}

func (k StreamKind) String() string {
	if k >= 0 && int(k) < len(streamNames) {
		return streamNames[k]
	}
	return fmt.Sprintf("StreamKind(%d)", int(k))
}

type streamInfo struct {
	kind   StreamKind
	column uint32
	length uint64
}

type encodingKind int

const (
	encDirect encodingKind = iota
	encDictionary
	encDirectV2
	encDictionaryV2
	encDecimal64
)

var encodingNames = [...]string{"DIRECT", "DICTIONARY", "DIRECT_V2", "DICTIONARY_V2", "DECIMAL_64"}

func (k encodingKind) String() string {
	if k >= 0 && int(k) < len(encodingNames) {
		return encodingNames[k]
	}
	return fmt.Sprintf("encoding(%d)", int(k))
}

type columnEncoding struct {
	kind     encodingKind
	dictSize uint64
}

type stripeFooter struct {
	streams  []streamInfo
	columns  []columnEncoding
	timezone string
	hasTZ    bool
}

func parseStripeFooter(b []byte) (*stripeFooter, error) {
	const msg = "stripe footer"
	sf := &stripeFooter{}
	err := pbWalk(b, msg, func(f pbField) error {
		switch f.num {
		case 1:
			if err := f.wantBytes(msg); err != nil {
				return err
			}
			var s streamInfo
			if err := pbWalk(f.b, "stripe footer stream", func(g pbField) error {
				if g.typ != protowire.VarintType {
					return nil
				}
				switch g.num {
				case 1:
					s.kind = StreamKind(min(g.v, 1<<20))
				case 2:
					if g.v > math.MaxUint32 {
						return fmt.Errorf("%w: stripe footer stream column %d out of range", ErrCorrupt, g.v)
					}
					s.column = uint32(g.v)
				case 3:
					s.length = g.v
				}
				return nil
			}); err != nil {
				return err
			}
			sf.streams = append(sf.streams, s)
		case 2:
			if err := f.wantBytes(msg); err != nil {
				return err
			}
			var e columnEncoding
			if err := pbWalk(f.b, "stripe footer column encoding", func(g pbField) error {
				if g.typ != protowire.VarintType {
					return nil
				}
				switch g.num {
				case 1:
					e.kind = encodingKind(min(g.v, 1<<20))
				case 2:
					e.dictSize = g.v
				}
				return nil
			}); err != nil {
				return err
			}
			sf.columns = append(sf.columns, e)
		case 3:
			if err := f.wantBytes(msg); err != nil {
				return err
			}
			sf.timezone = string(f.b)
			sf.hasTZ = true
		case 4:
			return fmt.Errorf("%w: encrypted stripe", ErrUnsupported)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sf, nil
}
