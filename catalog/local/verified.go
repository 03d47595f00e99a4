package local

import (
	"os"
	"sync"
	"time"
)

// A data file is immutable once committed, and the CRC-32C of all its
// bytes is most of what a scan of a mapped segment costs. So a file that
// passed the check is not checked again while its identity is unchanged:
// device, inode, size, modification and change time (the change time
// cannot be set from user space; any write to the file moves it). A file
// damaged through the file system therefore fails the next scan as it
// did before. A file changed within verifyRacyWindow of being checked
// could share its change time with the checked version (time stamps are
// coarse), so such a result is not remembered: the next scan checks
// again, as git does with racily clean files.
var verifyRacyWindow = 2 * time.Second

type fileIdent struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns
	crc          uint32
}

// verifiedMax bounds the remembered checks: past it the set starts over
// (deleted files' entries would otherwise pile up).
const verifiedMax = 1 << 16

var verified struct {
	mu  sync.Mutex
	set map[fileIdent]struct{}
}

// identify returns f's identity for a manifest entry with a checksum, and
// whether it has one worth remembering.
func identify(f *os.File, fi fileInfo) (fileIdent, bool) {
	if fi.CRC32C == nil || fi.Log {
		return fileIdent{}, false
	}
	st, err := f.Stat()
	if err != nil {
		return fileIdent{}, false
	}
	return statIdent(st, *fi.CRC32C)
}

func isVerified(id fileIdent) bool {
	verified.mu.Lock()
	defer verified.mu.Unlock()
	_, ok := verified.set[id]
	return ok
}

// rememberVerified records a passed check that began at start.
func rememberVerified(id fileIdent, start time.Time) {
	if start.UnixNano()-id.ctime < int64(verifyRacyWindow) || start.UnixNano()-id.mtime < int64(verifyRacyWindow) {
		return
	}
	verified.mu.Lock()
	defer verified.mu.Unlock()
	if verified.set == nil || len(verified.set) >= verifiedMax {
		verified.set = map[fileIdent]struct{}{}
	}
	verified.set[id] = struct{}{}
}
