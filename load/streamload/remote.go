package streamload

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/internal/clustersecret"
)

// A BE in its own process (cmd/be) has no catalog: it decodes the body
// itself and streams the Arrow batches to the FE, which loads them into
// the table (FE-internal endpoints below, guarded by the cluster secret).
// The FE checks the user again from the forwarded credentials, so a BE
// cannot be used to skip the privilege check.
//
//	GET  /api/_internal/stream_load/{db}/{table}   → the table's schema (Arrow IPC stream, no batches)
//	PUT  /api/_internal/stream_load/{db}/{table}?label=…&partial_columns=…
//	     body: Arrow IPC stream of the load's batches; trailer X-Inlet-Rows
//	     (sent only after the last batch) = rows sent → {"TxnId","Rows"}
//	     or {"Error","LabelStatus","TxnId"}
//	POST /api/_internal/stream_load_be   addr=host:port  (a BE's HTTP address, each heartbeat)

const (
	// SecretHeader carries the FE↔BE cluster secret (as for Flight).
	SecretHeader = "Inlet-Cluster-Secret"
	// clientHostHeader tells the FE the load's client address.
	clientHostHeader = "Inlet-Client-Host"
	rowsTrailer      = "X-Inlet-Rows"
	internalPrefix   = "/api/_internal/stream_load/"
	// RegisterPath is where BEs announce their HTTP address to the FE.
	RegisterPath = "/api/_internal/stream_load_be"
)

// Field metadata keys carrying the catalog facts an Arrow field lacks.
const (
	mdKey         = "inlet.key"
	mdDefault     = "inlet.default"
	mdUnsupported = "inlet.unsupported"
	mdTypeName    = "inlet.type" // "varchar(20)": the BE holds values to the length
)

// checkSecret compares in constant time; with no secret configured
// nothing passes (an empty secret would let any local process in).
func checkSecret(r *http.Request, secret string) bool {
	return secret != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(SecretHeader)), []byte(secret)) == 1
}

// Internal serves the FE's internal endpoints for BEs in other processes.
type Internal struct {
	tables Tables
	secret string
	mem    memory.Allocator
	log    *slog.Logger
	mux    *http.ServeMux
	be     *Backends
}

