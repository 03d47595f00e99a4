package expr

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Dec64 evaluates a DECIMAL expression of +, - and * over columns and
// constants (the argument of TPC-H's SUM(l_extendedprice * (1 -
// l_discount) * (1 + l_tax))) on int64 lanes, into buffers a Dec64Frame
// reuses batch after batch: no 128-bit array is built for the argument or
// for any step inside it, and a step shared by several arguments of one
// aggregate (l_extendedprice * (1 - l_discount) in Q1) is computed once
// per batch. It is exact or it declines: when a value of the batch does
// not fit an int64, a step's result leaves the int64 range or the
// precision of its type, Eval returns ok = false and the caller evaluates
// the expression the general way, which gives the same values or raises
// the overflow error. A row where an operand is NULL is NULL (valid
// false), as the general path's.
type Dec64 struct {
	root *d64Node
}

type d64Kind uint8

const (
	d64Col d64Kind = iota
	d64Lit
	d64Op
)

type d64Node struct {
	key  string // structural: equal keys compute equal values
	kind d64Kind
	col  int // d64Col: input column
	typ  arrow.DataType
	lit  int64 // d64Lit: the unscaled constant
	op   ArithOp
	l, r *d64Node
	// d64Op: operands scaled by m1 and m2 (+ and -), whose magnitudes
	// must stay within lim1 and lim2, and results below bound.
	m1, m2, lim1, lim2, bound int64
}

// CompileDec64 returns the int64 program of e, or nil when e is not a
// DECIMAL (not LARGEINT) tree of +, - and * over DECIMAL columns and
// non-NULL DECIMAL constants.
func CompileDec64(e Expr) *Dec64 {
	n := compileD64(e)
	if n == nil || n.kind == d64Lit {
		return nil
	}
	return &Dec64{root: n}
}

// d64Type is t's scale and precision when t is a DECIMAL that is not
// LARGEINT.
func d64Type(t arrow.DataType) (prec, scale int32, ok bool) {
	d, isDec := t.(*arrow.Decimal128Type)
	if !isDec || d.Precision >= LargeIntPrecision {
		return 0, 0, false
	}
	return d.Precision, d.Scale, true
}

func compileD64(e Expr) *d64Node {
	if _, _, ok := d64Type(e.DataType()); !ok {
		return nil
	}
	switch x := e.(type) {
	case *ColumnRef:
		return &d64Node{key: "c" + strconv.Itoa(x.Index) + ":" + x.Type.String(), kind: d64Col, col: x.Index, typ: x.Type}
	case *Literal:
		v, ok := x.Value.(decimal128.Num)
		if !ok {
			return nil
		}
		i, ok := i64(v)
		if !ok {
			return nil
		}
		return &d64Node{key: "l" + strconv.FormatInt(i, 10) + ":" + x.Type.String(), kind: d64Lit, lit: i, typ: x.Type}
	case *ArithExpr:
		if x.in != nil || (x.Op != Add && x.Op != Sub && x.Op != Mul) {
			return nil
		}
		po, so, _ := d64Type(x.out)
		_, s1, ok1 := d64Type(x.L.DataType())
		_, s2, ok2 := d64Type(x.R.DataType())
		if !ok1 || !ok2 {
			return nil
		}
		l, r := compileD64(x.L), compileD64(x.R)
		if l == nil || r == nil || (l.kind == d64Lit && r.kind == d64Lit) {
			return nil
		}
		n := &d64Node{kind: d64Op, op: x.Op, l: l, r: r, typ: x.out, bound: math.MaxInt64}
		n.key = "(" + l.key + " " + x.Op.String() + " " + r.key + "):" + x.out.String()
		if po < 19 {
			n.bound = pow10i[po]
		}
		switch x.Op {
		case Add, Sub:
			if so != max(s1, s2) || so-s1 >= int32(len(pow10i)) || so-s2 >= int32(len(pow10i)) {
				return nil
			}
			n.m1, n.m2 = pow10i[so-s1], pow10i[so-s2]
			// |x·m1| and |y·m2| below 2^62 keep the sum or difference in
			// the int64 range.
			n.lim1, n.lim2 = (1<<62-1)/n.m1, (1<<62-1)/n.m2
		case Mul:
			if so != s1+s2 {
				return nil
			}
		}
		return n
	}
	return nil
}

// Dec64Frame holds one batch's evaluated steps for the Dec64 programs of
// one consumer (the aggregates of one HashAggregate on one goroutine) and
// the buffers they reuse from batch to batch.
type Dec64Frame struct {
	batch arrow.RecordBatch
	vals  map[string]d64Vals
	free  [][]int64
	freeB [][]bool
}

type d64Vals struct {
	v     []int64
	valid []bool // nil: every row valid
	ok    bool
	// bits bounds the bit length of every |v[i]| (NULL rows included):
	// a step whose operands' bounds keep it within 62 bits and its
	// type's precision runs without a check per row.
	bits int
	// ownsValid: valid is this step's own slice, not an operand's.
	ownsValid bool
}

