package exec

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/exec/memlimit"
)

// TopN is ORDER BY keys LIMIT count OFFSET offset without sorting
// everything: a bounded heap keeps the offset+count best rows seen so far,
// and only the input batches holding heap rows stay referenced; they are
// compacted into one batch of the heap rows as soon as they hold more than
// twice as many rows, so memory follows N, not the input.
type TopN struct {
	Input         Operator
	Keys          []SortKey
	Offset, Count int64
}

// NewTopN is ORDER BY keys LIMIT count OFFSET offset (count >= 0).
func NewTopN(input Operator, keys []SortKey, offset, count int64) (*TopN, error) {
	if len(keys) == 0 || count < 0 {
		return nil, errorf(ErrPlan, "top-n needs keys and a limit")
	}
	if err := checkSortKeys(keys); err != nil {
		return nil, err
	}
	return &TopN{Input: input, Keys: keys, Offset: max(offset, 0), Count: count}, nil
}

func (t *TopN) Schema() *arrow.Schema { return t.Input.Schema() }
func (t *TopN) Children() []Operator  { return []Operator{t.Input} }
func (t *TopN) Explain() string {
	return "VTOP-N\norder by: " + sortKeyList(t.Keys) + "\nlimit: " + strconv.FormatInt(t.Count, 10) + "\noffset: " + strconv.FormatInt(t.Offset, 10)
}

// topEntryBytes approximates a heap entry's Go memory besides its key.
const topEntryBytes = 64

type topEntry struct {
	key   []byte
	seq   int64 // arrival order: ties keep input order
	batch int
	row   int
}

// topHeap is a max-heap: the worst kept row is on top.
type topHeap []topEntry

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].key, h[j].key); c != 0 {
		return c > 0
	}
	return h[i].seq > h[j].seq
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(topEntry)) }
func (h *topHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (t *TopN) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	k := t.Offset + t.Count
	if t.Count == 0 {
		return newPullReader(ctx, t.Schema(), func() (arrow.RecordBatch, error) { return nil, nil }, nil), nil
	}
	in, err := OpenOp(ctx, env, t.Input)
	if err != nil {
		return nil, err
	}
	var out arrow.RecordBatch
	var sorted array.RecordReader // the spilling sort the rows went to
	done := false
	var next func() (arrow.RecordBatch, error)
	next = func() (arrow.RecordBatch, error) {
		if sorted != nil {
			if sorted.Next() {
				b := sorted.RecordBatch()
				b.Retain()
				return b, nil
			}
			return nil, sorted.Err()
		}
		if done {
			return nil, nil
		}
		done = true
		var err error
		out, sorted, err = t.compute(ctx, env, in, k)
		if sorted != nil {
			in = nil // the sort reads the rest of it
			return next()
		}
		in.Release()
		in = nil
		if err != nil || out == nil {
			return nil, err
		}
		o := out
		out = nil
		return o, nil
	}
	closeFn := func() {
		if in != nil {
			in.Release()
		}
		if out != nil {
			out.Release()
		}
		if sorted != nil {
			sorted.Release()
		}
	}
	return newPullReader(ctx, t.Schema(), next, closeFn), nil
}

