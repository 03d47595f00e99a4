package local

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// castagnoli is the CRC-32C table every data file checksum uses.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcWriter passes writes through to w, keeping the CRC-32C and length of
// everything written.
type crcWriter struct {
	w   io.Writer
	crc uint32
	n   int64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	c.n += int64(n)
	return n, err
}

// verifyBuf is the read size of verifyFile: a file is checked in pieces of
// this size, never held whole.
const verifyBuf = 256 << 10

// verifyFile checks a segment against the size and CRC-32C the manifest
// recorded for it: the whole of f for a data file, the section at fi.Offset
// for a segment kept in the commit log. Files written before checksums have
// none and pass unchecked. The error does not name the file: the caller does.
func verifyFile(ctx context.Context, f *os.File, fi fileInfo) error {
	if fi.CRC32C == nil {
		return nil
	}
	var r io.ReaderAt = f
	if fi.Log {
		r = io.NewSectionReader(f, fi.Offset, fi.Bytes)
	}
	buf := make([]byte, verifyBuf)
	var crc uint32
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := r.ReadAt(buf, n)
		crc = crc32.Update(crc, castagnoli, buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read at %d: %w", n, err)
		}
	}
	if n != fi.Bytes {
		return fmt.Errorf("size %d bytes, manifest says %d", n, fi.Bytes)
	}
	if crc != *fi.CRC32C {
		return fmt.Errorf("checksum mismatch: CRC-32C %08x, manifest says %08x", crc, *fi.CRC32C)
	}
	return nil
}
