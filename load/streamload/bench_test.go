package streamload_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inlet-db/inlet/internal/tpch"
	"github.com/inlet-db/inlet/load/streamload"
)

const benchRows = 1_000_000

func benchBody(format string) []byte {
	var buf bytes.Buffer
	if format == "json" {
		buf.WriteByte('[')
	}
	for i := 0; i < benchRows; i++ {
		ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05")
		if format == "json" {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"k":%d,"name":"name-%d","amount":%d.%02d,"ts":"%s","flag":%t}`, i, i%1000, i%100000, i%100, ts, i%2 == 0)
		} else {
			fmt.Fprintf(&buf, "%d\tname-%d\t%d.%02d\t%s\t%t\n", i, i%1000, i%100000, i%100, ts, i%2 == 0)
		}
	}
	if format == "json" {
		buf.WriteByte(']')
	}
	return buf.Bytes()
}

// BenchmarkStreamLoad loads 1 M rows of 5 columns per iteration through
// the FE's 307, the BE leg and a durable internal table (fsynced commit).
//
//	go test -run '^$' -bench BenchmarkStreamLoad -benchtime 3x ./load/streamload
func BenchmarkStreamLoad(b *testing.B) {
	for _, format := range []string{"csv", "json"} {
		b.Run(format, func(b *testing.B) {
			c := startCluster(b, b.TempDir())
			c.exec(b, "CREATE DATABASE d", "CREATE TABLE d.t (k BIGINT NOT NULL, name VARCHAR(32), amount DECIMAL(12,2), ts DATETIME, flag BOOLEAN) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4")
			body := benchBody(format)
			client := &http.Client{CheckRedirect: noRedirect, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := benchLoad(b, client, c.url("d", "t"), body, format, "bench-"+format+"-"+strconv.Itoa(i))
				if res.Status != "Success" || res.NumberLoadedRows != benchRows {
					b.Fatalf("%+v", res)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			c.close()
		})
	}
}

func benchLoad(b *testing.B, client *http.Client, url string, body []byte, format, label string) streamload.Result {
	for hop := 0; hop < 3; hop++ {
		req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		req.SetBasicAuth("root", rootPass)
		req.Header.Set("Expect", "100-continue")
		req.Header.Set("label", label)
		req.Header.Set("format", format)
		if format == "json" {
			req.Header.Set("strip_outer_array", "true")
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			resp.Body.Close()
			continue
		}
		var res streamload.Result
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := jsonUnmarshal(data, &res); err != nil {
			b.Fatalf("%s: %s", resp.Status, data)
		}
		return res
	}
	b.Fatal("too many redirects")
	return streamload.Result{}
}

// BenchmarkStreamLoadLineitem loads TPC-H lineitem (16 columns, '|'
// separated, as cmd/tpchbench loads it) from our own generator at SF 0.2
// (about 1.2 M rows, 150 MB; INLET_BENCH_SF sets another) per iteration,
// through the same path.
//
//	go test -run '^$' -bench BenchmarkStreamLoadLineitem -benchtime 2x ./load/streamload
func BenchmarkStreamLoadLineitem(b *testing.B) {
	sf := 0.2
	if v, err := strconv.ParseFloat(os.Getenv("INLET_BENCH_SF"), 64); err == nil && v > 0 {
		sf = v // INLET_BENCH_SF=1: all of SF 1's lineitem, 6 M rows, 760 MB
	}
	dir := b.TempDir()
	if err := tpch.Generate(dir, sf); err != nil {
		b.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "lineitem.tbl"))
	if err != nil {
		b.Fatal(err)
	}
	rows := int64(bytes.Count(body, []byte{'\n'}))
	var lineitem tpch.Table
	for _, t := range tpch.Tables {
		if t.Name == "lineitem" {
			lineitem = t
		}
	}
	cols := make([]string, len(lineitem.Columns))
	for i, c := range lineitem.Columns {
		cols[i] = c[0] + " " + c[1] + " NOT NULL"
	}
	c := startCluster(b, b.TempDir())
	c.exec(b, "CREATE DATABASE d", "CREATE TABLE d.lineitem ("+strings.Join(cols, ", ")+") DUPLICATE KEY(l_orderkey) DISTRIBUTED BY HASH(l_orderkey) BUCKETS 4")
	client := &http.Client{CheckRedirect: noRedirect, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
	b.SetBytes(int64(len(body)))
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := benchLoadSep(b, client, c.url("d", "lineitem"), body, "|", "bench-lineitem-"+strconv.Itoa(i))
		if res.Status != "Success" || res.NumberLoadedRows != rows {
			b.Fatalf("%+v", res)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// CPU per row is what a busy machine does not blur: wall time there
	// depends on the cores other processes leave.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(rows*int64(b.N)), "cpu-ns/row")
	c.close()
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchLoadSep(b *testing.B, client *http.Client, url string, body []byte, sep, label string) streamload.Result {
	for hop := 0; hop < 3; hop++ {
		req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
		req.SetBasicAuth("root", rootPass)
		req.Header.Set("Expect", "100-continue")
		req.Header.Set("label", label)
		req.Header.Set("column_separator", sep)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode == http.StatusTemporaryRedirect {
			url = resp.Header.Get("Location")
			resp.Body.Close()
			continue
		}
		var res streamload.Result
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := jsonUnmarshal(data, &res); err != nil {
			b.Fatalf("%s: %s", resp.Status, data)
		}
		return res
	}
	b.Fatal("too many redirects")
	return streamload.Result{}
}
