package slt

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// DefaultHashThreshold is the harness's default.
const DefaultHashThreshold = 8

// Runner runs files against one FE.
type Runner struct {
	DB *sql.DB
	// Engine is the name skipif/onlyif compare with ("mysql").
	Engine string
	Skips  *SkipList
	// QueryTimeout bounds every record (0: none).
	QueryTimeout time.Duration
	// Alive reports an error once the FE has crashed (nil: not checked).
	Alive func() error
	// Setup statements run on every new connection (e.g. SET query_timeout).
	Setup []string
	// Slow: records that take longer are listed in FileResult.Slow (0: none).
	Slow time.Duration

	seq int
}

// Failure is one record that did not give what the file expects.
type Failure struct {
	File string
	Line int
	SQL  string
	Msg  string
}

func (f Failure) String() string {
	return fmt.Sprintf("%s:%d: %s\n    %s", f.File, f.Line, f.Msg, strings.ReplaceAll(f.SQL, "\n", "\n    "))
}

// FileResult counts the statement and query records of one file.
type FileResult struct {
	File string
	// Records ran (passed + failed); Skipped by the skip list; NotForEngine
	// excluded by the file's own skipif/onlyif.
	Passed, Failed, Skipped, NotForEngine int
	Failures                              []Failure
	// Slow lists the records that took longer than Runner.Slow (Msg is the
	// time taken).
	Slow []Failure
	// Crash is set when the FE died during the file.
	Crash error
	// Err is a problem outside the records (parse, connection).
	Err error
}

// Summary adds results up per directory.
type Summary struct {
	Dir                     string
	Files                   int
	Passed, Failed, Skipped int
}

// Rate is the pass rate of the records that ran.
func (s Summary) Rate() float64 {
	if s.Passed+s.Failed == 0 {
		return 1
	}
	return float64(s.Passed) / float64(s.Passed+s.Failed)
}

