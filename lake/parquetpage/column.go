package parquetpage

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Column describes one flat leaf column and the Arrow type to produce.
type Column struct {
	File  string // named in errors
	Name  string
	Descr *schema.Column
	// Out is the Arrow type of the result: the type pqarrow gives the
	// column, except INT96, which becomes a timestamp of Out's unit.
	Out arrow.DataType
}

// Chunk is where one column chunk of a row group lies in the file.
type Chunk struct {
	RowGroup  int
	Offset    int64 // file offset of its first page
	Size      int64
	NumValues int64
	Codec     compress.Compression
	// OffsetIndex, OffsetIndexLen locate the chunk's offset index (the
	// Parquet page index's page locations; length 0: none), which
	// ScanPages reads instead of walking the page headers.
	OffsetIndex    int64
	OffsetIndexLen int32
}

// ChunkOf locates a column chunk; an error means the chunk uses
// something this package does not read (the caller falls back).
func ChunkOf(cc *metadata.ColumnChunkMetaData, rg int) (Chunk, error) {
	if cc.CryptoMetadata() != nil {
		return Chunk{}, fmt.Errorf("encrypted column chunk")
	}
	if !codecSupported(cc.Compression()) {
		return Chunk{}, fmt.Errorf("codec %s", cc.Compression())
	}
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict,
			parquet.Encodings.RLE, parquet.Encodings.ByteStreamSplit,
			// parquet-mr lists BIT_PACKED for the (empty) repetition
			// levels of every v1 page.
			parquet.Encodings.BitPacked:
		case parquet.Encodings.DeltaBinaryPacked:
			if t := cc.Type(); t != parquet.Types.Int32 && t != parquet.Types.Int64 {
				return Chunk{}, fmt.Errorf("encoding %s for %s", e, t)
			}
		case parquet.Encodings.DeltaLengthByteArray:
			if t := cc.Type(); t != parquet.Types.ByteArray {
				return Chunk{}, fmt.Errorf("encoding %s for %s", e, t)
			}
		case parquet.Encodings.DeltaByteArray:
			if t := cc.Type(); t != parquet.Types.ByteArray && t != parquet.Types.FixedLenByteArray {
				return Chunk{}, fmt.Errorf("encoding %s for %s", e, t)
			}
		default:
			return Chunk{}, fmt.Errorf("encoding %s", e)
		}
	}
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
		start = cc.DictionaryPageOffset()
	}
	if start < 0 || cc.TotalCompressedSize() < 0 || cc.NumValues() < 0 {
		return Chunk{}, fmt.Errorf("negative column chunk offset, size or count")
	}
	ch := Chunk{RowGroup: rg, Offset: start, Size: cc.TotalCompressedSize(), NumValues: cc.NumValues(), Codec: cc.Compression()}
	if loc := cc.GetOffsetIndexLocation(); loc != nil && loc.Offset >= 0 && loc.Length > 0 {
		ch.OffsetIndex, ch.OffsetIndexLen = loc.Offset, loc.Length
	}
	return ch, nil
}

// How physical values become Out values.
const (
	cvCopy     = iota // same bytes
	cvI32toI8         // truncate
	cvI32toI16        // truncate
	cvI32toDec        // sign-extend to 128 bits
	cvI64toDec
	cvInt96     // INT96 → timestamp of Out's unit
	cvFLBAtoDec // big-endian two's complement → 128 bits
	cvBAtoDec
	cvBool
	cvBinary // variable length (string, binary)
)

type plan struct {
	cv       int
	pw       int // physical PLAIN width (0: variable, bool: bits)
	ow       int // output width in bytes (cvBinary: 0)
	div      int64
	optional bool
}

// Supported says whether this package reads col exactly as pqarrow
// would; nil means yes.
func Supported(col Column) error {
	_, err := makePlan(col)
	return err
}

func unitOf(u schema.TimeUnitType) arrow.TimeUnit {
	switch u {
	case schema.TimeUnitMillis:
		return arrow.Millisecond
	case schema.TimeUnitMicros:
		return arrow.Microsecond
	case schema.TimeUnitNanos:
		return arrow.Nanosecond
	}
	return arrow.Second // never the unit of a Parquet logical type
}

