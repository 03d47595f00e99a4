package local

import (
	"context"
	"math"
	"math/bits"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

var (
	_ catalog.RowCounter    = (*Table)(nil)
	_ catalog.ColumnStatser = (*Table)(nil)
	_ catalog.Analyzer      = (*Table)(nil)
)

// RowCount implements catalog.RowCounter from the segment list, which every
// commit keeps current, so it costs no scan. Rows of a UNIQUE KEY table are
// stored versions (an upper bound of the merged count) and DELETE
// predicates are not subtracted: a planning hint, not an answer.
func (t *Table) RowCount(context.Context) (int64, error) {
	rows, _, err := t.Stats()
	if err != nil {
		return -1, nil
	}
	return rows, nil
}

// ColumnStats implements catalog.ColumnStatser: what the last ANALYZE
// stored, nil before the first.
func (t *Table) ColumnStats(context.Context) (*catalog.TableStats, error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	m, err := t.lookup()
	if err != nil {
		return nil, err
	}
	return m.Stats, nil
}

// Analyze implements catalog.Analyzer: one full scan computes every
// column's count, NDV (a HyperLogLog sketch), null count, size and bounds,
// and a checkpoint stores them with the table's metadata. The scan takes no
// lock, so loads go on meanwhile; the stored row count is what the scan saw.
func (t *Table) Analyze(ctx context.Context, mem memory.Allocator) (*catalog.TableStats, error) {
	return t.analyzeWith(ctx, mem, false)
}

// analyze is auto analyze's ANALYZE: with the catalog's allocator, and
// only if the statistics are still stale once it has the table's turn.
func (t *Table) analyze(ctx context.Context, onlyStale bool) (*catalog.TableStats, error) {
	return t.analyzeWith(ctx, t.c.mem, onlyStale)
}

func (t *Table) analyzeWith(ctx context.Context, mem memory.Allocator, onlyStale bool) (*catalog.TableStats, error) {
	l := t.c.analyzeLock(t.id)
	l.Lock()
	defer l.Unlock()
	if onlyStale {
		t.c.mu.Lock()
		m, err := t.lookup()
		stale := err == nil && m.statsStale()
		t.c.mu.Unlock()
		if !stale {
			return nil, err
		}
	}
	cols := make([]int, len(t.schema.Columns))
	for i := range cols {
		cols[i] = i
	}
	rr, err := t.Scan(ctx, catalog.ScanRequest{Columns: cols, Mem: mem})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	acc := make([]*colAcc, len(cols))
	for i := range acc {
		acc[i] = newColAcc()
	}
	var rows int64
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec := rr.RecordBatch()
		rows += rec.NumRows()
		for i := range acc {
			acc[i].add(rec.Column(i))
		}
	}
	if err := rr.Err(); err != nil {
		return nil, err
	}
	st := &catalog.TableStats{Rows: rows, UpdatedMS: time.Now().UnixMilli(), Columns: map[string]catalog.ColumnStats{}}
	for i, c := range t.schema.Columns {
		st.Columns[c.Name] = acc[i].result()
	}
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := t.lookup(); err != nil {
		return nil, err
	}
	next := c.clone()
	for _, nd := range next.Databases {
		if nd.ID != t.db.id {
			continue
		}
		for _, tm := range nd.Tables {
			if tm.ID == t.id {
				tm.Stats, tm.StatsStored = st, tm.storedRows()
			}
		}
	}
	if err := c.commit(next); err != nil {
		return nil, err
	}
	return st, nil
}

// hllBits is the HyperLogLog precision: 2^12 registers, about 1.6%
// standard error, 4 KiB per column while ANALYZE runs.
const hllBits = 12

// strHash is FNV-1a, mixed: a fixed function (not maphash's random seed)
// so ANALYZE of the same rows gives the same NDV in every process, and
// plans chosen from it are reproducible.
func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// colAcc accumulates one column's statistics over batches.
type colAcc struct {
	count, nulls, size int64
	reg                [1 << hllBits]uint8
	lo, hi             float64
	min, max           string
	strLo, strHi       string
	hasStr, hasNum     bool
}

func newColAcc() *colAcc { return &colAcc{lo: math.Inf(1), hi: math.Inf(-1)} }

