package exec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
)

// failingReader yields one batch and then fails, like a scan whose
// connection drops.
type failingReader struct {
	array.RecordReader
	n int
}

var errSourceBroke = errors.New("source broke")

func (f *failingReader) Next() bool {
	f.n++
	if f.n > 1 {
		return false
	}
	return f.RecordReader.Next()
}

func (f *failingReader) Err() error {
	if f.n > 1 {
		return errSourceBroke
	}
	return nil
}

func failingScan(s *arrow.Schema, rows [][]any) *Scan {
	return NewScan("VSCAN", "broken", SourceFunc(s, func(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
		rr, err := memSource{schema: s, groups: [][][]any{rows}}.Open(ctx, mem)
		if err != nil {
			return nil, err
		}
		return &failingReader{RecordReader: rr}, nil
	}))
}

// TestErrorsReleaseEverything runs every operator over a source that fails
// after its first batch: the error must surface and no memory may leak.
func TestErrorsReleaseEverything(t *testing.T) {
	s := sch("k", expr.Int64T(), "v", expr.StringT())
	bad := failingScan(s, [][]any{{1, "a"}, {2, "b"}, {nil, "c"}})
	good := scanOf(s, [][]any{{1, "x"}})
	k := expr.Col(0, "k", expr.Int64T())
	ops := map[string]Operator{
		"filter":     must(NewFilter(bad, must(expr.Cmp(expr.Gt, k, expr.Int(0))))),
		"project":    must(NewProject(bad, []expr.Expr{k}, []string{"k"})),
		"limit":      NewLimit(bad, 1, 10),
		"aggregate":  must(NewHashAggregate(bad, []expr.Expr{k}, []string{"k"}, []AggCall{{Func: CountStar, Name: "n"}}, AggSingle)),
		"distinct":   NewDistinct(bad),
		"union":      must(NewUnion([]Operator{good, bad}, false)),
		"sort":       must(NewSort(bad, []SortKey{{Expr: k}})),
		"topn":       must(NewTopN(bad, []SortKey{{Expr: k}}, 0, 2)),
		"join probe": must(NewHashJoin(bad, good, LeftOuterJoin, []expr.Expr{k}, []expr.Expr{k}, nil)),
		"join build": must(NewHashJoin(good, bad, InnerJoin, []expr.Expr{k}, []expr.Expr{k}, nil)),
		"window":     must(NewWindow(bad, nil, []SortKey{{Expr: k}}, []WindowCall{{Func: RowNumber, Name: "rn"}})),
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			env, mem := newEnv(t)
			defer mem.AssertSize(t, 0)
			_, err := runEnv(env, op)
			if !errors.Is(err, errSourceBroke) || !strings.Contains(err.Error(), "broken") {
				t.Fatalf("err = %v, want the source's error naming the scan", err)
			}
		})
	}
}
