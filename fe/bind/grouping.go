package bind

import (
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/fe/sql"
)

// groupingQualifier marks the hidden columns grouping sets add to an
// aggregate's output: the set number and the GROUPING()/GROUPING_ID()
// values.
const groupingQualifier = "\x00grouping"

// Repeat emits each input row once per grouping set through that set's
// projection, Sets[i] (Doris's RepeatNode): the input columns, then the
// grouping expressions (NULL where the set leaves one out), then the set
// number and the values of the block's GROUPING()/GROUPING_ID() calls.
// The Aggregate above groups by all but the input columns, so a NULL a set
// rolled up never merges with a NULL of the data.
type Repeat struct {
	Input Plan
	Sets  [][]expr.Expr
	Out   []Column
}

func (r *Repeat) Columns() []Column { return r.Out }
func (r *Repeat) Children() []Plan  { return []Plan{r.Input} }

// groupingSets is what an aggregating block with grouping sets needs
// beyond plain GROUP BY.
type groupingSets struct {
	// sets lists, per grouping set, whether each of the block's groups
	// (aggState.groups, by index) is in it.
	sets [][]bool
	// nGroups is the number of written grouping expressions; the set
	// number and the grouping calls follow them in aggState.groups.
	nGroups int
	// calls are the GROUPING()/GROUPING_ID() calls, each as the group
	// indexes of its arguments, and keys maps a call's key onto its
	// position in calls.
	calls [][]int
	keys  map[string]int
}

func isGroupingName(name string) bool {
	switch strings.ToLower(name) {
	case "grouping", "grouping_id":
		return true
	}
	return false
}

// groupingCall binds the arguments of GROUPING(e) or GROUPING_ID(e, ...)
// to the group indexes they name. Each must be a grouping expression.
func (b *Binder) groupingCall(fc *sql.FuncCall, st *aggState) ([]int, string, error) {
	name := strings.ToLower(fc.Name)
	if st == nil || st.grouping == nil {
		return nil, "", errorf(ErrAnalysis, "%s() is only allowed with GROUP BY ROLLUP, CUBE or GROUPING SETS", strings.ToUpper(name))
	}
	if fc.Star || fc.Distinct || len(fc.Args) == 0 || fc.Over != nil {
		return nil, "", errorf(ErrAnalysis, "%s() takes one or more grouping expressions", strings.ToUpper(name))
	}
	if len(fc.Args) > 63 {
		return nil, "", errorf(ErrAnalysis, "%s() takes at most 63 arguments", strings.ToUpper(name))
	}
	var idx []int
	for _, a := range fc.Args {
		e, err := b.bindExpr(a, st.input, nil)
		if err != nil {
			return nil, "", err
		}
		i, ok := st.groupKeys[e.String()]
		if !ok || i >= st.grouping.nGroups {
			return nil, "", errorf(ErrAnalysis, "the argument %s of %s() is not a GROUP BY expression", a, strings.ToUpper(name))
		}
		idx = append(idx, i)
	}
	return idx, fmt.Sprint(idx), nil
}

// value is a grouping call's value in one set: a bit per argument, the
// first argument the highest, set where the set rolled the argument up
// (GROUPING_ID's bit vector; GROUPING(e) is its one-argument case).
func (g *groupingSets) value(call []int, set int) int64 {
	var v int64
	for _, i := range call {
		v <<= 1
		if !g.sets[set][i] {
			v |= 1
		}
	}
	return v
}

// collectGrouping records a GROUPING()/GROUPING_ID() call of the block.
func (b *Binder) collectGrouping(fc *sql.FuncCall, st *aggState) error {
	idx, k, err := b.groupingCall(fc, st)
	if err != nil {
		return err
	}
	if _, dup := st.grouping.keys[k]; !dup {
		st.grouping.keys[k] = len(st.grouping.calls)
		st.grouping.calls = append(st.grouping.calls, idx)
	}
	return nil
}

// addGroupingColumns appends the set number and the grouping calls'
// columns to the aggregate's groups, once every call is collected.
func (st *aggState) addGroupingColumns() {
	g := st.grouping
	st.groups = append(st.groups, nil) // placeholders: see repeat
	st.out = append(st.out, Column{Name: "GROUPING_SET", Qualifier: groupingQualifier, Type: expr.Int64T()})
	for _, c := range g.calls {
		st.groups = append(st.groups, nil)
		st.out = append(st.out, Column{Name: "GROUPING_ID" + fmt.Sprint(c), Qualifier: groupingQualifier, Type: expr.Int64T()})
	}
}

// repeat puts a Repeat under the aggregate of a block with grouping sets
// and points the aggregate's groups at its columns.
func (st *aggState) repeat(input Plan) Plan {
	g := st.grouping
	in := input.Columns()
	out := append([]Column{}, in...)
	for i := range g.nGroups {
		c := st.out[i]
		c.Nullable = true
		out = append(out, Column{Name: c.Name, Qualifier: groupingQualifier, Type: c.Type, Nullable: true})
	}
	for i := g.nGroups; i < len(st.groups); i++ {
		out = append(out, st.out[i])
	}
	sets := make([][]expr.Expr, len(g.sets))
	for s, present := range g.sets {
		row := make([]expr.Expr, 0, len(out))
		for i, c := range in {
			row = append(row, expr.Col(i, c.Name, c.Type))
		}
		for i := range g.nGroups {
			if present[i] {
				row = append(row, st.groups[i])
			} else {
				row = append(row, expr.Null(st.groups[i].DataType()))
			}
		}
		row = append(row, expr.Int(int64(s)))
		for _, c := range g.calls {
			row = append(row, expr.Int(g.value(c, s)))
		}
		sets[s] = row
	}
	for i := range st.groups {
		st.groups[i] = expr.Col(len(in)+i, out[len(in)+i].Name, out[len(in)+i].Type)
		if i < g.nGroups {
			st.out[i].Nullable = true
		}
	}
	return &Repeat{Input: input, Sets: sets, Out: out}
}
