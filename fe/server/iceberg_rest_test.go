package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog/rest"
	// iceberg-go writes the test tables' files to the server's S3 store.
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	icetable "github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/iceberg/icebergtest"
)

// seaweed is a SeaweedFS server (`weed mini`, built from the Go module
// by scripts/seaweedfs.sh): an Iceberg REST catalog server and the S3
// store its tables live in, on loopback ports of its own.
type seaweed struct {
	catalog, s3 string // base URLs
}

// startSeaweed runs `weed mini` in a temporary directory until the test
// ends; it reports nothing to outside hosts (telemetry off) and listens on
// 127.0.0.1 only. The table bucket "warehouse" is made at start.
func startSeaweed(t *testing.T) *seaweed {
	t.Helper()
	weed, err := exec.LookPath("weed")
	if err != nil {
		fixtures.Unavailable(t, "weed (SeaweedFS) is not on PATH: scripts/seaweedfs.sh builds it from the Go module (.ci/run does)")
		return nil
	}
	// Free loopback ports, released just before weed binds them.
	ports := make([]int, 12)
	var ls []net.Listener
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range ls {
		l.Close()
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, weed, "mini", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.telemetry=false", "-master.telemetry.url=http://127.0.0.1:1/", "-webdav=false", "-admin.ui=false",
		"-master.port="+p(0), "-master.port.grpc="+p(1), "-volume.port="+p(2), "-volume.port.grpc="+p(3),
		"-filer.port="+p(4), "-filer.port.grpc="+p(5), "-s3.port="+p(6), "-s3.port.grpc="+p(7),
		"-s3.port.iceberg="+p(8), "-s3.port.lance=0", "-admin.port="+p(9), "-admin.port.grpc="+p(10), "-admin.port.legacy=0",
		"-tableBucket=warehouse")
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("weed mini: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	s := &seaweed{catalog: "http://127.0.0.1:" + p(8), s3: "http://127.0.0.1:" + p(6)}
	// Ready when the catalog answers and the table bucket exists (its
	// namespaces list).
	cl := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("weed mini exited:\n%s", out.String())
		default:
		}
		resp, err := cl.Get(s.catalog + "/v1/warehouse/namespaces")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("weed mini: the Iceberg REST catalog did not answer in 90 s (last: %v):\n%s", err, out.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestIcebergCatalogREST: iceberg-go writes icebergtest.Orders (appends,
// position and equality deletes; four snapshots) and an empty table
// through SeaweedFS's Iceberg REST catalog server into its S3 store; a
// 'iceberg.catalog.type'='rest' catalog lists and loads them through the
// server and the BE reads the files from S3. Answers derived by hand from
// the writer's rule, as in TestIcebergCatalogIcebergGoTable.
func TestIcebergCatalogREST(t *testing.T) {
	sw := startSeaweed(t)
	ctx := context.Background()
	const secret = "sk-secret-rest-31"
	writer, err := rest.NewCatalog(ctx, "writer", sw.catalog, rest.WithWarehouseLocation("s3://warehouse"),
		rest.WithAdditionalProps(iceberggo.Properties{"s3.endpoint": sw.s3, "s3.region": "us-east-1",
			"s3.access-key-id": "ak", "s3.secret-access-key": secret, "s3.force-virtual-addressing": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if err := writer.CreateNamespace(ctx, icetable.Identifier{"shop"}, nil); err != nil {
		t.Fatal(err)
	}
	snaps, err := icebergtest.OrdersIn(ctx, writer, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.CreateTable(ctx, icetable.Identifier{"shop", "empty"}, icebergtest.OrdersSchema()); err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateNamespace(ctx, icetable.Identifier{"other"}, nil); err != nil {
		t.Fatal(err)
	}

	f := startIcebergFE(t)
	db := f.db("")
	mustExec(t, db, fmt.Sprintf(`CREATE CATALOG r PROPERTIES ('type'='iceberg', 'iceberg.catalog.type'='rest',
		'uri'='%s', 'warehouse'='s3://warehouse',
		's3.endpoint'='%s', 's3.access_key'='ak', 's3.secret_key'='%s', 'use_path_style'='true')`, sw.catalog, sw.s3, secret))
	live := func(snap int, id int64) bool {
		switch {
		case id > 250 || id < 1 || (snap < 3 && id > 200):
			return false
		case snap >= 1 && id < 20:
			return false
		case snap >= 2 && id <= 200 && id%17 == 5:
			return false
		}
		return true
	}
	for _, c := range []struct{ q, want string }{
		{"SHOW DATABASES FROM r", "information_schema,mysql,other,shop"},
		{"SHOW TABLES FROM r.shop", "empty,orders"},
		{"SHOW TABLES FROM r.other", ""},
		{"SELECT count(*) FROM r.shop.empty", "0"},
		{"SELECT count(*) FROM r.shop.`orders$snapshots`", "4"},
	} {
		if got := strings.Join(rows(t, db, c.q), ","); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
	for i, s := range snaps {
		var n, cents int64
		var east []string
		for id := int64(1); id <= 250; id++ {
			if !live(i, id) {
				continue
			}
			n++
			cents += icebergtest.Order(id).Cents
			if o := icebergtest.Order(id); o.Region == "east" && id < 40 {
				east = append(east, fmt.Sprintf("%d|%s", id, o.Customer))
			}
		}
		q := fmt.Sprintf("SELECT count(*), sum(amount) FROM r.shop.orders FOR VERSION AS OF %d", s)
		if got, want := rows(t, db, q), []string{fmt.Sprintf("%d|%d.%02d", n, cents/100, cents%100)}; !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
		q = fmt.Sprintf("SELECT id, customer FROM r.shop.orders FOR VERSION AS OF %d WHERE region = 'east' AND id < 40 ORDER BY id", s)
		if got := rows(t, db, q); !slices.Equal(got, east) {
			t.Errorf("%s: got %q, want %q", q, got, east)
		}
	}
	if got := rows(t, db, "SELECT count(*) FROM r.shop.orders"); !slices.Equal(got, []string{"220"}) {
		t.Errorf("current: %q", got)
	}
	ex := strings.Join(rows(t, db, "EXPLAIN SELECT * FROM r.shop.orders WHERE region = 'west'"), "\n")
	for _, w := range []string{"VICEBERG_SCAN_NODE", "TABLE: r.shop.orders", "partition=1/2"} {
		if !strings.Contains(ex, w) {
			t.Errorf("EXPLAIN lacks %q:\n%s", w, ex)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM r.shop.nosuch", "doesn't exist"},
		{"SELECT * FROM r.nosuch.orders", "Unknown database 'nosuch'"},
	} {
		_, err := tryRows(db, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v, want an error saying %q without the secret key", c.q, err, c.want)
		}
	}
	// A server that is not there is refused at CREATE CATALOG, naming it.
	_, err = tryRows(db, `CREATE CATALOG gone PROPERTIES ('type'='iceberg', 'iceberg.catalog.type'='rest', 'uri'='http://127.0.0.1:1',
		'iceberg.rest.oauth2.token'='tok-secret-52')`)
	if err == nil || !strings.Contains(err.Error(), "Iceberg REST catalog at 'http://127.0.0.1:1' cannot be used") || strings.Contains(err.Error(), "tok-secret-52") {
		t.Errorf("unreachable REST catalog: %v", err)
	}
}
