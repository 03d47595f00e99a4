package orc

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// File layout:
//
//	"ORC" | stripe 0 | ... | stripe n-1 | metadata | footer | postscript | psLen (1 byte)
//
// The postscript is never compressed; metadata and footer are compressed
// with the postscript's codec. Each stripe is index streams | data streams |
// stripe footer, the stripe footer listing the streams in file order.

const magic = "ORC"

// soleColumn names the single column of a file whose root type is not a
// struct.
const soleColumn = "_col0"

// hive11Scale is the scale given to Hive 0.11 decimals (no precision in the
// type); larger scales are truncated toward zero.
const hive11Scale = 6

// Caps on tail sections; real writers stay far below them.
const (
	defaultMaxTail = 64 << 20
	tailGuess      = 16 << 10
	maxTypes       = 1 << 20
	maxNesting     = 256
)

type config struct {
	name    string
	maxTail int64
}

// Option configures Open.
type Option func(*config)

// WithName names the file in errors (a path or URL).
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithMaxTailSize caps footer plus metadata bytes (default 64 MiB).
func WithMaxTailSize(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxTail = n
		}
	}
}

// File is an opened ORC file: its tail is parsed, no stripe is read yet.
// A File is immutable and may be shared by goroutines.
type File struct {
	r       io.ReaderAt
	size    int64
	name    string
	ps      *postScript
	ft      *footer
	stripes []StripeInfo
	schema  *arrow.Schema
	types   []orcType
}

// Open reads and checks the tail of the ORC file of the given size.
func Open(r io.ReaderAt, size int64, opts ...Option) (*File, error) {
	cfg := config{name: "orc file", maxTail: defaultMaxTail}
	for _, o := range opts {
		o(&cfg)
	}
	f, err := open(r, size, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.name, err)
	}
	return f, nil
}

