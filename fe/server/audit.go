package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/inlet-db/inlet/fe/mysqlwire"
	"github.com/inlet-db/inlet/fe/sql"
)

// AuditFileName is the audit log's name under the meta directory, as Doris
// names it (fe.audit.log).
const AuditFileName = "fe.audit.log"

// Audit log defaults: rotated at 64 MiB, the current file and 9 older ones
// kept (fe.audit.log.1 … .9).
const (
	DefaultAuditMaxBytes = 64 << 20
	DefaultAuditMaxFiles = 10
	// auditMaxStmt caps the statement text of one line (Doris's
	// audit_plugin_max_sql_length is 4096).
	auditMaxStmt = 4096
)

// AuditLog writes one line per statement in Doris's fe.audit.log layout:
//
//	2006-01-02 15:04:05,000 [query] |Client=…|User=…|Ctl=…|Db=…|CommandType=…|State=EOF|ErrorCode=0|ErrorMessage=|Time(ms)=…|ScanBytes=…|ScanRows=…|ReturnRows=…|StmtId=…|QueryId=…|IsQuery=…|Stmt=…
//
// Secrets in statements are masked as SHOW PROCESSLIST masks them. The file
// is rotated by size: fe.audit.log.1 is the newest older file and at most
// maxFiles files are kept. It is safe for concurrent use.
type AuditLog struct {
	path     string
	maxBytes int64
	maxFiles int

	mu   sync.Mutex
	f    *os.File
	size int64
	// failed is set after a write error was logged, so a full disk logs
	// once, not per statement.
	failed bool
	closed bool // statements ending after Close are not logged
}

// OpenAuditLog opens (appending) or creates the audit log at path;
// maxBytes <= 0 and maxFiles <= 0 take the defaults.
func OpenAuditLog(path string, maxBytes int64, maxFiles int) (*AuditLog, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultAuditMaxBytes
	}
	if maxFiles <= 0 {
		maxFiles = DefaultAuditMaxFiles
	}
	a := &AuditLog{path: path, maxBytes: maxBytes, maxFiles: maxFiles}
	if err := a.open(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *AuditLog) open() error {
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	a.f, a.size = f, st.Size()
	return nil
}

