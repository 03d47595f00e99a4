package minifluss

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Scenario is a parsed scenario file: statements run in order against a
// cluster by Run. The language is described in README.md.
type Scenario struct {
	Name  string
	steps []step
}

type step struct {
	line int
	verb string
	run  func(ctx context.Context, c *Cluster) error
}

// LoadScenario reads and parses a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseScenario(string(b))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	s.Name = path
	return s, nil
}

// ParseScenario parses scenario text.
func ParseScenario(src string) (*Scenario, error) {
	toks, err := lexScenario(src)
	if err != nil {
		return nil, err
	}
	p := &scParser{toks: toks}
	s := &Scenario{}
	for {
		for p.accept(";") {
		}
		if p.peek().kind == tkEOF {
			return s, nil
		}
		st, err := p.statement()
		if err != nil {
			return nil, err
		}
		s.steps = append(s.steps, st)
		if p.peek().kind != tkEOF && !p.accept(";") {
			return nil, p.errf("expected ; after the statement, found %s", p.peek())
		}
	}
}

// Run executes the statements in order, stopping at the first failure.
func (s *Scenario) Run(ctx context.Context, c *Cluster) error {
	for _, st := range s.steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.run(ctx, c); err != nil {
			return fmt.Errorf("scenario %s line %d (%s): %w", s.Name, st.line, st.verb, err)
		}
	}
	return nil
}

// Len is the number of statements.
func (s *Scenario) Len() int { return len(s.steps) }

type scParser struct {
	toks []token
	i    int
	// eofEndsColumn lets a column definition end the statement
	// (ALTER TABLE … ADD COLUMN c TYPE).
	eofEndsColumn bool
}

func (p *scParser) peek() token { return p.toks[p.i] }

func (p *scParser) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.peek().line, fmt.Sprintf(format, args...))
}

// accept consumes the next token when it is the keyword or punctuation s.
func (p *scParser) accept(s string) bool {
	t := p.peek()
	if (t.kind == tkIdent || t.kind == tkPunct) && strings.EqualFold(t.text, s) {
		p.i++
		return true
	}
	return false
}

func (p *scParser) expect(words ...string) error {
	for _, w := range words {
		if !p.accept(w) {
			return p.errf("expected %s, found %s", strings.ToUpper(w), p.peek())
		}
	}
	return nil
}

func (p *scParser) ident(what string) (string, error) {
	t := p.peek()
	if t.kind != tkIdent {
		return "", p.errf("expected %s, found %s", what, t)
	}
	p.i++
	return t.text, nil
}

func (p *scParser) str(what string) (string, error) {
	t := p.peek()
	if t.kind != tkString {
		return "", p.errf("expected %s as a 'quoted string', found %s", what, t)
	}
	p.i++
	return t.text, nil
}

func (p *scParser) integer(what string) (int64, error) {
	t := p.peek()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if t.kind != tkNumber || err != nil {
		return 0, p.errf("expected %s as an integer, found %s", what, t)
	}
	p.i++
	return n, nil
}

// tablePath reads db.table.
func (p *scParser) tablePath() (string, string, error) {
	db, err := p.ident("a database name")
	if err != nil {
		return "", "", err
	}
	if err := p.expect("."); err != nil {
		return "", "", err
	}
	t, err := p.ident("a table name")
	return db, t, err
}

// bucketTarget reads [PARTITION 'name'] BUCKET n.
func (p *scParser) bucketTarget() (string, int32, error) {
	part := ""
	if p.accept("PARTITION") {
		s, err := p.str("the partition name")
		if err != nil {
			return "", 0, err
		}
		part = s
	}
	if err := p.expect("BUCKET"); err != nil {
		return "", 0, err
	}
	b, err := p.integer("the bucket")
	return part, int32(b), err
}

// tableAfter reads the keywords words, then db.table.
func (p *scParser) tableAfter(words ...string) (string, string, error) {
	if err := p.expect(words...); err != nil {
		return "", "", err
	}
	return p.tablePath()
}

// intAfter reads the keyword kw, then an integer; what names it in errors.
func (p *scParser) intAfter(kw, what string) (int64, error) {
	if err := p.expect(kw); err != nil {
		return 0, err
	}
	return p.integer(what)
}

