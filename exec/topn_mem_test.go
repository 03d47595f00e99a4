package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// streamSource yields batches rows at a time, built on demand: it holds
// one batch at once, as a real scan does. Row i has k = total-i (so every
// batch brings new smallest keys) and a 200-byte pad.
type streamSource struct {
	batches, rows int
}

var streamSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "pad", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func (s streamSource) Schema() *arrow.Schema { return streamSchema }
func (s streamSource) Open(_ context.Context, mem memory.Allocator) (array.RecordReader, error) {
	i := 0
	total := s.batches * s.rows
	return newPullReader(context.Background(), streamSchema, func() (arrow.RecordBatch, error) {
		if i == s.batches {
			return nil, nil
		}
		b := array.NewRecordBuilder(mem, streamSchema)
		defer b.Release()
		for r := 0; r < s.rows; r++ {
			n := i*s.rows + r
			b.Field(0).(*array.Int64Builder).Append(int64(total - n))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%s%08d", strings.Repeat("p", 192), n))
		}
		i++
		return b.NewRecordBatch(), nil
	}, nil), nil
}

// drainPeak runs op under a statement account and returns the rows and the
// most bytes held at once.
func drainPeak(t *testing.T, op Operator) ([][]string, int64) {
	t.Helper()
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	mem := memlimit.New(parent, 1<<40, "exec_mem_limit")
	rows, err := runEnv(&Env{Mem: mem, Now: time.Now()}, op)
	if err != nil {
		t.Fatal(err)
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still held", mem.Used())
	}
	return rows, mem.Peak()
}

// Issue 13: TopN holds its N rows, not the input batches they came from.
// Every batch of this input brings new best rows, so a TopN that keeps the
// batches its heap points into held up to 33 of them.
func TestTopNHoldsOnlyItsRows(t *testing.T) {
	src := streamSource{batches: 64, rows: 1000}
	scan := func() Operator { return NewScan("VOlapScanNode", "t", src) }
	_, scanPeak := drainPeak(t, scan())
	k := expr.Col(0, "k", arrow.PrimitiveTypes.Int64)
	top := must(NewTopN(scan(), []SortKey{{Expr: k}}, 2, 10))
	rows, peak := drainPeak(t, top)
	if len(rows) != 10 || rows[0][0] != "3" || rows[9][0] != "12" {
		t.Fatalf("top 10 after 2: %v", rows)
	}
	t.Logf("scan alone peaks at %d bytes, LIMIT 10 top-n at %d", scanPeak, peak)
	if peak > 4*scanPeak {
		t.Fatalf("top-n of 10 rows held %d bytes, %.1f times a scan's", peak, float64(peak)/float64(scanPeak))
	}
}
