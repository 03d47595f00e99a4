package streamload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
)

// Defaults of Config.
const (
	// DefaultMaxBodyBytes is Doris's streaming_load_max_mb (10 GiB).
	DefaultMaxBodyBytes = 10 << 30
	// DefaultMaxRowBytes bounds one CSV row or JSON object.
	DefaultMaxRowBytes = 64 << 20
)

// Config configures the BE leg.
type Config struct {
	Tables Tables
	// Mem allocates every batch. Required.
	Mem    memory.Allocator
	Logger *slog.Logger
	// Logs keeps error logs for ErrorURL; nil makes a private store.
	Logs         *ErrorLogs
	MaxBodyBytes int64
	MaxRowBytes  int
	// Now is the clock of now() in derived columns; nil means time.Now.
	Now func() time.Time
	// Loc is the time zone of DATETIME values (nil = UTC).
	Loc *time.Location
}

// ErrorLogPath is where a BE serves the rejected rows of a load.
const ErrorLogPath = "/api/_load_error_log"

// BE is the BE leg: it performs loads and serves their error logs.
type BE struct {
	cfg Config
	log *slog.Logger
	mux *http.ServeMux
}

// NewBE builds the BE leg's handler.
func NewBE(cfg Config) (*BE, error) {
	if cfg.Tables == nil || cfg.Mem == nil {
		return nil, errors.New("streamload: Tables and Mem are required")
	}
	if cfg.Logs == nil {
		cfg.Logs = NewErrorLogs()
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxRowBytes <= 0 {
		cfg.MaxRowBytes = DefaultMaxRowBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Loc == nil {
		cfg.Loc = time.UTC
	}
	h := &BE{cfg: cfg, log: cfg.Logger}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("/api/{db}/{table}/_stream_load", h.load)
	h.mux.HandleFunc(ErrorLogPath, h.errorLog)
	return h, nil
}

// ServeHTTP routes /api/{db}/{table}/_stream_load and /api/_load_error_log.
func (h *BE) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *BE) errorLog(w http.ResponseWriter, r *http.Request) {
	text, ok := h.cfg.Logs.Get(r.URL.Query().Get("file"))
	if !ok {
		http.Error(w, "error log not found (only the latest loads' logs are kept)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, text)
}

// identify reads the Basic auth credentials and the client's address.
func identify(r *http.Request) (Identity, bool) {
	user, pass, ok := r.BasicAuth()
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return Identity{User: user, Password: pass, Host: host}, ok && user != ""
}

// openTable does the checks both legs make before any body byte is read.
// It answers the request itself and returns nil when a check fails.
func openTable(w http.ResponseWriter, r *http.Request, tables Tables, res *Result) Table {
	if r.Method != http.MethodPut {
		w.Header().Set("Allow", http.MethodPut)
		res.Status, res.Message = StatusFail, "Stream Load takes PUT, not "+r.Method
		writeResult(w, http.StatusMethodNotAllowed, res)
		return nil
	}
	id, ok := identify(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="inlet"`)
		res.Status, res.Message = StatusFail, "no valid Basic authorization: send -u user:password"
		writeResult(w, http.StatusUnauthorized, res)
		return nil
	}
	t, err := tables.Open(r.Context(), id, r.PathValue("db"), r.PathValue("table"))
	if err != nil {
		res.Status, res.Message = StatusFail, err.Error()
		code := http.StatusOK
		switch {
		case errors.Is(err, ErrUnauthorized):
			w.Header().Set("WWW-Authenticate", `Basic realm="inlet"`)
			code = http.StatusUnauthorized
		case errors.Is(err, ErrForbidden):
			code = http.StatusForbidden
		case errors.Is(err, ErrUnknownTable):
		default:
			code = http.StatusInternalServerError
		}
		writeResult(w, code, res)
		return nil
	}
	return t
}

func (h *BE) load(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	res := &Result{Label: r.Header.Get("label")}
	t := openTable(w, r, h.cfg.Tables, res)
	if t == nil {
		return
	}
	fail := func(code int, msg string) {
		res.Status, res.Message = StatusFail, msg
		res.LoadTimeMs = time.Since(start).Milliseconds()
		writeResult(w, code, res)
	}
	p, err := ParseParams(r.Header)
	if err != nil {
		fail(http.StatusOK, err.Error())
		return
	}
	if p.Label == "" {
		// As Doris's BE does: an unlabeled load gets a fresh UUID label, so
		// the answer names the transaction and a retry is a new load.
		p.Label = newLabel()
	}
	res.Label = p.Label
	if r.ContentLength > h.cfg.MaxBodyBytes {
		fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("body of %d bytes exceeds the limit of %d bytes", r.ContentLength, h.cfg.MaxBodyBytes))
		return
	}
	opened := time.Now() // user, privilege and table checked
	now := h.cfg.Now()
	pl, err := newPlan(r.Context(), &p, t.Schema(), now)
	if err != nil {
		fail(http.StatusOK, err.Error())
		return
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), p.Timeout, fmt.Errorf("load timed out after %s (header timeout)", p.Timeout))
	defer cancel()
	// A stalled body must not outlive the timeout: reads fail at the deadline.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(p.Timeout))
	body := &meteredBody{r: r.Body, max: h.cfg.MaxBodyBytes}
	var dec decoder
	switch p.Format {
	case JSON:
		dec = newJSONReader(body, &p, pl.src, h.cfg.MaxRowBytes)
	default:
		dec = newCSVReader(body, &p, h.cfg.MaxRowBytes)
	}
	elog := &errLog{}
	env := &expr.Env{Mem: h.cfg.Mem, Now: now, Loc: h.cfg.Loc}
	rr := newLoadReader(ctx, h.cfg.Mem, env, dec, pl, &p, elog)
	defer rr.Release()
	begin := time.Now()
	// Doris's phases, mapped: BeginTxn = the checks and opening the table,
	// StreamLoadPut = planning the columns/where, WriteData = decoding and
	// writing until the body ends, CommitAndPublish = the durable commit.
	res.BeginTxnTimeMs = opened.Sub(start).Milliseconds()
	res.StreamLoadPutTimeMs = begin.Sub(opened).Milliseconds()
	lr, err := t.Load(ctx, rr, catalog.LoadOptions{Label: p.Label, PartialColumns: p.PartialColumns})
	end := time.Now()
	rr.stop()
	if err == nil && rr.err != nil {
		// A Loader must not commit a stream that failed; never report it as a success.
		err = rr.err
	}
	res.NumberTotalRows, res.NumberLoadedRows = rr.n.total, rr.n.loaded
	res.NumberFilteredRows, res.NumberUnselectedRows = rr.n.filtered, rr.n.unselected
	res.LoadBytes = body.n
	res.ReadDataTimeMs = body.wait.Milliseconds()
	if !rr.eofAt.IsZero() {
		res.WriteDataTimeMs = rr.eofAt.Sub(begin).Milliseconds()
		res.CommitAndPublishTimeMs = end.Sub(rr.eofAt).Milliseconds()
	} else {
		res.WriteDataTimeMs = end.Sub(begin).Milliseconds()
	}
	if len(elog.lines) > 0 {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		res.ErrorURL = scheme + "://" + r.Host + ErrorLogPath + "?file=" + h.cfg.Logs.put(elog)
	}
	res.LoadTimeMs = time.Since(start).Milliseconds()
	var le *catalog.LabelExistsError
	switch {
	case err == nil:
		res.TxnID = lr.TxnID
		res.Status, res.Message = StatusSuccess, "OK"
		if lr.Rows != rr.n.loaded {
			h.log.Warn("stream load: loader and decoder disagree on rows", "label", p.Label, "loader", lr.Rows, "decoded", rr.n.loaded)
		}
	case errors.As(err, &le):
		res.TxnID = le.TxnID
		res.Status, res.ExistingJobStatus, res.Message = StatusLabelExists, le.Status, le.Error()
		// Nothing of this request was loaded.
		res.NumberLoadedRows = 0
	default:
		if rr.err != nil {
			err = rr.err // the cause, not the loader's echo of it
		}
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("load timed out after %s (header timeout): %w", p.Timeout, err)
		}
		res.Status, res.Message = StatusFail, loadMessage(err)
		res.NumberLoadedRows = 0
	}
	h.log.Info("stream load", "db", r.PathValue("db"), "table", r.PathValue("table"), "label", p.Label,
		"status", res.Status, "rows", res.NumberTotalRows, "loaded", res.NumberLoadedRows, "filtered", res.NumberFilteredRows, "bytes", res.LoadBytes)
	writeResult(w, http.StatusOK, res)
}

// loadMessage words a failure as Doris does for the cases clients match.
func loadMessage(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, ErrFiltered):
		return "[DATA_QUALITY_ERROR]" + msg + "; see ErrorURL for the rejected rows"
	case errors.Is(err, ErrTooLarge):
		return "[INVALID_ARGUMENT]" + msg
	}
	return strings.TrimSpace(msg)
}

// meteredBody counts the body's bytes and the time spent waiting for
// them, and refuses bytes past max.
type meteredBody struct {
	r    io.Reader
	n    int64
	max  int64
	wait time.Duration
}

func (m *meteredBody) Read(p []byte) (int, error) {
	t := time.Now()
	n, err := m.r.Read(p)
	m.wait += time.Since(t)
	m.n += int64(n)
	if m.n > m.max {
		return n, fmt.Errorf("%w: body exceeds the limit of %d bytes", ErrTooLarge, m.max)
	}
	return n, err
}
