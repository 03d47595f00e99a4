package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	cpaimon "github.com/inlet-db/inlet/catalog/paimon"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/planner"
)

type paimonTable struct{ t *cpaimon.ScanTarget }

func (p *paimonTable) Name() string                      { return p.t.Table }
func (p *paimonTable) Schema() catalog.Schema            { return catalog.Schema{Columns: p.t.Columns} }
func (p *paimonTable) PaimonTarget() *cpaimon.ScanTarget { return p.t }
func (p *paimonTable) Scan(context.Context, catalog.ScanRequest) (array.RecordReader, error) {
	return nil, catalog.ErrUnsupported
}

// TestPaimonCatalogTable plans a plain Paimon table (the lake table of
// lake_pk_part, read as a Paimon catalog would): LAKE ranges only, the
// Paimon node, paimonNativeReadSplits, and force_jni_scanner.
func TestPaimonCatalogTable(t *testing.T) {
	e := testEnv(t)
	ctx := context.Background()
	fs := fileio.Local{}
	lt, err := paimon.OpenTableInWarehouse(ctx, fs, e.warehouse, "fluss_test", "lake_pk_part")
	if err != nil {
		t.Fatal(err)
	}
	cols := e.target(t, "lake_pk_part", fluss.ReadDefault, fluss.Options{}, "").Columns
	tbl := &paimonTable{&cpaimon.ScanTarget{Catalog: "p", Database: "fluss_test", Table: "lake_pk_part", Lake: lt, FS: fs,
		TablePath: lt.Path(), Columns: cols, PartitionKeys: []string{"dt"}}}

	res, ok, err := planner.Plan(ctx, tbl, planner.Request{Columns: []int{1}, Limit: 10,
		Predicates: []catalog.Predicate{{Column: "dt", Op: "=", Values: []any{"20260102"}}}})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if res.Node != "VPAIMON_SCAN_NODE" || res.Fragment.Fluss != nil || res.Fragment.Limit != 10 {
		t.Errorf("node %q fluss %v limit %d", res.Node, res.Fragment.Fluss, res.Fragment.Limit)
	}
	text := strings.Join(res.Lines, "\n")
	for _, want := range []string{"TABLE: p.fluss_test.lake_pk_part", "PREDICATES: `dt` = '20260102'", "partition=1/2", "pushdown agg=NONE"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
	c := res.Counts
	if c.TotalSplits == 0 || c.TotalSplits != len(res.Fragment.Ranges) || !strings.Contains(text, "paimonNativeReadSplits=") {
		t.Errorf("counts %+v for %d ranges", c, len(res.Fragment.Ranges))
	}
	if len(res.Fragment.Lake.Predicate) == 0 || len(res.Fragment.Filters) != 1 || res.Fragment.Projection[0] != 1 {
		t.Errorf("lake %v filters %v projection %v", res.Fragment.Lake, res.Fragment.Filters, res.Fragment.Projection)
	}
	for _, r := range res.Fragment.Ranges {
		if r.Type.String() != "LAKE" || len(r.LakeSplit) == 0 {
			t.Errorf("range %v", r)
		}
	}

	forced, _, err := planner.Plan(ctx, tbl, planner.Request{Limit: -1, Vars: map[string]string{"force_jni_scanner": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if forced.Counts.NativeSplits != 0 || !forced.Fragment.Options.ForceMergeReader {
		t.Errorf("force_jni_scanner: %+v", forced.Counts)
	}
}

// TestLimitAndFilters: LIMIT caps the whole union fragment (never planned
// into the lake half), and WHERE conjuncts travel as BE filters.
func TestLimitAndFilters(t *testing.T) {
	e := testEnv(t)
	st := e.target(t, "lake_pk", fluss.ReadDefault, fluss.Options{UnionMode: fluss.ModeRequired}, "")
	res, _, err := planner.Plan(context.Background(), &testTable{st: st}, planner.Request{Limit: 1, Columns: []int{1},
		Predicates: []catalog.Predicate{{Column: "id", Op: ">", Values: []any{int64(1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Fragment
	if f.Limit != 1 || len(f.Filters) != 1 || f.Filters[0].Column != 0 || f.Filters[0].Op != ">" || f.Filters[0].Values[0].GetInt() != 1 {
		t.Errorf("limit %d filters %v", f.Limit, f.Filters)
	}
	// The key column is read for suppression although only name is projected.
	if len(f.Projection) != 1 || f.Projection[0] != 1 || len(f.KeyColumns) != 1 || f.KeyColumns[0] != 0 {
		t.Errorf("projection %v key columns %v", f.Projection, f.KeyColumns)
	}
	if f.Options.MaxConcurrency != 0 {
		t.Errorf("options %v", f.Options)
	}
}

// TestLakeAppliedFilters: a BE filter is marked lake_applied exactly when
// its conjunct became a leaf of the Paimon predicate the lake readers
// apply (so the BE skips it on lake rows), for a Paimon catalog table and
// for the lake half of a Fluss union read; one Paimon cannot take (a
// fractional constant on an INT column) stays the BE's.
func TestLakeAppliedFilters(t *testing.T) {
	e := testEnv(t)
	ctx := context.Background()
	fs := fileio.Local{}
	lt, err := paimon.OpenTableInWarehouse(ctx, fs, e.warehouse, "fluss_test", "lake_pk_part")
	if err != nil {
		t.Fatal(err)
	}
	cols := e.target(t, "lake_pk_part", fluss.ReadDefault, fluss.Options{}, "").Columns
	paimonTbl := &paimonTable{&cpaimon.ScanTarget{Catalog: "p", Database: "fluss_test", Table: "lake_pk_part", Lake: lt, FS: fs,
		TablePath: lt.Path(), Columns: cols, PartitionKeys: []string{"dt"}}}
	unionTbl := &testTable{st: e.target(t, "lake_pk", fluss.ReadDefault, fluss.Options{UnionMode: fluss.ModeRequired}, "")}
	cases := []struct {
		name  string
		tbl   catalog.Table
		preds []catalog.Predicate
		want  []bool // per BE filter, in order
	}{
		{"paimon both pushed", paimonTbl, []catalog.Predicate{
			{Column: "dt", Op: "=", Values: []any{"20260102"}}, {Column: "id", Op: ">", Values: []any{int64(1)}}}, []bool{true, true}},
		{"paimon fraction on INT", paimonTbl, []catalog.Predicate{
			{Column: "id", Op: ">", Values: []any{1.5}}, {Column: "dt", Op: "IN", Values: []any{"20260101", "20260102"}}}, []bool{false, true}},
		{"paimon IS NULL", paimonTbl, []catalog.Predicate{{Column: "id", Op: "IS NOT NULL"}}, []bool{true}},
		{"union lake half", unionTbl, []catalog.Predicate{
			{Column: "id", Op: ">", Values: []any{int64(1)}}, {Column: "id", Op: "<", Values: []any{2.5}}}, []bool{true, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, ok, err := planner.Plan(ctx, c.tbl, planner.Request{Columns: []int{0}, Limit: -1, Predicates: c.preds})
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			fs := res.Fragment.Filters
			if len(fs) != len(c.want) {
				t.Fatalf("filters %v, want %d", fs, len(c.want))
			}
			for i, f := range fs {
				if f.GetLakeApplied() != c.want[i] {
					t.Errorf("filter %d (%v): lake_applied %v, want %v", i, f, f.GetLakeApplied(), c.want[i])
				}
			}
			if len(res.Fragment.Lake.GetPredicate()) == 0 {
				t.Errorf("no lake predicate")
			}
		})
	}
}
