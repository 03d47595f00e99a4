package paimon

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The slices of one Parquet file (rowsplit.go), read by several scanners,
// each open the file; parsing its footer (thrift: every row group's and
// column's metadata and statistics) cost as much as a small file's pages.
// footers keeps the parsed footers of recently opened files, so a file's
// footer is parsed once. An entry is used only when the file's footer
// bytes, read again at every open, equal the ones it was parsed from: a
// path rewritten with other content is parsed anew, never misread.

// footerCacheBytes bounds the raw footer bytes kept (their parsed form
// is of the same order).
const footerCacheBytes = 16 << 20

type footerEntry struct {
	path string
	size int64  // file size
	raw  []byte // footer bytes (the metadata, without length and magic)
	md   *metadata.FileMetaData
}

type footerCache struct {
	mu    sync.Mutex
	lru   list.List // *footerEntry, most recent first
	byKey map[string]*list.Element
	bytes int
}

var footers = &footerCache{byKey: map[string]*list.Element{}}

// footerHits counts opens that reused a parsed footer (for tests).
var footerHits atomic.Int64

// openParquetFile opens a Parquet file through arrow-go, reusing a parsed
// footer from footers when the file's footer bytes match it, and keeping
// a newly parsed plaintext footer for the next open.
func openParquetFile(path string, f io.ReaderAt, size int64, opts ...file.ReadOption) (*file.Reader, error) {
	sr := io.NewSectionReader(f, 0, size)
	raw := readFooter(f, size)
	if raw == nil {
		// Not a plain PAR1 footer (encrypted, damaged, too small):
		// arrow-go reads it and says what is wrong.
		return file.NewParquetReader(sr, opts...)
	}
	if md := footers.get(path, size, raw); md != nil {
		footerHits.Add(1)
		return file.NewParquetReader(sr, append(opts, file.WithMetadata(md))...)
	}
	md, err := metadata.NewFileMetaData(raw, nil)
	if err != nil || md.IsSetEncryptionAlgorithm() {
		return file.NewParquetReader(sr, opts...)
	}
	md.SetSourceFileSize(size - int64(len(raw)) - 8)
	// Set before sharing: WriterVersion fills it in on first use.
	md.WriterVersion()
	pf, err := file.NewParquetReader(sr, append(opts, file.WithMetadata(md))...)
	if err != nil {
		return nil, err
	}
	footers.put(path, size, raw, md)
	return pf, nil
}

// readFooter returns the footer bytes of a file ending in a plaintext
// PAR1 footer of at most footerCacheBytes/4, else nil.
func readFooter(f io.ReaderAt, size int64) []byte {
	var tail [8]byte
	if size < 12 {
		return nil
	}
	if n, _ := f.ReadAt(tail[:], size-8); n != 8 || !bytes.Equal(tail[4:], []byte("PAR1")) {
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > footerCacheBytes/4 || n+12 > size {
		return nil
	}
	raw := make([]byte, n)
	if k, _ := f.ReadAt(raw, size-8-n); int64(k) != n {
		return nil
	}
	return raw
}

func (c *footerCache) get(path string, size int64, raw []byte) *metadata.FileMetaData {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[path]
	if !ok {
		return nil
	}
	e := el.Value.(*footerEntry)
	if e.size != size || !bytes.Equal(e.raw, raw) {
		return nil
	}
	c.lru.MoveToFront(el)
	return e.md
}

func (c *footerCache) put(path string, size int64, raw []byte, md *metadata.FileMetaData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[path]; ok {
		c.bytes -= len(el.Value.(*footerEntry).raw)
		c.lru.Remove(el)
		delete(c.byKey, path)
	}
	c.byKey[path] = c.lru.PushFront(&footerEntry{path: path, size: size, raw: raw, md: md})
	c.bytes += len(raw)
	for c.bytes > footerCacheBytes {
		el := c.lru.Back()
		e := el.Value.(*footerEntry)
		c.bytes -= len(e.raw)
		c.lru.Remove(el)
		delete(c.byKey, e.path)
	}
}
