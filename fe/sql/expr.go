package sql

// Expr is a scalar expression.
type Expr interface {
	Node
	expr()
}

// ColumnRef is a dotted path: a column (a), a qualified column (t.a,
// db.t.a, ctl.db.t.a) or a struct field path (s.f, t.s.f). The parser cannot
// tell these apart; the binder resolves the parts against the scope.
type ColumnRef struct {
	Parts []string
}

// Star is "*", "t.*" or "* EXCEPT(a, b)" in a select list, and the argument
// of count(*) is flagged on the FuncCall instead.
type Star struct {
	Qualifier Name     // nil for a bare *
	Except    []string // columns of EXCEPT(...), nil when absent
}

// LitKind is the kind of a literal.
type LitKind uint8

// Literal kinds. Numbers keep their text so that the binder decides the type
// (Doris types 1.5 as DECIMAL, 1e3 as DOUBLE, a too-large integer as LARGEINT
// or DECIMAL).
const (
	LitNull     LitKind = iota
	LitBool             // Value "TRUE" or "FALSE"
	LitInt              // Value is decimal digits
	LitDecimal          // digits with a point, e.g. "1.50", ".5"
	LitFloat            // with an exponent, e.g. "1e10"
	LitString           // Value is the decoded string
	LitHex              // Value is upper-case hex digits of X'..' or 0x..
	LitDate             // DATE '...'; Value is the string
	LitDatetime         // TIMESTAMP '...' or DATETIME '...'; Value is the string
)

// Literal is a constant.
type Literal struct {
	Kind  LitKind
	Value string
}

// Param is a '?' placeholder of a prepared statement; Index counts from 0 in
// text order.
type Param struct {
	Index int
}

// Variable is @@name, @@session.name, @@global.name or @name.
type Variable struct {
	Scope VarScope
	Name  string // lower-cased for system variables, as written for user variables
}

// DefaultExpr is the DEFAULT keyword in an INSERT ... VALUES row.
type DefaultExpr struct{}

// Interval is INTERVAL value unit, e.g. INTERVAL 1 DAY; Unit is upper case.
type Interval struct {
	Value Expr
	Unit  string
}

// UnaryExpr is a prefix operator. Op is one of "-", "+", "~", "!", "NOT".
type UnaryExpr struct {
	Op string
	X  Expr
}

// BinaryExpr is an infix operator. Op is one of OR XOR AND = <=> != < <= >
// >= | & << >> + - * / DIV % ^. "<>" is stored as "!=", "&&" as AND, "||" as
// OR (Doris default sql_mode), "MOD" as "%".
type BinaryExpr struct {
	Op string
	L  Expr
	R  Expr
}

// IsExpr is X IS [NOT] NULL|TRUE|FALSE|UNKNOWN; What is upper case.
type IsExpr struct {
	X    Expr
	Not  bool
	What string
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	X   Expr
	Not bool
	Lo  Expr
	Hi  Expr
}

// Quantified is X op ANY|SOME|ALL (subquery), a comparison with every row
// of a one-column subquery; Op is a comparison operator (<> is written
// !=, SOME as ANY).
type Quantified struct {
	X     Expr
	Op    string
	All   bool
	Query Query
}

// InExpr is X [NOT] IN (list) or X [NOT] IN (subquery); exactly one of List
// and Query is set.
type InExpr struct {
	X     Expr
	Not   bool
	List  []Expr
	Query Query
}

// LikeExpr is X [NOT] LIKE pattern [ESCAPE e] or X [NOT] REGEXP|RLIKE
// pattern. Op is "LIKE" or "REGEXP".
type LikeExpr struct {
	X       Expr
	Not     bool
	Op      string
	Pattern Expr
	Escape  Expr // nil when absent (LIKE only)
}

// Exists is [NOT] EXISTS (query); NOT arrives as a UnaryExpr around it.
type Exists struct {
	Query Query
}

// Subquery is a scalar subquery: (query) used as a value.
type Subquery struct {
	Query Query
}

