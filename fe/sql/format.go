package sql

import (
	"sort"
	"strconv"
	"strings"
)

// printer renders nodes as canonical SQL: upper-case keywords, identifiers
// quoted only when needed, and parentheses exactly where precedence needs
// them, so that Parse(n.String()) yields a tree equal to n.
type printer struct {
	b strings.Builder
}

func (p *printer) w(s string) { p.b.WriteString(s) }

func nodeString(n Node) string {
	var p printer
	n.format(&p)
	return p.b.String()
}

func quoteIdent(s string) string {
	if !needsQuote(s) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func needsQuote(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return true
	}
	for i := 0; i < len(s); i++ {
		// '$' is legal unquoted, but Doris users write `tbl$lake` quoted and
		// MySQL deprecates unquoted names starting with it.
		if !isIdentChar(s[i]) || s[i] >= 0x80 || s[i] == '$' {
			return true
		}
	}
	u := strings.ToUpper(s)
	return reserved[u] || niladic[u]
}

func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func (p *printer) ident(s string) { p.w(quoteIdent(s)) }

func (p *printer) idents(list []string) {
	p.w("(")
	for i, s := range list {
		if i > 0 {
			p.w(", ")
		}
		p.ident(s)
	}
	p.w(")")
}

func (p *printer) props(props []Property) {
	p.w("PROPERTIES (")
	for i, pr := range props {
		if i > 0 {
			p.w(", ")
		}
		p.w(quoteString(pr.Key))
		p.w(" = ")
		p.w(quoteString(pr.Value))
	}
	p.w(")")
}

