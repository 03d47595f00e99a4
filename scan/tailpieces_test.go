package scan_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

// TestUnionLogTailInPieces reads a log tail the way the planner cuts a long
// one (planner tailPieces): several LOG ranges of one bucket, cut at
// offsets inside Fluss batches, read side by side, as pieces that own the
// batches starting in them (Range.log_tail_*) and as plain ranges of
// exact offsets. Every record comes exactly once whatever the cuts, with
// the fetch filter pushed down (the server then leaves batches out, and a
// piece must still stop at its own end) and without. The expected rows
// are logRows' ids.
func TestUnionLogTailInPieces(t *testing.T) {
	hs := newHarness(t)
	ctx := context.Background()
	const n, batch, batches = 90, 7, 9 // tail: nine appends of seven rows
	spec := logTableSpec("pieces", 1)
	spec.Properties["table.statistics.columns"] = "id" // so the server can leave batches out
	if _, err := hs.c.CreateTable(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := hs.c.Append(ctx, "db", "pieces", logRows(0, n)); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(false)
	if _, err := hs.c.TierLake(ctx, "db", "pieces"); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	for i := 0; i < batches; i++ {
		lo := n + i*batch
		if err := hs.c.Append(ctx, "db", "pieces", logRows(lo, lo+batch)); err != nil {
			t.Fatal(err)
		}
	}
	total := n + batch*batches
	p := hs.planRead("pieces", []string{"a", "b"})
	ids := func(from, to int, keep func(int) bool) []string {
		var out []string
		for i := from; i < to; i++ {
			if keep(i) {
				out = append(out, fmt.Sprint(i))
			}
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name string
		cuts []int64 // offsets after the lake's end where a piece ends
		flt  []*inletpb.Filter
		keep func(int) bool
	}{
		{"whole", nil, nil, func(int) bool { return true }},
		{"at batch ends", []int64{7, 14, 28}, nil, func(int) bool { return true }},
		{"inside batches", []int64{3, 10, 11, 29}, nil, func(int) bool { return true }},
		{"every record", seq(1, 40), nil, func(int) bool { return true }},
		// The server's filter leaves out the batches of ids below 120 in
		// the tail; a piece wholly inside them reads nothing.
		{"pushed filter", []int64{3, 10, 14, 20}, []*inletpb.Filter{{Column: 0, Op: ">=", Values: []*inletpb.Value{{V: &inletpb.Value_Int{Int: 120}}}}},
			func(i int) bool { return i >= 120 }},
	} {
		for _, owned := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/owned=%v", tc.name, owned), func(t *testing.T) {
				var rs []*inletpb.Range
				pieces := int64(0)
				for _, r := range hs.unionLog(p) {
					if r.Type != inletpb.RangeType_LOG {
						rs = append(rs, r)
						continue
					}
					start, stop := r.LogStartOffset, r.LogStopOffset
					if stop-start < 30 {
						t.Fatalf("tail of partition %s [%d, %d): too short for the cuts", r.PartitionName, start, stop)
					}
					from := start
					for _, c := range append(slices.Clone(tc.cuts), stop-start) {
						piece := proto.Clone(r).(*inletpb.Range)
						piece.LogStartOffset, piece.LogStopOffset = from, min(start+c, stop)
						if owned {
							piece.LogTailStartOffset, piece.LogTailStopOffset = start, stop
						}
						rs = append(rs, piece)
						pieces++
						from = piece.LogStopOffset
					}
				}
				f := hs.fragment(p, []int32{0}, rs)
				f.Filters = tc.flt
				got, st := hs.run(f)
				sameRows(t, "pieces", got, ids(0, total, tc.keep))
				if tc.flt != nil {
					f.Filters = nil
					all, ast := hs.run(f)
					sameRows(t, "pieces without the filter", all, ids(0, total, func(int) bool { return true }))
					if st.Counters["FlussLogBytesFetched"] >= ast.Counters["FlussLogBytesFetched"] {
						t.Errorf("the server left no batch out: %d bytes fetched with the filter, %d without",
							st.Counters["FlussLogBytesFetched"], ast.Counters["FlussLogBytesFetched"])
					}
				}
				if st.Counters["FlussLogRangeNum"] != pieces {
					t.Errorf("FlussLogRangeNum %d, want %d", st.Counters["FlussLogRangeNum"], pieces)
				}
			})
		}
	}
	// A piece outside its tail is a bad fragment, named by its bucket.
	var rs []*inletpb.Range
	for _, r := range hs.unionLog(p) {
		if r.Type == inletpb.RangeType_LOG {
			r.LogTailStartOffset, r.LogTailStopOffset = r.LogStartOffset+1, r.LogStopOffset
		}
		rs = append(rs, r)
	}
	rd, err := hs.ex.Execute(ctx, hs.fragment(p, []int32{0}, rs), memory.NewGoAllocator())
	if err == nil {
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
	}
	if !errors.Is(err, scan.ErrInvalid) || !strings.Contains(err.Error(), "db.pieces partition") || !strings.Contains(err.Error(), "no piece of the tail") {
		t.Errorf("piece outside its tail: %v", err)
	}
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestTailPiecesStopCleanly: a fragment of many tail pieces stopped after
// its first batch (cancelled) or failing in one piece (a piece past the
// high watermark) frees every buffer, leaves no reader goroutine behind,
// and the failure names the bucket.
func TestTailPiecesStopCleanly(t *testing.T) {
	hs := newHarness(t)
	ctx := context.Background()
	if _, err := hs.c.CreateTable(ctx, logTableSpec("stop", 1)); err != nil {
		t.Fatal(err)
	}
	if err := hs.c.Append(ctx, "db", "stop", logRows(0, 40)); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(false)
	if _, err := hs.c.TierLake(ctx, "db", "stop"); err != nil {
		t.Fatal(err)
	}
	hs.c.FreezeTiering(true)
	for i := 40; i < 400; i += 9 {
		if err := hs.c.Append(ctx, "db", "stop", logRows(i, min(i+9, 400))); err != nil {
			t.Fatal(err)
		}
	}
	p := hs.planRead("stop", []string{"a", "b"})
	pieces := func(past int64) []*inletpb.Range {
		var rs []*inletpb.Range
		for _, r := range hs.unionLog(p) {
			if r.Type != inletpb.RangeType_LOG {
				rs = append(rs, r)
				continue
			}
			start, stop := r.LogStartOffset, r.LogStopOffset+past
			for c := start; c < stop; c += 13 {
				piece := proto.Clone(r).(*inletpb.Range)
				piece.LogStartOffset, piece.LogStopOffset = c, min(c+13, stop)
				piece.LogTailStartOffset, piece.LogTailStopOffset = start, stop
				rs = append(rs, piece)
			}
		}
		return rs
	}
	// A whole read first: the executor's client and pooled connections
	// (their goroutines stay while idle) are there before counting.
	if all, _ := hs.run(hs.fragment(p, []int32{0}, pieces(0))); len(all) != 400 {
		t.Fatalf("pieces read %d rows, want 400", len(all))
	}
	before := runtime.NumGoroutine()
	for _, tc := range []struct {
		name   string
		past   int64
		cancel bool
	}{{"cancelled", 0, true}, {"past the high watermark", 5, false}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			f := hs.fragment(p, []int32{0, 2}, pieces(tc.past))
			f.Options.MaxConcurrency = 3
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			rd, err := hs.ex.Execute(cctx, f, mem)
			if err != nil {
				t.Fatal(err)
			}
			for rd.Next() {
				if tc.cancel {
					cancel()
				}
			}
			err = rd.Err()
			rd.Release()
			mem.AssertSize(t, 0)
			t.Log(err)
			switch {
			case tc.cancel && !errors.Is(err, context.Canceled):
				t.Errorf("cancelled: %v", err)
			case !tc.cancel && (err == nil || !strings.Contains(err.Error(), "db.stop") || !strings.Contains(err.Error(), "bucket 0")):
				t.Errorf("piece past the high watermark: %v", err)
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind (%d before)", n-before, before)
	}
}
