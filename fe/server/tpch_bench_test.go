package server

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fe/physical"
	"github.com/inlet-db/inlet/internal/tpch"
)

// BenchmarkTPCHLoaded runs TPC-H queries in this process over an FE's
// directories that cmd/tpchbench loaded (copy its run-* work directory
// while it runs, after the load), so a CPU profile of the engine is one
// flag away:
//
//	INLET_TPCH_WORK=/tmp/tpch/run-123 INLET_TPCH_Q=6 \
//	  go test -run '^$' -bench TPCHLoaded -cpuprofile /tmp/q6.prof ./fe/server
//
// INLET_TPCH_Q is a comma-separated list of query numbers (default 6),
// INLET_TPCH_SF the scale factor the data was generated at (Q11's
// fraction; default 1), INLET_TPCH_CHECK=1 a leak-checking allocator.
// Skipped without INLET_TPCH_WORK.
func BenchmarkTPCHLoaded(b *testing.B) {
	work := os.Getenv("INLET_TPCH_WORK")
	if work == "" {
		b.Skip("INLET_TPCH_WORK is not set")
	}
	sf, qs := tpchBenchQueries(b)
	// The checked allocator records a caller per allocation (runtime.Caller):
	// ~12 % of a join query's CPU, which cmd/fe does not pay. Profiles are
	// taken without it; INLET_TPCH_CHECK=1 puts it back to find leaks.
	var mem memory.Allocator = memory.NewGoAllocator()
	checked := os.Getenv("INLET_TPCH_CHECK") == "1"
	if checked {
		mem = memory.NewCheckedAllocator(mem)
	}
	fe, err := Start(context.Background(), Options{QueryAddr: "127.0.0.1:0", MetaDir: work + "/meta", DataDir: work + "/data", Mem: mem})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fe.Close()
		if checked {
			mem.(*memory.CheckedAllocator).AssertSize(b, 0)
		}
	})
	db, err := sql.Open("mysql", "root@tcp("+fe.Addr().String()+")/tpch")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	runTPCHQueries(b, fe.Server, db, sf, qs)
}

// tpchBenchQueries reads INLET_TPCH_SF (default 1) and INLET_TPCH_Q (a
// comma-separated list of query numbers, default 6) for the TPC-H
// benchmarks.
func tpchBenchQueries(b *testing.B) (sf float64, qs []int) {
	sf = 1.0
	if v := os.Getenv("INLET_TPCH_SF"); v != "" {
		var err error
		if sf, err = strconv.ParseFloat(v, 64); err != nil {
			b.Fatal(err)
		}
	}
	qs = []int{6}
	if v := os.Getenv("INLET_TPCH_Q"); v != "" {
		qs = nil
		for _, s := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > tpch.NumQueries {
				b.Fatalf("INLET_TPCH_Q: %q is not a query number", s)
			}
			qs = append(qs, n)
		}
	}
	return sf, qs
}