func open(r io.ReaderAt, size int64, cfg config) (*File, error) {
	if size == 0 {
		// The Java writer leaves a zero-byte file when no row was written;
		// ORC readers take it as an empty table without columns.
		f := &File{r: r, name: cfg.name, ps: &postScript{}, ft: &footer{},
			types: []orcType{{kind: KindStruct}}}
		f.schema = arrow.NewSchema(nil, nil)
		return f, nil
	}
	if size < int64(len(magic))+1 {
		return nil, fmt.Errorf("%w: file of %d bytes is too small for ORC", ErrCorrupt, size)
	}
	n := min(size, tailGuess)
	tail := make([]byte, n)
	if err := readFull(r, tail, size-n); err != nil {
		return nil, fmt.Errorf("read tail at offset %d: %w", size-n, err)
	}
	psLen := int64(tail[n-1])
	if psLen == 0 || psLen+1 > n {
		return nil, fmt.Errorf("%w: postscript length %d at offset %d does not fit file of %d bytes",
			ErrCorrupt, psLen, size-1, size)
	}
	ps, err := parsePostScript(tail[n-1-psLen : n-1])
	if err != nil {
		return nil, fmt.Errorf("postscript at offset %d: %w", size-1-psLen, err)
	}
	if ps.magic != magic {
		// Files of Hive 0.11 and before may lack the magic in the
		// postscript; they still start with it.
		head := make([]byte, len(magic))
		if err := readFull(r, head, 0); err != nil || string(head) != magic {
			return nil, fmt.Errorf("%w: no ORC magic in postscript (offset %d) or file header", ErrCorrupt, size-1-psLen)
		}
	}
	if err := checkVersion(ps.version); err != nil {
		return nil, err
	}
	blockSize := defaultBlockSize
	if ps.hasBlockSize {
		if ps.blockSize == 0 || ps.blockSize > maxBlockSize {
			return nil, fmt.Errorf("%w: compression block size %d out of range (1..%d)", ErrCorrupt, ps.blockSize, maxBlockSize)
		}
		blockSize = int(ps.blockSize)
	}
	tailLen := ps.footerLength + ps.metadataLength
	if ps.footerLength > uint64(cfg.maxTail) || ps.metadataLength > uint64(cfg.maxTail) || tailLen > uint64(cfg.maxTail) {
		return nil, fmt.Errorf("%w: footer (%d bytes) and metadata (%d bytes) exceed the %d byte limit",
			ErrCorrupt, ps.footerLength, ps.metadataLength, cfg.maxTail)
	}
	if int64(tailLen)+psLen+1 > size {
		return nil, fmt.Errorf("%w: footer (%d bytes) and metadata (%d bytes) do not fit file of %d bytes",
			ErrCorrupt, ps.footerLength, ps.metadataLength, size)
	}
	metaOff := size - 1 - psLen - int64(tailLen)
	var raw []byte
	if need := int64(tailLen) + psLen + 1; need <= n {
		raw = tail[n-need : n-1-psLen]
	} else {
		raw = make([]byte, tailLen)
		if err := readFull(r, raw, metaOff); err != nil {
			return nil, fmt.Errorf("read footer at offset %d: %w", metaOff, err)
		}
	}
	dec, err := newDecompressor(ps.compression, blockSize)
	if err != nil {
		return nil, err
	}
	defer dec.close()
	footOff := metaOff + int64(ps.metadataLength)
	fb, err := dec.expand(nil, raw[ps.metadataLength:], fmt.Sprintf("footer at offset %d", footOff))
	if err != nil {
		return nil, err
	}
	ft, err := parseFooter(fb)
	if err != nil {
		return nil, fmt.Errorf("footer at offset %d: %w", footOff, err)
	}
	if ft.encrypted {
		return nil, fmt.Errorf("%w: column encryption", ErrUnsupported)
	}
	var stripeStats [][]ColumnStats
	if ps.metadataLength > 0 {
		mb, err := dec.expand(nil, raw[:ps.metadataLength], fmt.Sprintf("metadata at offset %d", metaOff))
		if err != nil {
			return nil, err
		}
		if stripeStats, err = parseMetadata(mb); err != nil {
			return nil, fmt.Errorf("metadata at offset %d: %w", metaOff, err)
		}
	}
	f := &File{r: r, size: size, name: cfg.name, ps: ps, ft: ft, types: ft.types}
	if err := f.checkTypes(); err != nil {
		return nil, err
	}
	var rows uint64
	for i, s := range ft.stripes {
		end := s.Offset + s.IndexLength + s.DataLength + s.FooterLength
		if s.Offset > uint64(metaOff) || end > uint64(metaOff) || end < s.Offset {
			return nil, fmt.Errorf("%w: stripe %d (offset %d, %d+%d+%d bytes) lies outside the data area of %d bytes",
				ErrCorrupt, i, s.Offset, s.IndexLength, s.DataLength, s.FooterLength, metaOff)
		}
		if s.FooterLength == 0 && s.NumRows > 0 {
			return nil, fmt.Errorf("%w: stripe %d at offset %d has no footer", ErrCorrupt, i, s.Offset)
		}
		// Statistics whose root count contradicts the stripe's row count
		// come from writers known to leave them empty; they must not drive
		// stripe skipping, so they read as absent.
		if i < len(stripeStats) && len(stripeStats[i]) > 0 && stripeStats[i][0].NumValues == s.NumRows {
			s.Stats = stripeStats[i]
		}
		rows += s.NumRows
		f.stripes = append(f.stripes, s)
	}
	if ft.numRows == 0 {
		ft.numRows = rows // some writers leave it out
	}
	if rows != ft.numRows {
		return nil, fmt.Errorf("%w: stripes hold %d rows, footer says %d", ErrCorrupt, rows, ft.numRows)
	}
	if len(ft.stats) > 0 && ft.stats[0].NumValues != ft.numRows {
		ft.stats = nil
	}
	sc, err := f.arrowSchema(nil)
	if err != nil {
		return nil, err
	}
	f.schema = sc
	return f, nil
}

// checkVersion accepts the format versions 0.x and 1.x (which includes the
// UNSTABLE-PRE-2.0 version 1.9999 of decimal64 files).
func checkVersion(v []uint32) error {
	if len(v) == 0 {
		return nil // Hive 0.11 files may omit it
	}
	if v[0] > 1 {
		ver := fmt.Sprint(v[0])
		for _, x := range v[1:] {
			ver += fmt.Sprintf(".%d", x)
		}
		return fmt.Errorf("%w: file format version %s; this reader supports 0.11, 0.12 and 1.x", ErrVersion, ver)
	}
	return nil
}

