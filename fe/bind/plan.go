package bind

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
)

// Column is one output column of a plan node.
type Column struct {
	Name string
	// Qualifier is the table alias or name the column can be qualified
	// with; hidden columns of a derived scope have none.
	Qualifier string
	Type      arrow.DataType
	Nullable  bool
	// FoldCase marks text compared without regard to case (see
	// CaseFolder).
	FoldCase bool
}

// CaseFolder is a table some of whose text columns compare without regard
// to case in =, != and <=>, as MySQL compares information_schema's keyword
// columns: JDBC drivers test IS_NULLABLE = 'yes' against the 'YES' stored
// there. Names (of tables, databases) keep comparing exactly, as Doris's
// names are case-sensitive.
type CaseFolder interface {
	FoldsCase(column string) bool
}

// Plan is a bound logical plan node.
type Plan interface {
	Columns() []Column
	Children() []Plan
}

// Schema returns the Arrow schema of a plan's output.
func Schema(p Plan) *arrow.Schema {
	cols := p.Columns()
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = arrow.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable}
	}
	return arrow.NewSchema(fs, nil)
}

// Scan reads a table.
type Scan struct {
	Catalog, Database string
	Table             catalog.Table
	// Projection are indexes into Table.Schema().Columns.
	Projection []int
	Out        []Column
	// Vars are the session values (after SET_VAR) the scan runs under.
	Vars map[string]string
	// Predicates are WHERE conjuncts on this table, as skipping hints.
	Predicates []catalog.Predicate
	// OrPredicates are WHERE conjuncts that are disjunctions of simple
	// conditions on several columns of this table (a = 1 OR b > 5): hints
	// for the Fluss log's batch skipping only.
	OrPredicates [][]catalog.Predicate
	// Pruned holds, by output position, the narrowed type of a struct
	// column read only through field accesses (nested column pruning).
	Pruned map[int]arrow.DataType
	// TimeTravel pins the read to one lake snapshot (FOR VERSION/TIME AS
	// OF); nil reads the current state.
	TimeTravel *catalog.TimeTravel
}

// Values produces constant rows; a SELECT without FROM is Values with one
// row and no columns, under a Project.
type Values struct {
	Rows [][]expr.Expr
	Out  []Column
}

// Filter keeps rows where Cond is true.
type Filter struct {
	Input Plan
	Cond  expr.Expr
}

// Project computes Exprs over each input row.
type Project struct {
	Input Plan
	Exprs []expr.Expr
	Out   []Column
}

// AggFunc names an aggregate function.
type AggFunc string

// Aggregate functions.
const (
	AggCount AggFunc = "count"
	AggSum   AggFunc = "sum"
	AggMin   AggFunc = "min"
	AggMax   AggFunc = "max"
	AggAvg   AggFunc = "avg"
	AggAny   AggFunc = "any_value"
	// AggGroupConcat joins the non-NULL values as text with Sep.
	AggGroupConcat AggFunc = "group_concat"
)

// AggCall is one aggregate; Arg is nil for count(*).
type AggCall struct {
	Func     AggFunc
	Distinct bool
	Arg      expr.Expr
	Type     arrow.DataType
	// Sep is GROUP_CONCAT's separator (default ",").
	Sep string
}

func (a AggCall) String() string {
	arg := "*"
	if a.Arg != nil {
		arg = a.Arg.String()
	}
	if a.Distinct {
		arg = "DISTINCT " + arg
	}
	if a.Func == AggGroupConcat && a.Sep != "," {
		arg += " SEPARATOR " + strconv.Quote(a.Sep)
	}
	return fmt.Sprintf("%s(%s)", a.Func, arg)
}

// Aggregate groups its input by Groups and computes Aggs; its output is the
// group keys followed by the aggregates. With no Groups it produces exactly
// one row, even for empty input.
type Aggregate struct {
	Input  Plan
	Groups []expr.Expr
	Aggs   []AggCall
	Out    []Column
}

// JoinKind is the kind of a join.
type JoinKind int

// Join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	CrossJoin
	LeftSemiJoin
	LeftAntiJoin
	// NullAwareAntiJoin is NOT IN (subquery): no rows when the subquery
	// yields a NULL, and a NULL left key is kept only for an empty subquery.
	NullAwareAntiJoin
)

func (k JoinKind) String() string {
	return [...]string{"INNER JOIN", "LEFT OUTER JOIN", "RIGHT OUTER JOIN", "FULL OUTER JOIN", "CROSS JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN", "NULL AWARE LEFT ANTI JOIN"}[k]
}

// Join combines Left and Right. LeftKeys[i] = RightKeys[i] are the equality
// conditions, each bound over its own side; Residual (may be nil) is bound
// over left columns followed by right columns. Semi and anti joins output
// the left columns only.
type Join struct {
	Kind        JoinKind
	Left, Right Plan
	LeftKeys    []expr.Expr
	RightKeys   []expr.Expr
	Residual    expr.Expr
	Out         []Column
	// BuildLeft, set by the optimiser on a semi or anti join (not NOT IN)
	// whose left, preserved side is estimated the smaller, has the
	// executor hash the left input and stream the right one: Doris's
	// RIGHT SEMI / RIGHT ANTI JOIN of the swapped inputs. The rows are the
	// same.
	BuildLeft bool
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
}

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
	} else {
		s += " ASC"
	}
	if k.NullsFirst {
		return s + " NULLS FIRST"
	}
	return s + " NULLS LAST"
}