// bucketPath reads db.table [PARTITION 'name'] BUCKET n.
func (p *scParser) bucketPath() (db, t, part string, bucket int32, err error) {
	if db, t, err = p.tablePath(); err != nil {
		return "", "", "", 0, err
	}
	part, bucket, err = p.bucketTarget()
	return db, t, part, bucket, err
}

// ifNotExists reads an optional IF NOT EXISTS and reports whether it was there.
func (p *scParser) ifNotExists() (bool, error) {
	if !p.accept("IF") {
		return false, nil
	}
	return true, p.expect("NOT", "EXISTS")
}

// commaList reads item, item, ... end: at least one item, each read by item.
func (p *scParser) commaList(end string, item func() error) error {
	for {
		if err := item(); err != nil {
			return err
		}
		if p.accept(end) {
			return nil
		}
		if err := p.expect(","); err != nil {
			return err
		}
	}
}

// columnIs reads col = literal; what names the column in errors.
func (p *scParser) columnIs(what string) (string, any, error) {
	col, err := p.ident(what)
	if err != nil {
		return "", nil, err
	}
	if err := p.expect("="); err != nil {
		return "", nil, err
	}
	v, err := p.literal()
	return col, v, err
}

func (p *scParser) statement() (step, error) {
	st := step{line: p.peek().line}
	verb := strings.ToUpper(p.peek().text)
	st.verb = verb
	var err error
	switch {
	case p.accept("CREATE"):
		switch {
		case p.accept("DATABASE"):
			st.verb = "CREATE DATABASE"
			ifNot, err := p.ifNotExists()
			if err != nil {
				return st, err
			}
			name, err := p.ident("a database name")
			if err != nil {
				return st, err
			}
			st.run = func(ctx context.Context, c *Cluster) error {
				c.mu.Lock()
				defer c.mu.Unlock()
				return c.createDatabaseLocked(name, nil, ifNot)
			}
		case p.accept("TABLE"):
			st.verb = "CREATE TABLE"
			st.run, err = p.createTable()
		default:
			return st, p.errf("expected DATABASE or TABLE after CREATE, found %s", p.peek())
		}
	case p.accept("DROP"):
		switch {
		case p.accept("DATABASE"):
			st.verb = "DROP DATABASE"
			name, err := p.ident("a database name")
			if err != nil {
				return st, err
			}
			cascade := p.accept("CASCADE")
			st.run = func(ctx context.Context, c *Cluster) error { return c.DropDatabase(ctx, name, cascade) }
		case p.accept("TABLE"):
			st.verb = "DROP TABLE"
			db, t, err := p.tablePath()
			if err != nil {
				return st, err
			}
			st.run = func(ctx context.Context, c *Cluster) error { return c.DropTable(ctx, db, t) }
		default:
			return st, p.errf("expected DATABASE or TABLE after DROP, found %s", p.peek())
		}
	case p.accept("ALTER"):
		st.verb = "ALTER TABLE"
		st.run, err = p.alterPartition()
	case p.accept("INSERT"):
		st.verb = "INSERT"
		st.run, err = p.insert()
	case p.accept("DELETE"):
		st.verb = "DELETE"
		st.run, err = p.delete()
	case p.accept("EXPIRE"), p.accept("ARCHIVE"):
		if err := p.expect("LOG"); err != nil {
			return st, err
		}
		st.verb += " LOG"
		db, t, part, b, err := p.bucketPath()
		if err != nil {
			return st, err
		}
		kw := "BEFORE"
		if verb == "ARCHIVE" {
			kw = "UPTO"
		}
		off, err := p.intAfter(kw, "the offset")
		if err != nil {
			return st, err
		}
		if verb == "EXPIRE" {
			st.run = func(ctx context.Context, c *Cluster) error { return c.ExpireLog(ctx, db, t, part, b, off) }
		} else {
			st.run = func(ctx context.Context, c *Cluster) error { return c.ArchiveSegments(ctx, db, t, part, b, off) }
		}
	case p.accept("MOVE"):
		st.verb = "MOVE LEADER"
		if err := p.expect("LEADER"); err != nil {
			return st, err
		}
		db, t, part, b, err := p.bucketPath()
		if err != nil {
			return st, err
		}
		to, err := p.intAfter("TO", "the tablet server id")
		if err != nil {
			return st, err
		}
		st.run = func(ctx context.Context, c *Cluster) error { return c.MoveLeader(ctx, db, t, part, b, int32(to)) }
	case p.accept("SNAPSHOT"):
		st.verb = "SNAPSHOT KV"
		db, t, err := p.tableAfter("KV")
		if err != nil {
			return st, err
		}
		part := ""
		if p.accept("PARTITION") {
			if part, err = p.str("the partition name"); err != nil {
				return st, err
			}
		}
		st.run = func(ctx context.Context, c *Cluster) error { return c.SnapshotKv(ctx, db, t, part) }
	case p.accept("RUN"):
		st.verb = "RUN AUTO PARTITION"
		if err := p.expect("AUTO", "PARTITION"); err != nil {
			return st, err
		}
		st.run = func(ctx context.Context, c *Cluster) error { _, _, err := c.AutoPartition(ctx); return err }
	case p.accept("SET"):
		st.verb = "SET LAKE SNAPSHOT"
		st.run, err = p.lakeSnapshot()
	default:
		// Lake controls (TIER, FREEZE, COMPACT LAKE, ...) live in tier_scenario.go.
		var ok bool
		if st.run, st.verb, ok, err = p.lakeStatement(); !ok && err == nil {
			return st, p.errf("unknown statement starting with %s", p.peek())
		}
	}
	return st, err
}

