package exec

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// JoinType is the kind of a HashJoin.
type JoinType int

const (
	InnerJoin JoinType = iota
	// LeftOuterJoin keeps every left row; unmatched ones get NULL right columns.
	LeftOuterJoin
	// LeftSemiJoin keeps left rows with at least one match (EXISTS, IN).
	LeftSemiJoin
	// LeftAntiJoin keeps left rows with no match (NOT EXISTS).
	LeftAntiJoin
	// NullAwareLeftAntiJoin is NOT IN: no rows at all if the right side has
	// a NULL key; a left row with a NULL key is kept only if the right side
	// is empty.
	NullAwareLeftAntiJoin
	// FullOuterJoin is a left outer join that also emits, after the left
	// input ends, every right row no pair matched, with NULL left columns.
	// Each input is read once.
	FullOuterJoin
	// RightOuterJoin keeps every right (build) row: the pairs that match,
	// then, after the left input ends, the right rows no pair matched,
	// with NULL left columns. It lets a LEFT JOIN whose preserved side is
	// the small one build on it and stream the large side (fe/physical).
	RightOuterJoin
	// RightSemiJoin outputs the right (build) rows some left row matched,
	// each once, after the left input ends (rightsemi.go): an EXISTS whose
	// preserved side is the small one hashes it and streams the large one.
	RightSemiJoin
	// RightAntiJoin outputs the right (build) rows no left row matched
	// (NOT EXISTS: a NULL key matches nothing and its row is kept).
	RightAntiJoin
)

// keepsBuild says whether the join emits the build rows no pair matched
// beside the pairs.
func (j JoinType) keepsBuild() bool { return j == FullOuterJoin || j == RightOuterJoin }

// buildOnly says whether the join outputs build rows alone, chosen by
// whether some probe row matched them.
func (j JoinType) buildOnly() bool { return j == RightSemiJoin || j == RightAntiJoin }

func (j JoinType) String() string {
	return [...]string{"INNER JOIN", "LEFT OUTER JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN", "NULL AWARE LEFT ANTI JOIN", "FULL OUTER JOIN", "RIGHT OUTER JOIN", "RIGHT SEMI JOIN", "RIGHT ANTI JOIN"}[j]
}

// HashJoin joins Left (the probe side, streamed) with Right (the build
// side, read fully into a hash table) on LeftKeys[i] = RightKeys[i] (no
// keys: every pair, i.e. a nested-loop/cross join, probed in slices so
// that one output batch stays near maxPairs rows), then
// keeps pairs where Residual (over left columns followed by right columns)
// is TRUE. NULL keys never match. Inner and outer joins output the left
// columns then the right ones; left semi and anti joins output the left
// columns, right semi and anti joins the right ones. Output follows left row order, and for one left row, right row
// order; a full outer join then adds the unmatched right rows in right row
// order.
type HashJoin struct {
	Left, Right         Operator
	Type                JoinType
	LeftKeys, RightKeys []expr.Expr
	Residual            expr.Expr

	lk, rk []expr.Expr // keys cast to their common types
	// filters are the runtime filters the build side publishes
	// (runtimefilter.go).
	filters []*RuntimeFilter
	// probeFilters are published from the probe side's keys, which is
	// then read first, for the build side's scan (probefirst.go).
	probeFilters []*RuntimeFilter
	// outNeed are the output columns some operator above reads (nil:
	// all), set by PruneJoinColumns; the others are placeholders.
	outNeed []int
	joined  *arrow.Schema
	schema  *arrow.Schema
}

