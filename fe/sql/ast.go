package sql

// Node is any syntax tree node. String renders it back as SQL text that
// parses to an equal tree (keywords upper case, names backquoted when needed).
type Node interface {
	String() string
	format(p *printer)
}

// Statement is one top-level statement.
type Statement interface {
	Node
	stmt()
}

// Name is a dotted object name of 1 to 3 parts, e.g. [db tbl] or
// [ctl db tbl]; each part is as written (case kept, quotes removed), so
// `tbl$lake` is the single part "tbl$lake".
type Name []string

// Property is one 'key' = 'value' pair of a PROPERTIES (...) clause, kept in
// the order written.
type Property struct {
	Key   string
	Value string
}

// ---------------------------------------------------------------------------
// Queries

// Query is a SELECT-shaped statement: *Select or *SetOp. It is also used as
// a subquery inside expressions and FROM clauses.
type Query interface {
	Statement
	query()
}

// With is a WITH clause; it belongs to the outermost query it precedes.
type With struct {
	Recursive bool
	CTEs      []*CTE
}

// CTE is one common table expression: name [(columns)] AS (query).
type CTE struct {
	Name    string
	Columns []string
	Query   Query
}

// Select is a single SELECT block.
type Select struct {
	With     *With
	Hints    map[string]string // SET_VAR(k=v, ...) from a /*+ ... */ hint after SELECT
	Distinct bool
	Items    []*SelectItem
	From     TableExpr // nil when there is no FROM clause
	Where    Expr
	GroupBy  []Expr
	// Grouping is how GROUP BY was written when it has grouping sets
	// (GroupPlain otherwise); Sets are then its grouping sets, each a list
	// of indexes into GroupBy, which holds every grouping expression once.
	Grouping GroupingKind
	Sets     [][]int
	Having   Expr
	// Windows are the WINDOW clause's named windows, in order.
	Windows []*NamedWindow
	OrderBy []*OrderItem
	Limit   *Limit
}

// NamedWindow is one "name AS (spec)" of a WINDOW clause.
type NamedWindow struct {
	Name string
	Spec *WindowSpec
}

// GroupingKind names the form of a GROUP BY clause.
type GroupingKind uint8

// GROUP BY forms: a plain list, ROLLUP(...), CUBE(...), GROUPING SETS
// (...) and MySQL's "list WITH ROLLUP" (Doris accepts both ROLLUP forms).
const (
	GroupPlain GroupingKind = iota
	GroupRollup
	GroupCube
	GroupSets
	GroupWithRollup
)

// SelectItem is one entry of a select list. Expr is a *Star for "*", "t.*"
// and "* EXCEPT(...)".
type SelectItem struct {
	Expr  Expr
	Alias string // "" when none
	// Text is the item's source text as the client wrote it (without the
	// alias), which MySQL uses as the result column name when there is no
	// alias: SELECT @@version_comment names its column "@@version_comment".
	// Printing does not preserve it; it is informational.
	Text string
}

// SetOpKind names a set operation.
type SetOpKind uint8

// Set operations. INTERSECT binds tighter than UNION and EXCEPT, as in MySQL 8
// and Doris.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two queries: Left UNION [ALL|DISTINCT] Right, etc. OrderBy
// and Limit apply to the combined result.
type SetOp struct {
	With    *With
	Kind    SetOpKind
	All     bool
	Left    Query
	Right   Query
	OrderBy []*OrderItem
	Limit   *Limit
}

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Expr  Expr
	Desc  bool
	Nulls NullsOrder
}

// NullsOrder is the NULLS FIRST/LAST choice of an ORDER BY key.
type NullsOrder uint8

// NullsDefault means no NULLS clause was written (Doris: NULLs sort first in
// ascending order, last in descending order).
const (
	NullsDefault NullsOrder = iota
	NullsFirst
	NullsLast
)

// Limit is LIMIT Count [OFFSET Offset]; "LIMIT m, n" is stored as
// Offset=m, Count=n.
type Limit struct {
	Count  int64
	Offset int64
}

// ---------------------------------------------------------------------------
// FROM clause

// TableExpr is an entry of a FROM clause: *TableRef, *DerivedTable or *Join.
type TableExpr interface {
	Node
	tableExpr()
}

