package exec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/exec/render"
)

func newEnv(t testing.TB) (*Env, *memory.CheckedAllocator) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return &Env{Mem: mem, Now: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}, mem
}

func sch(fields ...any) *arrow.Schema {
	var fs []arrow.Field
	for i := 0; i < len(fields); i += 2 {
		fs = append(fs, arrow.Field{Name: fields[i].(string), Type: fields[i+1].(arrow.DataType), Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// mkBatch builds a batch from canonical Go values (int64, float64, string,
// bool, nil, ...); plain ints are accepted for integer columns.
func mkBatch(mem memory.Allocator, s *arrow.Schema, rows [][]any) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	apps := make([]func(any), s.NumFields())
	for i := range apps {
		apps[i] = expr.Appender(b.Field(i))
	}
	for _, r := range rows {
		for i, v := range r {
			if x, ok := v.(int); ok {
				v = int64(x)
			}
			apps[i](v)
		}
	}
	return b.NewRecordBatch()
}

// memSource yields the given row groups as separate batches.
type memSource struct {
	schema *arrow.Schema
	groups [][][]any
}

func (m memSource) Schema() *arrow.Schema { return m.schema }
func (m memSource) Open(_ context.Context, mem memory.Allocator) (array.RecordReader, error) {
	var bs []arrow.RecordBatch
	for _, g := range m.groups {
		bs = append(bs, mkBatch(mem, m.schema, g))
	}
	rr, err := array.NewRecordReader(m.schema, bs)
	for _, b := range bs {
		b.Release()
	}
	return rr, err
}

func scanOf(s *arrow.Schema, groups ...[][]any) *Scan {
	return NewScan("VOlapScanNode", "t", memSource{schema: s, groups: groups})
}

// run drains op and renders every value as the MySQL text protocol would.
func run(t testing.TB, op Operator) [][]string {
	t.Helper()
	env, mem := newEnv(t)
	defer mem.AssertSize(t, 0)
	rows, err := runEnv(env, op)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rows
}

func runEnv(env *Env, op Operator) ([][]string, error) {
	rr, err := op.Open(context.Background(), env)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	rows := [][]string{}
	for rr.Next() {
		b := rr.RecordBatch()
		if err := checkBatch("test", op.Schema(), b); err != nil {
			return nil, err
		}
		for i := 0; i < int(b.NumRows()); i++ {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = render.String(b.Column(c), i)
			}
			rows = append(rows, row)
		}
	}
	return rows, rr.Err()
}

func fmtRows(rows [][]string) string {
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(strings.Join(r, "|") + "\n")
	}
	return sb.String()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func wantRows(t *testing.T, got [][]string, want ...string) {
	t.Helper()
	w := ""
	for _, r := range want {
		w += r + "\n"
	}
	if g := fmtRows(got); g != w {
		t.Fatalf("rows:\n%s\nwant:\n%s", g, w)
	}
}
