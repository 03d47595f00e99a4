package exec

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// Issue 13: an operator whose work goes past the statement's memory limit
// ends its reader with the limit error (Next false, Err set) instead of
// panicking through its caller, and releases what it held.
func TestMemLimitEndsReader(t *testing.T) {
	s := sch("k", arrow.PrimitiveTypes.Int64, "v", arrow.BinaryTypes.String)
	var groups [][][]any
	for g := 0; g < 8; g++ {
		var rows [][]any
		for i := 0; i < 200; i++ {
			rows = append(rows, []any{g*200 + i, "value-of-some-length"})
		}
		groups = append(groups, rows)
	}
	plan := func() Operator {
		col := expr.Col(0, "k", arrow.PrimitiveTypes.Int64)
		return must(NewSort(scanOf(s, groups...), []SortKey{{Expr: col, Desc: true}}))
	}
	drain := func(limit int64) (rows int64, peak int64, err error) {
		parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer parent.AssertSize(t, 0)
		mem := memlimit.New(parent, limit, "exec_mem_limit")
		env := &Env{Mem: mem, Now: time.Now()}
		rr, err := plan().Open(context.Background(), env)
		if err != nil {
			return 0, 0, err
		}
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		err = rr.Err()
		rr.Release()
		if errors.Is(err, memlimit.ErrExceeded) {
			mem.Sweep()
		}
		if mem.Used() != 0 {
			t.Errorf("limit %d: %d bytes still held", limit, mem.Used())
		}
		return rows, mem.Peak(), err
	}
	n, peak, err := drain(1 << 40)
	if err != nil || n != 1600 {
		t.Fatalf("unlimited: %d rows, %v", n, err)
	}
	// Below the peak every run either finishes (the crossing allocation was
	// a source's or a compute kernel's, which count but never refuse) or
	// ends with the limit error; none panics, and the lowest limits fail.
	refused := 0
	for k := int64(15); k >= 1; k-- {
		limit := peak * k / 16
		n, _, err := drain(limit)
		var e *memlimit.Exceeded
		switch {
		case err == nil && n == 1600:
		case errors.As(err, &e) && e.Limit == limit && e.Variable == "exec_mem_limit":
			refused++
		default:
			t.Fatalf("limit %d: %d rows, err %v", limit, n, err)
		}
	}
	if refused == 0 {
		t.Fatal("no limit below the peak was refused")
	}
}
