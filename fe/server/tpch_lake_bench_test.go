package server

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/internal/tpch"
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
	if os.Getenv("INLET_TPCH_ANALYZE") != "0" {
		// As cmd/tpchbench --source paimon does, outside the timings.
		for _, t := range tpch.Tables {
			if _, err := db.Exec("ANALYZE TABLE " + t.Name); err != nil {
				b.Fatal(err)
			}
		}
	}
	runTPCHQueries(b, db, sf, qs)
}