// Sort orders its input.
type Sort struct {
	Input Plan
	Keys  []SortKey
}

// Limit skips Offset rows then passes at most Count rows (Count < 0: all).
type Limit struct {
	Input  Plan
	Count  int64
	Offset int64
}

// Union concatenates inputs whose columns have the same types (the binder
// inserts casts).
type Union struct {
	Inputs []Plan
	Out    []Column
}

func (s *Scan) Columns() []Column      { return s.Out }
func (s *Values) Columns() []Column    { return s.Out }
func (f *Filter) Columns() []Column    { return f.Input.Columns() }
func (p *Project) Columns() []Column   { return p.Out }
func (a *Aggregate) Columns() []Column { return a.Out }
func (j *Join) Columns() []Column      { return j.Out }
func (s *Sort) Columns() []Column      { return s.Input.Columns() }
func (l *Limit) Columns() []Column     { return l.Input.Columns() }
func (u *Union) Columns() []Column     { return u.Out }

func (s *Scan) Children() []Plan      { return nil }
func (s *Values) Children() []Plan    { return nil }
func (f *Filter) Children() []Plan    { return []Plan{f.Input} }
func (p *Project) Children() []Plan   { return []Plan{p.Input} }
func (a *Aggregate) Children() []Plan { return []Plan{a.Input} }
func (j *Join) Children() []Plan      { return []Plan{j.Left, j.Right} }
func (s *Sort) Children() []Plan      { return []Plan{s.Input} }
func (l *Limit) Children() []Plan     { return []Plan{l.Input} }
func (u *Union) Children() []Plan     { return u.Inputs }

// Explain renders a plan as indented lines, for EXPLAIN when the executor
// has no tree of its own and for tests.
func Explain(p Plan) []string {
	var out []string
	var walk func(p Plan, depth int)
	walk = func(p Plan, depth int) {
		pad := strings.Repeat("  ", depth)
		out = append(out, pad+describe(p))
		for _, c := range p.Children() {
			walk(c, depth+1)
		}
	}
	walk(p, 0)
	return out
}

func describe(p Plan) string {
	exprs := func(es []expr.Expr) string {
		s := make([]string, len(es))
		for i, e := range es {
			s[i] = e.String()
		}
		return strings.Join(s, ", ")
	}
	switch n := p.(type) {
	case *Scan:
		names := make([]string, len(n.Out))
		for i, c := range n.Out {
			names[i] = c.Name
		}
		out := fmt.Sprintf("Scan %s.%s.%s [%s]", n.Catalog, n.Database, n.Table.Name(), strings.Join(names, ", "))
		if len(n.Predicates) > 0 {
			ps := make([]string, len(n.Predicates))
			for i, p := range n.Predicates {
				ps[i] = p.String()
			}
			out += " predicates=[" + strings.Join(ps, " AND ") + "]"
		}
		return out
	case *Values:
		return fmt.Sprintf("Values rows=%d", len(n.Rows))
	case *Filter:
		return "Filter " + n.Cond.String()
	case *Project:
		return "Project " + exprs(n.Exprs)
	case *Aggregate:
		aggs := make([]string, len(n.Aggs))
		for i, a := range n.Aggs {
			aggs[i] = a.String()
		}
		return fmt.Sprintf("Aggregate groups=[%s] aggs=[%s]", exprs(n.Groups), strings.Join(aggs, ", "))
	case *Join:
		s := n.Kind.String()
		if len(n.LeftKeys) > 0 {
			s += " keys=[" + exprs(n.LeftKeys) + "] = [" + exprs(n.RightKeys) + "]"
		}
		if n.Residual != nil {
			s += " residual=" + n.Residual.String()
		}
		if n.BuildLeft {
			s += " build=left"
		}
		return s
	case *Sort:
		ks := make([]string, len(n.Keys))
		for i, k := range n.Keys {
			ks[i] = k.String()
		}
		return "Sort " + strings.Join(ks, ", ")
	case *Limit:
		return fmt.Sprintf("Limit %d offset %d", n.Count, n.Offset)
	case *Union:
		return fmt.Sprintf("Union inputs=%d", len(n.Inputs))
	case *AssertOneRow:
		return "AssertOneRow"
	case *Repeat:
		return fmt.Sprintf("Repeat sets=%d", len(n.Sets))
	case *Window:
		calls := make([]string, len(n.Calls))
		for i, c := range n.Calls {
			arg := ""
			if c.Star {
				arg = "*"
			} else if c.Arg != nil {
				arg = c.Arg.String()
			}
			calls[i] = c.Func + "(" + arg + ")"
		}
		return fmt.Sprintf("Window [%s] partition=[%s] order=[%s] frame=%s", strings.Join(calls, ", "), exprs(n.PartitionBy), sortKeyStrings(n.OrderBy), n.Frame)
	}
	return fmt.Sprintf("%T", p)
}