// CREATE TABLE [IF NOT EXISTS] db.t (col TYPE [COMMENT '..'], ..., [PRIMARY KEY (a, b) [NOT ENFORCED]])
// [COMMENT '..'] [PARTITIONED BY (a, ..)] [WITH ('k' = 'v', ...)]
func (p *scParser) createTable() (func(context.Context, *Cluster) error, error) {
	ifNot, err := p.ifNotExists()
	if err != nil {
		return nil, err
	}
	db, name, err := p.tablePath()
	if err != nil {
		return nil, err
	}
	spec := TableSpec{Database: db, Name: name, Properties: map[string]string{}, CustomProperties: map[string]string{}}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	err = p.commaList(")", func() error {
		if p.accept("PRIMARY") {
			if err := p.expect("KEY"); err != nil {
				return err
			}
			pk, err := p.identList()
			if err != nil {
				return err
			}
			spec.PrimaryKey = pk
			if p.accept("NOT") {
				return p.expect("ENFORCED")
			}
			return nil
		}
		col, err := p.column()
		if err != nil {
			return err
		}
		spec.Columns = append(spec.Columns, col)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("COMMENT"):
			if spec.Comment, err = p.str("the table comment"); err != nil {
				return nil, err
			}
			continue
		case p.accept("PARTITIONED"):
			if err := p.expect("BY"); err != nil {
				return nil, err
			}
			if spec.PartitionKeys, err = p.identList(); err != nil {
				return nil, err
			}
			continue
		case p.accept("WITH"):
			opts, err := p.options()
			if err != nil {
				return nil, err
			}
			for k, v := range opts {
				switch {
				case k == "bucket.num":
					n, err := strconv.Atoi(v)
					if err != nil || n <= 0 {
						return nil, p.errf("bucket.num %q is not a positive integer", v)
					}
					spec.Buckets = n
				case k == "bucket.key":
					for _, s := range strings.Split(v, ",") {
						spec.BucketKeys = append(spec.BucketKeys, strings.TrimSpace(s))
					}
				case strings.HasPrefix(k, "table."):
					spec.Properties[k] = v
				default:
					spec.CustomProperties[k] = v
				}
			}
			continue
		}
		break
	}
	return func(ctx context.Context, c *Cluster) error {
		if ifNot {
			if _, err := c.Table(db, name); err == nil {
				return nil
			}
		}
		_, err := c.CreateTable(ctx, spec)
		return err
	}, nil
}