// Reset starts a new batch (still the caller's while the frame reads it);
// the previous batch's results become reusable buffers.
func (f *Dec64Frame) Reset(b arrow.RecordBatch) {
	for k, r := range f.vals {
		if r.v != nil {
			f.free = append(f.free, r.v)
		}
		if r.ownsValid {
			f.freeB = append(f.freeB, r.valid)
		}
		delete(f.vals, k)
	}
	if f.vals == nil {
		f.vals = map[string]d64Vals{}
	}
	f.batch = b
}

func (f *Dec64Frame) ints(n int) []int64 {
	for len(f.free) > 0 {
		v := f.free[len(f.free)-1]
		f.free = f.free[:len(f.free)-1]
		if cap(v) >= n {
			return v[:n]
		}
	}
	return make([]int64, n)
}

func (f *Dec64Frame) bools(n int) []bool {
	for len(f.freeB) > 0 {
		v := f.freeB[len(f.freeB)-1]
		f.freeB = f.freeB[:len(f.freeB)-1]
		if cap(v) >= n {
			return v[:n]
		}
	}
	return make([]bool, n)
}

// Eval computes the program over the frame's batch: the unscaled values
// (at the expression's scale) and the rows that are not NULL (nil: all).
// ok is false when the batch needs the general path; vals and valid
// belong to the frame until its next Reset.
func (p *Dec64) Eval(f *Dec64Frame) (vals []int64, valid []bool, ok bool) {
	r := f.eval(p.root)
	return r.v, r.valid, r.ok
}

// Bits bounds the bit length of every |value| Eval returned for the
// frame's batch (64: no bound known).
func (p *Dec64) Bits(f *Dec64Frame) int {
	if r, ok := f.vals[p.root.key]; ok && r.ok {
		return r.bits
	}
	return 64
}

func (f *Dec64Frame) eval(n *d64Node) d64Vals {
	if r, seen := f.vals[n.key]; seen {
		return r
	}
	var r d64Vals
	switch n.kind {
	case d64Col:
		r = f.column(n)
	case d64Op:
		r = f.op(n)
	}
	f.vals[n.key] = r
	return r
}

// column reads an input DECIMAL column into int64s; a NULL row reads 0
// (so the steps above never fail on it).
func (f *Dec64Frame) column(n *d64Node) d64Vals {
	b := f.batch
	if n.col < 0 || int64(n.col) >= b.NumCols() {
		return d64Vals{}
	}
	a, isDec := b.Column(n.col).(*array.Decimal128)
	if !isDec || !arrow.TypeEqual(a.DataType(), n.typ) {
		return d64Vals{}
	}
	src := a.Values()
	out := f.ints(len(src))
	var bad int64
	var mag uint64
	for i, x := range src {
		hi, lo := x.HighBits(), int64(x.LowBits())
		// hi must be lo's sign extension.
		bad |= hi ^ lo>>63
		out[i] = lo
		mag |= uint64((lo ^ lo>>63) - lo>>63)
	}
	r := d64Vals{v: out, ok: true, bits: bits.Len64(mag)}
	if a.NullN() > 0 {
		valid := f.bools(len(src))
		for i := range valid {
			valid[i] = a.IsValid(i)
			if !valid[i] {
				out[i] = 0
			}
		}
		r.valid, r.ownsValid = valid, true
		if bad != 0 {
			// Recheck: only a valid row's value must fit.
			bad = 0
			for i, x := range src {
				if valid[i] && x.HighBits() != int64(x.LowBits())>>63 {
					bad = 1
				}
			}
		}
	}
	if bad != 0 {
		f.free = append(f.free, out)
		if r.valid != nil {
			f.freeB = append(f.freeB, r.valid)
		}
		return d64Vals{}
	}
	return r
}

func (f *Dec64Frame) op(n *d64Node) d64Vals {
	var l, r d64Vals
	var lc, rc int64
	rows := -1
	if n.l.kind == d64Lit {
		lc = n.l.lit
	} else if l = f.eval(n.l); !l.ok {
		return d64Vals{}
	} else {
		rows = len(l.v)
	}
	if n.r.kind == d64Lit {
		rc = n.r.lit
	} else if r = f.eval(n.r); !r.ok {
		return d64Vals{}
	} else {
		rows = len(r.v)
	}
	out := f.ints(rows)
	lb, rb := l.bits, r.bits
	if n.l.kind == d64Lit {
		lb = litBits(lc)
	}
	if n.r.kind == d64Lit {
		rb = litBits(rc)
	}
	bits := 64
	switch n.op {
	case Add, Sub:
		if b := max(lb+litBits(n.m1), rb+litBits(n.m2)) + 1; b <= 62 && fitsBound(b, n.bound) {
			bits = b
			addSub64Fast(out, l.v, r.v, lc, rc, n)
		} else if addSub64(out, l.v, r.v, lc, rc, n) {
			f.free = append(f.free, out)
			return d64Vals{}
		}
	case Mul:
		if b := lb + rb; b <= 62 && fitsBound(b, n.bound) {
			bits = b
			mul64Fast(out, l.v, r.v, lc, rc)
		} else if mul64(out, l.v, r.v, lc, rc, n.bound) {
			f.free = append(f.free, out)
			return d64Vals{}
		}
	}
	res := d64Vals{v: out, ok: true, bits: bits}
	switch {
	case l.valid != nil && r.valid != nil:
		res.valid, res.ownsValid = f.bools(rows), true
		for i := range res.valid {
			res.valid[i] = l.valid[i] && r.valid[i]
		}
	case l.valid != nil:
		res.valid = l.valid
	case r.valid != nil:
		res.valid = r.valid
	}
	return res
}

