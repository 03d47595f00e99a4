package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Error kinds. Implementations wrap them with the name of the object
// concerned; callers test with errors.Is and convert to wire codes once.
var (
	ErrNotFound        = errors.New("not found")
	ErrExists          = errors.New("already exists")
	ErrUnsupported     = errors.New("not supported")
	ErrInvalidProperty = errors.New("invalid property")
	ErrUnknownType     = errors.New("unknown catalog type")
)

// Column describes one column of a table.
type Column struct {
	Name string
	// Type is the Arrow type scans produce for this column.
	Type arrow.DataType
	// TypeName is the Doris-style lower-case type shown by DESC and SHOW
	// CREATE TABLE ("int", "varchar(20)", "decimal(10,2)"); empty means
	// derive it from Type with DorisTypeName.
	TypeName string
	Nullable bool
	// Key marks key columns (primary / duplicate / aggregate key).
	Key     bool
	Default *string
	Comment string
	// Extra is DESC's Extra column (e.g. WITH_TIMEZONE).
	Extra string
	// Unsupported marks a column whose type the engine cannot read (Fluss
	// TIME): DESC shows it (TypeName "UNSUPPORTED" by convention), a query
	// that touches it fails naming it, and the other columns stay readable.
	// Its Type is arrow.Null.
	Unsupported bool
}

// UnsupportedTypeName is the TypeName of an Unsupported column by convention.
const UnsupportedTypeName = "UNSUPPORTED"

// DisplayType is the type name DESC shows.
func (c Column) DisplayType() string {
	if c.Unsupported && c.TypeName == UnsupportedTypeName {
		// Doris prints its UNSUPPORTED type this way (misc.out
		// desc_log_time); errors keep naming it UNSUPPORTED.
		return "unknown type: UNSUPPORTED_TYPE"
	}
	if c.TypeName != "" {
		return c.TypeName
	}
	return DorisTypeName(c.Type)
}

// StringLimit is the byte length a CHAR(n) or VARCHAR(n) column holds
// (Doris counts bytes, not characters) and the type's name for messages;
// 0 for every other column, STRING included.
func (c Column) StringLimit() (int, string) {
	t := c.TypeName
	var rest string
	switch {
	case strings.HasPrefix(t, "varchar("):
		rest = t[len("varchar("):]
	case strings.HasPrefix(t, "char("):
		rest = t[len("char("):]
	default:
		return 0, ""
	}
	if !strings.HasSuffix(rest, ")") {
		return 0, ""
	}
	n, err := strconv.Atoi(rest[:len(rest)-1])
	if err != nil || n <= 0 {
		return 0, ""
	}
	return n, t
}

// Schema is an ordered list of columns.
type Schema struct {
	Columns []Column
}

// Arrow returns the Arrow schema of a full scan.
func (s Schema) Arrow() *arrow.Schema {
	fs := make([]arrow.Field, len(s.Columns))
	for i, c := range s.Columns {
		fs[i] = arrow.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
	}
	return arrow.NewSchema(fs, nil)
}