// runTPCHQueries runs each query of qs as a sub-benchmark over db,
// reading every row, and reports CPU time per query beside wall time.
// INLET_TPCH_EXPLAIN=1 runs EXPLAIN of each instead: planning alone, with
// every metadata round trip it makes; the plan is logged once (-test.v). INLET_TPCH_SQL, statements separated
// by ";", runs those instead of TPC-H queries (S1, S2, ...): one scan
// alone, e.g. a union read's log half (lineitem$log) against its lake half
// (lineitem$lake). INLET_TPCH_PROF=FILE writes a CPU profile of the
// queries alone, without the setup before them. INLET_TPCH_TIMELINE=1 prints, after each query, the
// timeline of its last run from the profile fe kept: when each scan's
// fragment ran and each of its ranges was read, from the statement's start,
// so idle gaps and a range that finishes alone show up. INLET_TPCH_PRINT=1
// logs the rows of each query's first run, to compare builds' answers.
func runTPCHQueries(b *testing.B, fe *Server, db *sql.DB, sf float64, qs []int) {
	explain := os.Getenv("INLET_TPCH_EXPLAIN") == "1"
	type query struct{ name, text string }
	var run []query
	for _, q := range qs {
		run = append(run, query{"Q" + strconv.Itoa(q), tpch.Query(q, sf)})
	}
	if v := os.Getenv("INLET_TPCH_SQL"); strings.TrimSpace(v) != "" {
		run = nil
		for _, s := range strings.Split(v, ";") {
			if s = strings.TrimSpace(s); s != "" {
				run = append(run, query{"S" + strconv.Itoa(len(run)+1), s})
			}
		}
	}
	if path := os.Getenv("INLET_TPCH_PROF"); path != "" {
		// -test.cpuprofile also samples the setup (a lake catalog's ANALYZE
		// reads every table): this profiles the queries alone.
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				b.Error(err)
			}
		}()
	}
	// INLET_TPCH_SPIN=n keeps n goroutines of this process busy on the CPU
	// while the queries run: the scheduler of a BE whose cores are taken,
	// as a union read's lake splits take them, to see what waits on it.
	if n, _ := strconv.Atoi(os.Getenv("INLET_TPCH_SPIN")); n > 0 {
		stop := make(chan struct{})
		defer close(stop)
		for range n {
			go func() {
				x := uint64(1)
				for {
					for range 1 << 16 {
						x = x*6364136223846793005 + 1442695040888963407
					}
					select {
					case <-stop:
						_ = x
						return
					default:
					}
				}
			}()
		}
	}
	for _, q := range run {
		b.Run(q.name, func(b *testing.B) {
			text := q.text
			if explain {
				text = "EXPLAIN " + text
			}
			// The machine is shared: CPU time per query is the figure to
			// compare between builds, wall time only on a quiet one.
			cpu0 := cpuTime()
			defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op") }()
			for i := 0; i < b.N; i++ {
				r, err := db.Query(text)
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 && os.Getenv("INLET_TPCH_PRINT") == "1" {
					b.Log(resultText(b, r))
				}
				var plan strings.Builder
				cols, _ := r.Columns()
				vals := make([]sql.RawBytes, len(cols))
				ptrs := make([]any, len(cols))
				for j := range vals {
					ptrs[j] = &vals[j]
				}
				for r.Next() {
					if explain && i == 0 {
						if err := r.Scan(ptrs...); err != nil {
							b.Fatal(err)
						}
						for _, v := range vals {
							plan.Write(v)
						}
						plan.WriteByte('\n')
					}
				}
				if plan.Len() > 0 {
					b.Logf("%s:\n%s", q.name, plan.String())
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			if os.Getenv("INLET_TPCH_TIMELINE") == "1" {
				printTimeline(b, fe)
			}
		})
	}
}

// resultText reads r's rows as text lines, to compare builds' answers.
func resultText(b *testing.B, r *sql.Rows) string {
	cols, err := r.Columns()
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for r.Next() {
		if err := r.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				sb.WriteByte('|')
			}
			sb.Write(v)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// printTimeline logs the newest profile's scans and ranges as offsets in
// milliseconds from the statement's start.
func printTimeline(b *testing.B, fe *Server) {
	list := fe.profiles.all()
	if len(list) == 0 {
		return
	}
	q := list[len(list)-1]
	ms := func(t time.Time) float64 { return float64(t.Sub(q.start).Microseconds()) / 1000 }
	var sb strings.Builder
	fmt.Fprintf(&sb, "timeline: total %.1f ms\n", ms(q.end))
	for _, sc := range q.scans {
		fmt.Fprintf(&sb, "  scan %s: %.1f .. %.1f ms, %d ranges", sc.Table, ms(sc.Start), ms(sc.End), len(sc.Ranges))
		for _, k := range []string{"FlussLogBytesFetched", "FlussLogRowsReturned", "FlussLakeRowsReturned"} {
			if v, ok := sc.Counters[k]; ok {
				fmt.Fprintf(&sb, ", %s %d", k, v)
			}
		}
		sb.WriteString("\n")
		rs := slices.Clone(sc.Ranges)
		slices.SortFunc(rs, func(a, b physical.RangeTiming) int { return a.Start.Compare(b.Start) })
		for _, r := range rs {
			fmt.Fprintf(&sb, "    %s %d: %.1f .. %.1f ms (%.1f), %d rows\n", r.Kind, r.ID, ms(r.Start), ms(r.End), float64(r.End.Sub(r.Start).Microseconds())/1000, r.Rows)
		}
	}
	b.Log(sb.String())
}
