package streamload_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inlet-db/inlet/load/streamload"
)

// watchedBody records whether anyone read it.
type watchedBody struct {
	r    io.Reader
	read atomic.Bool
}

func (w *watchedBody) Read(p []byte) (int, error) {
	w.read.Store(true)
	return w.r.Read(p)
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func put(t *testing.T, url, user, pass string, body io.Reader, hdr ...string) (*http.Response, streamload.Result) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	for i := 0; i < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	cl := &http.Client{CheckRedirect: noRedirect, Timeout: 30 * time.Second,
		Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var res streamload.Result
	if resp.StatusCode != http.StatusTemporaryRedirect {
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("HTTP %s: not the Stream Load JSON: %s", resp.Status, b)
		}
	}
	return resp, res
}

// TestFEChecksBeforeBody: the FE answers every request, redirect or
// refusal, without reading a byte of the body; with Expect: 100-continue
// the client sends none.
func TestFEChecksBeforeBody(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	tests := []struct {
		name       string
		user, pass string
		url        string
		code       int
		msg        string
	}{
		{"redirect", "root", rootPass, c.url("d", "t") + "?x=1", http.StatusTemporaryRedirect, ""},
		{"no credentials", "", "", c.url("d", "t"), http.StatusUnauthorized, "Basic"},
		{"wrong password", "root", "nope", c.url("d", "t"), http.StatusUnauthorized, "Access denied for user 'root'"},
		{"unknown table", "root", rootPass, c.url("d", "nosuch"), http.StatusOK, "Table 'd.nosuch' doesn't exist"},
		{"unknown database", "root", rootPass, c.url("nodb", "t"), http.StatusOK, "Unknown database 'nodb'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := &watchedBody{r: strings.NewReader("1\ta\n")}
			resp, res := put(t, tc.url, tc.user, tc.pass, body, "Expect", "100-continue", "label", "x")
			if resp.StatusCode != tc.code || !strings.Contains(res.Message, tc.msg) {
				t.Fatalf("HTTP %s, %+v", resp.Status, res)
			}
			if body.read.Load() {
				t.Fatal("the client sent the body to the FE")
			}
			if strings.Contains(res.Message, rootPass) {
				t.Fatal("answer contains the password")
			}
			if tc.code == http.StatusTemporaryRedirect {
				want := "http://" + c.beHTTP + "/api/d/t/_stream_load?x=1"
				if loc := resp.Header.Get("Location"); loc != want {
					t.Fatalf("Location %q, want %q", loc, want)
				}
			}
		})
	}
	wantRows(t, c, "SELECT count(*) FROM d.t", "0")
}

// TestLoadPrivilege: a user without LOAD_PRIV on the table is refused at
// the FE and at the BE, with Doris's message; after GRANT the load works.
func TestLoadPrivilege(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable, "CREATE USER 'loader'@'%' IDENTIFIED BY 'pw1'",
		"GRANT SELECT_PRIV ON internal.d.t TO 'loader'@'%'")
	for _, url := range []string{c.url("d", "t"), "http://" + c.beHTTP + "/api/d/t/_stream_load"} {
		resp, res := put(t, url, "loader", "pw1", strings.NewReader("1\ta\n"), "columns", "k,name")
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(res.Message, "LOAD command denied to user 'loader'") {
			t.Fatalf("%s: HTTP %s, %+v", url, resp.Status, res)
		}
	}
	c.exec(t, "GRANT LOAD_PRIV ON internal.d.t TO 'loader'@'%'")
	resp, res := put(t, "http://"+c.beHTTP+"/api/d/t/_stream_load", "loader", "pw1", strings.NewReader("1\ta\n"), "columns", "k,name")
	if resp.StatusCode != http.StatusOK || res.Status != "Success" || res.NumberLoadedRows != 1 {
		t.Fatalf("HTTP %s, %+v", resp.Status, res)
	}
	wantRows(t, c, "SELECT k, name FROM d.t", "1|a")
}