// When is one WHEN ... THEN ... arm of a CASE.
type When struct {
	Cond   Expr
	Result Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END; Operand is nil for
// the searched form.
type Case struct {
	Operand Expr
	Whens   []*When
	Else    Expr
}

// Cast is CAST(X AS Type).
type Cast struct {
	X    Expr
	Type *DataType
}

// FuncCall is a function call, aggregate or window function. IF, COALESCE,
// DATABASE() and friends are ordinary calls. Functions written without
// parentheses (CURRENT_TIMESTAMP, CURRENT_DATE, ...) have no Args.
// EXTRACT(unit FROM x) is stored as extract('UNIT', x).
type FuncCall struct {
	Name     string // as written; the binder compares case-insensitively
	Distinct bool
	Star     bool // count(*)
	Args     []Expr
	OrderBy  []*OrderItem // group_concat(x ORDER BY y)
	Over     *WindowSpec  // nil unless a window function
	// IgnoreNulls is IGNORE NULLS, written inside the parentheses or
	// after them (RESPECT NULLS is the default).
	IgnoreNulls bool
	// Brackets marks an array literal written [a, b, ...]: the call
	// array(a, b, ...), printed back the way it was written.
	Brackets bool
}

// WindowSpec is the OVER (...) clause, or a WINDOW clause's definition.
// Name is the named window it refers to (OVER w, OVER (w ORDER BY ...)),
// "" when none; the binder resolves it.
type WindowSpec struct {
	Name        string
	PartitionBy []Expr
	OrderBy     []*OrderItem
	Frame       *Frame
}

// FrameUnit is ROWS or RANGE.
type FrameUnit uint8

// Frame units.
const (
	FrameRows FrameUnit = iota
	FrameRange
)

// BoundKind is the kind of a window frame bound.
type BoundKind uint8

// Frame bounds.
const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a window frame; Offset is set for Preceding and
// Following.
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// Frame is ROWS|RANGE start or ROWS|RANGE BETWEEN start AND end; End is nil
// for the single-bound form.
type Frame struct {
	Unit  FrameUnit
	Start *FrameBound
	End   *FrameBound
}

// Index is element access: X[Index] for arrays (1-based in Doris) and maps.
type Index struct {
	X     Expr
	Index Expr
}

// Field is struct field access on a value that is not a plain column path,
// e.g. a[1].f; a path like s.f is a ColumnRef.
type Field struct {
	X    Expr
	Name string
}

// Row is a parenthesized list (a, b), as in (a, b) IN ((1, 2)).
type Row struct {
	Items []Expr
}

// Lambda is Doris's x -> body or (x, y) -> body, an argument of the
// higher-order array functions (array_map, array_filter, ...).
type Lambda struct {
	Params []string
	Body   Expr
}

// DataType is a type as written in CAST and CREATE TABLE. Name is upper case
// (INT, DECIMAL, VARCHAR, DATETIME, ARRAY, MAP, STRUCT, ...); the binder
// decides whether it exists.
type DataType struct {
	Name     string
	Params   []int64        // (n), (p, s)
	Unsigned bool           // INT UNSIGNED, CAST(x AS UNSIGNED [INTEGER]) keeps Name "UNSIGNED"
	Elems    []*DataType    // ARRAY<e>: 1, MAP<k, v>: 2
	Fields   []*StructField // STRUCT<name: type, ...>
}

// StructField is one field of a STRUCT type.
type StructField struct {
	Name       string
	Type       *DataType
	Comment    string
	HasComment bool
}

func (*ColumnRef) expr()   {}
func (*Star) expr()        {}
func (*Literal) expr()     {}
func (*Param) expr()       {}
func (*Variable) expr()    {}
func (*DefaultExpr) expr() {}
func (*Interval) expr()    {}
func (*UnaryExpr) expr()   {}
func (*BinaryExpr) expr()  {}
func (*IsExpr) expr()      {}
func (*Between) expr()     {}
func (*InExpr) expr()      {}
func (*Quantified) expr()  {}
func (*LikeExpr) expr()    {}
func (*Exists) expr()      {}
func (*Subquery) expr()    {}
func (*Case) expr()        {}
func (*Cast) expr()        {}
func (*FuncCall) expr()    {}
func (*Index) expr()       {}
func (*Field) expr()       {}
func (*Row) expr()         {}
func (*Lambda) expr()      {}
