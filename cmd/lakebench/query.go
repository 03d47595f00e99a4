package main

import (
	"context"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// query is one measured query: the columns Inlet reads, the predicate it
// pushes into the plan, and DuckDB's SQL over the same files (%s is the
// read_parquet file list). Answers are rendered as strings, integers in
// decimal and doubles in the shortest form, the way DuckDB's JS values print.
type query struct {
	name string
	cols []string
	pred *paimon.Predicate
	sql  string
	want func(rows int64) []string
}

// acc accumulates one reader goroutine's answer; merged after the reads.
type acc struct {
	count, sumID, sumK, sumLen int64
	sumV                       float64
	maxTS                      int64
	hasTS                      bool
}

func (a *acc) merge(b *acc) {
	a.count += b.count
	a.sumID += b.sumID
	a.sumK += b.sumK
	a.sumLen += b.sumLen
	a.sumV += b.sumV
	if b.hasTS && (!a.hasTS || b.maxTS > a.maxTS) {
		a.maxTS, a.hasTS = b.maxTS, true
	}
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
func fmtI(i int64) string   { return strconv.FormatInt(i, 10) }

func queries() []query {
	return []query{
		{name: "count(*), sum(v)", cols: []string{"v"},
			sql: "SELECT count(*), sum(v) FROM read_parquet(%s)",
			want: func(n int64) []string {
				w := wantOf(n, func(int64) bool { return true })
				return []string{fmtI(w.count), fmtF(w.sumV)}
			}},
		{name: "count(*), sum(id)", cols: []string{"id"},
			sql: "SELECT count(*), sum(id) FROM read_parquet(%s)",
			want: func(n int64) []string {
				w := wantOf(n, func(int64) bool { return true })
				return []string{fmtI(w.count), fmtI(w.sumID)}
			}},
		{name: "all five columns", cols: []string{"id", "k", "v", "s", "ts"},
			sql: "SELECT count(*), sum(id), sum(k), sum(v), sum(length(s)), epoch_us(max(ts)) FROM read_parquet(%s)",
			want: func(n int64) []string {
				w := wantOf(n, func(int64) bool { return true })
				return []string{fmtI(w.count), fmtI(w.sumID), fmtI(w.sumK), fmtF(w.sumV), fmtI(w.sumLen), fmtI(w.maxTS)}
			}},
		{name: "sum(v) WHERE k < 100", cols: []string{"v"}, pred: paimon.Lt("k", 100),
			sql: "SELECT sum(v) FROM read_parquet(%s) WHERE k < 100",
			want: func(n int64) []string {
				w := wantOf(n, func(i int64) bool { return kOf(i) < 100 })
				return []string{fmtF(w.sumV)}
			}},
	}
}

// wantOf derives the answers from the row definition (gen.go), row by row,
// without the writer or any reader.
func wantOf(n int64, keep func(int64) bool) acc {
	var a acc
	for i := int64(0); i < n; i++ {
		if !keep(i) {
			continue
		}
		a.count++
		a.sumID += i
		a.sumK += int64(kOf(i))
		if !vNull(i) {
			a.sumV += vOf(i)
		}
		a.sumLen += sLen
		a.maxTS, a.hasTS = max(a.maxTS, tsOf(i)), true
	}
	return a
}

// answer renders acc as q's result columns.
func (q *query) answer(a *acc) []string {
	switch len(q.cols) {
	case 5:
		return []string{fmtI(a.count), fmtI(a.sumID), fmtI(a.sumK), fmtF(a.sumV), fmtI(a.sumLen), fmtI(a.maxTS)}
	}
	if q.pred != nil {
		return []string{fmtF(a.sumV)}
	}
	if q.cols[0] == "id" {
		return []string{fmtI(a.count), fmtI(a.sumID)}
	}
	return []string{fmtI(a.count), fmtF(a.sumV)}
}

// runInlet plans the latest snapshot and reads every split with threads
// goroutines, summing each batch with typed loops.
func runInlet(ctx context.Context, dir string, q *query, threads int, mem memory.Allocator) ([]string, error) {
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		return nil, err
	}
	opts := paimon.ScanOptions{Predicate: q.pred}
	if threads > 1 {
		// Paimon packs small files into 128 MB splits: one split for the
		// whole table here. Smaller splits, and files cut into slices of
		// row groups (file_split_size), give every goroutine an even
		// share, as a parallel scan asks for.
		opts.Options = map[string]string{"source.split.target-size": "4 mb"}
		opts.FileSplitSize = 4 << 20
	}
	plan, err := tbl.Plan(ctx, opts)
	if err != nil {
		return nil, err
	}
	work := make(chan int)
	accs := make([]acc, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A scanner's buffers go from one split to its next.
			bufs := &paimon.ScanBuffers{}
			defer bufs.Release()
			for i := range work {
				if errs[t] != nil {
					continue
				}
				errs[t] = readSplit(ctx, plan, &plan.Splits[i], q.cols, mem, bufs, &accs[t])
			}
		}()
	}
	for i := range plan.Splits {
		work <- i
	}
	close(work)
	wg.Wait()
	var total acc
	for t := range accs {
		if errs[t] != nil {
			return nil, errs[t]
		}
		total.merge(&accs[t])
	}
	return q.answer(&total), nil
}

