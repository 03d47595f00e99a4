package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 25 point 8: the password of a warehouse URI
// (s3://AK:PASSWORD@bucket/…) is masked in query errors, the log, EXPLAIN
// and the statement text profiles and SHOW PROCESSLIST keep, not only in
// SHOW CREATE CATALOG.
func TestURIPasswordMaskedEverywhere(t *testing.T) {
	const pw = "Sup3rSecretPW"
	logs := &lockedBuf{}
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: t.TempDir(), Mem: memory.NewGoAllocator(),
		Types:  []catalog.Type{paimon.Type()},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer fe.Close()
	f := &testFE{t: t, fe: fe}
	db := f.db("")
	mustExec(t, db, "CREATE CATALOG p PROPERTIES ('type'='paimon', 'warehouse'='s3://AKID:"+pw+"@bucket/wh', 's3.endpoint'='http://127.0.0.1:1')",
		"CREATE DATABASE d", "CREATE TABLE d.t (k INT, v VARCHAR(64)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
		"INSERT INTO d.t VALUES (1, 'x')")
	var seen []string
	for _, q := range []string{
		"SHOW DATABASES FROM p",
		"SELECT * FROM p.d.t",
		"EXPLAIN SELECT * FROM p.d.t",
		"DESC p.d.t",
	} {
		_, err := tryRows(db, q)
		if err == nil {
			t.Errorf("%s: no error", q)
			continue
		}
		seen = append(seen, q+": "+err.Error())
		if strings.Contains(err.Error(), pw) {
			t.Errorf("%s: the error shows the password: %v", q, err)
		}
		if !strings.Contains(err.Error(), "AKID:*XXX@bucket") {
			t.Errorf("%s: the error does not name the masked URI: %v", q, err)
		}
	}
	// EXPLAIN prints predicates; profiles and the process list keep the
	// statement's text.
	lit := "'s3://AKID:" + pw + "@bucket/wh'"
	for _, q := range []string{
		"EXPLAIN SELECT k FROM d.t WHERE v <> " + lit,
		"SELECT k, " + lit + " FROM d.t WHERE v <> " + lit,
		"SHOW QUERY PROFILE '/'",
		"SHOW PROCESSLIST",
	} {
		got := strings.Join(rows(t, db, q), "\n")
		if strings.Contains(got, pw) && !strings.HasPrefix(q, "SELECT") {
			t.Errorf("%s shows the password:\n%s", q, got)
		}
	}
	// What SHOW PROCESSLIST and profiles keep of any statement.
	if got := shownText("SELECT * FROM t WHERE v = " + lit); strings.Contains(got, pw) || !strings.Contains(got, "AKID:*XXX@bucket") {
		t.Errorf("statement text kept as %q", got)
	}
	if strings.Contains(logs.String(), pw) {
		t.Errorf("the log shows the password:\n%s", logs.String())
	}
	t.Logf("%s", strings.Join(seen, "\n"))
}