// checkTypes validates the type tree: ORC lists types in pre-order, so each
// child id is greater than its parent's, which also rules out cycles.
func (f *File) checkTypes() error {
	if len(f.types) == 0 {
		return fmt.Errorf("%w: footer has no types", ErrCorrupt)
	}
	if len(f.types) > maxTypes {
		return fmt.Errorf("%w: footer has %d types, limit %d", ErrCorrupt, len(f.types), maxTypes)
	}
	// A type referenced by two parents would make the schema a DAG whose
	// expansion grows exponentially; ORC schemas are trees.
	parent := make([]int32, len(f.types))
	for id, t := range f.types {
		for _, c := range t.subtypes {
			if int(c) <= id || int(c) >= len(f.types) {
				return fmt.Errorf("%w: type %d (%s) has subtype %d outside (%d, %d)", ErrCorrupt, id, t.kind, c, id, len(f.types))
			}
			if parent[c] != 0 {
				return fmt.Errorf("%w: type %d is a subtype of both type %d and type %d", ErrCorrupt, c, parent[c]-1, id)
			}
			parent[c] = int32(id) + 1
		}
		want := -1
		switch t.kind {
		case KindList:
			want = 1
		case KindMap:
			want = 2
		case KindStruct:
			if len(t.fieldNames) != len(t.subtypes) {
				return fmt.Errorf("%w: struct type %d has %d field names for %d fields", ErrCorrupt, id, len(t.fieldNames), len(t.subtypes))
			}
		case KindUnion:
			if len(t.subtypes) == 0 || len(t.subtypes) > 127 {
				return fmt.Errorf("%w: union type %d has %d variants", ErrCorrupt, id, len(t.subtypes))
			}
		case KindDecimal:
			if t.precision > 38 || t.scale > 38 || (t.precision > 0 && t.scale > t.precision) {
				return fmt.Errorf("%w: decimal type %d has precision %d scale %d", ErrCorrupt, id, t.precision, t.scale)
			}
			want = 0
		default:
			if t.kind < 0 || t.kind > KindTimestampInstant {
				return fmt.Errorf("%w: type %d has unknown kind %d", ErrUnsupported, id, int(t.kind))
			}
			want = 0
		}
		if want >= 0 && len(t.subtypes) != want {
			return fmt.Errorf("%w: %s type %d has %d subtypes, want %d", ErrCorrupt, t.kind, id, len(t.subtypes), want)
		}
	}
	return nil
}

// Schema is the Arrow schema of all columns (the root struct's fields).
func (f *File) Schema() *arrow.Schema { return f.schema }

// NumRows is the row count from the footer.
func (f *File) NumRows() int64 {
	if f.ft.numRows > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f.ft.numRows)
}

// Stripes describes the stripes with their column statistics.
func (f *File) Stripes() []StripeInfo { return f.stripes }

// ColumnStats returns the file-level statistics indexed by ORC column id
// (0 is the root struct); nil when the writer recorded none.
func (f *File) ColumnStats() []ColumnStats { return f.ft.stats }

// Compression is the file's codec.
func (f *File) Compression() CompressionKind { return f.ps.compression }

// Version is the file format version, e.g. [0 12].
func (f *File) Version() []uint32 { return f.ps.version }

// WriterVersion is the postscript's writer version.
func (f *File) WriterVersion() uint32 { return f.ps.writerVersion }

// Metadata returns the user metadata of the footer.
func (f *File) Metadata() map[string][]byte { return f.ft.metadata }

// ColumnID returns the ORC column id (type index) of the field at the given
// path of names from the root ("a" or "a", "b" for a struct field), or -1.
// Statistics in StripeInfo.Stats are indexed by this id.
func (f *File) ColumnID(path ...string) int {
	if !f.rootIsStruct() {
		if len(path) == 1 && path[0] == soleColumn {
			return 0
		}
		return -1
	}
	id := 0
	for _, name := range path {
		t := f.types[id]
		if t.kind != KindStruct {
			return -1
		}
		found := -1
		for i, fn := range t.fieldNames {
			if fn == name {
				found = int(t.subtypes[i])
				break
			}
		}
		if found < 0 {
			return -1
		}
		id = found
	}
	return id
}

