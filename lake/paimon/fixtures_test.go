package paimon_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

// readAll plans and reads one EXPECTED.json entry through the library.
func readAll(t *testing.T, e *paimontest.Expected, r *paimontest.Read, mem memory.Allocator) (*paimon.Plan, [][]any, error) {
	return readAllSliced(e, r, mem, 0)
}

// readAllSliced is readAll planned with FileSplitSize splitSize.
func readAllSliced(e *paimontest.Expected, r *paimontest.Read, mem memory.Allocator, splitSize int64) (*paimon.Plan, [][]any, error) {
	ctx := context.Background()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, e.TablePath())
	if err != nil {
		return nil, nil, err
	}
	o := paimon.ScanOptions{Predicate: r.Predicate, Partitions: r.PartitionFilter, Bucket: r.BucketFilter, Options: r.ReadOptions, FileSplitSize: splitSize}
	if !r.IsLatest {
		o.SnapshotID = r.Snapshot
	}
	plan, err := tbl.Plan(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	var rows [][]any
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: r.Columns})
		if err != nil {
			return nil, nil, err
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for j := 0; j < int(rec.NumRows()); j++ {
				rows = append(rows, paimon.JSONRow(rec, j))
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return nil, nil, err
		}
	}
	return plan, rows, nil
}

func TestFixtureReads(t *testing.T) {
	all, err := paimontest.LoadAll(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		for i := range e.Reads {
			r := &e.Reads[i]
			t.Run(e.Fixture+"/"+r.Name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				plan, rows, err := readAll(t, e, r, mem)
				if err != nil {
					t.Fatal(err)
				}
				if plan.Snapshot == nil || plan.Snapshot.ID != r.Snapshot {
					t.Fatalf("planned snapshot %v, want %d", plan.Snapshot, r.Snapshot)
				}
				// paimon-cpp's split counts are informational in the fixture
				// README; with Java's split rules they agree, so a change in
				// planning shows up here.
				if r.Splits != nil && *r.Splits != len(plan.Splits) {
					t.Errorf("%d splits, paimon-cpp planned %d", len(plan.Splits), *r.Splits)
				}
				if err := paimontest.Check(e, r, rows); err != nil {
					t.Fatal(err)
				}
				// The partition filter expressed as a predicate must give the
				// same rows (and exercises manifest pruning by partition stats).
				if len(r.PartitionFilter) > 0 {
					alt := *r
					alt.PartitionFilter = nil
					alt.Predicate = partitionPredicate(r.PartitionFilter, r.Predicate)
					_, rows2, err := readAll(t, e, &alt, mem)
					if err != nil {
						t.Fatal(err)
					}
					if err := paimontest.Check(e, r, rows2); err != nil {
						t.Fatalf("partition filter as predicate %s: %v", alt.Predicate, err)
					}
				}
			})
		}
	}
}

func fixturesDir(t testing.TB) string { return fixtures.Path(t, "paimon") }

func partitionPredicate(filters []map[string]string, and *paimon.Predicate) *paimon.Predicate {
	var ors []*paimon.Predicate
	for _, f := range filters {
		var ands []*paimon.Predicate
		for k, v := range f {
			if v == "__DEFAULT_PARTITION__" {
				ands = append(ands, paimon.IsNull(k))
			} else {
				ands = append(ands, paimon.Eq(k, v))
			}
		}
		ors = append(ors, paimon.And(ands...))
	}
	p := paimon.Or(ors...)
	if and != nil {
		p = paimon.And(p, and)
	}
	return p
}

// TestPruningOnlyExpectations pins what Check compares for the pruning-only
// reads: the subset of paimon-cpp's rows that satisfy the predicate, worked
// out by hand from EXPECTED.json, must be what paimontest.Filter keeps.
// Every pruning-only read must be listed, so a new one gets a hand answer.
func TestPruningOnlyExpectations(t *testing.T) {
	want := map[string][]string{
		// f0 != 'Alice' AND f3 > 18.0: Lucy has 14.1.
		"parquet/pk_table_scan_and_read_dv/snapshot-6-predicate-pruning":                       {"[Paul 20 1 18.1]"},
		"parquet/pk_table_scan_and_read_dv/snapshot-4-partition-10-bucket-0-predicate-pruning": {},
		// f0 != 'Alice' AND f0 < 'Lucy' AND f3 <= 30.0: Marco*, Skye*, Tony
		// and "Two roads…" sort after Lucy, Alice is excluded.
		"parquet/pk_table_scan_and_read_mor/snapshot-5-predicate-pruning":                       {"[Bob 10 0 12.1]", "[David 10 0 17.1]", "[Emily 10 0 13.1]"},
		"parquet/pk_table_scan_and_read_mor/snapshot-3-partition-10-bucket-1-predicate-pruning": {},
	}
	all, err := paimontest.LoadAll(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range all {
		for i := range e.Reads {
			r := &e.Reads[i]
			if r.Exact() {
				continue
			}
			key := e.Fixture + "/" + r.Name
			w, ok := want[key]
			if !ok {
				t.Errorf("pruning-only read %s has no hand-derived answer here", key)
				continue
			}
			seen++
			got, err := paimontest.Filter(r, r.Rows)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			gs := make([]string, len(got))
			for j, row := range got {
				gs[j] = fmt.Sprint(row)
			}
			slices.Sort(gs)
			if !slices.Equal(gs, w) {
				t.Errorf("%s: filtered rows %v, want %v", key, gs, w)
			}
			// Check wants exactly that subset: a row failing the predicate
			// or a missing matching row is noticed.
			if err := paimontest.Check(e, r, got); err != nil {
				t.Errorf("%s: the filtered rows: %v", key, err)
			}
			if len(r.Rows) > len(got) {
				if err := paimontest.Check(e, r, r.Rows); err == nil {
					t.Errorf("%s: rows failing the predicate went unnoticed", key)
				}
			}
			if len(got) > 0 {
				if err := paimontest.Check(e, r, got[1:]); err == nil {
					t.Errorf("%s: a missing matching row went unnoticed", key)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d pruning-only reads, test knows %d", seen, len(want))
	}
}