func (p *printer) hints(h map[string]string) {
	if len(h) == 0 {
		return
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	p.w(" /*+ SET_VAR(")
	for i, k := range keys {
		if i > 0 {
			p.w(", ")
		}
		p.ident(k)
		p.w("=")
		p.w(quoteString(h[k]))
	}
	p.w(") */")
}

// ---------------------------------------------------------------------------
// Queries

func (n *With) format(p *printer) {
	p.w("WITH ")
	if n.Recursive {
		p.w("RECURSIVE ")
	}
	for i, c := range n.CTEs {
		if i > 0 {
			p.w(", ")
		}
		p.ident(c.Name)
		if c.Columns != nil {
			p.w(" ")
			p.idents(c.Columns)
		}
		p.w(" AS (")
		c.Query.format(p)
		p.w(")")
	}
	p.w(" ")
}

func (p *printer) orderItems(items []*OrderItem) {
	for i, o := range items {
		if i > 0 {
			p.w(", ")
		}
		o.Expr.format(p)
		if o.Desc {
			p.w(" DESC")
		}
		switch o.Nulls {
		case NullsFirst:
			p.w(" NULLS FIRST")
		case NullsLast:
			p.w(" NULLS LAST")
		}
	}
}

func (p *printer) orderLimit(orderBy []*OrderItem, limit *Limit) {
	if orderBy != nil {
		p.w(" ORDER BY ")
		p.orderItems(orderBy)
	}
	if limit != nil {
		p.w(" ")
		limit.format(p)
	}
}

func (n *Limit) format(p *printer) {
	p.w("LIMIT ")
	p.w(strconv.FormatInt(n.Count, 10))
	if n.Offset != 0 {
		p.w(" OFFSET ")
		p.w(strconv.FormatInt(n.Offset, 10))
	}
}

func (n *Select) format(p *printer) {
	if n.With != nil {
		n.With.format(p)
	}
	p.w("SELECT")
	p.hints(n.Hints)
	if n.Distinct {
		p.w(" DISTINCT")
	}
	for i, it := range n.Items {
		if i > 0 {
			p.w(",")
		}
		p.w(" ")
		it.Expr.format(p)
		if it.Alias != "" {
			p.w(" AS ")
			p.ident(it.Alias)
		}
	}
	if n.From != nil {
		p.w(" FROM ")
		n.From.format(p)
	}
	if n.Where != nil {
		p.w(" WHERE ")
		n.Where.format(p)
	}
	switch n.Grouping {
	case GroupPlain:
		if n.GroupBy != nil {
			p.w(" GROUP BY ")
			p.exprs(n.GroupBy)
		}
	case GroupRollup, GroupCube, GroupWithRollup:
		// The first set is the written list (duplicates included).
		es := make([]Expr, len(n.Sets[0]))
		for j, k := range n.Sets[0] {
			es[j] = n.GroupBy[k]
		}
		switch n.Grouping {
		case GroupRollup:
			p.w(" GROUP BY ROLLUP(")
		case GroupCube:
			p.w(" GROUP BY CUBE(")
		default:
			p.w(" GROUP BY ")
		}
		p.exprs(es)
		if n.Grouping == GroupWithRollup {
			p.w(" WITH ROLLUP")
		} else {
			p.w(")")
		}
	case GroupSets:
		p.w(" GROUP BY GROUPING SETS (")
		for i, set := range n.Sets {
			if i > 0 {
				p.w(", ")
			}
			es := make([]Expr, len(set))
			for j, k := range set {
				es[j] = n.GroupBy[k]
			}
			p.w("(")
			p.exprs(es)
			p.w(")")
		}
		p.w(")")
	}
	if n.Having != nil {
		p.w(" HAVING ")
		n.Having.format(p)
	}
	for i, w := range n.Windows {
		if i == 0 {
			p.w(" WINDOW ")
		} else {
			p.w(", ")
		}
		p.ident(w.Name)
		p.w(" AS ")
		w.Spec.format(p)
	}
	p.orderLimit(n.OrderBy, n.Limit)
}

var setOpNames = [...]string{Union: "UNION", Intersect: "INTERSECT", Except: "EXCEPT"}

// needsParens reports whether q must be parenthesized as an operand of a
// set operation of precedence prec; right operands need it at equal
// precedence too (set operations are left-associative).
func setOperandNeedsParens(q Query, prec int, right bool) bool {
	switch n := q.(type) {
	case *Select:
		return n.With != nil || n.OrderBy != nil || n.Limit != nil
	case *SetOp:
		if n.With != nil || n.OrderBy != nil || n.Limit != nil {
			return true
		}
		op := setOpPrec(n.Kind)
		return op < prec || (right && op == prec)
	}
	return false
}

func (n *SetOp) format(p *printer) {
	if n.With != nil {
		n.With.format(p)
	}
	prec := setOpPrec(n.Kind)
	operand := func(q Query, right bool) {
		if setOperandNeedsParens(q, prec, right) {
			p.w("(")
			q.format(p)
			p.w(")")
			return
		}
		q.format(p)
	}
	operand(n.Left, false)
	p.w(" ")
	p.w(setOpNames[n.Kind])
	if n.All {
		p.w(" ALL")
	}
	p.w(" ")
	operand(n.Right, true)
	p.orderLimit(n.OrderBy, n.Limit)
}

func (n *TableRef) format(p *printer) {
	p.w(n.Name.String())
	switch n.AsOf {
	case AsOfVersion:
		p.w(" FOR VERSION AS OF " + n.AsOfValue)
	case AsOfTag:
		p.w(" FOR VERSION AS OF " + quoteString(n.AsOfValue))
	case AsOfTime:
		p.w(" FOR TIME AS OF " + quoteString(n.AsOfValue))
	}
	if n.Alias != "" {
		p.w(" AS ")
		p.ident(n.Alias)
	}
}

func (n *DerivedTable) format(p *printer) {
	p.w("(")
	n.Query.format(p)
	p.w(")")
	if n.Alias != "" {
		p.w(" AS ")
		p.ident(n.Alias)
		if n.Columns != nil {
			p.w(" ")
			p.idents(n.Columns)
		}
	}
}

var joinNames = [...]string{
	InnerJoin: " JOIN ", LeftJoin: " LEFT JOIN ", RightJoin: " RIGHT JOIN ", FullJoin: " FULL JOIN ",
	CrossJoin: " CROSS JOIN ", CommaJoin: ", ", LeftSemiJoin: " LEFT SEMI JOIN ",
	LeftAntiJoin: " LEFT ANTI JOIN ", RightSemiJoin: " RIGHT SEMI JOIN ", RightAntiJoin: " RIGHT ANTI JOIN ",
}

func (n *Join) format(p *printer) {
	// A comma join under a JOIN, or any join on the right, needs parentheses
	// to keep the tree: JOIN binds tighter than ',' and both are
	// left-associative.
	if l, ok := n.Left.(*Join); ok && l.Kind == CommaJoin && n.Kind != CommaJoin {
		p.w("(")
		l.format(p)
		p.w(")")
	} else {
		n.Left.format(p)
	}
	p.w(joinNames[n.Kind])
	if r, ok := n.Right.(*Join); ok {
		p.w("(")
		r.format(p)
		p.w(")")
	} else {
		n.Right.format(p)
	}
	if n.On != nil {
		p.w(" ON ")
		n.On.format(p)
	}
	if n.Using != nil {
		p.w(" USING ")
		p.idents(n.Using)
	}
}

// ---------------------------------------------------------------------------
// Other statements

var scopeNames = [...]string{ScopeNone: "", ScopeSession: "SESSION ", ScopeGlobal: "GLOBAL ", ScopeUser: "@"}

func (n *Set) format(p *printer) {
	p.w("SET ")
	for i, a := range n.Assignments {
		if i > 0 {
			p.w(", ")
		}
		switch a.Scope {
		case ScopeUser:
			p.w("@")
			p.ident(a.Name)
		case ScopeNone:
			// A plain name unless it could be read as a SET keyword.
			switch strings.ToUpper(a.Name) {
			case "NAMES", "CHARACTER", "CHARSET", "GLOBAL", "SESSION", "LOCAL", "TRANSACTION", "PASSWORD":
				p.w("@@")
			}
			p.w(a.nameText())
		default:
			p.w(scopeNames[a.Scope])
			p.w(a.nameText())
		}
		p.w(" = ")
		if a.Default {
			p.w("DEFAULT")
		} else {
			a.Value.format(p)
		}
	}
}

// nameText prints a (possibly dotted) variable name.
func (a *Assignment) nameText() string {
	parts := strings.Split(a.Name, ".")
	for i, s := range parts {
		parts[i] = quoteIdent(s)
	}
	return strings.Join(parts, ".")
}

func (n *SetNames) format(p *printer) {
	cs := quoteIdent(n.Charset)
	if n.Charset == "" {
		cs = "DEFAULT"
	}
	if n.CharacterSet {
		p.w("SET CHARACTER SET " + cs)
		return
	}
	p.w("SET NAMES " + cs)
	if n.Collate != "" {
		p.w(" COLLATE " + quoteIdent(n.Collate))
	}
}

func (n *SetTransaction) format(p *printer) {
	p.w("SET ")
	if n.Scope == ScopeGlobal || n.Scope == ScopeSession {
		p.w(scopeNames[n.Scope])
	}
	p.w("TRANSACTION")
	sep := " "
	if n.IsolationLevel != "" {
		p.w(" ISOLATION LEVEL " + n.IsolationLevel)
		sep = ", "
	}
	switch {
	case n.ReadOnly:
		p.w(sep + "READ ONLY")
	case n.ReadWrite:
		p.w(sep + "READ WRITE")
	}
}

func (n *Use) format(p *printer) {
	p.w("USE ")
	if n.Catalog != "" {
		p.ident(n.Catalog)
		p.w(".")
	}
	p.ident(n.Database)
}

func (n *Switch) format(p *printer) { p.w("SWITCH "); p.ident(n.Catalog) }

var showNames = [...]string{
	ShowCatalogs: "CATALOGS", ShowCreateCatalog: "CREATE CATALOG", ShowDatabases: "DATABASES",
	ShowCreateDatabase: "CREATE DATABASE", ShowTables: "TABLES", ShowCreateTable: "CREATE TABLE",
	ShowPartitions: "PARTITIONS FROM", ShowColumns: "COLUMNS FROM", ShowVariables: "VARIABLES",
	ShowStatus: "STATUS", ShowWarnings: "WARNINGS", ShowErrors: "ERRORS", ShowCollation: "COLLATION",
	ShowCharset: "CHARACTER SET", ShowEngines: "ENGINES", ShowProcesslist: "PROCESSLIST",
	ShowTableStatus: "TABLE STATUS", ShowFrontends: "FRONTENDS", ShowBackends: "BACKENDS",
	ShowQueryProfile: "QUERY PROFILE", ShowCreateView: "CREATE VIEW",
	ShowProc: "PROC", ShowColumnStats: "COLUMN STATS", ShowTableStats: "TABLE STATS",
}

func (n *Show) format(p *printer) {
	p.w("SHOW ")
	if n.Full {
		p.w("FULL ")
	}
	if n.Scope == ScopeGlobal || n.Scope == ScopeSession {
		p.w(scopeNames[n.Scope])
	}
	p.w(showNames[n.Kind])
	if (n.Kind == ShowQueryProfile || n.Kind == ShowProc) && n.Path != "" {
		p.w(" ")
		p.w(quoteString(n.Path))
	}
	if n.Name != nil {
		p.w(" ")
		p.w(n.Name.String())
	}
	if len(n.Columns) > 0 {
		p.w(" (")
		for i, c := range n.Columns {
			if i > 0 {
				p.w(", ")
			}
			p.ident(c)
		}
		p.w(")")
	}
	if n.From != nil {
		p.w(" FROM ")
		p.w(n.From.String())
	}
	if n.HasLike {
		p.w(" LIKE ")
		p.w(quoteString(n.Like))
	}
	if n.Where != nil {
		p.w(" WHERE ")
		n.Where.format(p)
	}
	if n.Limit != nil {
		p.w(" ")
		n.Limit.format(p)
	}
}

func (n *Analyze) format(p *printer) {
	p.w("ANALYZE TABLE ")
	p.w(n.Table.String())
	if len(n.Columns) > 0 {
		p.w(" (")
		for i, c := range n.Columns {
			if i > 0 {
				p.w(", ")
			}
			p.ident(c)
		}
		p.w(")")
	}
}

func (n *Describe) format(p *printer) { p.w("DESCRIBE "); p.w(n.Table.String()) }

var explainNames = [...]string{ExplainNormal: "EXPLAIN ", ExplainVerbose: "EXPLAIN VERBOSE ", ExplainGraph: "EXPLAIN GRAPH ", ExplainTree: "EXPLAIN TREE "}

func (n *Explain) format(p *printer) {
	p.w(explainNames[n.Level])
	n.Stmt.format(p)
}

func (n *CreateCatalog) format(p *printer) {
	p.w("CREATE CATALOG ")
	if n.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.ident(n.Name)
	if n.Resource != "" {
		p.w(" WITH RESOURCE ")
		p.ident(n.Resource)
	}
	if n.HasComment {
		p.w(" COMMENT ")
		p.w(quoteString(n.Comment))
	}
	if n.Properties != nil {
		p.w(" ")
		p.props(n.Properties)
	}
}

func (n *AlterCatalog) format(p *printer) {
	p.w("ALTER CATALOG ")
	p.ident(n.Name)
	switch n.Action {
	case AlterCatalogSetProperties:
		p.w(" SET ")
		p.props(n.Properties)
	case AlterCatalogRename:
		p.w(" RENAME ")
		p.ident(n.NewName)
	case AlterCatalogModifyComment:
		p.w(" MODIFY COMMENT ")
		p.w(quoteString(n.Comment))
	}
}

var objNames = [...]string{ObjCatalog: "CATALOG ", ObjDatabase: "DATABASE ", ObjTable: "TABLE ", ObjView: "VIEW "}

func (n *Refresh) format(p *printer) {
	p.w("REFRESH ")
	p.w(objNames[n.Kind])
	p.w(n.Name.String())
	if n.Properties != nil {
		p.w(" ")
		p.props(n.Properties)
	}
}

func (n *Drop) format(p *printer) {
	p.w("DROP ")
	p.w(objNames[n.Kind])
	if n.IfExists {
		p.w("IF EXISTS ")
	}
	p.w(n.Name.String())
	if n.Force {
		p.w(" FORCE")
	}
}

func (n *CreateDatabase) format(p *printer) {
	p.w("CREATE DATABASE ")
	if n.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.w(n.Name.String())
	if n.Properties != nil {
		p.w(" ")
		p.props(n.Properties)
	}
}

func (n *ColumnDef) format(p *printer) {
	p.ident(n.Name)
	p.w(" ")
	n.Type.format(p)
	if n.AggType != "" {
		p.w(" " + n.AggType)
	}
	switch n.Null {
	case Nullable:
		p.w(" NULL")
	case NotNull:
		p.w(" NOT NULL")
	}
	if n.AutoIncrement {
		p.w(" AUTO_INCREMENT")
	}
	if n.Default != nil {
		p.w(" DEFAULT ")
		p.operand(n.Default, precUnary)
	}
	if n.OnUpdate != nil {
		p.w(" ON UPDATE ")
		p.operand(n.OnUpdate, precUnary)
	}
	if n.HasComment {
		p.w(" COMMENT ")
		p.w(quoteString(n.Comment))
	}
}

var keysNames = [...]string{DuplicateKey: "DUPLICATE KEY", UniqueKey: "UNIQUE KEY", AggregateKey: "AGGREGATE KEY", PrimaryKey: "PRIMARY KEY"}

func (n *CreateTable) format(p *printer) {
	p.w("CREATE ")
	if n.External {
		p.w("EXTERNAL ")
	}
	p.w("TABLE ")
	if n.IfNotExists {
		p.w("IF NOT EXISTS ")
	}
	p.w(n.Name.String())
	if n.Columns != nil {
		p.w(" (")
		for i, c := range n.Columns {
			if i > 0 {
				p.w(", ")
			}
			c.format(p)
		}
		p.w(")")
	}
	if n.Engine != "" {
		p.w(" ENGINE = ")
		p.ident(n.Engine)
	}
	if n.Keys != nil {
		p.w(" " + keysNames[n.Keys.Kind])
		p.idents(n.Keys.Columns)
	}
	if n.HasComment {
		p.w(" COMMENT ")
		p.w(quoteString(n.Comment))
	}
	if d := n.Distribution; d != nil {
		p.w(" DISTRIBUTED BY ")
		if d.Random {
			p.w("RANDOM")
		} else {
			p.w("HASH")
			p.idents(d.Columns)
		}
		switch {
		case d.Auto:
			p.w(" BUCKETS AUTO")
		case d.Buckets != 0:
			p.w(" BUCKETS " + strconv.FormatInt(d.Buckets, 10))
		}
	}
	if n.Properties != nil {
		p.w(" ")
		p.props(n.Properties)
	}
	if n.AsQuery != nil {
		p.w(" AS ")
		n.AsQuery.format(p)
	}
}

func (n *Insert) format(p *printer) {
	p.w("INSERT")
	p.hints(n.Hints)
	if n.Overwrite {
		p.w(" OVERWRITE TABLE ")
	} else {
		p.w(" INTO ")
	}
	p.w(n.Table.String())
	if n.Label != "" {
		p.w(" WITH LABEL ")
		p.ident(n.Label)
	}
	if n.Columns != nil {
		p.w(" ")
		p.idents(n.Columns)
	}
	if n.Query != nil {
		p.w(" ")
		n.Query.format(p)
		return
	}
	p.w(" VALUES ")
	for i, row := range n.Rows {
		if i > 0 {
			p.w(", ")
		}
		p.w("(")
		p.exprs(row)
		p.w(")")
	}
}

func (n *Kill) format(p *printer) {
	p.w("KILL ")
	if n.Query {
		p.w("QUERY ")
	}
	p.w(strconv.FormatInt(n.ID, 10))
}

var txnNames = [...]string{TxnBegin: "BEGIN", TxnCommit: "COMMIT", TxnRollback: "ROLLBACK"}

func (n *Txn) format(p *printer) { p.w(txnNames[n.Kind]) }

// ---------------------------------------------------------------------------
// Expressions

func (p *printer) exprs(list []Expr) {
	for i, e := range list {
		if i > 0 {
			p.w(", ")
		}
		e.format(p)
	}
}

// exprPrec is the precedence of e's top operator (precPrimary for atoms).
func exprPrec(e Expr) int {
	switch n := e.(type) {
	case *BinaryExpr:
		return binaryPrec[n.Op]
	case *UnaryExpr:
		if n.Op == "NOT" {
			return precNot
		}
		return precUnary
	case *Between:
		return precBetween
	case *IsExpr, *InExpr, *LikeExpr, *Quantified:
		return precCmp
	}
	return precPrimary
}

// operand prints e, parenthesized when it binds looser than min.
func (p *printer) operand(e Expr, min int) {
	if exprPrec(e) < min {
		p.w("(")
		e.format(p)
		p.w(")")
		return
	}
	e.format(p)
}

func (n *ColumnRef) format(p *printer) {
	for i, s := range n.Parts {
		if i > 0 {
			p.w(".")
		}
		p.ident(s)
	}
}

func (n *Star) format(p *printer) {
	if n.Qualifier != nil {
		p.w(n.Qualifier.String())
		p.w(".")
	}
	p.w("*")
	if n.Except != nil {
		p.w(" EXCEPT ")
		p.idents(n.Except)
	}
}

func (n *Literal) format(p *printer) {
	switch n.Kind {
	case LitNull:
		p.w("NULL")
	case LitBool, LitInt, LitDecimal, LitFloat:
		p.w(n.Value)
	case LitString:
		p.w(quoteString(n.Value))
	case LitHex:
		p.w("0x" + n.Value)
	case LitDate:
		p.w("DATE " + quoteString(n.Value))
	case LitDatetime:
		p.w("TIMESTAMP " + quoteString(n.Value))
	}
}

func (n *Param) format(p *printer) { p.w("?") }

func (n *Variable) format(p *printer) {
	if n.Scope == ScopeUser {
		p.w("@")
		p.ident(n.Name)
		return
	}
	p.w("@@")
	switch n.Scope {
	case ScopeGlobal:
		p.w("GLOBAL.")
	case ScopeSession:
		p.w("SESSION.")
	}
	a := Assignment{Name: n.Name}
	p.w(a.nameText())
}

func (n *DefaultExpr) format(p *printer) { p.w("DEFAULT") }

func (n *Interval) format(p *printer) {
	p.w("INTERVAL ")
	n.Value.format(p)
	p.w(" " + n.Unit)
}

func (n *UnaryExpr) format(p *printer) {
	if n.Op == "NOT" {
		p.w("NOT ")
		if u, ok := n.X.(*UnaryExpr); ok && u.Op == "NOT" {
			u.format(p) // NOT NOT a needs no parentheses
			return
		}
		p.operand(n.X, precBetween)
		return
	}
	p.w(n.Op)
	var sub printer
	sub.operand(n.X, precUnary)
	s := sub.b.String()
	// "- -a" must not become "--a", which starts a comment.
	if n.Op == "-" && strings.HasPrefix(s, "-") {
		p.w(" ")
	}
	p.w(s)
}

func (n *BinaryExpr) format(p *printer) {
	prec := binaryPrec[n.Op]
	p.operand(n.L, prec)
	p.w(" " + n.Op + " ")
	p.operand(n.R, prec+1)
}

func (n *IsExpr) format(p *printer) {
	p.operand(n.X, precCmp)
	p.w(" IS ")
	if n.Not {
		p.w("NOT ")
	}
	p.w(n.What)
}

func (n *Between) format(p *printer) {
	p.operand(n.X, precBetween)
	if n.Not {
		p.w(" NOT")
	}
	p.w(" BETWEEN ")
	p.operand(n.Lo, precBitOr)
	p.w(" AND ")
	p.operand(n.Hi, precBitOr)
}

func (n *InExpr) format(p *printer) {
	p.operand(n.X, precCmp)
	if n.Not {
		p.w(" NOT")
	}
	p.w(" IN (")
	if n.Query != nil {
		n.Query.format(p)
	} else {
		p.exprs(n.List)
	}
	p.w(")")
}

func (n *Quantified) format(p *printer) {
	p.operand(n.X, precCmp)
	if n.All {
		p.w(" " + n.Op + " ALL (")
	} else {
		p.w(" " + n.Op + " ANY (")
	}
	n.Query.format(p)
	p.w(")")
}

func (n *LikeExpr) format(p *printer) {
	p.operand(n.X, precCmp)
	if n.Not {
		p.w(" NOT")
	}
	p.w(" " + n.Op + " ")
	p.operand(n.Pattern, precBitOr)
	if n.Escape != nil {
		p.w(" ESCAPE ")
		p.operand(n.Escape, precBitOr)
	}
}

func (n *Exists) format(p *printer) {
	p.w("EXISTS (")
	n.Query.format(p)
	p.w(")")
}

func (n *Subquery) format(p *printer) {
	p.w("(")
	n.Query.format(p)
	p.w(")")
}

func (n *Case) format(p *printer) {
	p.w("CASE")
	if n.Operand != nil {
		p.w(" ")
		n.Operand.format(p)
	}
	for _, w := range n.Whens {
		p.w(" WHEN ")
		w.Cond.format(p)
		p.w(" THEN ")
		w.Result.format(p)
	}
	if n.Else != nil {
		p.w(" ELSE ")
		n.Else.format(p)
	}
	p.w(" END")
}

func (n *Cast) format(p *printer) {
	p.w("CAST(")
	n.X.format(p)
	p.w(" AS ")
	n.Type.format(p)
	p.w(")")
}

func (n *FuncCall) format(p *printer) {
	if n.Brackets {
		p.w("[")
		p.exprs(n.Args)
		p.w("]")
		return
	}
	if needsQuote(n.Name) && !niladic[strings.ToUpper(n.Name)] && !reservedFuncs[strings.ToUpper(n.Name)] {
		p.ident(n.Name)
	} else {
		p.w(n.Name)
	}
	p.w("(")
	switch {
	case n.Star:
		p.w("*")
	default:
		if n.Distinct {
			p.w("DISTINCT ")
		}
		p.exprs(n.Args)
		if n.OrderBy != nil {
			p.w(" ORDER BY ")
			p.orderItems(n.OrderBy)
		}
	}
	p.w(")")
	if n.IgnoreNulls {
		p.w(" IGNORE NULLS")
	}
	if n.Over != nil {
		p.w(" OVER ")
		n.Over.format(p)
	}
}

func (n *WindowSpec) format(p *printer) {
	p.w("(")
	sep := ""
	if n.Name != "" {
		p.ident(n.Name)
		sep = " "
	}
	if n.PartitionBy != nil {
		p.w("PARTITION BY ")
		p.exprs(n.PartitionBy)
		sep = " "
	}
	if n.OrderBy != nil {
		p.w(sep + "ORDER BY ")
		p.orderItems(n.OrderBy)
		sep = " "
	}
	if f := n.Frame; f != nil {
		p.w(sep)
		if f.Unit == FrameRows {
			p.w("ROWS ")
		} else {
			p.w("RANGE ")
		}
		if f.End != nil {
			p.w("BETWEEN ")
			f.Start.format(p)
			p.w(" AND ")
			f.End.format(p)
		} else {
			f.Start.format(p)
		}
	}
	p.w(")")
}

func (n *FrameBound) format(p *printer) {
	switch n.Kind {
	case UnboundedPreceding:
		p.w("UNBOUNDED PRECEDING")
	case UnboundedFollowing:
		p.w("UNBOUNDED FOLLOWING")
	case CurrentRow:
		p.w("CURRENT ROW")
	case Preceding:
		p.operand(n.Offset, precBitOr)
		p.w(" PRECEDING")
	case Following:
		p.operand(n.Offset, precBitOr)
		p.w(" FOLLOWING")
	}
}

func (n *Index) format(p *printer) {
	p.operand(n.X, precPrimary)
	p.w("[")
	n.Index.format(p)
	p.w("]")
}

func (n *Field) format(p *printer) {
	switch n.X.(type) {
	case *Index, *Field, *FuncCall, *Cast:
		n.X.format(p)
	default:
		// (s).f must not print as the path s.f, nor (@@v).f as @@v.f.
		p.w("(")
		n.X.format(p)
		p.w(")")
	}
	p.w(".")
	p.ident(n.Name)
}

func (n *Row) format(p *printer) {
	p.w("(")
	p.exprs(n.Items)
	p.w(")")
}

func (n *Lambda) format(p *printer) {
	if len(n.Params) == 1 {
		p.ident(n.Params[0])
	} else {
		p.w("(")
		for i, x := range n.Params {
			if i > 0 {
				p.w(", ")
			}
			p.ident(x)
		}
		p.w(")")
	}
	p.w(" -> ")
	n.Body.format(p)
}

func (n *DataType) format(p *printer) {
	p.w(n.Name)
	switch n.Name {
	case "ARRAY", "MAP":
		p.w("<")
		for i, e := range n.Elems {
			if i > 0 {
				p.w(", ")
			}
			e.format(p)
		}
		p.w(">")
		return
	case "STRUCT":
		p.w("<")
		for i, f := range n.Fields {
			if i > 0 {
				p.w(", ")
			}
			p.ident(f.Name)
			p.w(": ")
			f.Type.format(p)
			if f.HasComment {
				p.w(" COMMENT ")
				p.w(quoteString(f.Comment))
			}
		}
		p.w(">")
		return
	}
	if n.Params != nil {
		p.w("(")
		for i, v := range n.Params {
			if i > 0 {
				p.w(", ")
			}
			p.w(strconv.FormatInt(v, 10))
		}
		p.w(")")
	}
	if n.Unsigned {
		p.w(" UNSIGNED")
	}
}

// String methods.

func (n *Select) String() string         { return nodeString(n) }
func (n *SetOp) String() string          { return nodeString(n) }
func (n *With) String() string           { return nodeString(n) }
func (n *Limit) String() string          { return nodeString(n) }
func (n *TableRef) String() string       { return nodeString(n) }
func (n *DerivedTable) String() string   { return nodeString(n) }
func (n *Join) String() string           { return nodeString(n) }
func (n *Set) String() string            { return nodeString(n) }
func (n *SetNames) String() string       { return nodeString(n) }
func (n *SetTransaction) String() string { return nodeString(n) }
func (n *Use) String() string            { return nodeString(n) }
func (n *Switch) String() string         { return nodeString(n) }
func (n *Show) String() string           { return nodeString(n) }
func (n *Describe) String() string       { return nodeString(n) }
func (n *Analyze) String() string        { return nodeString(n) }
func (n *Explain) String() string        { return nodeString(n) }
func (n *CreateCatalog) String() string  { return nodeString(n) }
func (n *AlterCatalog) String() string   { return nodeString(n) }
func (n *Refresh) String() string        { return nodeString(n) }
func (n *Drop) String() string           { return nodeString(n) }
func (n *CreateDatabase) String() string { return nodeString(n) }
func (n *ColumnDef) String() string      { return nodeString(n) }
func (n *CreateTable) String() string    { return nodeString(n) }
func (n *Insert) String() string         { return nodeString(n) }
func (n *Kill) String() string           { return nodeString(n) }
func (n *Txn) String() string            { return nodeString(n) }
func (n *ColumnRef) String() string      { return nodeString(n) }
func (n *Star) String() string           { return nodeString(n) }
func (n *Literal) String() string        { return nodeString(n) }
func (n *Param) String() string          { return nodeString(n) }
func (n *Variable) String() string       { return nodeString(n) }
func (n *DefaultExpr) String() string    { return nodeString(n) }
func (n *Interval) String() string       { return nodeString(n) }
func (n *UnaryExpr) String() string      { return nodeString(n) }
func (n *BinaryExpr) String() string     { return nodeString(n) }
func (n *IsExpr) String() string         { return nodeString(n) }
func (n *Between) String() string        { return nodeString(n) }
func (n *InExpr) String() string         { return nodeString(n) }
func (n *Quantified) String() string     { return nodeString(n) }
func (n *LikeExpr) String() string       { return nodeString(n) }
func (n *Exists) String() string         { return nodeString(n) }
func (n *Subquery) String() string       { return nodeString(n) }
func (n *Case) String() string           { return nodeString(n) }
func (n *Cast) String() string           { return nodeString(n) }
func (n *FuncCall) String() string       { return nodeString(n) }
func (n *WindowSpec) String() string     { return nodeString(n) }
func (n *FrameBound) String() string     { return nodeString(n) }
func (n *Index) String() string          { return nodeString(n) }
func (n *Field) String() string          { return nodeString(n) }
func (n *Row) String() string            { return nodeString(n) }
func (n *Lambda) String() string         { return nodeString(n) }
func (n *DataType) String() string       { return nodeString(n) }
