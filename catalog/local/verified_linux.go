package local

import (
	"os"
	"syscall"
)

func statIdent(fi os.FileInfo, crc uint32) (fileIdent, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileIdent{}, false
	}
	return fileIdent{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), crc: crc}, true
}
