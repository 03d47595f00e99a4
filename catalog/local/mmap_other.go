//go:build !unix

package local

import (
	"errors"
	"os"
)

// Without mmap, segments are read with pread (see openSegment).
func mmapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func munmap([]byte) error { return nil }
