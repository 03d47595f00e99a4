package streamload_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

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