// rotate shifts fe.audit.log.N-1 → .N … fe.audit.log → .1, dropping the
// oldest, and starts an empty file. Called with mu held.
func (a *AuditLog) rotate() error {
	a.f.Close()
	a.f = nil
	name := func(i int) string {
		if i == 0 {
			return a.path
		}
		return a.path + "." + strconv.Itoa(i)
	}
	if err := os.Remove(name(a.maxFiles - 1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for i := a.maxFiles - 2; i >= 0; i-- {
		if err := os.Rename(name(i), name(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return a.open()
}

// write appends one line, rotating first when it would pass maxBytes.
func (a *AuditLog) write(line []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	if a.f == nil || (a.size > 0 && a.size+int64(len(line)) > a.maxBytes) {
		if a.f == nil {
			if err := a.open(); err != nil {
				return err
			}
		} else if err := a.rotate(); err != nil {
			return err
		}
	}
	n, err := a.f.Write(line)
	a.size += int64(n)
	return err
}

// Close closes the file.
func (a *AuditLog) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// auditRecord is one statement being audited.
type auditRecord struct {
	start   time.Time
	command string
	text    string
	isQuery bool
	st      *statement // nil when the statement did not parse
	w       *auditWriter
}

// auditWriter counts the rows a statement returns and notes whether it
// returned a result set.
type auditWriter struct {
	mysqlwire.ResultWriter
	rows    int64
	columns bool
}

func (w *auditWriter) Columns(cols []mysqlwire.Column) error {
	w.columns = true
	return w.ResultWriter.Columns(cols)
}

func (w *auditWriter) Row(values [][]byte) error {
	w.rows++
	return w.ResultWriter.Row(values)
}

var auditStmtIDs atomic.Int64

// auditBegin starts auditing a statement; it returns w unchanged and a nil
// record when the FE keeps no audit log.
func (s *Session) auditBegin(command, text string, w mysqlwire.ResultWriter) (*auditRecord, mysqlwire.ResultWriter) {
	if s.srv.cfg.Audit == nil {
		return nil, w
	}
	aw := &auditWriter{ResultWriter: w}
	return &auditRecord{start: s.srv.now(), command: command, text: text, w: aw}, aw
}

// began notes the parsed statement (a nil record ignores it).
func (a *auditRecord) began(st *statement, stmt sql.Statement) {
	if a != nil {
		a.st, a.isQuery = st, isQueryStmt(stmt)
	}
}

// auditEnd writes the statement's line.
func (s *Session) auditEnd(a *auditRecord, err error) {
	if a == nil {
		return
	}
	end := s.srv.now()
	state, code, msg := "OK", 0, ""
	switch {
	case err != nil:
		state = "ERR"
		code, msg = int(mysqlwire.ErrnoOf(err)), oneLine(err.Error())
	case a.w.columns:
		state = "EOF"
	}
	queryID := ""
	var scanRows, scanBytes int64
	if a.st != nil {
		queryID = a.st.plan.ID()
		for _, sc := range a.st.plan.Scans() {
			c := sc.Counters
			scanRows += c["FlussLogRowsReturned"] + c["FlussLakeRowsReturned"] + c["FlussUnionSuppressedRows"]
			for k, v := range c {
				if strings.HasSuffix(k, "BytesRead") {
					scanBytes += v
				}
			}
		}
	}
	var b strings.Builder
	b.Grow(256 + len(a.text))
	b.WriteString(end.Format("2006-01-02 15:04:05,000"))
	b.WriteString(" [query] ")
	field := func(k, v string) {
		b.WriteByte('|')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	field("Client", s.info.Remote)
	field("User", s.info.User)
	field("Ctl", s.catalog)
	field("Db", s.db)
	field("CommandType", a.command)
	field("State", state)
	field("ErrorCode", strconv.Itoa(code))
	field("ErrorMessage", msg)
	field("Time(ms)", strconv.FormatInt(end.Sub(a.start).Milliseconds(), 10))
	field("ScanBytes", strconv.FormatInt(scanBytes, 10))
	field("ScanRows", strconv.FormatInt(scanRows, 10))
	field("ReturnRows", strconv.FormatInt(a.w.rows, 10))
	field("StmtId", strconv.FormatInt(auditStmtIDs.Add(1), 10))
	field("QueryId", queryID)
	field("IsQuery", strconv.FormatBool(a.isQuery))
	stmtText := auditText(a.text)
	field("Stmt", stmtText)
	b.WriteByte('\n')
	// The web pages list what the audit log records (webdata.go).
	s.srv.noteRecent(QueryInfo{QueryID: queryID, User: s.info.User, Client: s.info.Remote, Catalog: s.catalog, DB: s.db,
		State: state, ErrorCode: code, ErrorMessage: msg, Start: a.start, End: end, ReturnRows: a.w.rows,
		ScanRows: scanRows, ScanBytes: scanBytes, Statement: stmtText, IsQuery: a.isQuery})
	if werr := s.srv.cfg.Audit.write([]byte(b.String())); werr != nil {
		s.srv.cfg.Audit.mu.Lock()
		first := !s.srv.cfg.Audit.failed
		s.srv.cfg.Audit.failed = true
		s.srv.cfg.Audit.mu.Unlock()
		if first {
			s.srv.log.Error("audit log write failed; later failures are not logged", "err", werr)
		}
	}
}

// auditText is a statement as the audit log shows it: secrets masked, on
// one line, at most auditMaxStmt bytes.
func auditText(text string) string {
	l := strings.ToLower(text)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			text = sql.MaskSecrets(text)
			break
		}
	}
	text = oneLine(strings.TrimSpace(text))
	if len(text) > auditMaxStmt {
		cut := auditMaxStmt
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

func oneLine(s string) string { return lineBreaks.Replace(s) }

// isQueryStmt: Doris's IsQuery is true for SELECT (and set operations).
func isQueryStmt(stmt sql.Statement) bool {
	switch stmt.(type) {
	case *sql.Select, *sql.SetOp:
		return true
	}
	return false
}
