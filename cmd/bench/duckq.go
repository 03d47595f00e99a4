package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// duckLakeSQL is DuckDB's version of "SELECT count(*), sum(id), sum(v)"
// over the $lake half of table: read_parquet over the data files of the
// lake table's latest snapshot (as Inlet's $lake read plans them). For a
// primary-key table it does the merge itself: per key the record with the
// highest _SEQUENCE_NUMBER wins and the key is dropped when that record
// is a retraction (_VALUE_KIND 1 = -U, 3 = -D), which is Paimon's
// deduplicate engine. Tables DuckDB cannot read the same way (deletion
// vectors, another merge engine, non-Parquet files) are refused, never
// answered differently.
func duckLakeSQL(ctx context.Context, lake, table string) (string, error) {
	dir := filepath.Join(lake, benchDB+".db", table)
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, dir)
	if err != nil {
		return "", fmt.Errorf("lake table %s: %w", dir, err)
	}
	p, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		return "", fmt.Errorf("lake table %s: %w", dir, err)
	}
	var files []string
	for _, s := range p.Splits {
		for _, f := range s.Files {
			if f.DV != nil {
				return "", fmt.Errorf("lake table %s: data file %s has a deletion vector, which DuckDB's read_parquet cannot apply", dir, f.Path)
			}
			path := strings.TrimPrefix(strings.TrimPrefix(f.Path, "file://"), "file:")
			if !strings.HasSuffix(path, ".parquet") {
				return "", fmt.Errorf("lake table %s: data file %s is not Parquet", dir, f.Path)
			}
			files = append(files, "'"+strings.ReplaceAll(path, "'", "''")+"'")
		}
	}
	if len(files) == 0 {
		return "SELECT 0, NULL, NULL", nil
	}
	from := "read_parquet([" + strings.Join(files, ", ") + "])"
	keys := p.Schema.PrimaryKeys
	if len(keys) == 0 {
		return "SELECT count(*), sum(id), sum(v) FROM " + from, nil
	}
	if e := p.Options["merge-engine"]; e != "" && e != "deduplicate" {
		return "", fmt.Errorf("lake table %s: merge-engine %s; the DuckDB query implements deduplicate only", dir, e)
	}
	var part []string
	for _, k := range keys {
		part = append(part, `"`+strings.ReplaceAll(k, `"`, `""`)+`"`)
	}
	return fmt.Sprintf("SELECT count(*), sum(id), sum(v) FROM (SELECT id, v, _VALUE_KIND FROM %s "+
		"QUALIFY row_number() OVER (PARTITION BY %s ORDER BY _SEQUENCE_NUMBER DESC) = 1) WHERE _VALUE_KIND IN (0, 2)",
		from, strings.Join(part, ", ")), nil
}

// duckAnswer reads DuckDB's one row of count(*), sum(id), sum(v).
func duckAnswer(rows [][]*string) (agg, error) {
	var a agg
	if len(rows) != 1 || len(rows[0]) != 3 {
		return a, fmt.Errorf("DuckDB returned %d rows, want one row of 3 cells", len(rows))
	}
	r := rows[0]
	if r[0] == nil {
		return a, fmt.Errorf("DuckDB count(*) is NULL")
	}
	var err error
	if a.Count, err = strconv.ParseInt(*r[0], 10, 64); err != nil {
		return a, fmt.Errorf("DuckDB count(*) %q: %w", *r[0], err)
	}
	if a.Count == 0 {
		return a, nil
	}
	if r[1] == nil || r[2] == nil {
		return a, fmt.Errorf("DuckDB sum(id) or sum(v) is NULL over %d rows", a.Count)
	}
	if a.SumID, err = strconv.ParseInt(*r[1], 10, 64); err != nil {
		return a, fmt.Errorf("DuckDB sum(id) %q: %w", *r[1], err)
	}
	if a.SumVq, err = quarters(*r[2]); err != nil {
		return a, fmt.Errorf("DuckDB sum(v): %w", err)
	}
	return a, nil
}
