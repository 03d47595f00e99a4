package mysqlwire

import (
	"github.com/apache/arrow-go/v18/arrow"

	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// ColumnType is the MySQL type a result column is announced with. Values
// reach the writer as text; the type tells text-protocol clients how to parse
// them and decides the binary encoding of prepared-statement results.
type ColumnType int

// Column types.
const (
	TypeVarchar ColumnType = iota
	TypeNull
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeBigIntUnsigned
	TypeFloat
	TypeDouble
	TypeDecimal
	TypeDate
	TypeDateTime
	TypeBlob
	TypeJSON
)

// Column describes one result column.
type Column struct {
	Name string
	Type ColumnType
	// Decimals is the scale of TypeDecimal and the fractional digits of
	// TypeDateTime.
	Decimals uint32
	NotNull  bool
	// Length is the column's display width when it depends on the Arrow
	// type (DECIMAL(p,s), DATETIME(n), BOOLEAN); 0 takes the type's own.
	// JDBC drivers derive precision from it: Connector/J reports a
	// DECIMAL's precision as Length minus sign and point.
	Length uint32
}

// ColumnFor picks the MySQL type for an Arrow type.
func ColumnFor(name string, t arrow.DataType, nullable bool) Column {
	c := Column{Name: name, NotNull: !nullable}
	switch tt := t.(type) {
	case *arrow.BooleanType:
		// MySQL's BOOL is TINYINT(1), which drivers map to a boolean.
		c.Type, c.Length = TypeTinyInt, 1
	case *arrow.Int8Type:
		c.Type = TypeTinyInt
	case *arrow.Int16Type, *arrow.Uint8Type:
		c.Type = TypeSmallInt
	case *arrow.Int32Type, *arrow.Uint16Type:
		c.Type = TypeInt
	case *arrow.Int64Type, *arrow.Uint32Type:
		c.Type = TypeBigInt
	case *arrow.Uint64Type:
		c.Type = TypeBigIntUnsigned
	case *arrow.Float32Type:
		c.Type = TypeFloat
	case *arrow.Float64Type:
		c.Type = TypeDouble
	case *arrow.Decimal128Type:
		c.Type, c.Decimals, c.Length = TypeDecimal, uint32(tt.Scale), decimalLength(tt.Precision, tt.Scale)
	case *arrow.Decimal256Type:
		c.Type, c.Decimals, c.Length = TypeDecimal, uint32(tt.Scale), decimalLength(tt.Precision, tt.Scale)
	case *arrow.Date32Type, *arrow.Date64Type:
		c.Type = TypeDate
	case *arrow.TimestampType:
		c.Type = TypeDateTime
		switch tt.Unit {
		case arrow.Millisecond:
			c.Decimals = 3
		case arrow.Microsecond, arrow.Nanosecond:
			c.Decimals = 6
		}
		// 'YYYY-MM-DD hh:mm:ss' and the point and digits of the fraction.
		c.Length = 19
		if c.Decimals > 0 {
			c.Length += 1 + c.Decimals
		}
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType, *arrow.BinaryViewType:
		c.Type = TypeBlob
	case *arrow.NullType:
		c.Type = TypeNull
	case *arrow.ListType, *arrow.MapType, *arrow.StructType:
		c.Type = TypeVarchar
	default:
		c.Type = TypeVarchar
	}
	return c
}

// decimalLength is MySQL's display width of DECIMAL(p,s): the digits, a
// sign and, with a fraction, the decimal point.
func decimalLength(precision, scale int32) uint32 {
	n := uint32(precision) + 1
	if scale > 0 {
		n++
	}
	return n
}

func (c Column) field() *querypb.Field {
	f := &querypb.Field{Name: c.Name, OrgName: c.Name, Decimals: c.Decimals}
	const binary, utf8mb4 = 63, 45
	f.Charset = binary
	var flags querypb.MySqlFlag
	if c.NotNull {
		flags |= querypb.MySqlFlag_NOT_NULL_FLAG
	}
	// Wire type, display width, flags and charset of each column type;
	// anything else is VARCHAR.
	type shape struct {
		typ    querypb.Type
		length uint32
		flags  querypb.MySqlFlag
		text   bool // utf8mb4 rather than binary
	}
	sh, ok := map[ColumnType]shape{
		TypeNull:           {sqltypes.Null, 0, querypb.MySqlFlag_BINARY_FLAG, false},
		TypeTinyInt:        {sqltypes.Int8, 4, 0, false},
		TypeSmallInt:       {sqltypes.Int16, 6, 0, false},
		TypeInt:            {sqltypes.Int32, 11, 0, false},
		TypeBigInt:         {sqltypes.Int64, 20, 0, false},
		TypeBigIntUnsigned: {sqltypes.Uint64, 20, querypb.MySqlFlag_UNSIGNED_FLAG, false},
		TypeFloat:          {sqltypes.Float32, 12, 0, false},
		TypeDouble:         {sqltypes.Float64, 22, 0, false},
		TypeDecimal:        {sqltypes.Decimal, 40, 0, false},
		TypeDate:           {sqltypes.Date, 10, 0, false},
		TypeDateTime:       {sqltypes.Datetime, 26, 0, false},
		TypeBlob:           {sqltypes.VarBinary, 65535, querypb.MySqlFlag_BINARY_FLAG, false},
		TypeJSON:           {sqltypes.TypeJSON, 65535, 0, true},
	}[c.Type]
	if !ok {
		sh = shape{sqltypes.VarChar, 65533, 0, true}
	}
	f.Type, f.ColumnLength = sh.typ, sh.length
	if c.Length > 0 {
		f.ColumnLength = c.Length
	}
	flags |= sh.flags
	if sh.text {
		f.Charset = utf8mb4
	}
	if c.Type != TypeBlob && c.Type != TypeVarchar && c.Type != TypeJSON {
		flags |= querypb.MySqlFlag_NUM_FLAG
		if c.Type == TypeDate || c.Type == TypeDateTime || c.Type == TypeNull {
			flags &^= querypb.MySqlFlag_NUM_FLAG
		}
	}
	f.Flags = uint32(flags)
	return f
}

// OKResult is the answer to a statement that returns no rows.
type OKResult struct {
	AffectedRows uint64
	Info         string
}

// ResultWriter receives one statement's result. Either Columns is called
// once and then Row any number of times, or OK is called once; a statement
// that returns an error calls neither or stops midway.
type ResultWriter interface {
	Columns(cols []Column) error
	// Row appends a row of text values, one per column, nil meaning NULL.
	// The slices are copied; the caller may reuse them after the call.
	Row(values [][]byte) error
	OK(r OKResult) error
}

const (
	flushRows  = 1024
	flushBytes = 256 << 10
)

// writer buffers rows for the vitess callback, handing them over every
// flushRows rows or flushBytes bytes so results stream.
type writer struct {
	send    func(*sqltypes.Result) error
	fields  []*querypb.Field
	started bool
	done    bool
	rows    [][]sqltypes.Value
	slab    []sqltypes.Value // backing store of rows, reused after each flush
	arena   []byte
	bytes   int
}

func (w *writer) Columns(cols []Column) error {
	if w.started || w.done {
		return errProtocolMisuse
	}
	w.started = true
	w.fields = make([]*querypb.Field, len(cols))
	for i, c := range cols {
		w.fields[i] = c.field()
	}
	return w.send(&sqltypes.Result{Fields: w.fields})
}

func (w *writer) Row(values [][]byte) error {
	if !w.started || w.done {
		return errProtocolMisuse
	}
	if len(values) != len(w.fields) {
		return errRowWidth(len(values), len(w.fields))
	}
	n := len(values)
	if len(w.slab)+n > cap(w.slab) {
		w.slab = make([]sqltypes.Value, 0, max(flushRows*n, n))
	}
	row := w.slab[len(w.slab) : len(w.slab)+n : len(w.slab)+n]
	w.slab = w.slab[:len(w.slab)+n]
	for i, v := range values {
		if v == nil {
			row[i] = sqltypes.NULL
			continue
		}
		if cap(w.arena)-len(w.arena) < len(v) {
			w.arena = make([]byte, 0, max(64<<10, len(v)))
		}
		start := len(w.arena)
		w.arena = append(w.arena, v...)
		row[i] = sqltypes.MakeTrusted(w.fields[i].Type, w.arena[start:len(w.arena):len(w.arena)])
		w.bytes += len(v)
	}
	w.rows = append(w.rows, row)
	if len(w.rows) >= flushRows || w.bytes >= flushBytes {
		return w.flush()
	}
	return nil
}

func (w *writer) flush() error {
	if len(w.rows) == 0 {
		return nil
	}
	// Fields ride along with every batch: vitess sizes a binary row's NULL
	// bitmap from the Result's own Fields, so a batch without them gets a
	// bitmap for zero columns and, from 7 columns on, corrupt rows.
	err := w.send(&sqltypes.Result{Fields: w.fields, Rows: w.rows})
	// vitess encodes the rows into its packet buffer before returning, so
	// the row and byte buffers can be reused.
	clear(w.rows)
	clear(w.slab)
	w.rows, w.slab, w.arena, w.bytes = w.rows[:0], w.slab[:0], w.arena[:0], 0
	return err
}

func (w *writer) OK(r OKResult) error {
	if w.started || w.done {
		return errProtocolMisuse
	}
	w.done = true
	return w.send(&sqltypes.Result{RowsAffected: r.AffectedRows, Info: r.Info})
}
