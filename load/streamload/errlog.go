package streamload

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

const (
	maxLogRow   = 1024    // bytes of one rejected row kept
	maxLogRows  = 1000    // rejected rows kept per load
	maxLogBytes = 1 << 20 // bytes kept per load
	maxLogs     = 256     // loads whose logs are kept
)

// errLog is one load's rejected rows, first ones first.
type errLog struct {
	lines   []string
	size    int
	dropped int64
}

func (l *errLog) add(row int64, reason string, raw []byte) {
	if len(l.lines) >= maxLogRows || l.size >= maxLogBytes {
		l.dropped++
		return
	}
	if len(raw) > maxLogRow {
		raw = raw[:maxLogRow]
	}
	line := fmt.Sprintf("Row %d: Reason: %s. src line [%s];", row, reason, strings.ToValidUTF8(string(raw), "?"))
	l.lines = append(l.lines, line)
	l.size += len(line)
}

func (l *errLog) text() string {
	s := strings.Join(l.lines, "\n") + "\n"
	if l.dropped > 0 {
		s += fmt.Sprintf("(%d more rejected rows not kept)\n", l.dropped)
	}
	return s
}

// ErrorLogs keeps the error logs of the latest loads for ErrorURL, the
// oldest dropped first. It is safe for concurrent use.
type ErrorLogs struct {
	mu    sync.Mutex
	logs  map[string]string
	order []string
}

// NewErrorLogs returns an empty store.
func NewErrorLogs() *ErrorLogs { return &ErrorLogs{logs: map[string]string{}} }

func (s *ErrorLogs) put(l *errLog) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := "error_log_" + hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs[id] = l.text()
	s.order = append(s.order, id)
	if len(s.order) > maxLogs {
		delete(s.logs, s.order[0])
		s.order = s.order[1:]
	}
	return id
}

// Get returns a kept log by its id.
func (s *ErrorLogs) Get(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.logs[id]
	return t, ok
}
