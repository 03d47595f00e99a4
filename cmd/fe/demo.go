package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/inlet-db/inlet/fe/server"
	"github.com/inlet-db/inlet/minifluss"
)

// demoScenario is the sample the demo cluster starts with: tiered history
// in the lake plus a log tail of inserts, updates and deletes.
//
//go:embed demo/demo.scenario
var demoScenario string

// demoCatalog is the name of the fluss catalog the demo creates.
const demoCatalog = "fluss"

// demoRoot is where the demo keeps everything: --data-dir when given, else
// a per-user directory (never the current working directory).
func demoRoot(c config) (string, error) {
	if c.dataSet && c.dataDir != "" {
		return filepath.Abs(c.dataDir)
	}
	if c.metaSet {
		return filepath.Abs(c.metaDir)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("demo: no per-user directory (%v); pass --data-dir DIR", err)
	}
	return filepath.Join(base, "inlet", "demo"), nil
}

// demoCluster is the emulated Fluss cluster of --demo, with its lake.
type demoCluster struct {
	root    string
	format  string // the lake format: paimon or iceberg
	cluster *minifluss.Cluster
}

// startDemoCluster starts the demo cluster tiering into format (paimon,
// the default, or iceberg). An Iceberg demo keeps its cluster and lake
// under root/iceberg, so either demo restarts on its own data.
func startDemoCluster(ctx context.Context, root, format string, log *slog.Logger) (*demoCluster, error) {
	if format == "" {
		format = "paimon"
	}
	base := root
	opts := map[string]string{"metastore": "filesystem"}
	if format == "iceberg" {
		base = filepath.Join(root, "iceberg")
		opts = map[string]string{"type": "hadoop"}
	}
	flussDir := filepath.Join(base, "fluss")
	lakeDir := filepath.Join(base, "lake")
	for _, d := range []string{flussDir, lakeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	c, err := minifluss.Start(ctx, minifluss.Config{
		DataDir:             flussDir,
		DatalakeFormat:      format,
		DefaultBucketNumber: 2,
		Logger:              log,
		Lake:                minifluss.LakeConfig{Warehouse: lakeDir, Options: opts},
	})
	if err != nil {
		return nil, fmt.Errorf("demo: start the emulated Fluss cluster: %w", err)
	}
	d := &demoCluster{root: root, format: format, cluster: c}
	// The sample is loaded once; a second start reuses the data.
	marker := filepath.Join(flussDir, ".demo-loaded")
	if _, err := os.Stat(marker); errors.Is(err, fs.ErrNotExist) {
		sc, err := minifluss.ParseScenario(demoScenario)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("demo: sample: %w", err)
		}
		if err := sc.Run(ctx, c); err != nil {
			c.Close()
			return nil, fmt.Errorf("demo: load the sample: %w", err)
		}
		if err := os.WriteFile(marker, []byte("loaded\n"), 0o644); err != nil {
			c.Close()
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	return d, nil
}

func (d *demoCluster) Close() { d.cluster.Close() }

func (d *demoCluster) lakeName() string {
	if d.format == "iceberg" {
		return "an Iceberg"
	}
	return "a Paimon"
}

// ensureCatalog creates the demo's fluss catalog, or points it at this
// start's cluster address (the emulator picks a free port each time).
func (d *demoCluster) ensureCatalog(fe *server.FE) error {
	props := map[string]string{"type": "fluss", "fluss.bootstrap.servers": d.cluster.BootstrapAddr()}
	if fe.Catalogs.Exists(demoCatalog) {
		return fe.Catalogs.SetProperties(demoCatalog, props)
	}
	return fe.Catalogs.Create(demoCatalog, "the demo's emulated Fluss cluster", props, true)
}

func (d *demoCluster) printWelcome(w io.Writer, addr net.Addr) {
	port := "9030"
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = fmt.Sprint(ta.Port)
	}
	fmt.Fprintf(w, `
inlet demo: an emulated Fluss 1.0 cluster (%s) with %s lake, a BE and the FE.
Data directory: %s

Connect:
  mariadb -h127.0.0.1 -P%s -uroot -c

Then try:
  SHOW CATALOGS;
  SWITCH fluss; USE shop; SHOW TABLES;
  SELECT * FROM orders ORDER BY order_id;
  EXPLAIN SELECT * FROM orders;
  SELECT * FROM `+"`orders$lake`"+` ORDER BY order_id;
  SELECT * FROM `+"`events$log`"+` ORDER BY id;
  SELECT kind, count(*), sum(amount) FROM events GROUP BY kind ORDER BY kind;
  SELECT /*+ SET_VAR(fluss_union_read_mode='disabled') */ * FROM orders ORDER BY order_id;
  SELECT dt, count(*) FROM visits GROUP BY dt ORDER BY dt;
  SELECT * FROM internal.demo.customers;
`, d.cluster.BootstrapAddr(), d.lakeName(), d.root, port)
}