// TableRef names a table, view or CTE: [ctl.][db.]tbl [FOR VERSION|TIME AS
// OF v] [[AS] alias].
type TableRef struct {
	Name  Name
	Alias string
	// AsOf is the time travel clause (AsOfNone when absent); AsOfValue is
	// the snapshot id digits (AsOfVersion), the tag (AsOfTag) or the
	// datetime text (AsOfTime), unquoted.
	AsOf      AsOfKind
	AsOfValue string
}

// AsOfKind is the form of a time travel clause after a table name.
type AsOfKind uint8

// Time travel forms.
const (
	AsOfNone    AsOfKind = iota
	AsOfVersion          // FOR VERSION AS OF <snapshot id>
	AsOfTag              // FOR VERSION AS OF '<tag>'
	AsOfTime             // FOR TIME AS OF '<datetime>'
)

// DerivedTable is a subquery in FROM: (query) [AS] alias [(columns)].
type DerivedTable struct {
	Query   Query
	Alias   string
	Columns []string
}

// JoinKind names a join.
type JoinKind uint8

// Join kinds. CommaJoin is "a, b": a cross join that binds looser than the
// JOIN keyword forms, kept apart so that printing preserves the tree.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	CrossJoin
	CommaJoin
	LeftSemiJoin  // Doris LEFT SEMI JOIN
	LeftAntiJoin  // Doris LEFT ANTI JOIN
	RightSemiJoin // Doris RIGHT SEMI JOIN
	RightAntiJoin // Doris RIGHT ANTI JOIN
)

// Join combines two FROM entries. At most one of On and Using is set.
type Join struct {
	Kind  JoinKind
	Left  TableExpr
	Right TableExpr
	On    Expr
	Using []string
}

func (*TableRef) tableExpr()     {}
func (*DerivedTable) tableExpr() {}
func (*Join) tableExpr()         {}

// ---------------------------------------------------------------------------
// Utility and catalog statements

// Assignment is one "[GLOBAL|SESSION] name = value" of a SET statement.
type Assignment struct {
	Scope VarScope
	Name  string // lower-cased variable name
	Value Expr   // nil when Default is set
	// Default is true for "name = DEFAULT".
	Default bool
}

// VarScope is where a variable lives.
type VarScope uint8

// Variable scopes. ScopeNone is an unqualified system variable (session
// scope for SET); ScopeUser is a user variable (@name).
const (
	ScopeNone VarScope = iota
	ScopeSession
	ScopeGlobal
	ScopeUser
)

// Set is SET assignment, assignment, ...
type Set struct {
	Assignments []*Assignment
}

// SetNames is SET NAMES charset [COLLATE collation] (also SET CHARACTER SET /
// SET CHARSET, stored with CharacterSet true).
type SetNames struct {
	Charset      string // "" for DEFAULT
	Collate      string
	CharacterSet bool
}

// SetTransaction is SET [GLOBAL|SESSION] TRANSACTION characteristic, ...,
// which JDBC drivers send; Inlet accepts it without effect.
type SetTransaction struct {
	Scope          VarScope
	IsolationLevel string // "READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE" or ""
	ReadOnly       bool
	ReadWrite      bool
}

// Use is USE [catalog.]database.
type Use struct {
	Catalog  string // "" when not given
	Database string
}

// Switch is SWITCH catalog.
type Switch struct {
	Catalog string
}

// ShowKind names what a SHOW statement lists.
type ShowKind uint8

// SHOW statements.
const (
	ShowCatalogs       ShowKind = iota // SHOW CATALOGS [LIKE]
	ShowCreateCatalog                  // SHOW CREATE CATALOG name
	ShowDatabases                      // SHOW DATABASES|SCHEMAS [FROM ctl] [LIKE|WHERE]
	ShowCreateDatabase                 // SHOW CREATE DATABASE [ctl.]db
	ShowTables                         // SHOW [FULL] TABLES [FROM|IN [ctl.]db] [LIKE|WHERE]
	ShowCreateTable                    // SHOW CREATE TABLE name
	ShowPartitions                     // SHOW PARTITIONS FROM name [LIKE|WHERE]
	ShowColumns                        // SHOW [FULL] COLUMNS|FIELDS FROM name [FROM db] [LIKE|WHERE]
	ShowVariables                      // SHOW [GLOBAL|SESSION] VARIABLES [LIKE|WHERE]
	ShowStatus                         // SHOW [GLOBAL|SESSION] STATUS [LIKE|WHERE]
	ShowWarnings                       // SHOW WARNINGS [LIMIT]
	ShowErrors                         // SHOW ERRORS [LIMIT]
	ShowCollation                      // SHOW COLLATION [LIKE|WHERE]
	ShowCharset                        // SHOW CHARACTER SET|CHARSET [LIKE|WHERE]
	ShowEngines                        // SHOW [STORAGE] ENGINES
	ShowProcesslist                    // SHOW [FULL] PROCESSLIST
	ShowTableStatus                    // SHOW TABLE STATUS [FROM db] [LIKE|WHERE]
	ShowFrontends                      // SHOW FRONTENDS
	ShowBackends                       // SHOW BACKENDS
	ShowQueryProfile                   // SHOW QUERY PROFILE ['path'] ("/" lists, "/<query id>" shows one)
	ShowCreateView                     // SHOW CREATE VIEW name
	ShowProc                           // SHOW PROC 'path' (Path)
	ShowColumnStats                    // SHOW COLUMN [CACHED] STATS name [(col, ...)] (Columns)
	ShowTableStats                     // SHOW TABLE STATS name
)