// NewHashJoin type-checks the keys (each pair is compared in its common
// type) and the residual, which may be nil.
func NewHashJoin(left, right Operator, typ JoinType, leftKeys, rightKeys []expr.Expr, residual expr.Expr) (*HashJoin, error) {
	if len(leftKeys) != len(rightKeys) {
		return nil, errorf(ErrPlan, "join has %d left keys and %d right keys", len(leftKeys), len(rightKeys))
	}
	if typ == NullAwareLeftAntiJoin && residual != nil {
		return nil, errorf(ErrUnsupported, "NOT IN join with an extra predicate")
	}
	if typ.buildOnly() && len(leftKeys) == 0 {
		// Its probe would pair every row with every build row in one step.
		return nil, errorf(ErrUnsupported, "%s without an equality key", typ)
	}
	j := &HashJoin{Left: left, Right: right, Type: typ, LeftKeys: leftKeys, RightKeys: rightKeys, Residual: residual}
	for i := range leftKeys {
		for _, k := range []expr.Expr{leftKeys[i], rightKeys[i]} {
			if !expr.Supported(k.DataType()) {
				return nil, errorf(ErrUnsupported, "join key %s: values of type %s", k, k.DataType())
			}
		}
		t, err := expr.CommonType(leftKeys[i].DataType(), rightKeys[i].DataType())
		if err != nil {
			return nil, fmt.Errorf("join key %s = %s: %w", leftKeys[i], rightKeys[i], err)
		}
		l, err := expr.Cast(leftKeys[i], t)
		if err != nil {
			return nil, err
		}
		r, err := expr.Cast(rightKeys[i], t)
		if err != nil {
			return nil, err
		}
		j.lk, j.rk = append(j.lk, l), append(j.rk, r)
	}
	fields := append([]arrow.Field{}, left.Schema().Fields()...)
	if typ == FullOuterJoin || typ == RightOuterJoin {
		for i := range fields {
			fields[i].Nullable = true
		}
	}
	for _, f := range right.Schema().Fields() {
		f.Nullable = true
		fields = append(fields, f)
	}
	j.joined = arrow.NewSchema(fields, nil)
	if residual != nil && residual.DataType().ID() != arrow.BOOL {
		return nil, errorf(ErrPlan, "join predicate %s is not boolean", residual)
	}
	switch typ {
	case InnerJoin, LeftOuterJoin, FullOuterJoin, RightOuterJoin:
		j.schema = j.joined
	case RightSemiJoin, RightAntiJoin:
		j.schema = right.Schema()
	default:
		j.schema = left.Schema()
	}
	return j, nil
}

