package exec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/inlet-db/inlet/exec/memlimit"
)

// ErrSpill is the kind of every error writing or reading a spill file; the
// message names the file.
var ErrSpill = errors.New("spill to disk failed")

// SpillStats counts what a statement wrote to disk (for its profile and
// /metrics).
type SpillStats struct {
	Bytes atomic.Int64 // bytes written to spill files
	Files atomic.Int64 // spill files made
}

// spillConfig is a statement's spill setting (Doris enable_spill): the
// directory its files go to, which the caller owns and removes when the
// statement ends, however it ends.
type spillConfig struct {
	dir   string
	stats *SpillStats
	seq   *atomic.Int64 // numbers the files, shared by every level
	// level is how many times the rows at hand were partitioned already
	// (a grace join or aggregation recursing into one partition).
	level int
}

type spillKey struct{}

// WithSpill lets the hash join, hash aggregation and sort of the statement
// run under ctx write to files in dir (which must exist and belong to the
// statement) when they would pass their share of the statement's memory
// limit, instead of failing. stats, which may be nil, counts what they
// wrote.
func WithSpill(ctx context.Context, dir string, stats *SpillStats) context.Context {
	if stats == nil {
		stats = &SpillStats{}
	}
	return context.WithValue(ctx, spillKey{}, &spillConfig{dir: dir, stats: stats, seq: new(atomic.Int64)})
}

func spillOf(ctx context.Context) *spillConfig {
	c, _ := ctx.Value(spillKey{}).(*spillConfig)
	return c
}

// deeper is ctx for the work on one partition of rows partitioned at c's
// level; it shares the directory, the file numbering and the counters.
func (c *spillConfig) deeper(ctx context.Context) context.Context {
	return context.WithValue(ctx, spillKey{}, &spillConfig{dir: c.dir, stats: c.stats, seq: c.seq, level: c.level + 1})
}

// Spill budget: an operator may hold spillShareDiv-th of exec_mem_limit in
// rows it could write out; past it, or once the whole statement holds
// spillPressure of its limit, it spills (when it holds at least
// spillMinDiv-th: less would not relieve anything).
const (
	spillShareDiv = 4
	spillPressure = 0.55
	spillMinDiv   = 32
)

// spillNeeded says whether an operator holding held spillable bytes should
// write them out now.
func spillNeeded(env *Env, held int64) bool {
	used, limit, ok := memlimit.Usage(env.Mem)
	if !ok {
		return false
	}
	if held > limit/spillShareDiv {
		return true
	}
	return held > limit/spillMinDiv && float64(used) > spillPressure*float64(limit)
}

// spillBatchBytes is the size a spill file's batches aim at, so reading
// back a few files at once stays small against the limit.
func spillBatchBytes(env *Env) int64 {
	_, limit, ok := memlimit.Usage(env.Mem)
	if !ok {
		return 1 << 20
	}
	return max(16<<10, min(4<<20, limit/64))
}

// spillFile is one file of Arrow IPC stream batches of one schema, written
// once and then read once.
type spillFile struct {
	path   string
	schema *arrow.Schema
	f      *os.File
	buf    *bufio.Writer
	w      *ipc.Writer
	rows   int64
	cnt    *countWriter
	stats  *SpillStats
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// newSpillFile creates the next file of the statement's spill directory.
func (c *spillConfig) newSpillFile(env *Env, schema *arrow.Schema, what string) (*spillFile, error) {
	name := fmt.Sprintf("%s-%d-%06d.arrow", what, c.level, c.seq.Add(1))
	path := filepath.Join(c.dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: creating %s: %v", ErrSpill, path, unwrapPath(err))
	}
	c.stats.Files.Add(1)
	sf := &spillFile{path: path, schema: schema, f: f, buf: bufio.NewWriterSize(f, 256<<10), stats: c.stats}
	sf.cnt = &countWriter{w: sf.buf}
	sf.w = ipc.NewWriter(sf.cnt, ipc.WithSchema(schema), ipc.WithAllocator(memlimit.Lenient(env.Mem)))
	return sf, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write appends b (whose schema must be the file's).
func (s *spillFile) write(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		return nil
	}
	before := s.cnt.n
	if err := s.w.Write(b); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrSpill, s.path, unwrapPath(err))
	}
	s.rows += b.NumRows()
	s.stats.Bytes.Add(s.cnt.n - before)
	return nil
}

// writeAs appends b's columns under the file's schema (a batch may carry
// other field names or nullability than the plan's schema).
func (s *spillFile) writeAs(b arrow.RecordBatch) error {
	if b.Schema().Equal(s.schema) {
		return s.write(b)
	}
	rb := array.NewRecordBatch(s.schema, b.Columns(), b.NumRows())
	defer rb.Release()
	return s.write(rb)
}

// finish flushes and closes the file for writing.
func (s *spillFile) finish() error {
	if s.f == nil {
		return nil
	}
	err := s.w.Close()
	if err == nil {
		err = s.buf.Flush()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrSpill, s.path, unwrapPath(err))
	}
	return nil
}

// remove closes (if open) and deletes the file.
func (s *spillFile) remove() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	os.Remove(s.path)
}

// spillScan is an operator that reads a finished spill file once and
// deletes it when its reader is released.
type spillScan struct {
	file *spillFile
}

func (s *spillScan) Schema() *arrow.Schema { return s.file.schema }
func (s *spillScan) Children() []Operator  { return nil }
func (s *spillScan) Explain() string       { return "VSPILL SCAN\nfile: " + filepath.Base(s.file.path) }

func (s *spillScan) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	path := s.file.path
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrSpill, path, unwrapPath(err))
	}
	var rd *ipc.Reader
	closeFn := func() {
		if rd != nil {
			rd.Release()
		}
		f.Close()
		os.Remove(path)
	}
	empty := s.file.rows == 0
	next := func() (arrow.RecordBatch, error) {
		if empty {
			return nil, nil
		}
		if rd == nil {
			var err error
			if rd, err = ipc.NewReader(bufio.NewReaderSize(f, 256<<10), ipc.WithAllocator(env.Mem), ipc.WithSchema(s.file.schema)); err != nil {
				return nil, fmt.Errorf("%w: reading %s: %v", ErrSpill, path, err)
			}
		}
		if !rd.Next() {
			if err := rd.Err(); err != nil {
				return nil, fmt.Errorf("%w: reading %s: %v", ErrSpill, path, err)
			}
			return nil, nil
		}
		b := rd.RecordBatch()
		b.Retain()
		return b, nil
	}
	return newPullReader(ctx, s.file.schema, next, closeFn), nil
}

// batchesOp hands out batches it owns, once: each is released as the
// reader moves past it, and any left when the reader is released.
type batchesOp struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
}

func (b *batchesOp) Schema() *arrow.Schema { return b.schema }
func (b *batchesOp) Children() []Operator  { return nil }
func (b *batchesOp) Explain() string       { return "VBUFFERED ROWS" }

func (b *batchesOp) Open(ctx context.Context, env *Env) (array.RecordReader, error) {
	bs := b.batches
	b.batches = nil
	i := 0
	next := func() (arrow.RecordBatch, error) {
		if i == len(bs) {
			return nil, nil
		}
		x := bs[i]
		bs[i] = nil
		i++
		return x, nil
	}
	return newPullReader(ctx, b.schema, next, func() {
		for _, x := range bs {
			if x != nil {
				x.Release()
			}
		}
	}), nil
}
