package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// FS opens files for reading. Implementations are safe for concurrent use.
type FS interface {
	Open(ctx context.Context, path string) (File, error)
}

// File is an open, immutable file. ReadAt may be called concurrently.
type File interface {
	io.ReaderAt
	Size() int64
	Close() error
}

// FileInfo describes one entry returned by List.
type FileInfo struct {
	Path  string // full path, usable with Open
	Name  string // last path element
	Size  int64
	IsDir bool
}

// Lister lists the entries directly under a directory (or key prefix
// ending at a "/"). A missing directory lists as empty.
type Lister interface {
	List(ctx context.Context, dir string) ([]FileInfo, error)
}

// Creator creates (or overwrites) a file. The content becomes visible when
// Close returns nil; an abandoned writer must be closed with Abort.
type Creator interface {
	Create(ctx context.Context, path string) (Writer, error)
}

// Writer is a file being written.
type Writer interface {
	io.Writer
	// Close publishes the file.
	Close() error
	// Abort discards what was written; it is safe after a failed Close.
	Abort() error
}

// Remover deletes a file. Removing a missing file is not an error.
type Remover interface {
	Remove(ctx context.Context, path string) error
}

// ErrUnsupported is returned when a path's scheme or an operation is not
// available.
var ErrUnsupported = errors.New("fileio: unsupported")

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// ReadAll reads a whole file through fsys.
func ReadAll(ctx context.Context, fsys FS, path string) ([]byte, error) {
	f, err := fsys.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := f.Size()
	if n < 0 || n > 1<<31 {
		return nil, errors.New("fileio: " + path + ": size out of range for a whole-file read")
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, err
	}
	return b, nil
}

// WriteFile creates path with content b through fsys, which must be a Creator.
func WriteFile(ctx context.Context, fsys FS, path string, b []byte) error {
	c, ok := fsys.(Creator)
	if !ok {
		return errors.Join(ErrUnsupported, errors.New("fileio: file system cannot create "+path))
	}
	w, err := c.Create(ctx, path)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		_ = w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		_ = w.Abort()
		return err
	}
	return nil
}

// Join joins path elements with "/" for URIs and with the OS separator
// semantics of path/filepath for local paths (both use "/" on Unix).
func Join(base string, elems ...string) string {
	s := strings.TrimRight(base, "/")
	if s == "" && strings.HasPrefix(base, "/") {
		s = "/"
	}
	for _, e := range elems {
		e = strings.Trim(e, "/")
		if e == "" {
			continue
		}
		if strings.HasSuffix(s, "/") {
			s += e
		} else {
			s += "/" + e
		}
	}
	return s
}
