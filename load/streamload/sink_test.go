package streamload_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sink behaves like the Doris sink of the message broker described in the
// issue (picomq-doris-sink): it sends each chunk of a batch with a label
// derived from topic, partition and offsets, follows the FE's 307 itself
// after checking the target, and classifies every answer by the sink's
// table. It is a client under test's rules, not a copy of the server.
type sink struct {
	feURL, database, table    string
	username, password        string
	labelPrefix               string
	maxFilterRatio            string // "" = header not sent
	columns, where            string
	outputFormat              string // json (default) or csv
	batchSize, maxRetries     int
	retryDelay, maxRetryDelay time.Duration
	allowInsecureRedirect     bool
	allowedRedirectHosts      []string
	client                    *http.Client
	attempts, retried         int
	warnings                  []string
	outcomes                  []outcome
}

type outcome string

const (
	success   outcome = "success"
	transient outcome = "transient"
	permanent outcome = "permanent"
)

func newSink(feURL, db, table, user, pass string) *sink {
	return &sink{feURL: feURL, database: db, table: table, username: user, password: pass, labelPrefix: "picomq",
		outputFormat: "json", batchSize: 1000, maxRetries: 3, retryDelay: 10 * time.Millisecond, maxRetryDelay: 50 * time.Millisecond,
		client: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// sanitize keeps [A-Za-z0-9_] (others become _) and cuts to n characters.
func sanitize(s string, n int) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

func (s *sink) label(topic string, partition int, first, last int64) string {
	h := fnv.New64a()
	h.Write([]byte(s.labelPrefix + "\x00" + s.table + "\x00" + topic))
	return fmt.Sprintf("%s-%s-%016x-%d-%d-%d", sanitize(s.labelPrefix, 16), sanitize(topic, 16), h.Sum64(), partition, first, last)
}

// writeBatch sends records (offsets first, first+1, …) in chunks; a failed
// chunk is remembered and the rest still tried, as the seed says.
func (s *sink) writeBatch(ctx context.Context, topic string, partition int, first int64, records []json.RawMessage) error {
	for _, r := range records {
		var obj map[string]any
		if json.Unmarshal(r, &obj) != nil || obj == nil {
			return fmt.Errorf("received non-JSON payload")
		}
	}
	size := max(s.batchSize, 1)
	var firstErr error
	for i := 0; i < len(records); i += size {
		chunk := records[i:min(i+size, len(records))]
		lbl := s.label(topic, partition, first+int64(i), first+int64(i+len(chunk)-1))
		body, hdr, err := s.encode(chunk)
		if err != nil {
			return err
		}
		hdr.Set("label", lbl)
		if err := s.sendChunk(ctx, body, hdr); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func (s *sink) encode(chunk []json.RawMessage) ([]byte, http.Header, error) {
	hdr := http.Header{}
	if s.maxFilterRatio != "" {
		hdr.Set("max_filter_ratio", s.maxFilterRatio)
	}
	if s.columns != "" {
		hdr.Set("columns", s.columns)
	}
	if s.where != "" {
		hdr.Set("where", s.where)
	}
	if s.outputFormat != "csv" {
		hdr.Set("format", "json")
		hdr.Set("strip_outer_array", "true")
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i, r := range chunk {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(r)
		}
		buf.WriteByte(']')
		return buf.Bytes(), hdr, nil
	}
	// CSV: the names of columns up to the first entry with '='.
	var names []string
	for _, c := range strings.Split(s.columns, ",") {
		if strings.Contains(c, "=") {
			break
		}
		names = append(names, strings.TrimSpace(c))
	}
	if len(names) == 0 {
		return nil, nil, errors.New(`format="csv" requires a non-empty columns`)
	}
	hdr.Set("format", "csv")
	hdr.Set("column_separator", `\x01`)
	hdr.Set("line_delimiter", `\x02`)
	hdr.Set("enclose", `"`)
	hdr.Set("escape", `\`)
	var buf bytes.Buffer
	quote := func(s string) {
		buf.WriteByte('"')
		for i := 0; i < len(s); i++ {
			if s[i] == '"' || s[i] == '\\' {
				buf.WriteByte('\\')
			}
			buf.WriteByte(s[i])
		}
		buf.WriteByte('"')
	}
	for _, r := range chunk {
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(r, &obj)
		for i, n := range names {
			if i > 0 {
				buf.WriteByte(0x01)
			}
			v, ok := obj[n]
			switch {
			case !ok || string(v) == "null":
				buf.WriteString(`\N`)
			case v[0] == '"':
				var str string
				_ = json.Unmarshal(v, &str)
				quote(str)
			case v[0] == '{' || v[0] == '[':
				var c bytes.Buffer
				_ = json.Compact(&c, v)
				quote(c.String())
			default:
				buf.Write(v)
			}
		}
		buf.WriteByte(0x02)
	}
	return buf.Bytes(), hdr, nil
}

type chunkErr struct {
	kind outcome
	msg  string
}

func (e *chunkErr) Error() string { return string(e.kind) + ": " + e.msg }

func (s *sink) sendChunk(ctx context.Context, body []byte, hdr http.Header) error {
	attempts := max(s.maxRetries, 1)
	delay := min(s.retryDelay, s.maxRetryDelay)
	var err error
	for n := 1; n <= attempts; n++ {
		if n > 1 {
			s.retried++
			time.Sleep(delay)
			delay = min(2*delay, s.maxRetryDelay)
		}
		s.attempts++
		var kind outcome
		kind, err = s.attempt(ctx, body, hdr)
		s.outcomes = append(s.outcomes, kind)
		if kind != transient {
			return err
		}
	}
	return err
}

func (s *sink) attempt(ctx context.Context, body []byte, hdr http.Header) (outcome, error) {
	target := fmt.Sprintf("%s/api/%s/%s/_stream_load", strings.TrimRight(s.feURL, "/"), s.database, s.table)
	for hop := 0; ; hop++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
		if err != nil {
			return permanent, &chunkErr{permanent, err.Error()}
		}
		req.Header = hdr.Clone()
		req.SetBasicAuth(s.username, s.password)
		resp, err := s.client.Do(req)
		if err != nil {
			return transient, &chunkErr{transient, err.Error()}
		}
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		code := resp.StatusCode
		if code == http.StatusTemporaryRedirect || code == http.StatusFound || code == http.StatusMovedPermanently || code == http.StatusPermanentRedirect {
			if hop >= 5 {
				return permanent, &chunkErr{permanent, "too many redirects"}
			}
			next, err := s.checkRedirect(target, resp.Header.Get("Location"))
			if err != nil {
				return permanent, &chunkErr{permanent, err.Error()}
			}
			target = next
			continue
		}
		switch {
		case code == 408 || code == 429 || code >= 500:
			return transient, &chunkErr{transient, resp.Status}
		case code >= 400:
			return permanent, &chunkErr{permanent, resp.Status + ": " + string(b)}
		case code/100 != 2:
			return permanent, &chunkErr{permanent, resp.Status}
		}
		if rerr != nil || len(bytes.TrimSpace(b)) == 0 {
			return transient, &chunkErr{transient, "empty or unreadable body"}
		}
		var ans struct {
			Status, Message, ExistingJobStatus   string
			NumberLoadedRows, NumberFilteredRows *int64
		}
		if err := json.Unmarshal(b, &ans); err != nil || ans.Status == "" {
			return permanent, &chunkErr{permanent, "not the Stream Load JSON: " + string(b)}
		}
		switch ans.Status {
		case "Label Already Exists":
			if ans.ExistingJobStatus == "FINISHED" {
				return success, nil
			}
			return transient, &chunkErr{transient, "label " + ans.ExistingJobStatus}
		case "Publish Timeout":
			return success, nil
		case "Success":
			if ans.NumberFilteredRows != nil && *ans.NumberFilteredRows > 0 {
				s.warnings = append(s.warnings, fmt.Sprintf("loaded %d rows but FILTERED %d rows", *ans.NumberLoadedRows, *ans.NumberFilteredRows))
			}
			return success, nil
		}
		return permanent, &chunkErr{permanent, "stream load failed: " + ans.Message}
	}
}

func (s *sink) checkRedirect(from, loc string) (string, error) {
	f, _ := url.Parse(from)
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("bad redirect %q", loc)
	}
	u = f.ResolveReference(u)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("refusing redirect to scheme %q", u.Scheme)
	}
	if f.Scheme == "https" && u.Scheme == "http" && !s.allowInsecureRedirect {
		return "", errors.New("refusing redirect that downgrades https -> http")
	}
	if len(s.allowedRedirectHosts) > 0 && !slices.Contains(s.allowedRedirectHosts, u.Host) && !slices.Contains(s.allowedRedirectHosts, u.Hostname()) {
		return "", fmt.Errorf("redirect target '%s' is not in allowed_redirect_hosts", u.Host)
	}
	return u.String(), nil
}

// records makes JSON payloads for offsets [from, to).
func records(from, to int, gen func(i int) string) []json.RawMessage {
	var out []json.RawMessage
	for i := from; i < to; i++ {
		out = append(out, json.RawMessage(gen(i)))
	}
	return out
}

var _ = strconv.Itoa
