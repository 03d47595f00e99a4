package exec

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// groupTable maps key tuples to dense group ids 0..n-1 and remembers each
// group's key values in builders, in first-seen order. NULL is a key value
// like any other, so all NULLs of a column fall in one group. A single
// integer-like key takes a map[int64] fast path; anything else is encoded
// into bytes.
type groupTable struct {
	types    []arrow.DataType
	keepKeys bool
	builders []array.Builder
	n        int

	intKey   bool
	ints     *intTable
	nullGID  int64 // group id of the NULL key, -1 if none yet
	bytesMap map[string]uint32
	scratch  []byte

	// mem is the statement's account; charged the Go memory of the table
	// counted against it so far (memlimit.Charge), refunded by release.
	mem     memory.Allocator
	charged int64
}

// Approximate Go memory of the hash tables, for the statement's account:
// an intTable slot, and a bytesMap entry besides its key bytes (string
// header, value, and the map's control bytes and spare slots).
const (
	intSlotBytes    = 16
	bytesEntryBytes = 40
)

// newGroupTable makes a table for keys of the given types. keepKeys says
// whether keyArrays will be called (aggregation); joins and DISTINCT only
// need the ids and skip the copies.
func newGroupTable(mem memory.Allocator, types []arrow.DataType, keepKeys bool) *groupTable {
	g := &groupTable{types: types, nullGID: -1, keepKeys: keepKeys, mem: mem}
	if keepKeys {
		for _, t := range types {
			g.builders = append(g.builders, array.NewBuilder(mem, t))
		}
	}
	if len(types) == 1 && intLike(types[0]) {
		g.intKey = true
		g.ints = newIntTable()
	} else {
		g.bytesMap = map[string]uint32{}
	}
	return g
}

func intLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.DATE32, arrow.TIMESTAMP, arrow.BOOL:
		return true
	}
	return false
}

func (g *groupTable) release() {
	for _, b := range g.builders {
		b.Release()
	}
	g.builders = nil
	memlimit.Refund(g.mem, g.charged)
	g.charged = 0
}

// charge counts the table's growth against the statement's account (it
// panics with memlimit's *Exceeded past the limit, like an allocation);
// grown is the bytes the map path added.
func (g *groupTable) charge(grown int64) {
	want := g.charged + grown
	if g.intKey {
		want = int64(len(g.ints.slots)) * intSlotBytes
	}
	if want > g.charged {
		memlimit.Charge(g.mem, want-g.charged)
		g.charged = want
	}
}

// ids assigns a group id to every row of keys (columns of one batch),
// creating groups as needed, and returns them in out (resized).
func (g *groupTable) ids(keys []arrow.Array, rows int, out []uint32) []uint32 {
	if cap(out) < rows {
		out = make([]uint32, rows)
	}
	out = out[:rows]
	if len(keys) == 0 {
		if g.n == 0 {
			g.n = 1
		}
		for i := range out {
			out[i] = 0
		}
		return out
	}
	if g.intKey {
		g.intIDs(keys[0], out)
		g.charge(0)
		return out
	}
	enc := make([]func(dst []byte, i int) []byte, len(keys))
	var apps []func(i int)
	for k, a := range keys {
		enc[k] = keyEncoder(a)
		if g.keepKeys {
			get, app := expr.Getter(a), expr.Appender(g.builders[k])
			apps = append(apps, func(i int) { app(get(i)) })
		}
	}
	var grown int64
	for i := 0; i < rows; i++ {
		buf := g.scratch[:0]
		for _, e := range enc {
			buf = e(buf, i)
		}
		g.scratch = buf
		id, ok := g.bytesMap[string(buf)]
		if !ok {
			id = uint32(g.n)
			g.n++
			g.bytesMap[string(buf)] = id
			grown += int64(len(buf)) + bytesEntryBytes
			for _, app := range apps {
				app(i)
			}
		}
		out[i] = id
	}
	g.charge(grown)
	return out
}

