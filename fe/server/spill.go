package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/vars"
)

// spillState is the server's side of enable_spill: the root directory, a
// directory per running query under it, and what queries wrote (for
// /metrics).
type spillState struct {
	once  sync.Once
	root  string
	log   *slog.Logger
	err   error
	bytes atomic.Int64
	files atomic.Int64
	// spilling is how many queries have a spill directory now.
	spilling atomic.Int64
}

// spillDirPrefix names the per-query directories, so a restart can tell
// them from anything else in the root.
const spillDirPrefix = "query-"

func (s *spillState) init(root string, log *slog.Logger) {
	if root == "" {
		root = filepath.Join(os.TempDir(), "inlet-spill")
	}
	s.root, s.log = root, log
}

// prepare makes the root on first use and removes query directories a
// previous process left behind (killed while a query spilled).
func (s *spillState) prepare() error {
	s.once.Do(func() {
		if err := os.MkdirAll(s.root, 0o700); err != nil {
			s.err = fmt.Errorf("spill directory %s: %v", s.root, unwrapPathErr(err))
			return
		}
		ents, err := os.ReadDir(s.root)
		if err != nil {
			s.err = fmt.Errorf("spill directory %s: %v", s.root, unwrapPathErr(err))
			return
		}
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), spillDirPrefix) {
				os.RemoveAll(filepath.Join(s.root, e.Name()))
			}
		}
	})
	return s.err
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// begin gives a query run with enable_spill its own spill directory;
// end, called however the query ends (after its readers are released),
// removes the directory with whatever is left in it.
func (s *spillState) begin(ctx context.Context, v *vars.Session, st *statement) (context.Context, func(), error) {
	if !v.Bool("enable_spill") {
		return ctx, func() {}, nil
	}
	if err := s.prepare(); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(s.root, spillDirPrefix+"*")
	if err != nil {
		return nil, nil, fmt.Errorf("spill directory %s: %v", s.root, unwrapPathErr(err))
	}
	s.spilling.Add(1)
	stats := &exec.SpillStats{}
	if st != nil {
		st.spill = stats
	}
	end := func() {
		s.spilling.Add(-1)
		s.bytes.Add(stats.Bytes.Load())
		s.files.Add(stats.Files.Load())
		if err := os.RemoveAll(dir); err != nil {
			s.log.Warn("removing a query's spill directory", "dir", dir, "err", err)
		}
	}
	return exec.WithSpill(ctx, dir, stats), end, nil
}