func readSplit(ctx context.Context, plan *paimon.Plan, s *paimon.Split, cols []string, mem memory.Allocator, bufs *paimon.ScanBuffers, a *acc) error {
	rr, err := plan.Open(ctx, s, mem, paimon.ReadOptions{Columns: cols, Buffers: bufs})
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		a.count += rec.NumRows()
		// By index: Schema().Fields() copies the fields, once a batch.
		for c := range int(rec.NumCols()) {
			if err := sumColumn(rec.ColumnName(c), rec.Column(c), a); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

// sumColumn folds one column into a with a loop typed to its array. NULL
// rows are skipped a validity byte (8 rows) at a time, as an engine's sum
// kernel does, not with a bit test per row.
func sumColumn(name string, col arrow.Array, a *acc) error {
	switch arr := col.(type) {
	case *array.Int64:
		if arr.NullN() == 0 {
			a.sumID += sumInts(arr.Int64Values())
		} else {
			a.sumID += sumValid[int64, int64](arr.Int64Values(), arr)
		}
	case *array.Int32:
		if arr.NullN() == 0 {
			a.sumK += sumInts(arr.Int32Values())
		} else {
			a.sumK += sumValid[int32, int64](arr.Int32Values(), arr)
		}
	case *array.Float64:
		a.sumV += sumValid[float64, float64](arr.Float64Values(), arr)
	case *array.String:
		offs := arr.ValueOffsets()
		if arr.NullN() == 0 {
			a.sumLen += int64(offs[arr.Len()] - offs[0])
			return nil
		}
		for i := 0; i < arr.Len(); i++ {
			if arr.IsValid(i) {
				a.sumLen += int64(offs[i+1] - offs[i])
			}
		}
	case *array.Timestamp:
		var scale, div int64 = 1, 1
		switch arr.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			scale = 1_000_000
		case arrow.Millisecond:
			scale = 1000
		case arrow.Nanosecond:
			div = 1000
		}
		// The largest value in the column's unit, converted once (the
		// conversion keeps order). Without NULLs a plain max loop, as
		// an engine's max kernel runs; the NullN call is hoisted (it is
		// a method call, too dear per row).
		var hi int64
		seen := false
		vals := arr.TimestampValues()
		if arr.NullN() == 0 {
			if len(vals) > 0 {
				hi, seen = int64(vals[0]), true
				for _, x := range vals[1:] {
					hi = max(hi, int64(x))
				}
			}
		} else {
			for i, x := range vals {
				if arr.IsValid(i) && (!seen || int64(x) > hi) {
					hi, seen = int64(x), true
				}
			}
		}
		if us := hi * scale / div; seen && (!a.hasTS || us > a.maxTS) {
			a.maxTS, a.hasTS = us, true
		}
	default:
		return fmt.Errorf("column %s: unexpected Arrow type %s", name, col.DataType())
	}
	return nil
}

// sumInts adds integers with four accumulators, so the adds do not wait
// on one another, as a compiled engine's sum loop runs (integer addition
// is associative; a float sum keeps its order, so its answer stays the
// one DuckDB and the closed form give).
func sumInts[T int32 | int64](vals []T) int64 {
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(vals); i += 4 {
		v := vals[i : i+4 : i+4]
		s0 += int64(v[0])
		s1 += int64(v[1])
		s2 += int64(v[2])
		s3 += int64(v[3])
	}
	for ; i < len(vals); i++ {
		s0 += int64(vals[i])
	}
	return s0 + s1 + s2 + s3
}

// sumValid adds the non-NULL values of vals (the values of arr).
func sumValid[T int32 | int64 | float64, R int64 | float64](vals []T, arr arrow.Array) R {
	var s R
	if arr.NullN() == 0 {
		for _, x := range vals {
			s += R(x)
		}
		return s
	}
	bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
	i := 0
	for ; i < len(vals) && (off+i)&7 != 0; i++ {
		if bitutil.BitIsSet(bm, off+i) {
			s += R(vals[i])
		}
	}
	for ; i+8 <= len(vals); i += 8 {
		b := bm[(off+i)>>3]
		if b == 0xFF {
			for _, x := range vals[i : i+8 : i+8] {
				s += R(x)
			}
			continue
		}
		for ; b != 0; b &= b - 1 {
			s += R(vals[i+bits.TrailingZeros8(b)])
		}
	}
	for ; i < len(vals); i++ {
		if bitutil.BitIsSet(bm, off+i) {
			s += R(vals[i])
		}
	}
	return s
}

// parquetList is the DuckDB list literal of the plan's data files.
func parquetList(ctx context.Context, dir string) (string, int64, error) {
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		return "", 0, err
	}
	plan, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		return "", 0, err
	}
	var parts []string
	var size int64
	for _, s := range plan.Splits {
		for _, f := range s.Files {
			parts = append(parts, "'"+strings.ReplaceAll(f.Path, "'", "''")+"'")
			size += f.Meta.FileSize
		}
	}
	return "[" + strings.Join(parts, ", ") + "]", size, nil
}