func (g *groupTable) intIDs(a arrow.Array, out []uint32) {
	var vals func(i int) int64
	switch x := a.(type) {
	case *array.Int64:
		v := x.Int64Values()
		vals = func(i int) int64 { return v[i] }
	case *array.Int32:
		v := x.Int32Values()
		vals = func(i int) int64 { return int64(v[i]) }
	default:
		get := expr.Getter(a)
		vals = func(i int) int64 {
			switch v := get(i).(type) {
			case int64:
				return v
			case arrow.Date32:
				return int64(v)
			case arrow.Timestamp:
				return int64(v)
			case bool:
				if v {
					return 1
				}
			}
			return 0
		}
	}
	hasNulls := a.NullN() > 0
	app := func(int) {}
	appNull := func() {}
	if g.keepKeys {
		b := g.builders[0]
		appNull = b.AppendNull
		if ib, ok := b.(*array.Int64Builder); ok {
			app = func(i int) { ib.Append(vals(i)) }
		} else {
			get, ap := expr.Getter(a), expr.Appender(b)
			app = func(i int) { ap(get(i)) }
		}
	}
	for i := range out {
		if hasNulls && a.IsNull(i) {
			if g.nullGID < 0 {
				g.nullGID = int64(g.n)
				g.n++
				appNull()
			}
			out[i] = uint32(g.nullGID)
			continue
		}
		id, inserted := g.ints.getOrInsert(vals(i), uint32(g.n))
		if inserted {
			g.n++
			app(i)
		}
		out[i] = id
	}
}

// keyArrays returns the key columns of all groups, in group-id order.
func (g *groupTable) keyArrays() []arrow.Array {
	out := make([]arrow.Array, len(g.builders))
	for i, b := range g.builders {
		out[i] = b.NewArray()
	}
	return out
}

// keyEncoder returns a function appending an unambiguous encoding of row i
// of a (a NULL tag, then a fixed-width value or a length-prefixed string).
func keyEncoder(a arrow.Array) func(dst []byte, i int) []byte {
	hasNulls := a.NullN() > 0
	wrap := func(f func(dst []byte, i int) []byte) func(dst []byte, i int) []byte {
		return func(dst []byte, i int) []byte {
			if hasNulls && a.IsNull(i) {
				return append(dst, 0)
			}
			return f(append(dst, 1), i)
		}
	}
	switch x := a.(type) {
	case *array.Int64:
		return wrap(func(dst []byte, i int) []byte { return binary.LittleEndian.AppendUint64(dst, uint64(x.Value(i))) })
	case *array.Int32:
		return wrap(func(dst []byte, i int) []byte { return binary.LittleEndian.AppendUint32(dst, uint32(x.Value(i))) })
	case *array.Float64:
		return wrap(func(dst []byte, i int) []byte {
			f := x.Value(i)
			if f == 0 {
				f = 0 // -0 and +0 group together
			}
			return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
		})
	case *array.String:
		return wrap(func(dst []byte, i int) []byte {
			s := x.Value(i)
			dst = binary.AppendUvarint(dst, uint64(len(s)))
			return append(dst, s...)
		})
	}
	get := expr.Getter(a)
	t := a.DataType()
	return wrap(func(dst []byte, i int) []byte {
		s := expr.KeyString(get(i), t)
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		return append(dst, s...)
	})
}

// lookup returns the group id of every row of keys, -1 where the key was
// never inserted. It adds no groups.
func (g *groupTable) lookup(keys []arrow.Array, rows int) []int32 {
	out := make([]int32, rows)
	if len(keys) == 0 {
		for i := range out {
			out[i] = int32(g.n) - 1 // the one group, or -1 when empty
		}
		return out
	}
	if g.intKey {
		a := keys[0]
		get := expr.Getter(a)
		var vals func(i int) (int64, bool)
		switch x := a.(type) {
		case *array.Int64:
			v := x.Int64Values()
			vals = func(i int) (int64, bool) { return v[i], true }
		default:
			vals = func(i int) (int64, bool) {
				switch v := get(i).(type) {
				case int64:
					return v, true
				case arrow.Date32:
					return int64(v), true
				case arrow.Timestamp:
					return int64(v), true
				case bool:
					if v {
						return 1, true
					}
					return 0, true
				}
				return 0, false
			}
		}
		for i := range out {
			out[i] = -1
			if a.IsNull(i) {
				continue
			}
			if v, ok := vals(i); ok {
				if id, hit := g.ints.get(v); hit {
					out[i] = int32(id)
				}
			}
		}
		return out
	}
	enc := make([]func(dst []byte, i int) []byte, len(keys))
	for k, a := range keys {
		enc[k] = keyEncoder(a)
	}
	for i := range out {
		buf := g.scratch[:0]
		for _, e := range enc {
			buf = e(buf, i)
		}
		g.scratch = buf
		if id, ok := g.bytesMap[string(buf)]; ok {
			out[i] = int32(id)
		} else {
			out[i] = -1
		}
	}
	return out
}