// Summarize groups results by the directory of their file.
func Summarize(rs []FileResult) []Summary {
	by := map[string]*Summary{}
	for _, r := range rs {
		d := path.Dir(r.File)
		s := by[d]
		if s == nil {
			s = &Summary{Dir: d}
			by[d] = s
		}
		s.Files++
		s.Passed += r.Passed
		s.Failed += r.Failed
		s.Skipped += r.Skipped
	}
	out := make([]Summary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out
}

// session is the one connection a file runs on; it is reopened (and put
// back into the file's database) when a timeout forces the driver to drop
// it.
type session struct {
	r    *Runner
	db   string
	conn *sql.Conn
}

func (s *session) open(ctx context.Context) error {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	c, err := s.r.DB.Conn(ctx)
	if err != nil {
		return err
	}
	for _, q := range s.r.Setup {
		if _, err := c.ExecContext(ctx, q); err != nil {
			c.Close()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if s.db != "" {
		if _, err := c.ExecContext(ctx, "USE "+s.db); err != nil {
			c.Close()
			return err
		}
	}
	s.conn = c
	return nil
}

func (s *session) close() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// RunFile runs the records of the file at p (rel names it in results and
// in the skip list) in a fresh database.
func (r *Runner) RunFile(ctx context.Context, p, rel string) FileResult {
	res := FileResult{File: rel}
	recs, err := ParseFile(p)
	if err != nil {
		res.Err = err
		return res
	}
	r.seq++
	s := &session{r: r}
	defer s.close()
	if err := s.open(ctx); err != nil {
		res.Err = err
		return res
	}
	s.db = fmt.Sprintf("slt_%d_%d", time.Now().UnixNano()%1e9, r.seq)
	if _, err := s.conn.ExecContext(ctx, "CREATE DATABASE "+s.db); err != nil {
		res.Err = err
		return res
	}
	defer func() {
		// A fresh connection: the file's may be broken.
		if c, err := r.DB.Conn(context.WithoutCancel(ctx)); err == nil {
			c.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+s.db)
			c.Close()
		}
	}()
	if _, err := s.conn.ExecContext(ctx, "USE "+s.db); err != nil {
		res.Err = err
		return res
	}
	threshold := DefaultHashThreshold
	labels := map[string]string{}
	for i := range recs {
		if ctx.Err() != nil {
			res.Err = ctx.Err()
			return res
		}
		rec := &recs[i]
		if !rec.Applies(r.Engine) {
			if rec.Kind == Statement || rec.Kind == Query {
				res.NotForEngine++
			}
			continue
		}
		switch rec.Kind {
		case HashThreshold:
			threshold = rec.Threshold
			continue
		case Halt:
			return res
		}
		if reason := r.Skips.Match(rel, rec); reason != "" {
			res.Skipped++
			continue
		}
		began := time.Now()
		msg := r.runRecord(ctx, s, rec, threshold, labels)
		if took := time.Since(began); r.Slow > 0 && took > r.Slow {
			res.Slow = append(res.Slow, Failure{File: rel, Line: rec.Line, SQL: rec.SQL, Msg: took.Round(time.Millisecond).String()})
		}
		if msg == "" {
			res.Passed++
			continue
		}
		res.Failed++
		res.Failures = append(res.Failures, Failure{File: rel, Line: rec.Line, SQL: rec.SQL, Msg: msg})
		if r.Alive != nil {
			if err := r.Alive(); err != nil {
				res.Crash = fmt.Errorf("%s:%d: FE died: %v", rel, rec.Line, err)
				return res
			}
		}
	}
	return res
}

// runRecord runs one statement or query and returns "" when it gives what
// the file expects, else what differed.
func (r *Runner) runRecord(ctx context.Context, s *session, rec *Record, threshold int, labels map[string]string) string {
	if s.conn == nil {
		if err := s.open(ctx); err != nil {
			return "reconnect: " + err.Error()
		}
	}
	qctx, cancel := ctx, context.CancelFunc(func() {})
	if r.QueryTimeout > 0 {
		qctx, cancel = context.WithTimeout(ctx, r.QueryTimeout)
	}
	defer cancel()
	if rec.Kind == Statement {
		_, err := s.conn.ExecContext(qctx, rec.SQL)
		r.afterError(s, err)
		switch {
		case err == nil && rec.ExpectError:
			return "statement succeeded, the file expects an error"
		case err != nil && !rec.ExpectError:
			return "statement error: " + err.Error()
		}
		return ""
	}
	vals, err := r.query(qctx, s, rec)
	r.afterError(s, err)
	if err != nil {
		return "query failed: " + err.Error()
	}
	Arrange(vals, len(rec.Types), rec.Sort)
	if rec.Label != "" || (threshold > 0 && len(vals) > threshold) {
		h := Hash(vals)
		if rec.Label != "" {
			key := rec.Label
			if len(key) > 20 {
				key = key[:20]
			}
			if prev, ok := labels[key]; ok && prev != h {
				return fmt.Sprintf("labeled result [%s] does not agree with previous values", rec.Label)
			}
			labels[key] = h
		}
	}
	if threshold == 0 || len(vals) <= threshold {
		for i := 0; i < len(vals) && i < len(rec.Expected); i++ {
			if vals[i] != rec.Expected[i] {
				return fmt.Sprintf("wrong result - value %d expected [%s] got [%s]%s", i+1, rec.Expected[i], vals[i], brief(vals))
			}
		}
		if len(vals) != len(rec.Expected) {
			return fmt.Sprintf("wrong number of values - expected %d got %d%s", len(rec.Expected), len(vals), brief(vals))
		}
		return ""
	}
	want := ""
	if len(rec.Expected) > 0 {
		want = rec.Expected[0]
	}
	if got := HashLine(vals); got != want {
		return fmt.Sprintf("wrong result hash - expected [%s] got [%s]", want, got)
	}
	return ""
}

func brief(vals []string) string {
	if len(vals) > 12 {
		return fmt.Sprintf(" (got %s …)", strings.Join(vals[:12], " "))
	}
	return fmt.Sprintf(" (got %s)", strings.Join(vals, " "))
}

// afterError drops a connection the driver can no longer use (a timeout
// closes it), so the next record reconnects.
func (r *Runner) afterError(s *session, err error) {
	if err == nil {
		return
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, sql.ErrConnDone) ||
		strings.Contains(err.Error(), "invalid connection") || strings.Contains(err.Error(), "bad connection") {
		s.close()
	}
}

func (r *Runner) query(ctx context.Context, s *session, rec *Record) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, rec.SQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if len(cols) != len(rec.Types) {
		return nil, fmt.Errorf("wrong number of result columns: expected %d but got %d", len(rec.Types), len(cols))
	}
	cells := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	var vals []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, c := range cells {
			vals = append(vals, Render(rec.Types[i], c.String, !c.Valid))
		}
	}
	return vals, rows.Err()
}