// NewInternal builds the FE's internal endpoints; backends (may be nil)
// records the BEs that register.
func NewInternal(tables Tables, secret string, mem memory.Allocator, backends *Backends, log *slog.Logger) *Internal {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Internal{tables: tables, secret: secret, mem: mem, log: log, be: backends, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET "+internalPrefix+"{db}/{table}", h.schema)
	h.mux.HandleFunc("PUT "+internalPrefix+"{db}/{table}", h.load)
	h.mux.HandleFunc("POST "+RegisterPath, h.register)
	return h
}

func (h *Internal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !checkSecret(r, h.secret) {
		http.Error(w, "wrong cluster secret", http.StatusUnauthorized)
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Internal) register(w http.ResponseWriter, r *http.Request) {
	addr := r.FormValue("addr")
	if addr == "" || h.be == nil {
		http.Error(w, "addr is required", http.StatusBadRequest)
		return
	}
	// The secret in the request proves little about addr: before loads,
	// with their users' credentials, are redirected there, the process on
	// addr itself must prove it holds the secret.
	// A live BE proved it already; its heartbeats only refresh it.
	if h.be.live(addr) {
		h.be.Add(addr)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err := clustersecret.Challenge(r.Context(), addr, h.secret); err != nil {
		h.log.Warn("Stream Load BE refused", "addr", addr, "err", err)
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	h.be.Add(addr)
	w.WriteHeader(http.StatusNoContent)
}

func (h *Internal) open(w http.ResponseWriter, r *http.Request) Table {
	id, ok := identify(r)
	if !ok {
		writeInternalErr(w, http.StatusUnauthorized, withKind(ErrUnauthorized, errors.New("no valid Basic authorization")))
		return nil
	}
	if host := r.Header.Get(clientHostHeader); host != "" {
		id.Host = host
	}
	t, err := h.tables.Open(r.Context(), id, r.PathValue("db"), r.PathValue("table"))
	if err != nil {
		writeInternalErr(w, 0, err)
		return nil
	}
	return t
}

// internalAnswer is the FE's answer to a BE.
type internalAnswer struct {
	TxnID       int64  `json:"TxnId,omitempty"`
	Rows        int64  `json:"Rows,omitempty"`
	Error       string `json:"Error,omitempty"`
	Kind        string `json:"Kind,omitempty"` // unauthorized, forbidden, unknown_table, label_exists
	LabelStatus string `json:"LabelStatus,omitempty"`
}

func writeInternalErr(w http.ResponseWriter, code int, err error) {
	a := internalAnswer{Error: err.Error()}
	var le *catalog.LabelExistsError
	switch {
	case errors.Is(err, ErrUnauthorized):
		a.Kind = "unauthorized"
	case errors.Is(err, ErrForbidden):
		a.Kind = "forbidden"
	case errors.Is(err, ErrUnknownTable):
		a.Kind = "unknown_table"
	case errors.As(err, &le):
		a.Kind, a.LabelStatus, a.TxnID = "label_exists", le.Status, le.TxnID
	}
	if code == 0 {
		code = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(a)
}

func (a *internalAnswer) err() error {
	if a.Error == "" {
		return nil
	}
	e := errors.New(a.Error)
	switch a.Kind {
	case "unauthorized":
		return withKind(ErrUnauthorized, e)
	case "forbidden":
		return withKind(ErrForbidden, e)
	case "unknown_table":
		return withKind(ErrUnknownTable, e)
	case "label_exists":
		return &catalog.LabelExistsError{Label: "", Status: a.LabelStatus, TxnID: a.TxnID}
	}
	return e
}

func (h *Internal) schema(w http.ResponseWriter, r *http.Request) {
	t := h.open(w, r)
	if t == nil {
		return
	}
	fields := make([]arrow.Field, 0, len(t.Schema().Columns))
	for _, c := range t.Schema().Columns {
		md := map[string]string{}
		if c.Key {
			md[mdKey] = "1"
		}
		if c.Default != nil {
			md[mdDefault] = *c.Default
		}
		if c.TypeName != "" {
			md[mdTypeName] = c.TypeName
		}
		typ := c.Type
		if c.Unsupported {
			md[mdUnsupported] = "1"
			typ = arrow.Null
		}
		fields = append(fields, arrow.Field{Name: c.Name, Type: typ, Nullable: c.Nullable, Metadata: arrow.MetadataFrom(md)})
	}
	var buf bytes.Buffer
	wr := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, nil)), ipc.WithAllocator(h.mem))
	if err := wr.Close(); err != nil {
		writeInternalErr(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.apache.arrow.stream")
	_, _ = w.Write(buf.Bytes())
}

// trailerReader ends the stream with an error unless the body ended with
// the BE's row-count trailer matching what arrived: a BE that died or gave
// up mid-load never commits a part.
type trailerReader struct {
	*ipc.Reader
	req  *http.Request
	rows int64
	err  error
}

func (t *trailerReader) Next() bool {
	if t.Reader.Next() {
		t.rows += t.RecordBatch().NumRows()
		return true
	}
	if t.err == nil && t.Reader.Err() == nil {
		// HTTP trailers are there only once the body has been read to
		// io.EOF, and the IPC reader stops at the stream's end marker,
		// which may come in an earlier read than the EOF: read on to it
		// (nothing may follow the marker).
		switch extra, err := io.CopyN(io.Discard, t.req.Body, 1); {
		case extra > 0:
			t.err = errors.New("load stream from the BE: bytes after the end of the Arrow stream")
			return false
		case err != nil && err != io.EOF:
			t.err = fmt.Errorf("load stream from the BE: %w", err)
			return false
		}
		n, err := strconv.ParseInt(t.req.Trailer.Get(rowsTrailer), 10, 64)
		if err != nil || n != t.rows {
			t.err = fmt.Errorf("load stream from the BE ended early (%d rows arrived, the BE's count says %q)", t.rows, t.req.Trailer.Get(rowsTrailer))
		}
	}
	return false
}

func (t *trailerReader) Err() error {
	if err := t.Reader.Err(); err != nil {
		return err
	}
	return t.err
}

func (h *Internal) load(w http.ResponseWriter, r *http.Request) {
	t := h.open(w, r)
	if t == nil {
		return
	}
	rd, err := ipc.NewReader(r.Body, ipc.WithAllocator(h.mem))
	if err != nil {
		writeInternalErr(w, http.StatusBadRequest, fmt.Errorf("load stream: %w", err))
		return
	}
	defer rd.Release()
	q := r.URL.Query()
	tr := &trailerReader{Reader: rd, req: r}
	res, err := t.Load(r.Context(), tr, catalog.LoadOptions{Label: q.Get("label"), PartialColumns: q.Get("partial_columns") == "true"})
	if err == nil && tr.Err() != nil {
		err = tr.Err()
	}
	if err != nil {
		writeInternalErr(w, 0, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(internalAnswer{TxnID: res.TxnID, Rows: res.Rows})
}

// RemoteTables is the Tables of a BE in its own process: it asks the FE.
type RemoteTables struct {
	// FE is the FE's HTTP address, host:port.
	FE     string
	Secret string
	Client *http.Client
	Mem    memory.Allocator
}

func (rt *RemoteTables) request(ctx context.Context, method, db, tbl string, q url.Values, body io.Reader, id Identity) (*http.Request, error) {
	u := "http://" + rt.FE + internalPrefix + url.PathEscape(db) + "/" + url.PathEscape(tbl)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(id.User, id.Password)
	req.Header.Set(SecretHeader, rt.Secret)
	req.Header.Set(clientHostHeader, id.Host)
	return req, nil
}

func (rt *RemoteTables) client() *http.Client {
	if rt.Client != nil {
		return rt.Client
	}
	return http.DefaultClient
}

func readAnswer(resp *http.Response) (internalAnswer, error) {
	var a internalAnswer
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return a, fmt.Errorf("FE answer: %w", err)
	}
	if resp.Header.Get("Content-Type") != "application/json" {
		return a, fmt.Errorf("FE answered %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("FE answer: %w", err)
	}
	return a, nil
}

// Open implements Tables by asking the FE for the table's schema with the
// user's credentials.
func (rt *RemoteTables) Open(ctx context.Context, id Identity, db, tbl string) (Table, error) {
	req, err := rt.request(ctx, http.MethodGet, db, tbl, nil, nil, id)
	if err != nil {
		return nil, err
	}
	resp, err := rt.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the FE for table '%s.%s': %w", db, tbl, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") == "application/json" {
		a, err := readAnswer(resp)
		if err != nil {
			return nil, err
		}
		return nil, a.err()
	}
	rd, err := ipc.NewReader(io.LimitReader(resp.Body, 1<<20), ipc.WithAllocator(rt.Mem))
	if err != nil {
		return nil, fmt.Errorf("table '%s.%s' schema from the FE: %w", db, tbl, err)
	}
	defer rd.Release()
	var sch catalog.Schema
	for _, f := range rd.Schema().Fields() {
		c := catalog.Column{Name: f.Name, Type: f.Type, Nullable: f.Nullable}
		if v, ok := f.Metadata.GetValue(mdKey); ok && v == "1" {
			c.Key = true
		}
		if v, ok := f.Metadata.GetValue(mdDefault); ok {
			c.Default = &v
		}
		if _, ok := f.Metadata.GetValue(mdUnsupported); ok {
			c.Unsupported = true
		}
		c.TypeName, _ = f.Metadata.GetValue(mdTypeName)
		sch.Columns = append(sch.Columns, c)
	}
	return &remoteTable{rt: rt, id: id, db: db, tbl: tbl, schema: sch}, nil
}

type remoteTable struct {
	rt      *RemoteTables
	id      Identity
	db, tbl string
	schema  catalog.Schema
}

func (t *remoteTable) Schema() catalog.Schema { return t.schema }

// Load streams r to the FE as Arrow IPC; the row count goes in a trailer
// only when r ended cleanly, so a failed stream never commits.
func (t *remoteTable) Load(ctx context.Context, r array.RecordReader, opts catalog.LoadOptions) (catalog.LoadResult, error) {
	pr, pw := io.Pipe()
	q := url.Values{}
	if opts.Label != "" {
		q.Set("label", opts.Label)
	}
	if opts.PartialColumns {
		q.Set("partial_columns", "true")
	}
	req, err := t.rt.request(ctx, http.MethodPut, t.db, t.tbl, q, pr, t.id)
	if err != nil {
		return catalog.LoadResult{}, err
	}
	req.Header.Set("Content-Type", "application/vnd.apache.arrow.stream")
	req.Trailer = http.Header{rowsTrailer: nil}
	var wg sync.WaitGroup
	var rows atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := ipc.NewWriter(pw, ipc.WithSchema(r.Schema()), ipc.WithAllocator(t.rt.Mem))
		var n int64
		for r.Next() {
			if err := w.Write(r.RecordBatch()); err != nil {
				pw.CloseWithError(err)
				return
			}
			n += r.RecordBatch().NumRows()
		}
		if err := r.Err(); err != nil {
			pw.CloseWithError(err)
			return
		}
		if err := w.Close(); err != nil {
			pw.CloseWithError(err)
			return
		}
		rows.Store(n)
		req.Trailer.Set(rowsTrailer, strconv.FormatInt(n, 10))
		pw.Close()
	}()
	resp, err := t.rt.client().Do(req)
	pr.CloseWithError(errors.New("request ended"))
	wg.Wait()
	if err != nil {
		if rerr := r.Err(); rerr != nil {
			return catalog.LoadResult{}, rerr
		}
		return catalog.LoadResult{}, fmt.Errorf("loading through the FE: %w", err)
	}
	defer resp.Body.Close()
	a, err := readAnswer(resp)
	if err != nil {
		return catalog.LoadResult{}, err
	}
	if err := a.err(); err != nil {
		var le *catalog.LabelExistsError
		if errors.As(err, &le) {
			le.Label = opts.Label
		}
		if rerr := r.Err(); rerr != nil {
			return catalog.LoadResult{}, rerr
		}
		return catalog.LoadResult{}, err
	}
	return catalog.LoadResult{TxnID: a.TxnID, Rows: a.Rows}, nil
}

// Backends are the BE HTTP addresses that registered lately, for the FE's
// redirects. Safe for concurrent use.
type Backends struct {
	mu   sync.Mutex
	ttl  time.Duration
	seen map[string]time.Time
	next int
	now  func() time.Time
}

// NewBackends keeps a BE for ttl after its last registration.
func NewBackends(ttl time.Duration) *Backends {
	return &Backends{ttl: ttl, seen: map[string]time.Time{}, now: time.Now}
}

// Add records a registration.
func (b *Backends) Add(addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen[addr] = b.now()
}

func (b *Backends) live(addr string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.seen[addr]
	return ok && b.now().Sub(t) <= b.ttl
}

// Pick returns a live BE, round robin; false when none is.
func (b *Backends) Pick() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var live []string
	for a, t := range b.seen {
		if b.now().Sub(t) <= b.ttl {
			live = append(live, a)
		} else {
			delete(b.seen, a)
		}
	}
	if len(live) == 0 {
		return "", false
	}
	sort.Strings(live)
	b.next++
	return live[b.next%len(live)], true
}
