package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// pkRatioTarget is issue 9's target for the PK table's union read time
// over its $lake read time (1 % tail).
const pkRatioTarget = 1.15

func rowsPerSec(rows int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(rows) / d.Seconds()
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0fµs", float64(d)/1e3)
}

func fmtBytes(n int64) string {
	if n <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// report prints the figures: one line per read path (rows read, median
// time, rows/s, the spread of the runs), the ratios, planning time and
// peak memory, then every wrong answer as an ERROR line.
func report(w io.Writer, c config, p plan, r *results) {
	fmt.Fprintf(w, "dataset: %d rows per table, %d buckets; tail: %d PK keys updated, %d deleted, %d log rows appended (generated in %s)\n",
		p.rows, p.buckets, p.updates, p.deletes, p.logTail, r.genTime.Round(time.Millisecond))
	fmt.Fprintf(w, "Paimon warehouse (kept): %s\n", r.lake)
	for _, tbl := range []string{logTable, pkTable} {
		fmt.Fprintf(w, "plan of %s: %s\n", tbl, r.scanLines[tbl])
	}
	fmt.Fprintln(w)

	plan := medianOf(r.planning)
	fmt.Fprintf(w, "%-40s %10s %10s %10s  %s\n", fmt.Sprintf("read path (median of %d)", c.runs), "rows", "time", "rows/s", "runs")
	for _, m := range r.queries {
		med := m.median()
		var runs []string
		for _, d := range m.times {
			runs = append(runs, fmtDur(d))
		}
		fmt.Fprintf(w, "%-40s %10d %10s %10s  %s\n", m.q.label, m.q.want.Count, fmtDur(med), humanCount(rowsPerSec(m.q.want.Count, med)), strings.Join(runs, " "))
	}
	fmt.Fprintf(w, "%-40s %10s %10s %10s  %d samples\n", "planning: EXPLAIN of the pk union read", "-", fmtDur(plan), "-", len(r.planning))
	fmt.Fprintln(w)

	med := func(k string) time.Duration {
		if m := r.byKey(k); m != nil {
			return m.median()
		}
		return 0
	}
	pkRatio := ratio(med("pk_union"), med("pk_lake"))
	verdict := "meets"
	if pkRatio > pkRatioTarget {
		verdict = "MISSES"
	}
	fmt.Fprintln(w, "ratios (median times)")
	fmt.Fprintf(w, "  pk union / $lake time:                 %.3f  (%s issue 9's target <= %.2f)\n", pkRatio, verdict, pkRatioTarget)
	fmt.Fprintf(w, "  pk union / $lake time, rows streamed:  %.3f\n", ratio(med("pk_union_rows"), med("pk_lake_rows")))
	fmt.Fprintf(w, "  log union / $lake time:                %.3f\n", ratio(med("log_union"), med("log_lake")))
	fmt.Fprintf(w, "  pk union streamed, MySQL / Flight SQL: %.3f  (the same rows to the client; above 1: Flight SQL is faster)\n",
		ratio(med("pk_union_rows"), med("pk_union_rows_flight")))
	fmt.Fprintf(w, "  log Fluss-only / $lake rows/s:         %.3f  (the same rows read through the emulator vs from the lake)\n",
		rowsPerSec(p.logAll.Count, med("log_fluss"))/max(rowsPerSec(p.logLake.Count, med("log_lake")), 1e-9))
	fmt.Fprintf(w, "  pk union overhead per lake row:        %.1f ns  ((union - $lake) / %d lake rows)\n",
		float64(med("pk_union")-med("pk_lake"))/float64(p.pkLake.Count), p.pkLake.Count)
	fmt.Fprintf(w, "  planning (EXPLAIN) latency:            %s\n", fmtDur(plan))
	reportDuck(w, r)
	qp := fmtBytes(r.queryPeak)
	if !r.peakReset {
		qp += " (could not reset VmHWM: the whole process's peak)"
	}
	fmt.Fprintf(w, "peak RSS (VmHWM, whole process: emulator, BE, FE): generation %s, queries %s\n", fmtBytes(r.genPeak), qp)
	if len(r.mismatches) == 0 {
		fmt.Fprintln(w, "answers: every run matched the generator's closed forms; union reads equal Fluss-only reads")
		if r.paimonChecked > 0 {
			fmt.Fprintf(w, "lake: a type=paimon catalog over %s reads the same rows as $lake (%d tables)\n", r.lake, r.paimonChecked)
		}
	}
	for _, m := range r.mismatches {
		fmt.Fprintln(w, "ERROR:", m)
	}
}

// reportDuck prints DuckDB's median time over the same lake files beside
// Inlet's for every query DuckDB ran with, and DuckDB/Inlet (above 1:
// Inlet is faster). For a union read DuckDB reads only the lake half (the
// tail lives in Fluss), so that ratio is an engine reading the lake files
// against Inlet's whole union read.
func reportDuck(w io.Writer, r *results) {
	header := false
	for _, m := range r.queries {
		if len(m.duckTimes) == 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "DuckDB %s (%d threads) over the same lake Parquet files, median times\n", r.duckVersion, r.duckThreads)
			fmt.Fprintf(w, "  %-38s %10s %10s %13s\n", "read path", "Inlet", "DuckDB", "DuckDB/Inlet")
			header = true
		}
		note := ""
		if strings.HasSuffix(m.q.key, "_union") {
			note = "  (DuckDB: lake half only)"
		}
		mi, md := m.median(), m.duckMedian()
		fmt.Fprintf(w, "  %-38s %10s %10s %13.3f%s\n", m.q.label, fmtDur(mi), fmtDur(md), ratio(md, mi), note)
	}
	if header && len(r.mismatches) == 0 {
		fmt.Fprintln(w, "  DuckDB's answers equal the lake's closed forms and Inlet's $lake answers on every run")
	}
	for _, n := range r.duckNotes {
		fmt.Fprintln(w, n)
	}
}