// ColumnKind is the ORC type of column id (see ColumnID), or -1 when the
// id is out of range; it tells which statistics a column may carry.
func (f *File) ColumnKind(id int) TypeKind {
	if id < 0 || id >= len(f.types) {
		return -1
	}
	return f.types[id].kind
}

// arrowType maps the ORC type id (with the subtree filtered by include,
// nil meaning everything) to Arrow.
func (f *File) arrowType(id int, include []bool, depth int, unit arrow.TimeUnit) (arrow.DataType, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: types nested deeper than %d", ErrUnsupported, maxNesting)
	}
	t := f.types[id]
	switch t.kind {
	case KindBoolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case KindByte:
		return arrow.PrimitiveTypes.Int8, nil
	case KindShort:
		return arrow.PrimitiveTypes.Int16, nil
	case KindInt:
		return arrow.PrimitiveTypes.Int32, nil
	case KindLong:
		return arrow.PrimitiveTypes.Int64, nil
	case KindFloat:
		return arrow.PrimitiveTypes.Float32, nil
	case KindDouble:
		return arrow.PrimitiveTypes.Float64, nil
	case KindString, KindVarchar, KindChar:
		return arrow.BinaryTypes.String, nil
	case KindBinary:
		return arrow.BinaryTypes.Binary, nil
	case KindDate:
		return arrow.FixedWidthTypes.Date32, nil
	case KindTimestamp:
		return &arrow.TimestampType{Unit: unit}, nil
	case KindTimestampInstant:
		return &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}, nil
	case KindDecimal:
		p, s := int32(t.precision), int32(t.scale)
		if p == 0 {
			// Hive 0.11 wrote decimals without precision, each value with
			// its own scale; read them as the C++ reader does by default.
			p, s = 38, hive11Scale
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, nil
	case KindList:
		et, err := f.arrowType(int(t.subtypes[0]), nil, depth+1, unit)
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(et), nil
	case KindMap:
		kt, err := f.arrowType(int(t.subtypes[0]), nil, depth+1, unit)
		if err != nil {
			return nil, err
		}
		vt, err := f.arrowType(int(t.subtypes[1]), nil, depth+1, unit)
		if err != nil {
			return nil, err
		}
		return arrow.MapOf(kt, vt), nil
	case KindStruct:
		var fields []arrow.Field
		for i, c := range t.subtypes {
			if include != nil && !include[c] {
				continue
			}
			ct, err := f.arrowType(int(c), include, depth+1, unit)
			if err != nil {
				return nil, err
			}
			fields = append(fields, f.field(t.fieldNames[i], int(c), ct))
		}
		return arrow.StructOf(fields...), nil
	case KindUnion:
		fields := []arrow.Field{{Name: "tag", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}
		for i, c := range t.subtypes {
			ct, err := f.arrowType(int(c), nil, depth+1, unit)
			if err != nil {
				return nil, err
			}
			fields = append(fields, arrow.Field{Name: fmt.Sprint(i), Type: ct, Nullable: true})
		}
		return arrow.StructOf(fields...), nil
	}
	return nil, fmt.Errorf("%w: type %d has kind %s", ErrUnsupported, id, t.kind)
}

// arrowSchema builds the schema of the root's fields given by ids (all when nil).
func (f *File) arrowSchema(sel *selection) (*arrow.Schema, error) {
	root := f.types[0]
	unit := arrow.Nanosecond
	if sel != nil {
		unit = sel.unit
	}
	if root.kind != KindStruct {
		dt, err := f.arrowType(0, nil, 1, unit)
		if err != nil {
			return nil, err
		}
		return arrow.NewSchema([]arrow.Field{f.field(soleColumn, 0, dt)}, nil), nil
	}
	var fields []arrow.Field
	if sel == nil {
		for i, c := range root.subtypes {
			dt, err := f.arrowType(int(c), nil, 1, unit)
			if err != nil {
				return nil, err
			}
			fields = append(fields, f.field(root.fieldNames[i], int(c), dt))
		}
		return arrow.NewSchema(fields, nil), nil
	}
	for _, fi := range sel.top {
		dt, err := f.arrowType(int(root.subtypes[fi]), sel.include, 1, unit)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f.field(root.fieldNames[fi], int(root.subtypes[fi]), dt))
	}
	return arrow.NewSchema(fields, nil), nil
}