// Show is a SHOW statement. Which fields apply depends on Kind (see the
// ShowKind constants); unused ones are zero.
type Show struct {
	Kind  ShowKind
	Full  bool
	Scope VarScope // ShowVariables, ShowStatus: ScopeNone, ScopeSession or ScopeGlobal
	Name  Name     // the object of SHOW CREATE ..., SHOW PARTITIONS, SHOW COLUMNS
	From  Name     // FROM|IN clause of SHOW DATABASES/TABLES/COLUMNS/TABLE STATUS
	// Like is the LIKE pattern; HasLike tells an absent clause from LIKE ''.
	Like    string
	HasLike bool
	Where   Expr
	Limit   *Limit // SHOW WARNINGS/ERRORS LIMIT
	// Path is the profile path of SHOW QUERY PROFILE ("" when absent) or
	// the path of SHOW PROC.
	Path string
	// Columns narrows SHOW COLUMN STATS to these columns.
	Columns []string
}

// Analyze is ANALYZE TABLE name [(col, ...)] [WITH SYNC | WITH ...]:
// compute the table's statistics now (Doris's manual collection; every
// collection here is synchronous and full).
type Analyze struct {
	Table   Name
	Columns []string
}

// Describe is DESC[RIBE] name.
type Describe struct {
	Table Name
}

// Explain is EXPLAIN [level] statement.
type Explain struct {
	Level ExplainLevel
	Stmt  Statement
}

// ExplainLevel is the detail requested from EXPLAIN.
type ExplainLevel uint8

// EXPLAIN levels (Doris spellings).
const (
	ExplainNormal  ExplainLevel = iota
	ExplainVerbose              // EXPLAIN VERBOSE
	ExplainGraph                // EXPLAIN GRAPH
	ExplainTree                 // EXPLAIN TREE
)

// CreateCatalog is CREATE CATALOG [IF NOT EXISTS] name [WITH RESOURCE r]
// [COMMENT '...'] [PROPERTIES (...)]. Doris also accepts COMMENT after
// PROPERTIES; both orders parse to this node.
type CreateCatalog struct {
	IfNotExists bool
	Name        string
	Resource    string // "" when not given
	Comment     string
	HasComment  bool
	Properties  []Property
}

// AlterCatalogAction is what ALTER CATALOG does.
type AlterCatalogAction uint8

// ALTER CATALOG actions.
const (
	AlterCatalogSetProperties AlterCatalogAction = iota // SET PROPERTIES (...)
	AlterCatalogRename                                  // RENAME new_name
	AlterCatalogModifyComment                           // MODIFY COMMENT '...'
)

// AlterCatalog is ALTER CATALOG name action.
type AlterCatalog struct {
	Name       string
	Action     AlterCatalogAction
	Properties []Property // AlterCatalogSetProperties
	NewName    string     // AlterCatalogRename
	Comment    string     // AlterCatalogModifyComment
}

// ObjectKind names the object of REFRESH and DROP.
type ObjectKind uint8

// Object kinds.
const (
	ObjCatalog ObjectKind = iota
	ObjDatabase
	ObjTable
	ObjView
)

// Refresh is REFRESH CATALOG c | DATABASE [c.]db | TABLE [[c.]db.]t
// [PROPERTIES (...)].
type Refresh struct {
	Kind       ObjectKind
	Name       Name
	Properties []Property // REFRESH CATALOG c PROPERTIES ("invalid_cache" = "true")
}

