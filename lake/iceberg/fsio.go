package iceberg

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"

	icebergio "github.com/apache/iceberg-go/io"

	"github.com/inlet-db/inlet/fileio"
)

// relocator maps the locations a table's metadata records to where the
// table is now. A table copied elsewhere (a test fixture, a warehouse
// moved to another bucket) keeps the old prefix in every metadata file,
// manifest list and manifest; reads rewrite it instead of rewriting them.
type relocator struct{ from, to string }

func (r relocator) apply(p string) string {
	if r.from == "" || r.from == r.to {
		return p
	}
	q := p
	// A relative location ("./t") may reach us cleaned ("t/...").
	if strings.HasPrefix(r.from, "./") && !strings.HasPrefix(q, "./") {
		q = "./" + q
	}
	if q == r.from {
		return r.to
	}
	if strings.HasPrefix(q, r.from) && (strings.HasSuffix(r.from, "/") || q[len(r.from)] == '/') {
		return r.to + q[len(r.from):]
	}
	return p
}

// ioAdapter serves iceberg-go's reads (metadata, manifest lists and
// manifests) from our fileio.FS, so S3 settings, credentials and local
// paths behave the same for metadata as for data files. It never writes.
type ioAdapter struct {
	ctx  context.Context
	fsys fileio.FS
	rel  relocator
	// deletes are the manifests (as the manifest list names them) the
	// list says hold delete files: their headers get the content key
	// when they lack it (see contentPatched).
	deletes map[string]bool
	// held are files already read (a manifest list), by name.
	held map[string][]byte
}

var (
	_ icebergio.IO         = (*ioAdapter)(nil)
	_ icebergio.ReadFileIO = (*ioAdapter)(nil)
)

func (a *ioAdapter) Open(name string) (icebergio.File, error) {
	p := a.rel.apply(name)
	if b, ok := a.held[name]; ok {
		return &ioFile{f: nopClose{}, name: p, r: io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b)))}, nil
	}
	f, err := a.fsys.Open(a.ctx, p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if a.deletes[name] {
		if r, n, ok := contentPatched(f, f.Size(), "deletes"); ok {
			return &ioFile{f: f, name: p, r: io.NewSectionReader(r, 0, n)}, nil
		}
	}
	return &ioFile{f: f, name: p, r: io.NewSectionReader(f, 0, f.Size())}, nil
}

func (a *ioAdapter) ReadFile(name string) ([]byte, error) {
	return fileio.ReadAll(a.ctx, a.fsys, a.rel.apply(name))
}

func (a *ioAdapter) Remove(name string) error {
	return &fs.PathError{Op: "remove", Path: name, Err: errors.ErrUnsupported}
}

type nopClose struct{}

func (nopClose) Close() error { return nil }

type ioFile struct {
	f    io.Closer
	name string
	r    *io.SectionReader
}

func (f *ioFile) Read(p []byte) (int, error)                { return f.r.Read(p) }
func (f *ioFile) ReadAt(p []byte, off int64) (int, error)   { return f.r.ReadAt(p, off) }
func (f *ioFile) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }
func (f *ioFile) Close() error                              { return f.f.Close() }
func (f *ioFile) Stat() (fs.FileInfo, error)                { return fileInfo{name: f.name, size: f.r.Size()}, nil }

type fileInfo struct {
	name string
	size int64
}

func (i fileInfo) Name() string       { return i.name[strings.LastIndexByte(i.name, '/')+1:] }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
