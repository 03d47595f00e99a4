package exec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// TestDistinctEstimate: linear counting is within 5% of the distinct
// keys, with and without duplicates, for each type it reads.
func TestDistinctEstimate(t *testing.T) {
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	for _, c := range []struct {
		name     string
		n, dups  int
		stride   int64
		typ      arrow.DataType
		distinct int
	}{
		{"int64 distinct", 150000, 1, 40, arrow.PrimitiveTypes.Int64, 150000},
		{"int64 four each", 600000, 4, 1, arrow.PrimitiveTypes.Int64, 150000},
		{"int32 distinct", 1000000, 1, 3, arrow.PrimitiveTypes.Int32, 1000000},
		{"date32 few", 100000, 1000, 1, arrow.FixedWidthTypes.Date32, 100},
	} {
		b := array.NewBuilder(mem, c.typ)
		for i := range c.n {
			v := int64(i/c.dups) * c.stride
			switch bb := b.(type) {
			case *array.Int64Builder:
				bb.Append(v)
			case *array.Int32Builder:
				bb.Append(int32(v))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(v))
			}
		}
		a := b.NewArray()
		b.Release()
		got, ok := distinctEstimate(env, a)
		a.Release()
		if !ok || got < c.distinct*95/100 || got > c.distinct*105/100 {
			t.Errorf("%s: estimated %d (%v), want %d within 5%%", c.name, got, ok, c.distinct)
		}
	}
}

// TestJoinBuildSized: a build side of spread integer keys (an intTable,
// not a direct array), four rows a key, gets a table sized from the
// estimated keys, not from its rows, which the keys go in without
// growing it, and joins right.
func TestJoinBuildSized(t *testing.T) {
	s := sch("k", arrow.PrimitiveTypes.Int64)
	var build, probe [][]any
	for range 4 {
		for i := range 40000 {
			build = append(build, []any{int64(i) * 100})
		}
	}
	for i := range 20000 {
		probe = append(probe, []any{int64(i) * 50}) // the even ones match
	}
	k := []expr.Expr{expr.Col(0, "k", arrow.PrimitiveTypes.Int64)}
	j := must(NewHashJoin(scanOf(s, probe), scanOf(s, build), InnerJoin, k, k, nil))
	env, mem := newEnv(t)
	side, err := j.build(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	// 40000 keys: 2^17 slots hold them under half full; sized from the
	// 160000 rows the table would have 2^18.
	if g := side.table; g.ints == nil {
		t.Errorf("build table is not an intTable")
	} else if want := 1 << 17; len(g.ints.slots) != want {
		t.Errorf("table has %d slots, want %d", len(g.ints.slots), want)
	}
	side.release()
	mem.AssertSize(t, 0)
	if got, want := len(run(t, j)), 10000*4; got != want {
		t.Errorf("join has %d rows, want %d", got, want)
	}
}

// TestJoinBuildMemLimit: a join whose build side comes in many batches
// (merged into one as they are read) at limits from its peak down: each
// run gives the whole answer or the limit's error, holds no byte after,
// and the lowest limits are refused.
func TestJoinBuildMemLimit(t *testing.T) {
	s := sch("k", arrow.PrimitiveTypes.Int64, "v", arrow.BinaryTypes.String)
	var groups [][][]any
	for g := range 8 {
		var rows [][]any
		for i := range 200 {
			rows = append(rows, []any{g*200 + i, "value-of-some-length"})
		}
		groups = append(groups, rows)
	}
	k := []expr.Expr{expr.Col(0, "k", arrow.PrimitiveTypes.Int64)}
	drain := func(limit int64) (rows int64, peak int64, err error) {
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer parent.AssertSize(t, 0)
		mem := memlimit.New(parent, limit, "exec_mem_limit")
		j := must(NewHashJoin(scanOf(s, groups[:2]...), scanOf(s, groups...), InnerJoin, k, k, nil))
		rr, err := j.Open(context.Background(), &Env{Mem: mem, Now: time.Now()})
		if err == nil {
			for rr.Next() {
				rows += rr.RecordBatch().NumRows()
			}
			err = rr.Err()
			rr.Release()
		}
		if errors.Is(err, memlimit.ErrExceeded) {
			mem.Sweep()
		}
		if mem.Used() != 0 {
			t.Errorf("limit %d: %d bytes still held", limit, mem.Used())
		}
		return rows, mem.Peak(), err
	}
	n, peak, err := drain(1 << 40)
	if err != nil || n != 400 {
		t.Fatalf("unlimited: %d rows, %v", n, err)
	}
	refused := 0
	for f := int64(15); f >= 1; f-- {
		limit := peak * f / 16
		n, _, err := drain(limit)
		var e *memlimit.Exceeded
		switch {
		case err == nil && n == 400:
		case errors.As(err, &e) && e.Limit == limit:
			refused++
		default:
			t.Fatalf("limit %d: %d rows, err %v", limit, n, err)
		}
	}
	if refused == 0 {
		t.Fatal("no limit below the peak was refused")
	}
}
