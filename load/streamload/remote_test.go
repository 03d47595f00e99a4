package streamload_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/load/streamload"
)

const secret = "cluster-s3cret"

// remoteBE starts a BE leg the way cmd/be runs it: no catalog, the
// batches go to the FE's internal endpoint.
func remoteBE(t *testing.T, c *cluster, secret string) string {
	t.Helper()
	in := c.fe.Server.StreamLoadInternal("cluster-s3cret", streamload.NewBackends(0))
	mux := http.NewServeMux()
	mux.Handle("/api/_internal/", in)
	feAddr, stop := serve(t, mux)
	t.Cleanup(stop)
	be, err := streamload.NewBE(streamload.Config{Mem: memAlloc(t),
		Tables: &streamload.RemoteTables{FE: feAddr, Secret: secret, Mem: memAlloc(t)}})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop2 := serve(t, be)
	t.Cleanup(stop2)
	return "http://" + addr + "/api/d/t/_stream_load"
}

// TestRemoteBE: a BE without a catalog loads through the FE's internal
// endpoint with the same answers as the in-process one.
func TestRemoteBE(t *testing.T) {
	c := startCluster(t, t.TempDir())
	c.exec(t, "CREATE DATABASE d", uniqueTable, "CREATE USER 'ro'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT_PRIV ON internal.d.t TO 'ro'@'%'")
	url := remoteBE(t, c, secret)

	resp, res := put(t, url, "root", rootPass, strings.NewReader("1,a,1.5\n2,b,2\n3,\\N,x\n"), "label", "r-1",
		"column_separator", ",", "columns", "k,name,amount", "max_filter_ratio", "0.5", "strict_mode", "true")
	if resp.StatusCode != 200 || res.Status != "Success" || res.NumberLoadedRows != 2 || res.NumberFilteredRows != 1 || res.TxnID == 0 || res.ErrorURL == "" {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}
	wantRows(t, c, "SELECT k, name, amount FROM d.t ORDER BY k", "1|a|1.50", "2|b|2.00")

	_, res = put(t, url, "root", rootPass, strings.NewReader("9,z,9\n"), "label", "r-1", "column_separator", ",", "columns", "k,name,amount")
	if res.Status != "Label Already Exists" || res.ExistingJobStatus != "FINISHED" || !strings.Contains(res.Message, "Label [r-1]") {
		t.Fatalf("%+v", res)
	}
	// Over the filter ratio: the stream fails at the BE, the FE commits nothing.
	_, res = put(t, url, "root", rootPass, strings.NewReader("7,q,1\n8,r,bad\n"), "label", "r-2", "column_separator", ",", "columns", "k,name,amount", "strict_mode", "true")
	if res.Status != "Fail" || !strings.Contains(res.Message, "too many filtered rows") {
		t.Fatalf("%+v", res)
	}
	wantRows(t, c, "SELECT k FROM d.t ORDER BY k", "1", "2")

	resp, res = put(t, url, "ro", "pw", strings.NewReader("5,e,5\n"), "column_separator", ",", "columns", "k,name,amount")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(res.Message, "LOAD command denied") {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}
	resp, res = put(t, url, "root", "wrong", strings.NewReader("5,e,5\n"))
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(res.Message, "Access denied") {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}

	// A BE with the wrong cluster secret gets nothing from the FE.
	bad := remoteBE(t, c, "not-the-secret")
	resp, res = put(t, bad, "root", rootPass, strings.NewReader("5,e,5\n"), "column_separator", ",", "columns", "k,name,amount")
	if res.Status != "Fail" || !strings.Contains(res.Message, "wrong cluster secret") {
		t.Fatalf("HTTP %s %+v", resp.Status, res)
	}
	wantRows(t, c, "SELECT k FROM d.t ORDER BY k", "1", "2")
}