func makePlan(col Column) (plan, error) {
	d := col.Descr
	if d == nil || col.Out == nil {
		return plan{}, fmt.Errorf("column %s: no descriptor or output type", col.Name)
	}
	if d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
		return plan{}, fmt.Errorf("column %s: nested (repetition %d, definition %d)", col.Name, d.MaxRepetitionLevel(), d.MaxDefinitionLevel())
	}
	p := plan{optional: d.MaxDefinitionLevel() == 1}
	lt := d.LogicalType()
	no := func() (plan, error) {
		return plan{}, fmt.Errorf("column %s: %s (%s) as %s", col.Name, d.PhysicalType(), lt, col.Out)
	}
	scaleOK := func() bool {
		dt, ok1 := col.Out.(*arrow.Decimal128Type)
		l, ok2 := lt.(schema.DecimalLogicalType)
		return ok1 && ok2 && l.Scale() == dt.Scale && l.Precision() == dt.Precision
	}
	switch d.PhysicalType() {
	case parquet.Types.Int32:
		p.pw = 4
		switch o := col.Out.(type) {
		case *arrow.Int32Type:
			p.cv, p.ow = cvCopy, 4
		case *arrow.Date32Type:
			if _, ok := lt.(schema.DateLogicalType); !ok {
				return no()
			}
			p.cv, p.ow = cvCopy, 4
		case *arrow.Time32Type:
			l, ok := lt.(schema.TimeLogicalType)
			if !ok || unitOf(l.TimeUnit()) != o.Unit {
				return no()
			}
			p.cv, p.ow = cvCopy, 4
		case *arrow.Int8Type:
			p.cv, p.ow = cvI32toI8, 1
		case *arrow.Int16Type:
			p.cv, p.ow = cvI32toI16, 2
		case *arrow.Decimal128Type:
			if !scaleOK() {
				return no()
			}
			p.cv, p.ow = cvI32toDec, 16
		default:
			return no()
		}
	case parquet.Types.Int64:
		p.pw = 8
		switch o := col.Out.(type) {
		case *arrow.Int64Type:
			p.cv, p.ow = cvCopy, 8
		case *arrow.TimestampType:
			l, ok := lt.(schema.TimestampLogicalType)
			if !ok || unitOf(l.TimeUnit()) != o.Unit {
				return no()
			}
			p.cv, p.ow = cvCopy, 8
		case *arrow.Time64Type:
			l, ok := lt.(schema.TimeLogicalType)
			if !ok || unitOf(l.TimeUnit()) != o.Unit {
				return no()
			}
			p.cv, p.ow = cvCopy, 8
		case *arrow.Decimal128Type:
			if !scaleOK() {
				return no()
			}
			p.cv, p.ow = cvI64toDec, 16
		default:
			return no()
		}
	case parquet.Types.Float:
		if col.Out.ID() != arrow.FLOAT32 {
			return no()
		}
		p.cv, p.pw, p.ow = cvCopy, 4, 4
	case parquet.Types.Double:
		if col.Out.ID() != arrow.FLOAT64 {
			return no()
		}
		p.cv, p.pw, p.ow = cvCopy, 8, 8
	case parquet.Types.Boolean:
		if col.Out.ID() != arrow.BOOL {
			return no()
		}
		p.cv, p.pw, p.ow = cvBool, 1, 1
	case parquet.Types.Int96:
		o, ok := col.Out.(*arrow.TimestampType)
		if !ok {
			return no()
		}
		p.cv, p.pw, p.ow = cvInt96, 12, 8
		p.div = map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}[o.Unit]
	case parquet.Types.ByteArray:
		switch col.Out.ID() {
		case arrow.STRING, arrow.BINARY:
			p.cv = cvBinary
		case arrow.DECIMAL128:
			if !scaleOK() {
				return no()
			}
			p.cv, p.ow = cvBAtoDec, 16
		default:
			return no()
		}
	case parquet.Types.FixedLenByteArray:
		n := d.TypeLength()
		if n <= 0 {
			return no()
		}
		p.pw = n
		switch o := col.Out.(type) {
		case *arrow.FixedSizeBinaryType:
			if o.ByteWidth != n {
				return no()
			}
			if _, ok := lt.(schema.UUIDLogicalType); ok {
				return no()
			}
			p.cv, p.ow = cvCopy, n
		case *arrow.Decimal128Type:
			if !scaleOK() || n > 16 {
				return no()
			}
			p.cv, p.ow = cvFLBAtoDec, 16
		default:
			return no()
		}
	default:
		return no()
	}
	return p, nil
}
