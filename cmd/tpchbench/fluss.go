package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/tpch"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
)

// The --source fluss copy: the Fluss 1.0 emulator (minifluss) in this
// process, one lake-enabled log table per TPC-H table, rows appended to the
// Fluss log and tiered into its Paimon lake by the emulator's tiering
// service; orders and lineitem keep their last rows (tailShare of each
// file) in the log only, after the tiered offsets, so every query over them
// is a union read of lake files and log tail. DuckDB reads the lake's data
// files with read_parquet, UNION ALL the tail rows loaded from the same
// text.

const (
	flussCatalog = "fl"
	// tailShare is the part of orders and lineitem left in the log.
	tailShare = 0.05
	// flussAppendRows is the rows of one append (one log batch).
	flussAppendRows = 8192
)

// hasTail reports whether table keeps a log tail.
func hasTail(table string) bool { return table == "orders" || table == "lineitem" }

// flussType is a TPC-H column's type in Fluss SQL (strings are STRING).
func flussType(doris string) string {
	if strings.HasPrefix(doris, "VARCHAR") {
		return "STRING"
	}
	return doris
}

type flussLake struct {
	cluster   *minifluss.Cluster
	warehouse string
	tails     map[string]string // table → file of its log-only rows, for DuckDB
}

// flussLoaded marks a --fluss-dir whose load finished: its tables, log,
// lake and tail files are whole and are reused as they are.
const flussLoaded = "loaded"

// flussLayout is where a Fluss copy under dir keeps the emulator's data
// directory and its Paimon warehouse (BenchmarkTPCHFluss in fe/server opens
// the same layout).
func flussLayout(dir string) (dataDir, warehouse string) {
	return filepath.Join(dir, "fluss"), filepath.Join(dir, "lake")
}

// startFluss starts the emulator under dir, creates the tables, appends
// every row and tiers all but the tails. With keep, a dir holding a
// complete earlier load is reopened instead (the emulator persists its
// state); an incomplete one is removed and loaded again.
func startFluss(ctx context.Context, data, dir string, keep bool, log io.Writer) (*flussLake, error) {
	dataDir, wh := flussLayout(dir)
	fl := &flussLake{warehouse: wh, tails: map[string]string{}}
	marker := filepath.Join(dir, flussLoaded)
	reuse := false
	if keep {
		if _, err := os.Stat(marker); err == nil {
			reuse = true
		} else if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	var err error
	fl.cluster, err = minifluss.Start(ctx, minifluss.Config{DataDir: dataDir, DatalakeFormat: "paimon", TabletServers: 1,
		Lake: minifluss.LakeConfig{Warehouse: fl.warehouse}})
	if err != nil {
		return nil, fmt.Errorf("start the Fluss emulator: %w", err)
	}
	if reuse {
		fmt.Fprintf(log, "reusing the Fluss emulator's state in %s\n", dir)
		for _, t := range tpch.Tables {
			if hasTail(t.Name) {
				fl.tails[t.Name] = filepath.Join(dir, t.Name+".tail.tbl")
			}
		}
		return fl, nil
	}
	var ddl strings.Builder
	ddl.WriteString("CREATE DATABASE " + lakeDB + ";\n")
	for _, t := range tpch.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c[0] + " " + flussType(c[1]) + " NOT NULL"
		}
		fmt.Fprintf(&ddl, "CREATE TABLE %s.%s (%s) WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'true');\n", lakeDB, t.Name, strings.Join(cols, ", "))
	}
	sc, err := minifluss.ParseScenario(ddl.String())
	if err == nil {
		err = sc.Run(ctx, fl.cluster)
	}
	if err != nil {
		fl.close()
		return nil, fmt.Errorf("create the tables in the Fluss emulator: %w", err)
	}
	fmt.Fprintln(log, "appending to the Fluss log and tiering into its lake")
	for _, t := range tpch.Tables {
		t0 := time.Now()
		if err := fl.load(ctx, data, dir, t); err != nil {
			fl.close()
			return nil, fmt.Errorf("load %s into the Fluss emulator: %w", t.Name, err)
		}
		fmt.Fprintf(log, "  %s: %s\n", t.Name, time.Since(t0).Round(time.Millisecond))
	}
	if keep {
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			fl.close()
			return nil, err
		}
	}
	return fl, nil
}

