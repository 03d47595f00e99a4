package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/manager"
	"github.com/inlet-db/inlet/fe/bind"
	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
	"github.com/inlet-db/inlet/fe/vars"
)

// table is a small all-text result (SHOW, DESC, EXPLAIN).
type table struct {
	names []string
	rows  [][]*string
}

func str(s string) *string { return &s }

func (t *table) add(vals ...*string) { t.rows = append(t.rows, vals) }

func (t *table) addStrings(vals ...string) {
	r := make([]*string, len(vals))
	for i := range vals {
		r[i] = &vals[i]
	}
	t.rows = append(t.rows, r)
}

func (t *table) write(w mysqlwire.ResultWriter) error {
	cols := make([]mysqlwire.Column, len(t.names))
	for i, n := range t.names {
		cols[i] = mysqlwire.Column{Name: n, Type: mysqlwire.TypeVarchar}
	}
	if err := w.Columns(cols); err != nil {
		return err
	}
	vals := make([][]byte, len(t.names))
	for _, r := range t.rows {
		for i, v := range r {
			if v == nil {
				vals[i] = nil
			} else {
				vals[i] = []byte(*v)
			}
		}
		if err := w.Row(vals); err != nil {
			return err
		}
	}
	return nil
}

// filter applies SHOW's LIKE (on the first column) and WHERE clauses.
func (s *Session) filter(ctx context.Context, t *table, n *sql.Show) error {
	if n.HasLike {
		kept := t.rows[:0]
		for _, r := range t.rows {
			if r[0] != nil && vars.MatchLike(n.Like, *r[0]) {
				kept = append(kept, r)
			}
		}
		t.rows = kept
	}
	if n.Where == nil || len(t.rows) == 0 {
		return nil
	}
	// Evaluate WHERE over the rows as a batch of text columns.
	mem := s.srv.cfg.Mem
	fields := make([]arrow.Field, len(t.names))
	cols := make([]arrow.Array, len(t.names))
	for i, name := range t.names {
		fields[i] = arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
		b := array.NewStringBuilder(mem)
		for _, r := range t.rows {
			if r[i] == nil {
				b.AppendNull()
			} else {
				b.Append(*r[i])
			}
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(t.rows)))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	sc := make([]bind.Column, len(t.names))
	for i, name := range t.names {
		sc[i] = bind.Column{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	b := bind.New(ctx, s.bindSession(s.vars))
	cond, err := b.BindOver(n.Where, sc)
	if err != nil {
		return err
	}
	env, err := s.env(s.vars)
	if err != nil {
		return err
	}
	res, err := cond.Eval(env, rec)
	if err != nil {
		return err
	}
	defer res.Release()
	bools, ok := res.(*array.Boolean)
	if !ok {
		return errorf(bind.ErrAnalysis, "WHERE of SHOW must be a condition")
	}
	kept := t.rows[:0]
	for i, r := range t.rows {
		if bools.IsValid(i) && bools.Value(i) {
			kept = append(kept, r)
		}
	}
	t.rows = kept
	return nil
}

const dorisTime = "2006-01-02 15:04:05.000"

func (s *Session) show(ctx context.Context, n *sql.Show, w mysqlwire.ResultWriter) error {
	t := &table{}
	switch n.Kind {
	case sql.ShowCatalogs:
		t.names = []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment"}
		for _, c := range s.srv.cfg.Catalogs.List() {
			// As in Doris, a catalog the user holds no privilege in is not
			// listed; the internal one always is.
			if c.Name != manager.InternalName && !s.holdsSome(c.Name, "", "") {
				continue
			}
			cur := ""
			if c.Name == s.catalog {
				cur = "yes"
			}
			t.addStrings(strconv.FormatInt(c.ID, 10), c.Name, c.Type, cur, c.Created.Format(dorisTime), c.Updated.Format(dorisTime), c.Comment)
		}
		// LIKE on CatalogName, the second column.
		if n.HasLike {
			kept := t.rows[:0]
			for _, r := range t.rows {
				if vars.MatchLike(n.Like, *r[1]) {
					kept = append(kept, r)
				}
			}
			t.rows = kept
			n2 := *n
			n2.HasLike = false
			n = &n2
		}
	case sql.ShowCreateCatalog:
		if len(n.Name) != 1 {
			return errorf(sql.ErrSyntax, "SHOW CREATE CATALOG needs a catalog name")
		}
		info, err := s.srv.cfg.Catalogs.Describe(n.Name[0])
		if err != nil {
			return unknownCatalog(n.Name[0])
		}
		t.names = []string{"Catalog", "CreateCatalog"}
		t.addStrings(info.Name, createCatalogText(info.Name, info.Comment, info.Properties))
	case sql.ShowDatabases:
		ctl := s.catalog
		if len(n.From) == 1 {
			ctl = n.From[0]
		} else if len(n.From) > 1 {
			return errorf(sql.ErrSyntax, "SHOW DATABASES FROM takes a catalog name")
		}
		c, err := s.getCatalog(ctx, ctl)
		if err != nil {
			return err
		}
		dbs, err := c.ListDatabases(ctx)
		if err != nil {
			return err
		}
		t.names = []string{"Database"}
		t.addStrings(infoSchema)
		t.addStrings(mysqlSchema)
		for _, d := range dbs {
			if !strings.EqualFold(d, mysqlSchema) {
				t.addStrings(d)
			}
		}
	case sql.ShowCreateDatabase:
		ctl, db, err := s.splitDBName(n.Name)
		if err != nil {
			return err
		}
		if _, _, err := s.database(ctx, ctl, db); err != nil {
			return err
		}
		t.names = []string{"Database", "Create Database"}
		t.addStrings(db, "CREATE DATABASE `"+db+"`")
	case sql.ShowTables:
		ctl, db, err := s.splitDBName(n.From)
		if err != nil {
			return err
		}
		var tables []string
		if strings.EqualFold(db, infoSchema) {
			tables = append(tables, infoSchemaTables...)
		} else if s.virtualMySQL(ctx, ctl, db) {
			tables = nil
		} else {
			_, d, err := s.database(ctx, ctl, db)
			if err != nil {
				return err
			}
			if tables, err = d.ListTables(ctx); err != nil {
				return err
			}
		}
		t.names = []string{"Tables_in_" + db}
		if n.Full {
			t.names = append(t.names, "Table_type")
		}
		for _, tt := range withViews(tables, s.viewNames(ctl, db)) {
			if n.Full {
				t.addStrings(tt[0], tt[1])
			} else {
				t.addStrings(tt[0])
			}
		}
	case sql.ShowCreateTable:
		return s.showCreateTable(ctx, n.Name, w)
	case sql.ShowCreateView:
		return s.showCreateView(n.Name, w)
	case sql.ShowPartitions:
		_, _, tb, err := s.ResolveTable(ctx, n.Name)
		if err != nil {
			return err
		}
		pt, ok := tb.(catalog.Partitioned)
		if !ok || len(pt.PartitionColumns()) == 0 {
			return errorf(bind.ErrAnalysis, "Table %s is not a partitioned table", tb.Name())
		}
		parts, err := pt.Partitions(ctx)
		if err != nil {
			return err
		}
		t.names = []string{"Partition"}
		for _, p := range parts {
			t.addStrings(p)
		}
	case sql.ShowColumnStats, sql.ShowTableStats:
		var err error
		if t, err = s.showStats(ctx, n); err != nil {
			return err
		}
	case sql.ShowColumns:
		name := n.Name
		if len(n.From) > 0 {
			name = append(append([]string{}, n.From...), n.Name[len(n.Name)-1])
		}
		var err error
		if t, err = s.describeTable(ctx, name, n.Full); err != nil {
			return err
		}
	case sql.ShowVariables:
		// Doris' four columns: Changed is 1 when the value differs from
		// the default.
		t.names = []string{"Variable_name", "Value", "Default_Value", "Changed"}
		reg := s.vars.Registry()
		for _, name := range reg.Names() {
			var v string
			if n.Scope == sql.ScopeGlobal {
				v, _ = reg.Global(name)
			} else {
				v, _ = s.vars.Get(name)
			}
			def, _ := reg.Default(name)
			changed := "0"
			if v != def {
				changed = "1"
			}
			t.addStrings(name, v, def, changed)
		}
	case sql.ShowStatus:
		t.names = []string{"Variable_name", "Value"}
	case sql.ShowWarnings, sql.ShowErrors:
		// Statements either succeed cleanly or fail with an error; there
		// are never warnings to list.
		t.names = []string{"Level", "Code", "Message"}
	case sql.ShowCollation:
		t.names = []string{"Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"}
		t.addStrings("utf8mb4_0900_bin", "utf8mb4", "309", "Yes", "Yes", "1")
	case sql.ShowCharset:
		t.names = []string{"Charset", "Description", "Default collation", "Maxlen"}
		t.addStrings("utf8mb4", "UTF-8 Unicode", "utf8mb4_0900_bin", "4")
	case sql.ShowEngines:
		t.names = []string{"Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"}
		t.addStrings("Olap engine", "DEFAULT", "Inlet internal tables", "NO", "NO", "NO")
	case sql.ShowProcesslist:
		t.names = []string{"Id", "User", "Host", "Catalog", "Db", "Command", "Time", "State", "Info"}
		now := s.srv.now()
		for _, p := range s.srv.processes() {
			info := str(p.info)
			if p.info == "" {
				info = nil
			} else if !n.Full && len(p.info) > 100 {
				info = str(p.info[:100])
			}
			t.add(str(strconv.FormatUint(uint64(p.id), 10)), str(p.user), str(p.host), str(p.catalog), str(p.db),
				str(p.command), str(strconv.FormatInt(int64(now.Sub(p.since).Seconds()), 10)), str("OK"), info)
		}
	case sql.ShowTableStatus:
		ctl, db, err := s.splitDBName(n.From)
		if err != nil {
			return err
		}
		_, d, err := s.database(ctx, ctl, db)
		if err != nil {
			return err
		}
		tables, err := d.ListTables(ctx)
		if err != nil {
			return err
		}
		t.names = []string{"Name", "Engine", "Rows", "Comment"}
		for _, name := range tables {
			// Rows from table-level statistics where the catalog has them
			// (Fluss: GET_TABLE_STATS); NULL when unknown.
			var rows *string
			if tb, err := d.Table(ctx, name); err == nil {
				if rc, ok := tb.(catalog.RowCounter); ok {
					if n, err := rc.RowCount(ctx); err == nil && n >= 0 {
						rows = str(strconv.FormatInt(n, 10))
					}
				}
			}
			t.add(str(name), str("OLAP"), rows, str(""))
		}
	case sql.ShowFrontends:
		t.names = []string{"Name", "Host", "QueryPort", "Role", "IsMaster", "Alive", "Version"}
		t.addStrings("fe", "127.0.0.1", "", "FOLLOWER", "true", "true", s.srv.cfg.Version)
	case sql.ShowBackends:
		t = s.backendsTable(ctx)
	case sql.ShowProc:
		var err error
		if t, err = s.procTable(ctx, n.Path); err != nil {
			return err
		}
	case sql.ShowQueryProfile:
		return s.showQueryProfile(n.Path, w)
	default:
		return errorf(errNotSupported, "SHOW %s is not supported", n.Kind)
	}
	s.hideUnprivileged(n, t)
	if err := s.filter(ctx, t, n); err != nil {
		return err
	}
	return t.write(w)
}

func createCatalogText(name, comment string, props map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE CATALOG `%s`", name)
	if comment != "" {
		fmt.Fprintf(&b, "\nCOMMENT %q", comment)
	}
	b.WriteString("\n PROPERTIES (\n")
	writePropertyLines(&b, props)
	b.WriteString(");")
	return b.String()
}

// writePropertyLines writes props one `"key" = "value"` line each, sorted by
// key, with commas between them, as SHOW CREATE prints PROPERTIES.
func writePropertyLines(b *strings.Builder, props map[string]string) {
	keys := catalog.SortedKeys(props)
	for i, k := range keys {
		fmt.Fprintf(b, "%q = %q", k, props[k])
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
}

func (s *Session) describe(ctx context.Context, name sql.Name, w mysqlwire.ResultWriter) error {
	t, err := s.describeTable(ctx, name, false)
	if err != nil {
		return err
	}
	return t.write(w)
}

func (s *Session) describeTable(ctx context.Context, name sql.Name, full bool) (*table, error) {
	if t, err := s.describeView(ctx, name, full); t != nil || err != nil {
		return t, err
	}
	_, _, tb, err := s.ResolveTable(ctx, name)
	if err != nil {
		return nil, err
	}
	t := &table{names: []string{"Field", "Type", "Null", "Key", "Default", "Extra"}}
	duplicate := false
	if d, ok := tb.(catalog.Described); ok {
		duplicate = d.Spec().KeysType == "DUPLICATE"
	}
	for _, c := range tb.Schema().Columns {
		if duplicate && !c.Key && c.Extra == "" {
			// Doris prints a value column's aggregation type, NONE in a
			// DUPLICATE KEY table (misc.out desc_ctas).
			c.Extra = "NONE"
		}
		null := "No"
		if c.Nullable {
			null = "Yes"
		}
		key := "false"
		if c.Key {
			key = "true"
		}
		t.add(str(c.Name), str(c.DisplayType()), str(null), str(key), c.Default, str(c.Extra))
	}
	if full {
		t.names = append(t.names, "Comment")
		for i, c := range tb.Schema().Columns {
			t.rows[i] = append(t.rows[i], str(c.Comment))
		}
	}
	return t, nil
}

// showCreateTable prints Doris's CREATE TABLE layout (Column.toSql column
// lines, then the key model, COMMENT, DISTRIBUTED BY and PROPERTIES), with
// two concessions to the MySQL clients that parse this text to reflect a
// table (SQLAlchemy's MySQL dialect, which warns on every line it does not
// know): a table whose rows have identity gets MySQL's `  PRIMARY KEY (…)`
// line at the end of the column block, its only source of a primary key, and
// the table clauses follow `) ` on one line, where MySQL puts its table
// options, instead of one line each.
func (s *Session) showCreateTable(ctx context.Context, name sql.Name, w mysqlwire.ResultWriter) error {
	// As MySQL and Doris do, SHOW CREATE TABLE of a view shows the view
	// (reflecting clients ask every name with SHOW CREATE TABLE).
	if v, err := s.lookupView(name); v != nil || err != nil {
		if err != nil {
			return err
		}
		return s.showCreateView(name, w)
	}
	_, _, tb, err := s.ResolveTable(ctx, name)
	if err != nil {
		return err
	}
	var spec catalog.TableSpec
	if d, ok := tb.(catalog.Described); ok {
		spec = d.Spec()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", quoteIdent(tb.Name()))
	lines := make([]string, 0, len(tb.Schema().Columns)+1)
	for _, c := range tb.Schema().Columns {
		l := "  " + quoteIdent(c.Name) + " " + c.DisplayType()
		if c.Nullable {
			l += " NULL"
		} else {
			l += " NOT NULL"
		}
		if c.Default != nil {
			l += " DEFAULT " + doubleQuoted(*c.Default)
		}
		if c.Comment != "" {
			l += " COMMENT " + doubleQuoted(c.Comment)
		}
		lines = append(lines, l)
	}
	if len(spec.PrimaryKey) > 0 {
		lines = append(lines, "  PRIMARY KEY ("+quoteIdents(spec.PrimaryKey)+")")
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)")
	var tail []string
	if spec.KeysType != "" && len(spec.KeyColumns) > 0 {
		// Only internal tables have a Doris key model.
		tail = append(tail, "ENGINE=OLAP", spec.KeysType+" KEY("+quoteIdents(spec.KeyColumns)+")")
	}
	if spec.Comment != "" {
		tail = append(tail, "COMMENT "+doubleQuoted(spec.Comment))
	}
	if spec.Distribution != "" {
		tail = append(tail, spec.Distribution)
	}
	if len(spec.Properties) > 0 {
		props := catalog.MaskProperties(spec.Properties)
		kv := make([]string, 0, len(props))
		for _, k := range catalog.SortedKeys(props) {
			kv = append(kv, doubleQuoted(k)+" = "+doubleQuoted(props[k]))
		}
		tail = append(tail, "PROPERTIES ("+strings.Join(kv, ", ")+")")
	}
	// A bare ")" must stay alone on its line: MySQL's parsers take ");" for
	// an unknown clause.
	if len(tail) > 0 {
		b.WriteString(" " + strings.Join(tail, " ") + ";")
	}
	t := &table{names: []string{"Table", "Create Table"}}
	t.addStrings(tb.Name(), b.String())
	return t.write(w)
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// doubleQuoted writes s as a double-quoted string literal Doris and MySQL
// read back: backslash escapes for the quote, the backslash and line breaks
// (Go's %q would also write \u escapes neither understands).
var doubleQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\x00", `\0`)

func doubleQuoted(s string) string { return `"` + doubleQuoter.Replace(s) + `"` }

func (s *Session) explain(ctx context.Context, n *sql.Explain, w mysqlwire.ResultWriter) error {
	var q sql.Query
	v := s.vars
	switch st := n.Stmt.(type) {
	case *sql.Select:
		var err error
		if v, err = s.stmtVars(st.Hints); err != nil {
			return err
		}
		q = st
	case *sql.SetOp:
		q = st
	case *sql.Insert:
		if st.Query == nil {
			return errorf(errNotSupported, "EXPLAIN INSERT ... VALUES")
		}
		q = st.Query
	default:
		return errorf(errNotSupported, "EXPLAIN of %s statements is not supported", stmtKeywords(n.Stmt))
	}
	p, op, card, err := s.planEstimated(ctx, q, v)
	if err != nil {
		return err
	}
	t := &table{names: []string{"Explain String(Nereids Planner)"}}
	for _, l := range explainLines(op, card) {
		t.addStrings(l)
	}
	if n.Level == sql.ExplainVerbose {
		t.addStrings("")
		t.addStrings("LOGICAL PLAN:")
		for _, l := range bind.Explain(p) {
			t.addStrings("  " + l)
		}
		if vs := verboseScanLines(ctx, p); len(vs) > 0 {
			t.addStrings("")
			for _, l := range vs {
				t.addStrings(l)
			}
		}
	}
	return t.write(w)
}

// verboseScanLines collects the VERBOSE-only lines of each scan.
func verboseScanLines(ctx context.Context, p bind.Plan) []string {
	var out []string
	var walk func(p bind.Plan)
	walk = func(p bind.Plan) {
		if sc, ok := p.(*bind.Scan); ok {
			if ex, ok := sc.Table.(catalog.Explainer); ok {
				if _, lines, err := ex.ExplainScan(ctx, catalog.ScanRequest{Columns: sc.Projection, Vars: sc.Vars, Predicates: sc.Predicates}, true); err == nil {
					out = append(out, fmt.Sprintf("%s.%s.%s:", sc.Catalog, sc.Database, sc.Table.Name()))
					for _, l := range lines {
						out = append(out, "  "+l)
					}
				}
			}
		}
		for _, c := range p.Children() {
			walk(c)
		}
	}
	walk(p)
	return out
}
