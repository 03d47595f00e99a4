package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/typemap"
)

// TestFlussLakeOnOSSAndOBS tiers a primary-key table into an oss:// and an
// obs:// warehouse, each served by its own in-process S3 server, and reads
// the lake half and the union through a Fluss catalog whose lake settings
// use Doris's oss.* / obs.* property names.
func TestFlussLakeOnOSSAndOBS(t *testing.T) {
	for _, store := range []string{"oss", "obs"} {
		t.Run(store, func(t *testing.T) {
			ctx := context.Background()
			backend := s3mem.New()
			if err := backend.CreateBucket("lake"); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(gofakes3.New(backend).Server())
			defer srv.Close()
			opts := map[string]string{store + ".endpoint": srv.URL, store + ".access_key": "AK-" + store, store + ".secret_key": "secret-" + store, "use_path_style": "true"}
			c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), DatalakeFormat: "paimon", TabletServers: 1,
				Lake: minifluss.LakeConfig{Warehouse: store + "://lake/wh", Options: opts}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.CreateDatabase(ctx, "db"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: "db", Name: "pk", Buckets: 2, PrimaryKey: []string{"k"},
				Columns:    []minifluss.Column{{Name: "k", Type: typemap.BigInt().NotNull()}, {Name: "v", Type: typemap.String()}},
				Properties: map[string]string{"table.datalake.enabled": "true"}}); err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			for i := 1; i <= 100; i++ {
				rows = append(rows, []any{int64(i), fmt.Sprint("v", i)})
			}
			if err := c.Upsert(ctx, "db", "pk", rows); err != nil {
				t.Fatal(err)
			}
			if _, err := c.TierLake(ctx, "db", "pk"); err != nil {
				t.Fatal(err)
			}
			// After tiering: key 1 deleted, key 101 added (the tail).
			if err := c.Delete(ctx, "db", "pk", [][]any{{int64(1)}}); err != nil {
				t.Fatal(err)
			}
			if err := c.Upsert(ctx, "db", "pk", [][]any{{int64(101), "v101"}}); err != nil {
				t.Fatal(err)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			be := scan.NewExecutor(scan.Config{Name: "test-be"})
			defer be.Close()
			disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
			dir := t.TempDir()
			fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem, Types: []catalog.Type{fluss.Type()}, Runner: disp})
			if err != nil {
				t.Fatal(err)
			}
			tf := &testFE{t: t, dir: dir, fe: fe, mem: mem}
			defer tf.stop()
			db := tf.db("")
			mustExec(t, db, fmt.Sprintf(`CREATE CATALOG lk PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='%s',
				'fluss.lake.paimon.%[2]s.access_key'='AK-%[2]s', 'fluss.lake.paimon.%[2]s.secret_key'='secret-%[2]s',
				'fluss.lake.paimon.%[2]s.endpoint'='%[3]s', 'fluss.lake.paimon.use_path_style'='true')`, c.BootstrapAddr(), store, srv.URL))
			// 100 keys, 1..100, sum 5050 in the lake; the union drops 1 and adds 101.
			wantRows(t, db, "SELECT count(*), sum(k) FROM lk.db.`pk$lake`", "100|5050")
			wantRows(t, db, "SELECT count(*), sum(k) FROM lk.db.pk", "100|5150")
		})
	}
}
