package local

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const (
	// inlineMax: a segment up to this size is committed inside its log
	// record; a larger one spills to its own data file.
	inlineMax = 256 << 10
	// segmentMax: a data file is closed and the next one started past this
	// size, so a load larger than memory becomes several files committed
	// together.
	segmentMax = 256 << 20
)

// spill buffers writes in memory until they pass inlineMax, then moves them
// to a file created by open.
type spill struct {
	max  int
	buf  bytes.Buffer
	f    *os.File
	open func() (*os.File, error)
}

func (s *spill) Write(p []byte) (int, error) {
	if s.f != nil {
		return s.f.Write(p)
	}
	if s.buf.Len()+len(p) <= s.max {
		return s.buf.Write(p)
	}
	f, err := s.open()
	if err != nil {
		return 0, err
	}
	s.f = f
	if _, err := f.Write(s.buf.Bytes()); err != nil {
		return 0, err
	}
	s.buf = bytes.Buffer{}
	return f.Write(p)
}

// segWriter writes the segments of one commit for one table: one open
// segment per bucket, each inline until it grows, then a file, rolled at
// segmentMax.
type segWriter struct {
	dir    string // the table's data directory
	prefix string // file names: <prefix>-<n>.arrow
	schema *arrow.Schema
	mem    memory.Allocator
	inline int // spill past this many bytes
	segMax int64
	del    bool // tombstone segments
	unique bool // compaction output: keys unique within each segment
	zones  bool // keep zone maps (zonesWanted)

	next  int
	open  map[int]*openSeg
	done  []fileInfo
	data  [][]byte // inline bytes of done segments marked Log, in order
	files []string // every file created, for cleanup on failure
	rows  int64
}

type openSeg struct {
	bucket int
	sp     *spill
	sum    *crcWriter
	w      *ipc.FileWriter
	rows   int64
	zones  []batchZone // nil when the schema gets none (zonesWanted)
}

func (c *Catalog) newSegWriter(tid int64, prefix string, schema *arrow.Schema) *segWriter {
	return &segWriter{dir: c.tableDir(tid), prefix: prefix, schema: schema, mem: c.mem, inline: c.inline, segMax: c.segMax, open: map[int]*openSeg{}, zones: zonesWanted(schema)}
}

func (s *segWriter) write(bucket int, rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	o := s.open[bucket]
	if o == nil {
		o = &openSeg{bucket: bucket}
		o.sp = &spill{max: s.inline, open: func() (*os.File, error) {
			p := filepath.Join(s.dir, fmt.Sprintf("%s-%d.arrow", s.prefix, s.next))
			s.next++
			s.files = append(s.files, p)
			f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return nil, fmt.Errorf("internal catalog: %w", err)
			}
			return f, nil
		}}
		o.sum = &crcWriter{w: o.sp}
		w, err := ipc.NewFileWriter(o.sum, ipc.WithSchema(s.schema), ipc.WithAllocator(s.mem))
		if err != nil {
			return err
		}
		o.w = w
		s.open[bucket] = o
	}
	if err := o.w.Write(rec); err != nil {
		return fmt.Errorf("internal catalog: write segment: %w", err)
	}
	if s.zones {
		o.zones = append(o.zones, zoneOf(rec))
	}
	o.rows += rec.NumRows()
	s.rows += rec.NumRows()
	if o.sum.n >= s.segMax {
		return s.closeSeg(o)
	}
	return nil
}

func (s *segWriter) closeSeg(o *openSeg) error {
	delete(s.open, o.bucket)
	if err := o.w.Close(); err != nil {
		if o.sp.f != nil {
			o.sp.f.Close()
		}
		return fmt.Errorf("internal catalog: close segment: %w", err)
	}
	crc := o.sum.crc
	fi := fileInfo{Rows: o.rows, Bytes: o.sum.n, CRC32C: &crc, Bucket: o.bucket, Delete: s.del, Unique: s.unique, Zones: o.zones}
	if o.sp.f == nil {
		fi.Log = true
		s.data = append(s.data, o.sp.buf.Bytes())
	} else {
		f := o.sp.f
		fi.Name = filepath.Base(f.Name())
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("internal catalog: sync %s: %w", f.Name(), err)
		}
	}
	s.done = append(s.done, fi)
	return nil
}

// finish closes every open segment and makes the new files' names durable.
func (s *segWriter) finish() error {
	for _, o := range s.open {
		if err := s.closeSeg(o); err != nil {
			return err
		}
	}
	if len(s.files) > 0 {
		if err := syncDir(s.dir); err != nil {
			return fmt.Errorf("internal catalog: sync %s: %w", s.dir, err)
		}
	}
	return nil
}

// abort removes whatever was written.
func (s *segWriter) abort() {
	for _, o := range s.open {
		o.w.Close()
		if o.sp.f != nil {
			o.sp.f.Close()
		}
	}
	s.open = nil
	for _, p := range s.files {
		os.Remove(p)
	}
}

var _ io.Writer = (*spill)(nil)
