package exec

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Limit skips Offset rows and then passes at most Count rows (Count < 0:
// no limit). It streams and releases its input as soon as Count is met.
type Limit struct {
	Input         Operator
	Offset, Count int64
}

// NewLimit is LIMIT count OFFSET offset; count < 0 means no limit.
func NewLimit(input Operator, offset, count int64) *Limit {
	return &Limit{Input: input, Offset: max(offset, 0), Count: count}
}

func (l *Limit) Schema() *arrow.Schema { return l.Input.Schema() }
func (l *Limit) Children() []Operator  { return []Operator{l.Input} }
func (l *Limit) Explain() string {
	return "VLIMIT\nlimit: " + strconv.FormatInt(l.Count, 10) + "\noffset: " + strconv.FormatInt(l.Offset, 10)
}

func (l *Limit) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	if err := checkEnv(ctx, env); err != nil {
		return nil, err
	}
	if l.Count == 0 {
		return newPullReader(ctx, l.Schema(), func() (arrow.RecordBatch, error) { return nil, nil }, nil), nil
	}
	in, err := OpenOp(ctx, env, l.Input)
	if err != nil {
		return nil, err
	}
	skip, left := l.Offset, l.Count
	var closed bool
	closeIn := func() {
		if !closed {
			closed = true
			in.Release()
		}
	}
	next := func() (arrow.RecordBatch, error) {
		if left == 0 || closed {
			closeIn()
			return nil, nil
		}
		for in.Next() {
			b := in.RecordBatch()
			n := b.NumRows()
			if skip >= n {
				skip -= n
				continue
			}
			start := skip
			skip = 0
			end := n
			if left >= 0 && end-start > left {
				end = start + left
			}
			if left >= 0 {
				left -= end - start
			}
			if start == 0 && end == n {
				b.Retain()
				return b, nil
			}
			return b.NewSlice(start, end), nil
		}
		return nil, in.Err()
	}
	return newPullReader(ctx, l.Schema(), next, closeIn), nil
}