// compute returns the result batch, or, when the kept rows pass the
// operator's share of exec_mem_limit and the statement may spill, the
// output of a spilling sort (spill_sort.go) over the kept rows and the
// rest of in, which then owns in.
func (t *TopN) compute(ctx context.Context, env *Env, in array.RecordReader, k int64) (arrow.RecordBatch, array.RecordReader, error) {
	sp := spillOf(ctx)
	h := &topHeap{}
	var batches []arrow.RecordBatch // nil once a batch holds no heap row
	defer func() {
		for _, b := range batches {
			if b != nil {
				b.Release()
			}
		}
	}()
	var seq int64
	var scratch []byte
	live := 0
	// held is the rows of the batches kept; once they are more than twice
	// the heap (and more than one batch), the heap rows are gathered into
	// one batch, so memory stays near the N kept rows whatever the input.
	var held int64
	// keyBytes is the heap's Go memory (keys and entries), counted against
	// the statement until the end.
	var keyBytes, charged int64
	defer func() { memlimit.Refund(env.Mem, charged) }()
	// compacted is the batch of heap rows the last compaction made (in
	// heap order, not input order), -1 before one.
	compacted := -1
	for in.Next() {
		b := in.RecordBatch()
		keyCols := make([]arrow.Array, len(t.Keys))
		for i, key := range t.Keys {
			a, err := key.Expr.Eval(env, b)
			if err != nil {
				releaseArrays(keyCols)
				return nil, nil, err
			}
			keyCols[i] = a
		}
		bi := len(batches)
		used := false
		for r := 0; r < int(b.NumRows()); r++ {
			scratch = scratch[:0]
			for i, key := range t.Keys {
				scratch = appendSortKey(scratch, keyCols[i], r, key)
			}
			if int64(h.Len()) < k {
				heap.Push(h, topEntry{key: bytes.Clone(scratch), seq: seq, batch: bi, row: r})
				keyBytes += int64(len(scratch)) + topEntryBytes
				used = true
			} else if bytes.Compare(scratch, (*h)[0].key) < 0 {
				keyBytes += int64(len(scratch) - len((*h)[0].key))
				(*h)[0] = topEntry{key: bytes.Clone(scratch), seq: seq, batch: bi, row: r}
				heap.Fix(h, 0)
				used = true
			}
			seq++
		}
		releaseArrays(keyCols)
		if used {
			b.Retain()
			batches = append(batches, b)
			live++
			held += b.NumRows()
		} else {
			batches = append(batches, nil)
		}
		if sp != nil && t.tooLarge(env, batches, held, int64(h.Len()), keyBytes) {
			r, err := t.spillSort(ctx, env, batches, *h, compacted, in)
			return nil, r, err
		}
		if keyBytes > charged {
			memlimit.Charge(env.Mem, keyBytes-charged)
			charged = keyBytes
		}
		if live > 32 || (live > 1 && held > 2*int64(h.Len())) {
			// Too many partly used batches: gather the heap rows into one.
			c, err := t.gather(ctx, env, batches, *h, false)
			if err != nil {
				return nil, nil, err
			}
			for i, b := range batches {
				if b != nil {
					b.Release()
				}
				batches[i] = nil
			}
			for i := range *h {
				(*h)[i].batch = len(batches)
				// row is rewritten by gather to the row in c.
			}
			compacted = len(batches)
			batches = append(batches, c)
			live = 1
			held = c.NumRows()
		}
	}
	if err := in.Err(); err != nil {
		return nil, nil, err
	}
	if h.Len() == 0 {
		return nil, nil, nil
	}
	// Order the kept rows best first and drop the offset.
	entries := append(topHeap(nil), *h...)
	sortEntries(entries)
	if int64(len(entries)) <= t.Offset {
		return nil, nil, nil
	}
	entries = entries[t.Offset:]
	out, err := t.gather(ctx, env, batches, entries, true)
	return out, nil, err
}

