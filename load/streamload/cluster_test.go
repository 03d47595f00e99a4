package streamload_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/go-sql-driver/mysql"

	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/load/streamload"
)

const rootPass = "r00t-pw"

// cluster is a whole FE (MySQL protocol, internal catalog, users) with its
// HTTP port serving the FE leg and a BE HTTP listener serving the BE leg,
// both over real TCP.
type cluster struct {
	fe       *server.FE
	db       *sql.DB
	feHTTP   string // host:port
	beHTTP   string
	metaDir  string
	shutdown []func()
	bodyRead chan string // labels of loads whose body the BE began to read
}

type signalBody struct {
	io.ReadCloser
	label string
	ch    chan string
	once  sync.Once
}

func (b *signalBody) Read(p []byte) (int, error) {
	b.once.Do(func() {
		select {
		case b.ch <- b.label:
		default:
		}
	})
	return b.ReadCloser.Read(p)
}

// awaitBodyRead waits until the BE reads the body of the load labelled l.
func (c *cluster) awaitBodyRead(t testing.TB, l string) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case got := <-c.bodyRead:
			if got == l {
				return
			}
		case <-timeout:
			t.Fatalf("the BE never read the body of load %q", l)
		}
	}
}

func serve(t testing.TB, h http.Handler) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return ln.Addr().String(), func() { _ = hs.Close() }
}

func startCluster(t testing.TB, metaDir string) *cluster {
	t.Helper()
	ctx := context.Background()
	fe, err := server.Start(ctx, server.Options{QueryAddr: "127.0.0.1:0", MetaDir: metaDir, RootPassword: rootPass,
		Mem: memory.NewGoAllocator()})
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{fe: fe, metaDir: metaDir}
	be, err := fe.Server.StreamLoadBE()
	if err != nil {
		t.Fatal(err)
	}
	var stop func()
	c.bodyRead = make(chan string, 64)
	c.beHTTP, stop = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Tests learn when the BE first reads a load's body: the Loader
		// has then begun, holding the load's label.
		r.Body = &signalBody{ReadCloser: r.Body, label: r.Header.Get("label"), ch: c.bodyRead}
		be.ServeHTTP(w, r)
	}))
	c.shutdown = append(c.shutdown, stop)
	feh, err := fe.Server.StreamLoadFE(func(*http.Request) (string, error) { return c.beHTTP, nil })
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/{db}/{table}/_stream_load", feh)
	mux.Handle("/", fe.Server.HTTPHandler())
	c.feHTTP, stop = serve(t, mux)
	c.shutdown = append(c.shutdown, stop)
	c.db, err = sql.Open("mysql", "root:"+rootPass+"@tcp("+fe.Addr().String()+")/")
	if err != nil {
		t.Fatal(err)
	}
	c.db.SetMaxOpenConns(1) // USE must stick
	t.Cleanup(c.close)
	return c
}

func (c *cluster) close() {
	if c.fe == nil {
		return
	}
	for _, f := range c.shutdown {
		f()
	}
	c.db.Close()
	c.fe.Close()
	c.fe = nil
}

func (c *cluster) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// query returns the rows as text, NULL as "NULL", columns joined by "|".
func (c *cluster) query(t testing.TB, q string) []string {
	t.Helper()
	rows, err := c.db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			parts[i] = "NULL"
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// curl runs the real curl in Doris's documented form and returns the HTTP
// status and the decoded answer.
func curl(t testing.TB, args ...string) (int, streamload.Result, string) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		fixtures.Unavailable(t, "curl is not installed (Debian package curl)")
	}
	args = append([]string{"-sS", "--location-trusted", "-w", "\n%{http_code}"}, args...)
	out, err := exec.Command("curl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("curl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	s := strings.TrimSpace(string(out))
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		t.Fatalf("curl printed %q", s)
	}
	code, err := strconv.Atoi(s[i+1:])
	if err != nil {
		t.Fatalf("curl status %q", s[i+1:])
	}
	var res streamload.Result
	body := s[:i]
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("curl answer is not the Stream Load JSON: %v\n%s", err, body)
	}
	return code, res, body
}

func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}

func memAlloc(t testing.TB) memory.Allocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