func (j *HashJoin) Schema() *arrow.Schema { return j.schema }
func (j *HashJoin) Children() []Operator  { return []Operator{j.Left, j.Right} }
func (j *HashJoin) Explain() string {
	conj := make([]string, len(j.LeftKeys))
	for i := range j.LeftKeys {
		conj[i] = "(" + j.LeftKeys[i].String() + " = " + j.RightKeys[i].String() + ")"
	}
	lines := []string{"VHASH JOIN", "join op: " + j.Type.String()}
	if len(conj) > 0 {
		lines = append(lines, "equal join conjunct: "+strings.Join(conj, ", "))
	} else {
		lines[0] = "VNESTED LOOP JOIN"
	}
	if j.Residual != nil {
		lines = append(lines, "other join predicates: "+j.Residual.String())
	}
	if l := j.rfExplain(); l != "" {
		lines = append(lines, l)
	}
	if l := j.probeRFExplain(); l != "" {
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// maxPairs bounds the candidate pairs of one probe step of a keyless join.
const maxPairs = 1 << 20

// buildSide is the hash table over the right input.
type buildSide struct {
	batch   arrow.RecordBatch // all right rows, nil if none
	table   *groupTable       // key → group id
	head    []int32           // group id → first build row, -1 none
	next    []int32           // build row → next row of the same key
	hasNull bool              // some build row has a NULL key
	rows    int
	// matched marks build rows some pair kept (full outer join only).
	matched []bool
	// mem and charged: the Go memory of head, next and matched, counted
	// against the statement's account until release.
	mem     memory.Allocator
	charged int64
	// filters are the join's runtime filters, published for env and
	// released with the table.
	filters []*RuntimeFilter
	env     *Env
	// residualDone: the join's residual reads only build columns and was
	// tested on each build row; rows failing it are in no chain, and the
	// probe does not test it again (buildResidual).
	residualDone bool
}

func (b *buildSide) release() {
	for _, rf := range b.filters {
		rf.release(b.env)
	}
	if b.batch != nil {
		b.batch.Release()
	}
	if b.table != nil {
		b.table.release()
	}
	memlimit.Refund(b.mem, b.charged)
	b.charged = 0
}

func (j *HashJoin) build(ctx context.Context, env *Env) (*buildSide, error) {
	in, err := OpenOp(ctx, env, piped{j.Right})
	if err != nil {
		return nil, err
	}
	defer in.Release()
	side := &buildSide{mem: env.Mem, filters: j.filters, env: env}
	if side.batch, err = drainBuild(env, in, j.Right.Schema()); err != nil {
		return nil, err
	}
	if side.batch == nil {
		side.charged = j.publishFilters(env, nil, 0, 0)
		return side, nil
	}
	side.rows = int(side.batch.NumRows())
	if j.Type.keepsBuild() {
		side.matched = make([]bool, side.rows)
	}
	keys, err := evalKeys(env, j.rk, side.batch)
	if err != nil {
		side.release()
		return nil, err
	}
	defer releaseArrays(keys)
	types := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		types[i] = k.DataType()
	}
	side.table = newGroupTable(env.Mem, types, false)
	side.table.sizeHint = side.rows
	if len(keys) == 1 && side.rows >= estimateFrom {
		if n, ok := distinctEstimate(env, keys[0]); ok {
			// Twice the keys and a little: the table never grows.
			side.table.sizeHint = 2*n + n/16
		}
	}
	gids := side.table.ids(keys, side.rows, nil)
	defer chargeGo(env, int64(cap(gids))*4+2*int64(side.rows))() // gids, the NULL-key and residual marks
	// Charged before they are allocated, so a refusal allocates nothing.
	n := int64(4*(side.table.n+side.rows) + len(side.matched))
	memlimit.Charge(env.Mem, n)
	side.mem, side.charged = env.Mem, n
	side.head = make([]int32, side.table.n)
	for i := range side.head {
		side.head[i] = -1
	}
	side.next = make([]int32, side.rows)
	nullKey := anyNullKey(keys, side.rows)
	pass := j.buildResidual(env, side)
	// Insert from the last row so chains list rows in input order.
	for r := side.rows - 1; r >= 0; r-- {
		if nullKey != nil && nullKey[r] {
			side.hasNull = true
			continue
		}
		if pass != nil && !pass[r] {
			continue
		}
		side.next[r] = side.head[gids[r]]
		side.head[gids[r]] = int32(r)
	}
	side.charged += j.publishFilters(env, keys, side.rows, side.table.n)
	return side, nil
}

// drainBuild reads the build side into one batch, as drainConcat does,
// copying with concatFast's typed loops (arrow's Concatenate was 5-9 %
// of Q4, Q9 and Q12). The copies are counted but not refused as they are
// made (so a refusal strands none of them); past the statement's limit
// the build fails once they are made, as a strict copy would have.
func drainBuild(env *Env, in array.RecordReader, schema *arrow.Schema) (arrow.RecordBatch, error) {
	var bs []arrow.RecordBatch
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	for in.Next() {
		b := in.RecordBatch()
		b.Retain()
		bs = append(bs, b)
	}
	if err := in.Err(); err != nil || len(bs) == 0 {
		return nil, err
	}
	out, err := mergeBatchesOf(env, schema, bs, nil)
	if err != nil {
		return nil, err
	}
	if err := memlimit.Check(env.Mem); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// buildResidual tests, once per build row, a residual that reads only
// build columns (Q13's o_comment NOT LIKE '%special%requests%'), for the
// join types where a build row failing it is as good as absent: inner,
// left outer, semi and anti joins, and right semi and anti joins (such a
// row is in no chain, so no probe row can mark it matched). It returns the rows that pass and sets
// side.residualDone, or nil when the residual stays with the probe (also
// when testing it on the build rows fails: the probe then tests only
// the pairs, as before).
func (j *HashJoin) buildResidual(env *Env, side *buildSide) []bool {
	switch j.Type {
	case InnerJoin, LeftOuterJoin, LeftSemiJoin, LeftAntiJoin, RightSemiJoin, RightAntiJoin:
	default:
		return nil
	}
	if j.Residual == nil || side.batch == nil {
		return nil
	}
	nl := j.Left.Schema().NumFields()
	for _, c := range columnsRead([]expr.Expr{j.Residual}) {
		if c < nl {
			return nil
		}
	}
	res, ok := expr.MapColumns(j.Residual, func(c *expr.ColumnRef) expr.Expr {
		return expr.Col(c.Index-nl, c.Name, c.Type)
	})
	if !ok {
		return nil
	}
	m, err := res.Eval(env, side.batch)
	if err != nil {
		return nil
	}
	defer m.Release()
	mask, ok := m.(*array.Boolean)
	if !ok || mask.Len() != side.rows {
		return nil
	}
	pass := make([]bool, side.rows)
	for i := range pass {
		pass[i] = mask.IsValid(i) && mask.Value(i)
	}
	side.residualDone = true
	return pass
}

func evalKeys(env *Env, es []expr.Expr, b arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(es))
	for _, e := range es {
		a, err := e.Eval(env, b)
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// anyNullKey marks rows where some key is NULL (nil if there are none).
func anyNullKey(keys []arrow.Array, rows int) []bool {
	var out []bool
	for _, k := range keys {
		if k.NullN() == 0 {
			continue
		}
		if out == nil {
			out = make([]bool, rows)
		}
		for i := 0; i < rows; i++ {
			if k.IsNull(i) {
				out[i] = true
			}
		}
	}
	return out
}

func (j *HashJoin) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if sp := spillOf(ctx); sp != nil && j.canSpill(sp) {
		return j.openSpilling(ctx, env, sp) // spill_join.go
	}
	return j.openHash(ctx, env)
}

// openHash joins in memory; runs of small output batches come out
// merged (coalesce.go).
func (j *HashJoin) openHash(ctx context.Context, env *Env) (array.RecordReader, error) {
	r, err := j.openHashBatches(ctx, env)
	if err != nil {
		return nil, err
	}
	return coalesce(ctx, env, r, j.outNeed), nil
}

func (j *HashJoin) openHashBatches(ctx context.Context, env *Env) (array.RecordReader, error) {
	if len(j.probeFilters) > 0 {
		return j.openProbeFirst(ctx, env)
	}
	side, err := j.build(ctx, env)
	if err != nil {
		return nil, err
	}
	if j.Type.buildOnly() {
		return j.openMarking(ctx, env, side) // rightsemi.go
	}
	if j.probeParallel(ctx, side) {
		return j.openParallel(ctx, env, side)
	}
	left, err := OpenOp(ctx, env, j.Left)
	if err != nil {
		side.release()
		return nil, err
	}
	kctx := compute.WithAllocator(ctx, memlimit.Lenient(env.Mem))
	// Without keys every left row meets every right row; probe left
	// batches in slices so each step makes at most about maxPairs pairs.
	step := int64(1 << 62)
	if len(j.lk) == 0 && side.rows > 0 {
		step = max(1, j.nestedPairs(env)/int64(side.rows))
	}
	var cur arrow.RecordBatch
	var pos int64
	leftDone := false
	tail := 0 // next build row to consider for a full join's unmatched rows
	next := func() (arrow.RecordBatch, error) {
		for {
			if leftDone {
				if !j.Type.keepsBuild() {
					return nil, nil
				}
				return j.unmatched(kctx, env, side, &tail)
			}
			if cur == nil || pos >= cur.NumRows() {
				if !left.Next() {
					if err := left.Err(); err != nil {
						return nil, err
					}
					leftDone = true
					continue
				}
				cur, pos = left.RecordBatch(), 0
			}
			b := cur
			if pos != 0 || cur.NumRows() > step {
				b = cur.NewSlice(pos, min(pos+step, cur.NumRows()))
			} else {
				b.Retain()
			}
			pos += step
			out, err := j.probe(kctx, env, side, b)
			b.Release()
			if err != nil {
				return nil, err
			}
			if out != nil {
				return out, nil
			}
		}
	}
	closeFn := func() {
		left.Release()
		side.release()
	}
	return newPullReader(ctx, j.schema, next, closeFn), nil
}

// probe joins one left batch; nil means no output rows.
func (j *HashJoin) probe(kctx context.Context, env *Env, side *buildSide, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	return j.probeSel(kctx, env, side, b, nil)
}

// probeSel is probe over the rows of b where sel is set (nil: all), as
// if the others were not there; only an inner or semi join, whose other
// rows have no part in the output, takes a sel.
func (j *HashJoin) probeSel(kctx context.Context, env *Env, side *buildSide, b arrow.RecordBatch, sel []bool) (arrow.RecordBatch, error) {
	rows := int(b.NumRows())
	if j.Type == NullAwareLeftAntiJoin && side.hasNull {
		return nil, nil
	}
	residual := j.Residual
	if side.residualDone {
		residual = nil
	}
	// A semi or anti join without a residual asks only whether a row has
	// a match: its first candidate pair says so, and the rest of a long
	// chain (Q22: every order of a customer) need not be walked.
	first := residual == nil && side.matched == nil && (j.Type == LeftSemiJoin || j.Type == LeftAntiJoin || j.Type == NullAwareLeftAntiJoin)
	// Candidate pairs, grouped by left row in order.
	var li, ri []int64
	var leftNull []bool
	if side.rows > 0 {
		keys, err := evalKeys(env, j.lk, b)
		if err != nil {
			return nil, err
		}
		leftNull = anyNullKey(keys, rows)
		var ok bool
		if li, ri, ok = probeInts(side, keys, sel, first); !ok {
			gids := side.table.lookup(keys, rows)
			for r := 0; r < rows; r++ {
				if gids[r] < 0 || (leftNull != nil && leftNull[r]) || (sel != nil && !sel[r]) {
					continue
				}
				for br := side.head[gids[r]]; br >= 0; br = side.next[br] {
					li = append(li, int64(r))
					ri = append(ri, int64(br))
					if first {
						break
					}
				}
			}
		}
		releaseArrays(keys)
	}
	// The pairs, their flags and the per-row marks, while the batch is probed.
	defer chargeGo(env, int64(cap(li)+cap(ri))*8+int64(len(li))+int64(rows)*7)()
	if residual == nil && side.matched == nil && (j.Type == InnerJoin || j.Type == RightOuterJoin) {
		// Every candidate pair is kept and no row needs marking: a
		// selective join (Q17) skips the per-row flags of each batch.
		if len(li) == 0 {
			return nil, nil
		}
		return j.gatherPairs(kctx, env, side, b, li, ri, nil, j.outNeed)
	}
	keep := make([]bool, len(li))
	for i := range keep {
		keep[i] = true
	}
	if len(li) > 0 && residual != nil {
		// Only the columns the residual reads are copied for it; the
		// rows that pass are copied whole below (inner, outer joins).
		joined, err := j.gatherPairs(kctx, env, side, b, li, ri, nil, columnsRead([]expr.Expr{residual}))
		if err != nil {
			return nil, err
		}
		m, err := residual.Eval(env, joined)
		joined.Release()
		if err != nil {
			return nil, err
		}
		mask := m.(*array.Boolean)
		for i := range keep {
			keep[i] = mask.IsValid(i) && mask.Value(i)
		}
		m.Release()
	}
	matched := make([]bool, rows)
	for i, k := range keep {
		if k {
			matched[li[i]] = true
			if side.matched != nil {
				side.matched[ri[i]] = true
			}
		}
	}
	switch j.Type {
	case LeftSemiJoin, LeftAntiJoin, NullAwareLeftAntiJoin:
		want := j.Type == LeftSemiJoin
		sel := make([]bool, rows)
		n := 0
		for r := range sel {
			sel[r] = matched[r] == want
			if j.Type == NullAwareLeftAntiJoin && leftNull != nil && leftNull[r] && side.rows > 0 {
				sel[r] = false
			}
			if sel[r] {
				n++
			}
		}
		return filterRowsOf(kctx, env, b, sel, n, j.outNeed)
	case InnerJoin, RightOuterJoin:
		kl, kr := li[:0:0], ri[:0:0]
		if residual == nil {
			kl, kr = li, ri
		} else {
			for i, k := range keep {
				if k {
					kl, kr = append(kl, li[i]), append(kr, ri[i])
				}
			}
		}
		if len(kl) == 0 {
			return nil, nil
		}
		return j.gatherPairs(kctx, env, side, b, kl, kr, nil, j.outNeed)
	}
	// Left and full outer: each left row's passing pairs, or the row once
	// with NULLs.
	var ol, or []int64
	var orValid []bool
	p := 0
	for r := 0; r < rows; r++ {
		any := false
		for ; p < len(li) && li[p] == int64(r); p++ {
			if keep[p] {
				ol, or, orValid = append(ol, int64(r)), append(or, ri[p]), append(orValid, true)
				any = true
			}
		}
		if !any {
			ol, or, orValid = append(ol, int64(r)), append(or, 0), append(orValid, false)
		}
	}
	return j.gatherPairs(kctx, env, side, b, ol, or, orValid, j.outNeed)
}

// estimateFrom is the build size from which the join estimates its
// distinct keys to size its table: below it, growing the table by
// doubling costs less than the estimate.
const estimateFrom = 1 << 16

// linearBits is the bitmap of distinctEstimate: 128 KB, within a few
// percent up to millions of distinct keys.
const linearBits = 1 << 20

// distinctEstimate estimates the distinct values of an integer or date
// key column by linear counting (each value's hash sets one bit of a
// bitmap; the share of bits left clear gives the count), so that the
// build table is made the size it ends at: its last doubling copied
// every slot of a table in the megabytes (Q3's 147 K orders). ok is
// false for other types and when the bitmap fills.
func distinctEstimate(env *Env, a arrow.Array) (int, bool) {
	defer chargeGo(env, linearBits/8)()
	bm := make([]uint64, linearBits/64)
	set := func(v uint64) {
		h := mix64(v) >> (64 - 20)
		bm[h>>6] |= 1 << (h & 63)
	}
	switch x := a.(type) {
	case *array.Int64:
		for _, v := range x.Int64Values() {
			set(uint64(v))
		}
	case *array.Int32:
		for _, v := range x.Int32Values() {
			set(uint64(v))
		}
	case *array.Date32:
		for _, v := range x.Date32Values() {
			set(uint64(v))
		}
	default:
		return 0, false
	}
	set0 := 0
	for _, w := range bm {
		set0 += bits.OnesCount64(w)
	}
	zeros := linearBits - set0
	if zeros < linearBits/1000 {
		return 0, false
	}
	return int(-linearBits * math.Log(float64(zeros)/linearBits)), true
}

// probeInts is the candidate pairs of a single integer or date key
// without NULLs, found in the build table's direct array or intTable
// straight from the key column's values: no widened copy of the column
// and no group id per row, which cost most of a selective probe (Q17's 6
// M lineitem rows against 200 parts). ok is false for any other key or
// table; the general path serves those.
func probeInts(side *buildSide, keys []arrow.Array, sel []bool, first bool) (li, ri []int64, ok bool) {
	g := side.table
	if len(keys) != 1 || keys[0].NullN() > 0 || g.fixed == nil || (g.direct == nil && g.ints == nil) {
		return nil, nil, false
	}
	switch x := keys[0].(type) {
	case *array.Int64:
		li, ri = probeIntVals(side, x.Int64Values(), sel, first)
	case *array.Int32:
		li, ri = probeIntVals(side, x.Int32Values(), sel, first)
	case *array.Date32:
		li, ri = probeIntVals(side, arrow.Int32Traits.CastFromBytes(arrow.Date32Traits.CastToBytes(x.Date32Values())), sel, first)
	default:
		return nil, nil, false
	}
	return li, ri, true
}

func probeIntVals[T int32 | int64](side *buildSide, vals []T, sel []bool, first bool) (li, ri []int64) {
	g, head, next := side.table, side.head, side.next
	if sel != nil {
		sel = sel[:len(vals)]
	}
	if d := g.direct; d != nil {
		base, size := g.dbase, uint64(len(d))
		for r, v := range vals {
			p := uint64(int64(v)) - base
			if p >= size || d[p] == 0 || (sel != nil && !sel[r]) {
				continue
			}
			for br := head[d[p]-1]; br >= 0; br = next[br] {
				li, ri = append(li, int64(r)), append(ri, int64(br))
				if first {
					break
				}
			}
		}
		return li, ri
	}
	for r, v := range vals {
		if sel != nil && !sel[r] {
			continue
		}
		id, found := g.ints.get(int64(v))
		if !found {
			continue
		}
		for br := head[id]; br >= 0; br = next[br] {
			li, ri = append(li, int64(r)), append(ri, int64(br))
			if first {
				break
			}
		}
	}
	return li, ri
}

// tailRows bounds the rows of one batch of a full join's unmatched right
// rows.
const tailRows = 4096

// nextRows returns the next up to tailRows row numbers from *from on
// whose flag is want, advancing *from past them.
func nextRows(flags []bool, want bool, from *int) []int64 {
	var rows []int64
	for ; *from < len(flags) && len(rows) < tailRows; *from++ {
		if flags[*from] == want {
			rows = append(rows, int64(*from))
		}
	}
	return rows
}

// unmatched returns the next batch of build rows from *from on that no
// pair matched, with NULL left columns; nil when there are no more.
func (j *HashJoin) unmatched(kctx context.Context, env *Env, side *buildSide, from *int) (arrow.RecordBatch, error) {
	ri := nextRows(side.matched[:side.rows], false, from)
	if len(ri) == 0 {
		return nil, nil
	}
	if err := kctx.Err(); err != nil {
		return nil, err
	}
	ib := array.NewInt64Builder(env.Mem)
	defer ib.Release()
	ib.AppendValues(ri, nil)
	ridx := ib.NewArray()
	defer ridx.Release()
	nl := j.Left.Schema().NumFields()
	cols := make([]arrow.Array, 0, j.joined.NumFields())
	for c := 0; c < nl; c++ {
		cols = append(cols, array.MakeArrayOfNull(env.Mem, j.joined.Field(c).Type, len(ri)))
	}
	for c := range j.Right.Schema().Fields() {
		a, err := compute.TakeArray(kctx, side.batch.Column(c), ridx)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(j.joined, cols, int64(len(ri)))
	releaseArrays(cols)
	return out, nil
}

// gatherPairs builds left[li] ++ right[ri] rows; rValid marks right rows
// that exist (nil: all), the others get NULL right columns.
func (j *HashJoin) gatherPairs(kctx context.Context, env *Env, side *buildSide, left arrow.RecordBatch, li, ri []int64, rValid []bool, need []int) (arrow.RecordBatch, error) {
	n := len(li)
	want := func(c int) bool { return need == nil || slices.Contains(need, c) }
	// placeholder stands for a column nobody reads (need): a zero-copy
	// slice when src is long enough.
	placeholder := func(src arrow.Array) arrow.Array {
		if src != nil && src.Len() >= n {
			return array.NewSlice(src, 0, int64(n))
		}
		if src != nil {
			return array.MakeArrayOfNull(memlimit.Lenient(env.Mem), src.DataType(), n)
		}
		return nil
	}
	var lidx, ridx arrow.Array
	defer func() {
		if lidx != nil {
			lidx.Release()
		}
		if ridx != nil {
			ridx.Release()
		}
	}()
	mk := func(v []int64, valid []bool) arrow.Array {
		ib := array.NewInt64Builder(env.Mem)
		defer ib.Release()
		ib.AppendValues(v, valid)
		return ib.NewArray()
	}
	cols := make([]arrow.Array, 0, j.joined.NumFields())
	for c := 0; c < int(left.NumCols()); c++ {
		if !want(c) {
			cols = append(cols, placeholder(left.Column(c)))
			continue
		}
		if lidx == nil && !gatherable(left.Column(c).DataType()) {
			lidx = mk(li, nil)
		}
		a, err := takeRows(kctx, memlimit.Lenient(env.Mem), left.Column(c), li, lidx)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, a)
	}
	nl := int(left.NumCols())
	rs := j.Right.Schema()
	for c := range rs.NumFields() {
		f := rs.Field(c)
		var a arrow.Array
		var err error
		switch {
		case side.batch == nil:
			a = array.MakeArrayOfNull(env.Mem, f.Type, n)
		case !want(nl + c):
			a = placeholder(side.batch.Column(c))
		case gatherable(f.Type):
			// Outer rows without a match (rValid false) read build row 0
			// and are then marked NULL.
			if a = gatherFast(memlimit.Lenient(env.Mem), side.batch.Column(c), ri); rValid != nil {
				a = withNulls(memlimit.Lenient(env.Mem), a, rValid)
			}
		default:
			if ridx == nil {
				ridx = mk(ri, rValid)
			}
			a, err = compute.TakeArray(kctx, side.batch.Column(c), ridx)
		}
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(j.joined, cols, int64(n))
	releaseArrays(cols)
	return out, nil
}

// withNulls is a (released; gatherFast's output, at offset 0) with the
// rows where valid is false made NULL as well.
func withNulls(mem memory.Allocator, a arrow.Array, valid []bool) arrow.Array {
	defer a.Release()
	d := a.Data()
	n := a.Len()
	nb := memory.NewResizableBuffer(mem)
	defer nb.Release()
	nb.Resize(int(bitutil.BytesForBits(int64(n))))
	bm := nb.Bytes()
	clear(bm)
	nulls := 0
	for i, v := range valid[:n] {
		if v && a.IsValid(i) {
			bitutil.SetBit(bm, i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{nb}, d.Buffers()[1:]...)
	out := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, d.Offset())
	defer out.Release()
	return array.MakeFromData(out)
}

// filterRows keeps rows of b where sel is set (n of them); nil if none.
func filterRows(kctx context.Context, env *Env, b arrow.RecordBatch, sel []bool, n int) (arrow.RecordBatch, error) {
	return filterRowsOf(kctx, env, b, sel, n, nil)
}

// filterRowsOf is filterRows copying only the columns cols (nil: all),
// the others placeholders as gatherRows makes them.
func filterRowsOf(kctx context.Context, env *Env, b arrow.RecordBatch, sel []bool, n int, cols []int) (arrow.RecordBatch, error) {
	if n == 0 {
		return nil, nil
	}
	if n == len(sel) {
		b.Retain()
		return b, nil
	}
	// Row numbers and gatherRows' typed copies: arrow's FilterRecordBatch
	// costs several times more on decimals (a fixed-size-binary take).
	rows := make([]int64, 0, n)
	for i, k := range sel {
		if k {
			rows = append(rows, int64(i))
		}
	}
	return gatherRows(kctx, env, b, rows, cols)
}
