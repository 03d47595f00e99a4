package scan_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/typemap"
)

func logTableSpec(name string, buckets int) minifluss.TableSpec {
	return minifluss.TableSpec{Database: "db", Name: name, Buckets: buckets, PartitionKeys: []string{"dt"},
		Columns: []minifluss.Column{
			{Name: "id", Type: typemap.BigInt()},
			{Name: "dt", Type: typemap.String()},
			{Name: "s", Type: typemap.String()},
			{Name: "d", Type: typemap.Date()},
			{Name: "m", Type: typemap.Map(typemap.String(), typemap.Int())},
		},
		Properties: map[string]string{"table.datalake.enabled": "true"}}
}

func logRows(from, to int) [][]any {
	var rows [][]any
	for i := from; i < to; i++ {
		var s any = fmt.Sprintf("s%d", i)
		if i%5 == 0 {
			s = nil
		}
		rows = append(rows, []any{int64(i), []string{"a", "b"}[i%2], s, "2024-05-01", nil})
	}
	return rows
}

// buildLogLake appends, tiers, freezes and appends a tail.
func buildLogLake(t testing.TB, hs *harness, table string, n, tail int) {
	t.Helper()
	ctx := context.Background()
	if _, err := hs.c.CreateTable(ctx, logTableSpec(table, 3)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 50 {
		if err := hs.c.Append(ctx, "db", table, logRows(i, min(i+50, n))); err != nil {
			t.Fatal(err)
		}
	}
	hs.c.FreezeTiering(false)
	if _, err := hs.c.TierLake(ctx, "db", table); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	if err := hs.c.Append(ctx, "db", table, logRows(n, n+tail)); err != nil {
		t.Fatal(err)
	}
}

func TestUnionLogEqualsFlussOnly(t *testing.T) {
	hs := newHarness(t)
	buildLogLake(t, hs, "lg", 300, 40)
	p := hs.planRead("lg", []string{"a", "b"})
	all := []int32{0, 1, 2, 3, 4}
	union, ust := hs.run(hs.fragment(p, all, hs.unionLog(p)))
	fluss, fst := hs.run(hs.fragment(p, all, hs.flussLog(p)))
	if len(union) != 340 {
		t.Fatalf("union read %d rows, want 340", len(union))
	}
	sameRows(t, "LAKE+LOG vs LOG from earliest", union, fluss)
	if ust.Counters["FlussLakeRangeNum"] == 0 || ust.Counters["FlussLogRangeNum"] == 0 {
		t.Errorf("union counters %v", ust.Counters)
	}
	for _, name := range []string{"FlussLakeReadTime", "FlussPkFullRangeNum", "FlussUnionTailReadTime", "JvmHeapWaitTime"} {
		if _, ok := fst.Counters[name]; ok {
			t.Errorf("pure log scan registered %s: %v", name, fst.Counters)
		}
	}
	if fst.Counters["FlussLogRowsReturned"] != 340 || fst.Counters["FlussLogRangeNum"] != 6 {
		t.Errorf("log counters %v", fst.Counters)
	}
	// Partition column values come with the log rows (Fluss 1.0 rows carry them).
	parts, _ := hs.run(hs.fragment(p, []int32{1}, hs.flussLog(p)))
	na := 0
	for _, r := range parts {
		if r == "a" {
			na++
		}
	}
	if na != 170 {
		t.Errorf("partition column: %d rows with dt=a, want 170", na)
	}
	// COUNT(*)-style: no projected column still counts rows.
	none, _ := hs.run(hs.fragment(p, nil, hs.unionLog(p)))
	if len(none) != 340 {
		t.Errorf("empty projection: %d rows, want 340", len(none))
	}
}

func TestLimitStopsEarly(t *testing.T) {
	hs := newHarness(t)
	buildLogLake(t, hs, "lim", 500, 100)
	p := hs.planRead("lim", []string{"a", "b"})
	for _, limit := range []int64{0, 1, 7, 123, 600, 1000} {
		f := hs.fragment(p, []int32{0}, hs.unionLog(p))
		f.Limit = limit
		f.Options.MaxConcurrency = 2
		rows, _ := hs.run(f)
		if want := min(limit, 600); int64(len(rows)) != want {
			t.Errorf("limit %d: %d rows, want %d", limit, len(rows), want)
		}
	}
}

func TestCancelFreesMemory(t *testing.T) {
	hs := newHarness(t)
	buildLogLake(t, hs, "cx", 2000, 500)
	p := hs.planRead("cx", []string{"a", "b"})
	for _, after := range []int{0, 1, 3} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		ctx, cancel := context.WithCancel(context.Background())
		f := hs.fragment(p, []int32{0, 1, 2, 3, 4}, hs.unionLog(p))
		f.Options.BatchSize = 64
		rd, err := hs.ex.Execute(ctx, f, mem)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for n < after && rd.Next() {
			n++
		}
		cancel()
		for rd.Next() {
		}
		if err := rd.Err(); after > 0 && !errors.Is(err, context.Canceled) {
			t.Errorf("after %d batches: err %v, want context.Canceled", after, err)
		} else if err != nil && scan.ErrorCode(err) != inletpb.ScanError_CANCELLED {
			t.Errorf("code %v", scan.ErrorCode(err))
		}
		rd.Release()
		mem.AssertSize(t, 0)
	}
	// Release without draining also stops the readers.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rd, err := hs.ex.Execute(context.Background(), hs.fragment(p, []int32{0, 2}, hs.unionLog(p)), mem)
	if err != nil {
		t.Fatal(err)
	}
	rd.Next()
	done := make(chan struct{})
	go func() { rd.Release(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Release did not stop the readers")
	}
	mem.AssertSize(t, 0)
}
