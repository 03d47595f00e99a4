package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fileScan streams the batches of a snapshot of a table's files, one file
// open at a time, one batch held at a time.
type fileScan struct {
	refs   atomic.Int64
	ctx    context.Context
	mem    memory.Allocator
	dir    string
	table  string
	files  []fileInfo
	cols   []int
	schema *arrow.Schema
	full   *arrow.Schema

	fi   int // next file to open
	f    *os.File
	fr   *ipc.FileReader
	bi   int // next batch in fr
	cur  arrow.RecordBatch
	err  error
	done bool
}

func (s *fileScan) Retain() { s.refs.Add(1) }

func (s *fileScan) Release() {
	if s.refs.Add(-1) == 0 {
		s.closeFile()
		if s.cur != nil {
			s.cur.Release()
			s.cur = nil
		}
	}
}

func (s *fileScan) Schema() *arrow.Schema { return s.schema }

func (s *fileScan) Err() error { return s.err }

func (s *fileScan) RecordBatch() arrow.RecordBatch { return s.cur }

// Record is the deprecated spelling of RecordBatch that RecordReader still
// requires.
func (s *fileScan) Record() arrow.RecordBatch { return s.cur }

func (s *fileScan) closeFile() {
	if s.fr != nil {
		s.fr.Close()
		s.fr = nil
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

func (s *fileScan) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	if s.done {
		return false
	}
	for {
		if err := s.ctx.Err(); err != nil {
			return s.fail(err)
		}
		if s.fr == nil {
			if s.fi >= len(s.files) {
				s.done = true
				return false
			}
			if err := s.open(s.files[s.fi]); err != nil {
				return s.fail(err)
			}
			s.fi++
			s.bi = 0
		}
		if s.bi >= s.fr.NumRecords() {
			s.closeFile()
			continue
		}
		rec, err := s.fr.RecordBatchAt(s.bi)
		if err != nil {
			return s.fail(fmt.Errorf("%w: table %s file %s batch %d: %v", ErrCorrupt, s.table, s.files[s.fi-1].Name, s.bi, err))
		}
		s.bi++
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		if s.cols != nil {
			cols := make([]arrow.Array, len(s.cols))
			for i, c := range s.cols {
				cols[i] = rec.Column(c)
			}
			p := array.NewRecordBatch(s.schema, cols, rec.NumRows())
			rec.Release()
			rec = p
		}
		s.cur = rec
		return true
	}
}

func (s *fileScan) open(fi fileInfo) error {
	p := filepath.Join(s.dir, fi.Name)
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("internal catalog: table %s: %w", s.table, err)
	}
	if err := verifyFile(s.ctx, f, fi); err != nil {
		f.Close()
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			// A cancelled scan (KILL, timeout) is not a corrupt file.
			return ctxErr
		}
		return fmt.Errorf("%w: table %s file %s: %v", ErrCorrupt, s.table, p, err)
	}
	fr, err := ipc.NewFileReader(f, ipc.WithAllocator(s.mem), ipc.WithSchema(s.full))
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: table %s file %s: %v", ErrCorrupt, s.table, p, err)
	}
	if !fr.Schema().Equal(s.full) {
		fr.Close()
		f.Close()
		return fmt.Errorf("%w: table %s file %s: schema differs from the table's", ErrCorrupt, s.table, p)
	}
	s.f, s.fr = f, fr
	return nil
}

func (s *fileScan) fail(err error) bool {
	s.err = err
	s.done = true
	s.closeFile()
	return false
}