// TestOversizeBody: a body over the limit is refused, by its declared
// length before reading, or while streaming, and loads nothing.
func TestOversizeBody(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	be, err := streamload.NewBE(streamload.Config{Tables: c.fe.Server.StreamLoadTables(), Mem: memAlloc(t), MaxBodyBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop := serve(t, be)
	defer stop()
	big := strings.Repeat("1\tabc\n", 400) // 2400 bytes
	url := "http://" + addr + "/api/d/t/_stream_load"
	resp, res := put(t, url, "root", rootPass, strings.NewReader(big), "columns", "k,name")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || res.Status != "Fail" || !strings.Contains(res.Message, "exceeds the limit of 1000 bytes") {
		t.Fatalf("HTTP %s, %+v", resp.Status, res)
	}
	// No declared length (chunked): refused while streaming.
	resp, res = put(t, url, "root", rootPass, io.MultiReader(bytes.NewReader([]byte(big))), "columns", "k,name")
	if resp.StatusCode != http.StatusOK || res.Status != "Fail" || !strings.Contains(res.Message, "body exceeds the limit of 1000 bytes") {
		t.Fatalf("HTTP %s, %+v", resp.Status, res)
	}
	wantRows(t, c, "SELECT count(*) FROM d.t", "0")
}

// TestRunningLabel: while a load holds its label, another load with it is
// answered Label Already Exists / RUNNING; once the first commits, FINISHED.
func TestRunningLabel(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	pr, pw := io.Pipe()
	done := make(chan streamload.Result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPut, "http://"+c.beHTTP+"/api/d/t/_stream_load", pr)
		req.SetBasicAuth("root", rootPass)
		req.Header.Set("label", "slow")
		req.Header.Set("columns", "k,name")
		resp, err := http.DefaultClient.Do(req)
		var res streamload.Result
		if err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&res)
			resp.Body.Close()
		}
		done <- res
	}()
	if _, err := pw.Write([]byte("1\ta\n2\tb\n")); err != nil {
		t.Fatal(err)
	}
	c.awaitBodyRead(t, "slow")
	// The first load is now reading its body: its label is taken.
	resp, res := put(t, "http://"+c.beHTTP+"/api/d/t/_stream_load", "root", rootPass, strings.NewReader("3\tc\n"), "label", "slow", "columns", "k,name")
	if resp.StatusCode != http.StatusOK || res.Status != "Label Already Exists" || res.ExistingJobStatus != "RUNNING" {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}
	pw.Close()
	if res := <-done; res.Status != "Success" || res.NumberLoadedRows != 2 {
		t.Fatalf("first load: %+v", res)
	}
	_, res = put(t, "http://"+c.beHTTP+"/api/d/t/_stream_load", "root", rootPass, strings.NewReader("3\tc\n"), "label", "slow", "columns", "k,name")
	if res.Status != "Label Already Exists" || res.ExistingJobStatus != "FINISHED" {
		t.Fatalf("%+v", res)
	}
	wantRows(t, c, "SELECT k, name FROM d.t ORDER BY k", "1|a", "2|b")
}

// TestConcurrentLoads: loads running at once into one table lose nothing
// and duplicate nothing.
func TestConcurrentLoads(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", dupTable)
	const loads, rows = 8, 2000
	errs := make(chan string, loads)
	for i := 0; i < loads; i++ {
		go func(i int) {
			var sb strings.Builder
			for k := 0; k < rows; k++ {
				fmt.Fprintf(&sb, "%d\tw%d\n", i*rows+k, i)
			}
			req, _ := http.NewRequest(http.MethodPut, "http://"+c.beHTTP+"/api/d/t/_stream_load", strings.NewReader(sb.String()))
			req.SetBasicAuth("root", rootPass)
			req.Header.Set("label", fmt.Sprintf("c-%d", i))
			req.Header.Set("columns", "k,name")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			var res streamload.Result
			if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Status != "Success" || res.NumberLoadedRows != rows {
				errs <- fmt.Sprintf("load %d: %v %+v", i, err, res)
				return
			}
			errs <- ""
		}(i)
	}
	for i := 0; i < loads; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	wantRows(t, c, "SELECT count(*), count(DISTINCT k), min(k), max(k) FROM d.t", fmt.Sprintf("%d|%d|0|%d", loads*rows, loads*rows, loads*rows-1))
}
