package fileio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Local is the local file system. Paths may be plain or file:// URIs.
type Local struct{}

// LocalPath is the file system path of a plain path or file:// URI.
func LocalPath(p string) string { return localPath(p) }

func localPath(p string) string {
	switch {
	case strings.HasPrefix(p, "file://"):
		return p[len("file://"):]
	case strings.HasPrefix(p, "file:"):
		return p[len("file:"):]
	}
	return p
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

// Open implements FS.
func (Local) Open(ctx context.Context, path string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(localPath(path))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("fileio: %s is a directory", path)
	}
	return localFile{f, st.Size()}, nil
}

// List implements Lister.
func (Local) List(ctx context.Context, dir string) ([]FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(localPath(dir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]FileInfo, 0, len(ents))
	for _, e := range ents {
		fi := FileInfo{Path: Join(dir, e.Name()), Name: e.Name(), IsDir: e.IsDir()}
		if info, err := e.Info(); err == nil && !e.IsDir() {
			fi.Size = info.Size()
		}
		out = append(out, fi)
	}
	return out, nil
}

// Create implements Creator: content is written to a temporary file in the
// same directory and renamed into place on Close, so readers never see a
// partial file.
func (Local) Create(ctx context.Context, path string) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := localPath(path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &localWriter{f: f, dst: p}, nil
}

type localWriter struct {
	f    *os.File
	dst  string
	done bool
}

func (w *localWriter) Write(b []byte) (int, error) { return w.f.Write(b) }

func (w *localWriter) Close() error {
	if w.done {
		return fmt.Errorf("fileio: %s: writer already closed", w.dst)
	}
	w.done = true
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return err
	}
	if err := os.Rename(w.f.Name(), w.dst); err != nil {
		os.Remove(w.f.Name())
		return err
	}
	return nil
}

func (w *localWriter) Abort() error {
	if !w.done {
		w.done = true
		w.f.Close()
	}
	err := os.Remove(w.f.Name())
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// Remove implements Remover.
func (Local) Remove(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := os.Remove(localPath(path))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
