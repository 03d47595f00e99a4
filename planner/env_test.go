package planner_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// extraScenario adds, after the Doris fixture set (tiering frozen), the
// tables the fallback matrix needs that the Doris set does not have.
const extraScenario = `
CREATE TABLE fluss_test.lake_untiered (id INT, name STRING)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_untiered VALUES (1, 'a'), (2, 'b'), (3, 'c');
CREATE TABLE fluss_test.lake_pk_untiered (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '2', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_pk_untiered VALUES (1, 'a'), (2, 'b'), (3, 'c');

CREATE TABLE fluss_test.lake_pk_double (k DOUBLE NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_pk_double VALUES (1.5, 'a'), (2.5, 'b');
CREATE TABLE fluss_test.lake_pk_ltz (k TIMESTAMP_LTZ(3) NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_pk_ltz VALUES ('2026-01-01 00:00:00.000', 'a');

CREATE TABLE fluss_test.lake_pk_ttl (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_pk_ttl VALUES (1, 'a'), (2, 'b');
CREATE TABLE fluss_test.lake_log_ttl (id INT, name STRING)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');
INSERT INTO fluss_test.lake_log_ttl VALUES (1, 'a'), (2, 'b');

UNFREEZE TIERING;
TIER fluss_test.lake_pk_double;
TIER fluss_test.lake_pk_ltz;
TIER fluss_test.lake_pk_ttl;
TIER fluss_test.lake_log_ttl;
FREEZE TIERING;

INSERT INTO fluss_test.lake_pk_double VALUES (3.5, 'c');
INSERT INTO fluss_test.lake_pk_ttl VALUES (3, 'c');
INSERT INTO fluss_test.lake_pk_ttl VALUES (4, 'd');
EXPIRE LOG fluss_test.lake_pk_ttl BUCKET 0 BEFORE 3;
INSERT INTO fluss_test.lake_log_ttl VALUES (3, 'c');
INSERT INTO fluss_test.lake_log_ttl VALUES (4, 'd');
EXPIRE LOG fluss_test.lake_log_ttl BUCKET 0 BEFORE 3;

CREATE TABLE fluss_test.lake_lance (id INT)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true', 'table.datalake.format' = 'lance');
INSERT INTO fluss_test.lake_lance VALUES (1), (2);
SET LAKE SNAPSHOT fluss_test.lake_lance ID 1 READABLE 1 OFFSETS (BUCKET 0 = 1);
`

// env is one emulated cluster with the fixture tables, shared by the tests
// of this package (loading it is the slow part).
type env struct {
	cluster   *minifluss.Cluster
	client    *client.Client
	warehouse string
}

var (
	envOnce sync.Once
	envVal  *env
	envErr  error
	envDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if envVal != nil {
		envVal.client.Close()
		envVal.cluster.Close()
	}
	if envDir != "" {
		os.RemoveAll(envDir)
	}
	os.Exit(code)
}

func testEnv(t testing.TB) *env {
	t.Helper()
	envOnce.Do(func() {
		ctx := context.Background()
		envDir, envErr = os.MkdirTemp("", "planner-test-")
		if envErr != nil {
			return
		}
		wh := filepath.Join(envDir, "warehouse")
		c, err := minifluss.Start(ctx, minifluss.Config{DataDir: filepath.Join(envDir, "data"), DatalakeFormat: "paimon",
			DefaultBucketNumber: 3, Lake: minifluss.LakeConfig{Warehouse: wh}})
		if err != nil {
			envErr = err
			return
		}
		for _, load := range []func() (*minifluss.Scenario, error){
			func() (*minifluss.Scenario, error) {
				return minifluss.LoadScenario(filepath.Join("..", "minifluss", "testdata", "doris_regression.scenario"))
			},
			func() (*minifluss.Scenario, error) { return minifluss.ParseScenario(extraScenario) },
		} {
			sc, err := load()
			if err == nil {
				err = sc.Run(ctx, c)
			}
			if err != nil {
				c.Close()
				envErr = err
				return
			}
		}
		cl, err := client.New(client.Config{BootstrapServers: []string{c.BootstrapAddr()}})
		if err != nil {
			c.Close()
			envErr = err
			return
		}
		envVal = &env{cluster: c, client: cl, warehouse: wh}
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return envVal
}

// testTable is a catalog table over a ScanTarget, as catalog/fluss's tables
// are.
type testTable struct {
	st *fluss.ScanTarget
}

func (t *testTable) Name() string { return t.st.Path.Table }
func (t *testTable) Schema() catalog.Schema {
	return catalog.Schema{Columns: t.st.Columns}
}
func (t *testTable) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, catalog.ErrUnsupported
}
func (t *testTable) ScanTarget() *fluss.ScanTarget { return t.st }

// target builds the ScanTarget of a fixture table the way the catalog does:
// the client's table info, the engine mapping of its columns, and a lake
// opened from the emulator's warehouse (or from warehouse when set).
func (e *env) target(t testing.TB, table string, mode fluss.ReadMode, opts fluss.Options, warehouse string) *fluss.ScanTarget {
	t.Helper()
	return e.targetIn(t, "fluss_test", table, mode, opts, warehouse)
}

func (e *env) targetIn(t testing.TB, db, table string, mode fluss.ReadMode, opts fluss.Options, warehouse string) *fluss.ScanTarget {
	t.Helper()
	ctx := context.Background()
	path := client.TablePath{Database: db, Table: table}
	info, err := e.client.GetTableInfo(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	fcols := info.Descriptor.Schema.TypeColumns()
	cols := make([]catalog.Column, len(fcols))
	for i, c := range fcols {
		at, err := typemap.ArrowType(c.Type)
		et := typemap.EngineTypeOf(c.Type, typemap.EngineOptions{MapVarbinary: opts.MapVarbinary, MapTimestampTZ: opts.MapTimestampTZ})
		if err != nil || !et.Supported {
			at = arrow.Null
		}
		cols[i] = catalog.Column{Name: c.Name, Type: at, TypeName: et.Name, Nullable: c.Type.Nullable, Unsupported: !et.Supported}
	}
	if warehouse == "" {
		warehouse = e.warehouse
	}
	if opts.UnionMode == "" {
		opts.UnionMode = fluss.ModeAuto
	}
	if opts.MaxTailRows == 0 {
		opts.MaxTailRows = 2_000_000
	}
	if opts.MaxTotalTailRows == 0 {
		opts.MaxTotalTailRows = 20_000_000
	}
	opts.ClientOptions = map[string]string{"bootstrap.servers": e.cluster.BootstrapAddr()}
	return &fluss.ScanTarget{
		Catalog:       "fluss",
		Path:          path,
		Info:          info,
		Client:        e.client,
		Mode:          mode,
		Columns:       cols,
		FlussColumns:  fcols,
		PartitionKeys: info.Descriptor.PartitionKeys,
		Options:       opts,
		OpenLake: func(ctx context.Context) (*fluss.Lake, error) {
			fs := fileio.Local{}
			lt, err := paimon.OpenTableInWarehouse(ctx, fs, warehouse, path.Database, path.Table)
			if err != nil {
				return nil, err
			}
			return &fluss.Lake{Table: lt, FS: fs, TablePath: lt.Path()}, nil
		},
	}
}