// Drop is DROP CATALOG|DATABASE|SCHEMA|TABLE|VIEW [IF EXISTS] name [FORCE].
type Drop struct {
	Kind     ObjectKind
	IfExists bool
	Name     Name
	Force    bool
}

// CreateDatabase is CREATE DATABASE|SCHEMA [IF NOT EXISTS] [ctl.]db
// [PROPERTIES (...)].
type CreateDatabase struct {
	IfNotExists bool
	Name        Name
	Properties  []Property
}

// Nullability is a column's declared NULL / NOT NULL.
type Nullability uint8

// Column nullability as written.
const (
	NullUnspecified Nullability = iota
	Nullable
	NotNull
)

// ColumnDef is one column of CREATE TABLE.
type ColumnDef struct {
	Name string
	Type *DataType
	// AggType is the aggregate of an AGGREGATE KEY table column (SUM, MAX,
	// MIN, REPLACE, REPLACE_IF_NOT_NULL, HLL_UNION, BITMAP_UNION, ...), upper case.
	AggType       string
	Null          Nullability
	AutoIncrement bool
	Default       Expr // nil when no DEFAULT
	OnUpdate      Expr // ON UPDATE CURRENT_TIMESTAMP[(n)]; nil when absent
	Comment       string
	HasComment    bool
}

// KeysKind is the Doris data model of a table.
type KeysKind uint8

// Doris key models.
const (
	DuplicateKey KeysKind = iota
	UniqueKey
	AggregateKey
	PrimaryKey // PRIMARY KEY (...), accepted for MySQL-shaped DDL
)

// KeysDesc is DUPLICATE|UNIQUE|AGGREGATE KEY (cols).
type KeysDesc struct {
	Kind    KeysKind
	Columns []string
}

// Distribution is DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n|AUTO].
type Distribution struct {
	Random  bool
	Columns []string // HASH columns
	Buckets int64    // 0 when not given or AUTO
	Auto    bool     // BUCKETS AUTO
}

// CreateTable is CREATE [EXTERNAL] TABLE [IF NOT EXISTS] name (columns)
// [ENGINE = e] [keys] [COMMENT '...'] [DISTRIBUTED BY ...] [PROPERTIES (...)]
// [AS query]. With AS and no columns it is CREATE TABLE ... AS SELECT.
type CreateTable struct {
	IfNotExists  bool
	External     bool
	Name         Name
	Columns      []*ColumnDef
	Engine       string
	Keys         *KeysDesc
	Comment      string
	HasComment   bool
	Distribution *Distribution
	Properties   []Property
	AsQuery      Query
}

// Insert is INSERT INTO|OVERWRITE TABLE name [WITH LABEL l] [(cols)]
// {VALUES (...), ... | query}.
type Insert struct {
	Hints     map[string]string
	Overwrite bool
	Table     Name
	Label     string // WITH LABEL label; "" when absent
	Columns   []string
	Rows      [][]Expr // VALUES rows; a DEFAULT entry is a *DefaultExpr
	Query     Query    // set instead of Rows for INSERT ... SELECT
}

// Kill is KILL [CONNECTION|QUERY] id.
type Kill struct {
	Query bool
	ID    int64
}

// TxnKind names a transaction-control statement.
type TxnKind uint8

// Transaction statements that MySQL clients send.
const (
	TxnBegin TxnKind = iota // BEGIN | START TRANSACTION
	TxnCommit
	TxnRollback
)

// Txn is BEGIN / START TRANSACTION / COMMIT / ROLLBACK.
type Txn struct {
	Kind TxnKind
}

func (*Select) stmt()         {}
func (*SetOp) stmt()          {}
func (*Set) stmt()            {}
func (*SetNames) stmt()       {}
func (*SetTransaction) stmt() {}
func (*Use) stmt()            {}
func (*Switch) stmt()         {}
func (*Show) stmt()           {}
func (*Describe) stmt()       {}
func (*Analyze) stmt()        {}
func (*Explain) stmt()        {}
func (*CreateCatalog) stmt()  {}
func (*AlterCatalog) stmt()   {}
func (*Refresh) stmt()        {}
func (*Drop) stmt()           {}
func (*CreateDatabase) stmt() {}
func (*CreateTable) stmt()    {}
func (*Insert) stmt()         {}
func (*Kill) stmt()           {}
func (*Txn) stmt()            {}

func (*Select) query() {}
func (*SetOp) query()  {}