// selection is a projection: the root fields in output order and the set of
// type ids read.
type selection struct {
	top     []int
	include []bool
	unit    arrow.TimeUnit // of timestamp columns
	// localTimestamps: a TIMESTAMP (writer zone) column is selected
	localTimestamps bool
}

func (f *File) selectColumns(idx []int, names []string) (*selection, error) {
	root := f.types[0]
	sel := &selection{include: make([]bool, len(f.types)), unit: arrow.Nanosecond}
	sel.include[0] = true
	seen := map[int]bool{}
	addTop := func(fi int) {
		if !seen[fi] {
			seen[fi] = true
			sel.top = append(sel.top, fi)
		}
	}
	var markSubtree func(id int)
	markSubtree = func(id int) {
		sel.include[id] = true
		for _, c := range f.types[id].subtypes {
			markSubtree(int(c))
		}
	}
	if root.kind != KindStruct {
		for _, fi := range idx {
			if fi != 0 {
				return nil, fmt.Errorf("column index %d out of range: file has 1 column", fi)
			}
		}
		for _, n := range names {
			if n != soleColumn {
				return nil, fmt.Errorf("column %q: the only column is %q", n, soleColumn)
			}
		}
		markSubtree(0)
		sel.top = []int{0}
		return sel, nil
	}
	if idx == nil && names == nil {
		for i := range root.subtypes {
			addTop(i)
			markSubtree(int(root.subtypes[i]))
		}
		return sel, nil
	}
	for _, fi := range idx {
		if fi < 0 || fi >= len(root.subtypes) {
			return nil, fmt.Errorf("column index %d out of range: file has %d columns", fi, len(root.subtypes))
		}
		addTop(fi)
		markSubtree(int(root.subtypes[fi]))
	}
	for _, name := range names {
		path := splitPath(name)
		for _, fn := range root.fieldNames {
			if fn == name { // a root field whose name holds dots
				path = []string{name}
				break
			}
		}
		id := 0
		for depth, part := range path {
			t := f.types[id]
			if t.kind != KindStruct {
				return nil, fmt.Errorf("column %q: %q is a %s, not a struct", name, joinPath(path[:depth]), t.kind)
			}
			found := -1
			for i, fn := range t.fieldNames {
				if fn == part {
					found = i
					break
				}
			}
			if found < 0 {
				return nil, fmt.Errorf("column %q: no field %q", name, part)
			}
			if depth == 0 {
				addTop(found)
			}
			id = int(t.subtypes[found])
			sel.include[id] = true
		}
		markSubtree(id)
	}
	return sel, nil
}

// splitPath splits "a.b.c" into field names.
func splitPath(name string) []string { return strings.Split(name, ".") }

func joinPath(p []string) string { return strings.Join(p, ".") }

func (f *File) rootIsStruct() bool { return f.types[0].kind == KindStruct }

// MetaColumnID is the Arrow field metadata key holding the ORC column id
// (type index) of a struct field; statistics are indexed by it. The ORC type
// attributes (such as "iceberg.id") are copied beside it.
const MetaColumnID = "orc.column_id"

func (f *File) field(name string, id int, dt arrow.DataType) arrow.Field {
	t := f.types[id]
	keys := append([]string{MetaColumnID}, t.attrKeys...)
	vals := append([]string{strconv.Itoa(id)}, t.attrVals...)
	return arrow.Field{Name: name, Type: dt, Nullable: true, Metadata: arrow.NewMetadata(keys, vals)}
}

// readFull reads len(b) bytes at off; a short read is an error even when
// the ReaderAt reports io.EOF.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
