package iceberg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
)

// Delete manifests written by some engines (the Hive/Impala fixtures of
// testdata/impala) carry no "content" key in their Avro file metadata.
// iceberg-go then reads them as data manifests and refuses the mismatch
// with the manifest list; Java Iceberg takes the content from the list.
// The adapter does the same: for a manifest the list marks as holding
// deletes, a header without "content" is served with content=deletes
// added, the rest of the file unchanged.

// maxManifestHeader bounds the bytes read to find a manifest's header
// (magic, metadata map with the Avro and Iceberg schemas, sync marker); a
// longer header is passed through as is.
const maxManifestHeader = 4 << 20

var avroMagic = []byte{'O', 'b', 'j', 1}

var errShortHeader = errors.New("avro header longer than the bytes read")

type avroMeta struct{ key, val []byte }

// parseAvroHeader parses an Avro object container header from b: its
// metadata entries and the offset just past the sync marker.
func parseAvroHeader(b []byte) (meta []avroMeta, end int, err error) {
	if len(b) < len(avroMagic) {
		return nil, 0, errShortHeader
	}
	if !bytes.Equal(b[:4], avroMagic) {
		return nil, 0, errors.New("not an Avro object container file")
	}
	p := 4
	long := func() (int64, error) {
		v, n := binary.Varint(b[p:])
		if n == 0 {
			return 0, errShortHeader
		}
		if n < 0 {
			return 0, errors.New("bad varint in Avro header")
		}
		p += n
		return v, nil
	}
	bytesField := func() ([]byte, error) {
		n, err := long()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, errors.New("negative length in Avro header")
		}
		if n > int64(len(b)-p) {
			return nil, errShortHeader
		}
		v := b[p : p+int(n)]
		p += int(n)
		return v, nil
	}
	for {
		count, err := long()
		if err != nil {
			return nil, 0, err
		}
		if count == 0 {
			break
		}
		if count < 0 {
			// A negative count is followed by the block's size in bytes.
			count = -count
			if _, err := long(); err != nil {
				return nil, 0, err
			}
		}
		// Each entry takes at least two bytes: a count beyond what is
		// left is a damaged (or truncated) header, not a loop to run.
		if count > int64(len(b)-p)/2+1 {
			return nil, 0, errShortHeader
		}
		for range count {
			k, err := bytesField()
			if err != nil {
				return nil, 0, err
			}
			v, err := bytesField()
			if err != nil {
				return nil, 0, err
			}
			meta = append(meta, avroMeta{k, v})
		}
	}
	if len(b)-p < 16 {
		return nil, 0, errShortHeader
	}
	return meta, p + 16, nil
}

// withMeta is the header b[:end] re-encoded with key=val added.
func withMeta(b []byte, meta []avroMeta, end int, key, val string) []byte {
	out := append([]byte(nil), avroMagic...)
	out = binary.AppendVarint(out, int64(len(meta)+1))
	for _, m := range append(meta, avroMeta{[]byte(key), []byte(val)}) {
		out = binary.AppendVarint(out, int64(len(m.key)))
		out = append(out, m.key...)
		out = binary.AppendVarint(out, int64(len(m.val)))
		out = append(out, m.val...)
	}
	out = binary.AppendVarint(out, 0)
	return append(out, b[end-16:end]...) // sync marker
}

// contentPatched returns r (of size n) with "content"=content added to its
// Avro header when the header has no "content" key; ok false when r is to
// be read as is (it has one, or its header cannot be read here: iceberg-go
// then reports it).
func contentPatched(r io.ReaderAt, n int64, content string) (io.ReaderAt, int64, bool) {
	head := make([]byte, min(n, 64<<10))
	for {
		if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, false
		}
		meta, end, err := parseAvroHeader(head)
		if errors.Is(err, errShortHeader) && int64(len(head)) < n && len(head) < maxManifestHeader {
			head = make([]byte, min(n, int64(2*len(head)), maxManifestHeader))
			continue
		}
		if err != nil {
			return nil, 0, false
		}
		for _, m := range meta {
			if string(m.key) == "content" {
				return nil, 0, false
			}
		}
		h := withMeta(head, meta, end, "content", content)
		rest := io.NewSectionReader(r, int64(end), n-int64(end))
		return &splice{head: h, rest: rest}, int64(len(h)) + rest.Size(), true
	}
}

// splice reads head, then rest.
type splice struct {
	head []byte
	rest *io.SectionReader
}

func (s *splice) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(s.head)) {
		n = copy(p, s.head[off:])
		if n == len(p) {
			return n, nil
		}
		off = int64(len(s.head))
	}
	m, err := s.rest.ReadAt(p[n:], off-int64(len(s.head)))
	return n + m, err
}