func mix(x uint64) uint64 {
	// splitmix64's finaliser: spreads integer keys over all 64 bits.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (a *colAcc) hash(h uint64) {
	i := h >> (64 - hllBits)
	r := uint8(bits.LeadingZeros64(h<<hllBits|1<<(hllBits-1)) + 1)
	if r > a.reg[i] {
		a.reg[i] = r
	}
}

// num records a numeric value at row i of arr, keeping the text of the
// bounds for display.
func (a *colAcc) num(v float64, arr arrow.Array, i int) {
	a.hasNum = true
	if v < a.lo {
		a.lo, a.min = v, arr.ValueStr(i)
	}
	if v > a.hi {
		a.hi, a.max = v, arr.ValueStr(i)
	}
}

func (a *colAcc) str(s string) {
	a.size += int64(len(s))
	a.hash(strHash(s))
	if !a.hasStr || s < a.strLo {
		a.strLo = s
	}
	if !a.hasStr || s > a.strHi {
		a.strHi = s
	}
	a.hasStr = true
}

func (a *colAcc) add(arr arrow.Array) {
	n := arr.Len()
	a.count += int64(n)
	a.nulls += int64(arr.NullN())
	valid := func(i int) bool { return arr.NullN() == 0 || arr.IsValid(i) }
	// Bounds per batch first, their text only for the batch's extremes.
	bound := func(get func(i int) float64) {
		lo, hi, li, hj := math.Inf(1), math.Inf(-1), -1, -1
		for i := range n {
			if !valid(i) {
				continue
			}
			v := get(i)
			a.hash(mix(math.Float64bits(v)))
			if v < lo {
				lo, li = v, i
			}
			if v > hi {
				hi, hj = v, i
			}
		}
		if li >= 0 {
			a.num(lo, arr, li)
			a.num(hi, arr, hj)
		}
	}
	switch x := arr.(type) {
	case *array.Int8:
		a.size += int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Int16:
		a.size += 2 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Int32:
		a.size += 4 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Int64:
		a.size += 8 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Uint8:
		a.size += int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Uint16:
		a.size += 2 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Uint32:
		a.size += 4 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Uint64:
		a.size += 8 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Float32:
		a.size += 4 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Float64:
		a.size += 8 * int64(n)
		bound(func(i int) float64 { return x.Value(i) })
	case *array.Date32:
		a.size += 4 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Date64:
		a.size += 8 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Timestamp:
		a.size += 8 * int64(n)
		bound(func(i int) float64 { return float64(x.Value(i)) })
	case *array.Boolean:
		a.size += int64(n)
		bound(func(i int) float64 {
			if x.Value(i) {
				return 1
			}
			return 0
		})
	case *array.Decimal128:
		a.size += 16 * int64(n)
		scale := x.DataType().(*arrow.Decimal128Type).Scale
		bound(func(i int) float64 { return x.Value(i).ToFloat64(scale) })
	case *array.String:
		for i := range n {
			if valid(i) {
				a.str(x.Value(i))
			}
		}
	case *array.LargeString:
		for i := range n {
			if valid(i) {
				a.str(x.Value(i))
			}
		}
	case *array.Binary:
		for i := range n {
			if valid(i) {
				a.str(string(x.Value(i)))
			}
		}
	default:
		// Nested and rare types: distinct values by their text, no bounds.
		for i := range n {
			if valid(i) {
				s := arr.ValueStr(i)
				a.size += int64(len(s))
				a.hash(strHash(s))
			}
		}
	}
}

// ndv is the HyperLogLog estimate, with linear counting for small ones.
func (a *colAcc) ndv() int64 {
	const m = float64(1 << hllBits)
	sum, zeros := 0.0, 0
	for _, r := range a.reg {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	est := 0.7213 / (1 + 1.079/m) * m * m / sum
	if est <= 2.5*m && zeros > 0 {
		est = m * math.Log(m/float64(zeros))
	}
	return min(int64(math.Round(est)), a.count-a.nulls)
}

func (a *colAcc) result() catalog.ColumnStats {
	cs := catalog.ColumnStats{Count: a.count, NDV: a.ndv(), Nulls: a.nulls, DataSize: a.size}
	switch {
	case a.hasNum:
		cs.Numeric, cs.Lo, cs.Hi, cs.Min, cs.Max = true, a.lo, a.hi, a.min, a.max
	case a.hasStr:
		cs.Min, cs.Max = "'"+a.strLo+"'", "'"+a.strHi+"'"
	}
	return cs
}