func sortEntries(es topHeap) {
	slices.SortFunc(es, func(x, y topEntry) int {
		if c := bytes.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
}

// gather builds one batch of the entries' rows. With ordered unset it keeps
// entry order and rewrites each entry's row to its position in the result
// (compaction); with ordered set the entries are already in output order.
// Each batch gives up only its entries' rows before they are put together,
// so a compaction never copies whole batches.
func (t *TopN) gather(ctx context.Context, env *Env, batches []arrow.RecordBatch, entries topHeap, ordered bool) (arrow.RecordBatch, error) {
	// Rows wanted from each batch, in entry order.
	perBatch := map[int][]int64{}
	var order []int
	for _, e := range entries {
		if _, ok := perBatch[e.batch]; !ok {
			order = append(order, e.batch)
		}
		perBatch[e.batch] = append(perBatch[e.batch], int64(e.row))
	}
	var parts []arrow.RecordBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	base := map[int]int64{}
	var off int64
	for _, bi := range order {
		p, err := takeBatch(ctx, env, batches[bi], perBatch[bi])
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		base[bi] = off
		off += p.NumRows()
	}
	all, err := concatBatches(env, t.Schema(), parts)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	// Entry i's row in all: its batch's base plus how many of the batch's
	// entries came before it.
	seen := map[int]int64{}
	idx := make([]int64, len(entries))
	for i, e := range entries {
		idx[i] = base[e.batch] + seen[e.batch]
		seen[e.batch]++
	}
	out, err := takeBatch(ctx, env, all, idx)
	if err != nil {
		return nil, err
	}
	if !ordered {
		for i := range entries {
			entries[i].row = i
		}
	}
	return out, nil
}

// tooLarge says whether the kept rows (estimated as the heap's share of
// the batches held) and the heap's keys pass the operator's share of the
// limit: then a sort that spills does better than the heap.
func (t *TopN) tooLarge(env *Env, batches []arrow.RecordBatch, heldRows, heapRows, keyBytes int64) bool {
	if heldRows == 0 || heapRows == 0 {
		return false
	}
	var bytes int64
	for _, b := range batches {
		if b != nil {
			bytes += memlimit.BatchBytes(b)
		}
	}
	return spillNeeded(env, bytes*heapRows/heldRows+keyBytes)
}

// spillSort hands the batches holding the heap's rows, in input order
// (so the sort keeps ties as the heap would), and the rest of in to a
// sort that spills, under a limit of the offset and count. A row of
// those batches not in the heap is worse than N others: it cannot come
// out. The compacted batch is put back in input order first.
func (t *TopN) spillSort(ctx context.Context, env *Env, batches []arrow.RecordBatch, h topHeap, compacted int, in array.RecordReader) (array.RecordReader, error) {
	src := &chainOp{schema: t.Schema()}
	fail := func(err error) (array.RecordReader, error) {
		src.release()
		return nil, err
	}
	for bi, b := range batches {
		if b == nil {
			continue
		}
		if bi != compacted {
			b.Retain()
			src.first = append(src.first, b)
			continue
		}
		var mine topHeap
		for _, e := range h {
			if e.batch == bi {
				mine = append(mine, e)
			}
		}
		slices.SortFunc(mine, func(x, y topEntry) int { return cmp.Compare(x.seq, y.seq) })
		idx := make([]int64, len(mine))
		for i, e := range mine {
			idx[i] = int64(e.row)
		}
		c, err := takeBatch(ctx, env, b, idx)
		if err != nil {
			return fail(err)
		}
		src.first = append(src.first, c)
	}
	src.rest = in
	r, err := NewLimit(&Sort{Input: src, Keys: t.Keys}, t.Offset, t.Count).Open(ctx, env)
	if err != nil {
		src.rest = nil // in stays the caller's
		return fail(err)
	}
	return r, nil
}

// chainOp reads its batches and then an open reader, once; it owns them.
type chainOp struct {
	schema *arrow.Schema
	first  []arrow.RecordBatch
	rest   array.RecordReader
}

func (c *chainOp) Schema() *arrow.Schema { return c.schema }
func (c *chainOp) Children() []Operator  { return nil }
func (c *chainOp) Explain() string       { return "VBUFFERED ROWS" }

func (c *chainOp) release() {
	for _, b := range c.first {
		b.Release()
	}
	c.first = nil
	if c.rest != nil {
		c.rest.Release()
		c.rest = nil
	}
}

func (c *chainOp) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	next := func() (arrow.RecordBatch, error) {
		if len(c.first) > 0 {
			b := c.first[0]
			c.first = c.first[1:]
			return b, nil
		}
		if c.rest == nil || !c.rest.Next() {
			if c.rest == nil {
				return nil, nil
			}
			return nil, c.rest.Err()
		}
		b := c.rest.RecordBatch()
		b.Retain()
		return b, nil
	}
	return newPullReader(ctx, c.schema, next, c.release), nil
}