// load appends table t's rows; all are tiered except, for orders and
// lineitem, the last tailShare, appended after the tiering round.
func (fl *flussLake) load(ctx context.Context, data, work string, t tpch.Table) error {
	src := filepath.Join(data, t.Name+".tbl")
	lines, err := countLines(src)
	if err != nil {
		return err
	}
	tiered := lines
	var tail *bufio.Writer
	if hasTail(t.Name) {
		tiered = lines - int64(float64(lines)*tailShare)
		path := filepath.Join(work, t.Name+".tail.tbl")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		tail = bufio.NewWriter(f)
		fl.tails[t.Name] = path
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	// Arrow batches of the table's types (the Fluss log format is ARROW),
	// built by the parser of the Paimon copy.
	fields := make([]paimon.DataField, len(t.Columns))
	for i, c := range t.Columns {
		dt, err := paimonType(c[1])
		if err != nil {
			return err
		}
		fields[i] = paimon.DataField{ID: i, Name: c[0], Type: dt}
	}
	sch, err := paimon.ArrowSchema(fields)
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	defer b.Release()
	flush := func() error {
		if b.Field(0).Len() == 0 {
			return nil
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		_, err := fl.cluster.AppendRecord(ctx, lakeDB, t.Name, "", 0, rec)
		return err
	}
	var n int64
	for sc.Scan() {
		if n == tiered {
			if err := flush(); err != nil {
				return err
			}
			if _, err := fl.cluster.TierLake(ctx, lakeDB, t.Name); err != nil {
				return err
			}
		}
		line := sc.Bytes()
		if n >= tiered {
			tail.Write(line)
			tail.WriteByte('\n')
		}
		if err := appendRow(b, line); err != nil {
			return fmt.Errorf("%s line %d: %w", src, n+1, err)
		}
		n++
		if b.Field(0).Len() == flussAppendRows {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if n <= tiered {
		// No tail: everything goes to the lake.
		if _, err := fl.cluster.TierLake(ctx, lakeDB, t.Name); err != nil {
			return err
		}
	}
	if tail != nil {
		return tail.Flush()
	}
	return nil
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	buf := make([]byte, 1<<20)
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

func (fl *flussLake) close() {
	if fl.cluster != nil {
		fl.cluster.Close()
	}
}

// loadDuckFluss makes every table a DuckDB view over read_parquet of the
// Fluss lake's data files (the TPC-H columns, not the lake's system
// columns), UNION ALL the log tail's rows for orders and lineitem.
func loadDuckFluss(ctx context.Context, duck duckRunner, fl *flussLake) error {
	for _, t := range tpch.Tables {
		files, err := lakeFiles(ctx, filepath.Join(fl.warehouse, lakeDB+".db", t.Name))
		if err != nil {
			return fmt.Errorf("lake table %s: %w", t.Name, err)
		}
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
		}
		names := make([]string, len(t.Columns))
		defs := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i], defs[i] = c[0], c[0]+" "+c[1]
		}
		cols := strings.Join(names, ", ")
		view := fmt.Sprintf("CREATE VIEW %s AS SELECT %s FROM read_parquet([%s])", t.Name, cols, strings.Join(quoted, ", "))
		var stmts []string
		if tail, ok := fl.tails[t.Name]; ok {
			stmts = append(stmts,
				fmt.Sprintf("CREATE TABLE %s_tail (%s)", t.Name, strings.Join(defs, ", ")),
				fmt.Sprintf("COPY %s_tail FROM '%s' (DELIMITER '|', HEADER false, QUOTE '')", t.Name, tail))
			view += fmt.Sprintf(" UNION ALL SELECT %s FROM %s_tail", cols, t.Name)
		}
		for _, s := range append(stmts, view) {
			if _, _, err := duck.Run(s); err != nil {
				return fmt.Errorf("DuckDB %s: %w", s, err)
			}
		}
	}
	return nil
}
