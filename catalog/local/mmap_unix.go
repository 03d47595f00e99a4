//go:build unix

package local

import (
	"os"
	"syscall"
)

func mmapFile(f *os.File, n int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
}

func munmap(b []byte) error { return syscall.Munmap(b) }
