package server

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/internal/tpch"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/scan"
)

// BenchmarkTPCHLake runs TPC-H queries in this process over the Paimon
// warehouse cmd/tpchbench --source paimon wrote (<dir>/sf1/paimon), read
// through a type=paimon catalog and an in-process BE as cmd/fe runs it
// without --backend, so the lake path's CPU profile is one flag away:
//
//	INLET_TPCH_WH=/tmp/tpch/sf1/paimon INLET_TPCH_Q=1 \
//	  go test -run '^$' -bench TPCHLake -cpuprofile /tmp/q1.prof ./fe/server
//
// INLET_TPCH_Q and INLET_TPCH_SF as BenchmarkTPCHLoaded. The tables are
// analysed first (ANALYZE TABLE, outside the timings) unless
// INLET_TPCH_ANALYZE=0. Skipped without INLET_TPCH_WH.
func BenchmarkTPCHLake(b *testing.B) {
	wh := os.Getenv("INLET_TPCH_WH")
	if wh == "" {
		b.Skip("INLET_TPCH_WH is not set")
	}
	sf, qs := tpchBenchQueries(b)
	var mem memory.Allocator = memory.NewGoAllocator()
	be := scan.NewExecutor(scan.Config{Name: "bench-be"})
	b.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	dir := b.TempDir()
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: dir, Mem: mem,
		Types: []catalog.Type{paimon.Type()}, Runner: disp})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fe.Close() })
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE CATALOG lake PROPERTIES ('type'='paimon', 'warehouse'='" + wh + "')"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("SWITCH lake"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("USE tpch"); err != nil {
		b.Fatal(err)
	}
	tpchBenchAnalyze(b, db)
	tpchBenchSet(b, db)
	runTPCHQueries(b, fe.Server, db, sf, qs)
}

// BenchmarkTPCHFluss is BenchmarkTPCHLake through a type=fluss catalog: the
// Fluss emulator reopened on the state cmd/tpchbench --source fluss
// --fluss-dir DIR kept (DIR/sf<sf>/fluss and its Paimon lake DIR/sf<sf>/lake;
// orders and lineitem keep a log tail), so every query over them is a union
// read, and the emulator runs in this process, so its side shows in the
// profile too (the BE fetches the tail over real TCP):
//
//	go run ./cmd/tpchbench --source fluss --fluss-dir /tmp/tpch-fluss --queries 6 --runs 1
//	INLET_TPCH_FLUSS=/tmp/tpch-fluss/sf1 INLET_TPCH_Q=3 \
//	  go test -run '^$' -bench TPCHFluss -cpuprofile /tmp/q3.prof ./fe/server
//
// INLET_TPCH_Q and INLET_TPCH_SF as BenchmarkTPCHLoaded;
// INLET_TPCH_FLUSS_PROPS more catalog properties. Skipped without
// INLET_TPCH_FLUSS.
func BenchmarkTPCHFluss(b *testing.B) {
	dir := os.Getenv("INLET_TPCH_FLUSS")
	if dir == "" {
		b.Skip("INLET_TPCH_FLUSS is not set")
	}
	if _, err := os.Stat(filepath.Join(dir, "loaded")); err != nil {
		b.Fatalf("INLET_TPCH_FLUSS: %s holds no complete load of cmd/tpchbench --fluss-dir: %v", dir, err)
	}
	sf, qs := tpchBenchQueries(b)
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: filepath.Join(dir, "fluss"), DatalakeFormat: "paimon", TabletServers: 1,
		Lake: minifluss.LakeConfig{Warehouse: filepath.Join(dir, "lake")}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	var mem memory.Allocator = memory.NewGoAllocator()
	be := scan.NewExecutor(scan.Config{Name: "bench-be"})
	b.Cleanup(func() { be.Close() })
	disp := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", be.Execute)}, Classify: scan.ErrorCode})
	fe, err := Start(ctx, Options{QueryAddr: "127.0.0.1:0", MetaDir: b.TempDir(), Mem: mem,
		Types: []catalog.Type{fluss.Type()}, Runner: disp})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fe.Close() })
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	// INLET_TPCH_FLUSS_PROPS adds catalog properties ("'k'='v', ..."),
	// e.g. the Fluss client's fetch sizes.
	props := ""
	if v := strings.TrimSpace(os.Getenv("INLET_TPCH_FLUSS_PROPS")); v != "" {
		props = ", " + v
	}
	for _, s := range []string{"CREATE CATALOG fl PROPERTIES ('type'='fluss', 'fluss.bootstrap.servers'='" + c.BootstrapAddr() + "'" + props + ")",
		"SWITCH fl", "USE tpch"} {
		if _, err := db.Exec(s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	tpchBenchAnalyze(b, db)
	tpchBenchSet(b, db)
	runTPCHQueries(b, fe.Server, db, sf, qs)
}

// tpchBenchAnalyze runs ANALYZE TABLE on the eight tables, as
// cmd/tpchbench does over the lake, outside the timings; INLET_TPCH_ANALYZE=0
// skips it, to profile the plans of manifest statistics alone.
func tpchBenchAnalyze(b *testing.B, db *sql.DB) {
	if os.Getenv("INLET_TPCH_ANALYZE") == "0" {
		return
	}
	for _, t := range tpch.Tables {
		if _, err := db.Exec("ANALYZE TABLE " + t.Name); err != nil {
			b.Fatalf("ANALYZE TABLE %s: %v", t.Name, err)
		}
	}
}

// tpchBenchSet applies INLET_TPCH_SET, session variables as
// "name=value;name=value", so one binary compares settings (db holds one
// connection, so they stay set).
func tpchBenchSet(b *testing.B, db *sql.DB) {
	for _, kv := range strings.Split(os.Getenv("INLET_TPCH_SET"), ";") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			b.Fatalf("INLET_TPCH_SET: %q is not name=value", kv)
		}
		if _, err := db.Exec("SET " + strings.TrimSpace(name) + " = '" + strings.ReplaceAll(strings.TrimSpace(val), "'", "''") + "'"); err != nil {
			b.Fatalf("INLET_TPCH_SET %s: %v", kv, err)
		}
	}
}