func (p *scParser) identList() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []string
	err := p.commaList(")", func() error {
		s, err := p.ident("a column name")
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// column reads name TYPE [COMMENT '..']; the type runs to the next , ) or
// COMMENT at nesting depth 0.
func (p *scParser) column() (Column, error) {
	name, err := p.ident("a column name")
	if err != nil {
		return Column{}, err
	}
	var parts []string
	depth := 0
	for {
		t := p.peek()
		if t.kind == tkEOF {
			if p.eofEndsColumn && depth == 0 && len(parts) > 0 {
				break
			}
			return Column{}, p.errf("column %s: type not terminated", name)
		}
		if depth == 0 && (t.text == "," || t.text == ")" || t.kind == tkIdent && strings.EqualFold(t.text, "COMMENT")) {
			break
		}
		if p.eofEndsColumn && depth == 0 && t.text == ";" && len(parts) > 0 {
			break
		}
		switch t.text {
		case "(", "<":
			depth++
		case ")", ">":
			depth--
		}
		parts = append(parts, t.text)
		p.i++
	}
	ty, err := parseSQLType(strings.Join(parts, " "))
	if err != nil {
		return Column{}, p.errf("column %s: %v", name, err)
	}
	col := Column{Name: name, Type: ty}
	if p.accept("COMMENT") {
		if col.Comment, err = p.str("the column comment"); err != nil {
			return Column{}, err
		}
	}
	return col, nil
}

func (p *scParser) options() (map[string]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	out := map[string]string{}
	err := p.commaList(")", func() error {
		k, err := p.str("an option key")
		if err != nil {
			return err
		}
		if err := p.expect("="); err != nil {
			return err
		}
		v, err := p.str("an option value")
		out[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ALTER TABLE db.t ADD|DROP PARTITION (k = 'v', ...)
func (p *scParser) alterPartition() (func(context.Context, *Cluster) error, error) {
	db, t, err := p.tableAfter("TABLE")
	if err != nil {
		return nil, err
	}
	add := p.accept("ADD")
	if add && (p.accept("COLUMN") || p.peek().text == "(") {
		return p.addColumns(db, t)
	}
	if !add && !p.accept("DROP") {
		return nil, p.errf("expected ADD or DROP PARTITION, found %s", p.peek())
	}
	if err := p.expect("PARTITION", "("); err != nil {
		return nil, err
	}
	spec := map[string]string{}
	err = p.commaList(")", func() error {
		k, v, err := p.columnIs("a partition key")
		spec[k] = fmt.Sprint(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	if add {
		return func(ctx context.Context, c *Cluster) error { _, err := c.CreatePartition(ctx, db, t, spec); return err }, nil
	}
	return func(ctx context.Context, c *Cluster) error { return c.DropPartition(ctx, db, t, spec) }, nil
}

// literal reads a value: number (kept as text, coerced by column type),
// 'string', NULL, TRUE, FALSE, ARRAY[..], MAP[k, v, ..], ROW(..).
func (p *scParser) literal() (any, error) {
	t := p.peek()
	switch t.kind {
	case tkNumber, tkString:
		p.i++
		return t.text, nil
	case tkIdent:
		switch strings.ToUpper(t.text) {
		case "NULL":
			p.i++
			return nil, nil
		case "TRUE", "FALSE":
			p.i++
			return strings.EqualFold(t.text, "TRUE"), nil
		case "ARRAY", "MAP":
			p.i++
			if err := p.expect("["); err != nil {
				return nil, err
			}
			xs, err := p.literalList("]")
			if err != nil {
				return nil, err
			}
			if strings.EqualFold(t.text, "ARRAY") {
				return xs, nil
			}
			if len(xs)%2 != 0 {
				return nil, p.errf("MAP[...] needs key, value pairs")
			}
			var m mapValue
			for i := 0; i < len(xs); i += 2 {
				m.Keys, m.Values = append(m.Keys, xs[i]), append(m.Values, xs[i+1])
			}
			return m, nil
		case "ROW":
			p.i++
			if err := p.expect("("); err != nil {
				return nil, err
			}
			return p.literalList(")")
		}
	}
	return nil, p.errf("expected a value, found %s", t)
}

func (p *scParser) literalList(end string) ([]any, error) {
	out := []any{}
	if p.accept(end) {
		return out, nil
	}
	err := p.commaList(end, func() error {
		v, err := p.literal()
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// INSERT INTO db.t [BUCKET n] VALUES (..), (..); partitions come from the rows.
func (p *scParser) insert() (func(context.Context, *Cluster) error, error) {
	db, t, err := p.tableAfter("INTO")
	if err != nil {
		return nil, err
	}
	bucket := int32(-1)
	if p.accept("BUCKET") {
		b, err := p.integer("the bucket")
		if err != nil {
			return nil, err
		}
		bucket = int32(b)
	}
	if err := p.expect("VALUES"); err != nil {
		return nil, err
	}
	var rows [][]any
	for {
		if err := p.expect("("); err != nil {
			return nil, err
		}
		row, err := p.literalList(")")
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		if !p.accept(",") {
			break
		}
	}
	return func(ctx context.Context, c *Cluster) error {
		info, err := c.Table(db, t)
		if err != nil {
			return err
		}
		if len(info.PrimaryKey) > 0 {
			return c.Upsert(ctx, db, t, rows)
		}
		if bucket >= 0 {
			return c.AppendToBucket(ctx, db, t, bucket, rows)
		}
		return c.Append(ctx, db, t, rows)
	}, nil
}

// DELETE FROM db.t WHERE k1 = v1 AND k2 = v2 [OR k1 = .. AND ..]: each OR
// branch names one primary key.
func (p *scParser) delete() (func(context.Context, *Cluster) error, error) {
	db, t, err := p.tableAfter("FROM")
	if err != nil {
		return nil, err
	}
	if err := p.expect("WHERE"); err != nil {
		return nil, err
	}
	var keys []map[string]any
	for {
		k := map[string]any{}
		for {
			col, v, err := p.columnIs("a primary-key column")
			if err != nil {
				return nil, err
			}
			k[col] = v
			if !p.accept("AND") {
				break
			}
		}
		keys = append(keys, k)
		if !p.accept("OR") {
			break
		}
	}
	return func(ctx context.Context, c *Cluster) error {
		info, err := c.Table(db, t)
		if err != nil {
			return err
		}
		var rows [][]any
		for _, k := range keys {
			if len(k) != len(info.PrimaryKey) {
				return fmt.Errorf("DELETE on %s.%s must name exactly the primary key %v", db, t, info.PrimaryKey)
			}
			row := make([]any, len(info.PrimaryKey))
			for i, col := range info.PrimaryKey {
				v, ok := k[col]
				if !ok {
					return fmt.Errorf("DELETE on %s.%s: primary-key column %s missing", db, t, col)
				}
				row[i] = v
			}
			rows = append(rows, row)
		}
		return c.Delete(ctx, db, t, rows)
	}, nil
}

// SET LAKE SNAPSHOT db.t ID n [READABLE m] OFFSETS ([PARTITION 'p'] BUCKET b = off, ...)
func (p *scParser) lakeSnapshot() (func(context.Context, *Cluster) error, error) {
	db, t, err := p.tableAfter("LAKE", "SNAPSHOT")
	if err != nil {
		return nil, err
	}
	id, err := p.intAfter("ID", "the snapshot id")
	if err != nil {
		return nil, err
	}
	var readable *int64
	if p.accept("READABLE") {
		r, err := p.integer("the readable snapshot id")
		if err != nil {
			return nil, err
		}
		readable = &r
	}
	if err := p.expect("OFFSETS", "("); err != nil {
		return nil, err
	}
	var offs []LakeBucketOffset
	err = p.commaList(")", func() error {
		part, b, err := p.bucketTarget()
		if err != nil {
			return err
		}
		if err := p.expect("="); err != nil {
			return err
		}
		off, err := p.integer("the tiered offset")
		offs = append(offs, LakeBucketOffset{PartitionName: part, Bucket: b, LogOffset: off})
		return err
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *Cluster) error { return c.SetLakeSnapshot(ctx, db, t, id, readable, offs) }, nil
}