// Index returns the position of the column named name (case-insensitive,
// as MySQL column names are), or -1.
func (s Schema) Index(name string) int {
	for i, c := range s.Columns {
		if equalFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Catalog is one catalog: the internal one or an external source.
// A catalog does not know the name users gave it; the manager owns names.
type Catalog interface {
	// Type is the registered type name ("internal", "fluss", ...).
	Type() string
	ListDatabases(ctx context.Context) ([]string, error)
	// Database returns the named database or an error wrapping ErrNotFound.
	Database(ctx context.Context, name string) (Database, error)
	// Close releases connections and caches; the catalog is not used after.
	Close() error
}

// Database is one database of a catalog.
type Database interface {
	Name() string
	ListTables(ctx context.Context) ([]string, error)
	// Table returns the named table or an error wrapping ErrNotFound.
	Table(ctx context.Context, name string) (Table, error)
}

// Table is a scannable table.
type Table interface {
	Name() string
	Schema() Schema
	// Scan opens a stream of the table's rows, projected to req.Columns.
	Scan(ctx context.Context, req ScanRequest) (array.RecordReader, error)
}

// ScanRequest says what a scan must produce.
type ScanRequest struct {
	// Columns are indexes into Schema().Columns, in output order; nil means
	// all columns.
	Columns []int
	// Mem allocates the batches. It is required: implementations reject a
	// nil Mem instead of reaching for a process-wide allocator.
	Mem memory.Allocator
	// Vars holds the session variables in force for this statement (after
	// SET_VAR), by lower-case name, as text.
	Vars map[string]string
	// BatchSize is a hint for rows per batch; 0 means the table's default.
	BatchSize int
	// Predicates are WHERE conjuncts on this table's columns (see
	// Predicate): hints for skipping data, never a filter to rely on.
	Predicates []Predicate
	// Raw lets a scan return batches whose buffers point into storage it
	// gives back when the batch's arrays are released (a mapped file): the
	// caller filters them and copies out the values it keeps before the
	// batch goes, so rows a filter drops (and columns only it reads) are
	// never copied. Only a RawScanner is asked for it; others ignore it.
	Raw bool
}

// RawScanner is a Table whose Scan honours ScanRequest.Raw.
type RawScanner interface {
	Table
	ScansRaw() bool
}

// Projected returns the schema of a scan with the given column indexes.
func (s Schema) Projected(cols []int) Schema {
	if cols == nil {
		return s
	}
	out := Schema{Columns: make([]Column, len(cols))}
	for i, c := range cols {
		out.Columns[i] = s.Columns[c]
	}
	return out
}

// Optional capabilities, found by type assertion.

// DatabaseCreator is a Catalog that can create and drop databases.
type DatabaseCreator interface {
	CreateDatabase(ctx context.Context, name string, props map[string]string) error
	// DropDatabase drops a database; force drops its tables too.
	DropDatabase(ctx context.Context, name string, force bool) error
}

// TableSpec is the definition of a new table.
type TableSpec struct {
	Name       string
	Schema     Schema
	Comment    string
	Properties map[string]string
	// KeysType is the Doris key model ("DUPLICATE", "UNIQUE", "AGGREGATE")
	// or empty; KeyColumns names its columns.
	KeysType   string
	KeyColumns []string
	// PrimaryKey names the columns that identify a row (a UNIQUE KEY
	// table's key, a Fluss or Paimon primary key), in key order; empty when
	// rows have no identity. SHOW CREATE TABLE prints it as MySQL does, for
	// the clients that reflect a primary key from there (SQLAlchemy).
	PrimaryKey []string
	// Distribution is the text of a DISTRIBUTED BY clause, kept for SHOW
	// CREATE TABLE only.
	Distribution string
}

// TableCreator is a Database that can create and drop tables.
type TableCreator interface {
	CreateTable(ctx context.Context, spec TableSpec) (Table, error)
	DropTable(ctx context.Context, name string) error
}

// Writable is a Table that accepts appended rows. Append consumes r (whose
// schema must match the table's) and returns the rows written; a failed
// Append leaves no visible rows behind.
type Writable interface {
	Append(ctx context.Context, r array.RecordReader) (int64, error)
}

// Partitioned is a Table with partitions; Partitions lists them in the form
// k1=v1/k2=v2.
type Partitioned interface {
	PartitionColumns() []string
	Partitions(ctx context.Context) ([]string, error)
}

// Explainer is a Table that describes how a scan would run, for EXPLAIN.
// The lines never contain secret values.
type Explainer interface {
	ExplainScan(ctx context.Context, req ScanRequest, verbose bool) (node string, lines []string, err error)
}

// Described is a Table that carries a comment and properties for SHOW CREATE
// TABLE.
type Described interface {
	Spec() TableSpec
}

// PrimaryKeyed is a Table with a primary key of its own (a Fluss
// primary-key table): information_schema reports it as the PRIMARY index,
// where JDBC drivers look for it.
type PrimaryKeyed interface {
	PrimaryKey() []string
}

// Refresher drops cached metadata; implemented by catalogs, databases or
// tables that cache.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// Env is what the process hands a catalog when it opens one.
type Env struct {
	// Name is the catalog's current user-visible name (for messages only).
	Name string
	// DataDir is a directory the catalog may use for its own files.
	DataDir string
	Logger  *slog.Logger
	Mem     memory.Allocator
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// kindError is an error of a kind whose text does not repeat the kind, so
// that users see "Unknown database 'x'" rather than "not found: Unknown
// database 'x'", while errors.Is still finds the kind.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// Errorf makes an error of the given kind (one of this package's sentinels
// or any other) with a message that does not repeat the kind.
func Errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