// litBits is the bit length of |c|.
func litBits(c int64) int {
	if c == math.MinInt64 {
		return 64
	}
	if c < 0 {
		c = -c
	}
	return bits.Len64(uint64(c))
}

// fitsBound says whether every value of at most b bits (b <= 62) is
// within a step's bound: |v| < 2^b <= bound.
func fitsBound(b int, bound int64) bool { return int64(1)<<b <= bound }

// addSub64Fast is addSub64 when the operands' bounds keep every result
// within the int64 lane and the bound: no check per row.
func addSub64Fast(out, xs, ys []int64, xc, yc int64, n *d64Node) {
	m1, m2 := n.m1, n.m2
	if n.op == Sub {
		m2 = -m2
	}
	switch {
	case xs != nil && ys != nil:
		ys = ys[:len(xs)]
		out = out[:len(xs)]
		if m1 == 1 && m2 == 1 {
			for i, x := range xs {
				out[i] = x + ys[i]
			}
			return
		}
		for i, x := range xs {
			out[i] = x*m1 + ys[i]*m2
		}
	case xs != nil:
		c := yc * m2
		out = out[:len(xs)]
		if m1 == 1 {
			for i, x := range xs {
				out[i] = x + c
			}
			return
		}
		for i, x := range xs {
			out[i] = x*m1 + c
		}
	default:
		c := xc * m1
		out = out[:len(ys)]
		if m2 == 1 || m2 == -1 {
			if m2 == -1 {
				for i, y := range ys {
					out[i] = c - y
				}
				return
			}
			for i, y := range ys {
				out[i] = c + y
			}
			return
		}
		for i, y := range ys {
			out[i] = c + y*m2
		}
	}
}

// mul64Fast is mul64 when the operands' bounds keep every product within
// the int64 lane and the bound.
func mul64Fast(out, xs, ys []int64, xc, yc int64) {
	switch {
	case xs != nil && ys != nil:
		ys = ys[:len(xs)]
		out = out[:len(xs)]
		for i, x := range xs {
			out[i] = x * ys[i]
		}
	case xs != nil:
		out = out[:len(xs)]
		for i, x := range xs {
			out[i] = x * yc
		}
	default:
		out = out[:len(ys)]
		for i, y := range ys {
			out[i] = xc * y
		}
	}
}

// addSub64 computes x·m1 ± y·m2 (xs or ys nil: the constant xc or yc)
// into out; true when some row leaves the int64 lane or the bound.
func addSub64(out, xs, ys []int64, xc, yc int64, n *d64Node) bool {
	m1, m2, lim1, lim2, bound := n.m1, n.m2, n.lim1, n.lim2, n.bound
	sub := n.op == Sub
	bad := false
	if xs == nil && (xc > lim1 || xc < -lim1) || ys == nil && (yc > lim2 || yc < -lim2) {
		return true
	}
	for i := range out {
		x, y := xc, yc
		if xs != nil {
			x = xs[i]
		}
		if ys != nil {
			y = ys[i]
		}
		bad = bad || x > lim1 || x < -lim1 || y > lim2 || y < -lim2
		v := x*m1 + y*m2
		if sub {
			v = x*m1 - y*m2
		}
		bad = bad || v >= bound || v <= -bound
		out[i] = v
	}
	return bad
}

// mul64 computes x·y into out; true when some product leaves the int64
// lane or the bound.
func mul64(out, xs, ys []int64, xc, yc int64, bound int64) bool {
	bad := false
	for i := range out {
		x, y := xc, yc
		if xs != nil {
			x = xs[i]
		}
		if ys != nil {
			y = ys[i]
		}
		ux, uy := uint64(x), uint64(y)
		if x < 0 {
			ux = -ux
		}
		if y < 0 {
			uy = -uy
		}
		hi, lo := bits.Mul64(ux, uy)
		v := int64(lo)
		if (x < 0) != (y < 0) {
			v = -v
		}
		bad = bad || hi != 0 || lo >= 1<<63 || v >= bound || v <= -bound
		out[i] = v
	}
	return bad
}
