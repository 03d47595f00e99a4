package scan_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

// runErr is run that returns the stream's error instead of failing.
func (hs *harness) runErr(f *inletpb.Fragment) ([]string, error) {
	t := hs.t
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd, err := hs.ex.Execute(context.Background(), f, mem)
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	var rows []string
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for c := 0; c < int(rec.NumCols()); c++ {
				cells = append(cells, rec.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	slices.Sort(rows)
	return rows, rd.Err()
}

// Faults injected by the emulator mid-read either are retried (same rows)
// or end the read with a clear, classified error; never wrong rows.
func TestFaultsMidRead(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "fpk", 150)
	buildLogLake(t, hs, "flg", 300, 60)
	ppk := hs.planRead("fpk", []string{"2024", "2025"})
	plg := hs.planRead("flg", []string{"a", "b"})
	all := []int32{0, 1, 2, 3, 4}
	want := map[string][]string{}
	reads := map[string]func() *inletpb.Fragment{
		"union-pk": func() *inletpb.Fragment { return hs.fragment(ppk, all, hs.unionPK(ppk)) },
		"pk-full":  func() *inletpb.Fragment { return hs.fragment(ppk, all, hs.flussPK(ppk)) },
		"union-log": func() *inletpb.Fragment {
			return hs.fragment(plg, all, hs.unionLog(plg))
		},
		"log": func() *inletpb.Fragment { return hs.fragment(plg, all, hs.flussLog(plg)) },
	}
	for name, mk := range reads {
		want[name], _ = hs.run(mk())
	}
	sameRows(t, "fault-free union vs PK_FULL", want["union-pk"], want["pk-full"])
	sameRows(t, "fault-free union vs LOG", want["union-log"], want["log"])
	part, _ := hs.c.PartitionID("db", "fpk", "2024")
	lpart, _ := hs.c.PartitionID("db", "flg", "a")
	faults := map[string]func(){
		"drop-fetch":  func() { hs.c.DropNext(int16(flussapi.FetchLog), 1) },
		"drop-scankv": func() { hs.c.DropNext(int16(flussapi.ScanKv), 1) },
		"not-leader": func() {
			for b := int32(0); b < 3; b++ {
				hs.c.NotLeaderOnce(ppk.info.ID, part, b)
				hs.c.NotLeaderOnce(plg.info.ID, lpart, b)
			}
		},
		"delay-fetch": func() { hs.c.DelayNext(int16(flussapi.FetchLog), 300*time.Millisecond, 3) },
	}
	for fname, arm := range faults {
		for rname, mk := range reads {
			arm()
			got, err := hs.runErr(mk())
			if err != nil {
				code := scan.ErrorCode(err)
				if code != inletpb.ScanError_UNAVAILABLE {
					t.Errorf("%s during %s: error %v classified %v, want a retry or UNAVAILABLE", fname, rname, err, code)
				}
				t.Logf("%s during %s: clear error %v", fname, rname, err)
				continue
			}
			sameRows(t, fname+" during "+rname, got, want[rname])
		}
		// Leave no armed fault behind for the next kind.
		for _, mk := range reads {
			hs.runErr(mk())
		}
	}
}

func TestTailTooLarge(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "big", 60)
	p := hs.planRead("big", []string{"2024", "2025"})
	f := hs.fragment(p, []int32{0, 3}, hs.unionPK(p))
	f.MaxTailRows = 1
	_, err := hs.runErr(f)
	if err == nil {
		t.Fatal("a tail over max_tail_rows was read")
	}
	if scan.ErrorCode(err) != inletpb.ScanError_TAIL_TOO_LARGE ||
		!strings.Contains(err.Error(), "fluss.union_read.max_tail_rows") || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("error %q (code %v) does not name the ceiling and the way out", err, scan.ErrorCode(err))
	}
}

func TestAdmissionSameResults(t *testing.T) {
	hs := newHarness(t)
	buildPKLake(t, hs, "adm", 90)
	p := hs.planRead("adm", []string{"2024", "2025"})
	off, _ := hs.run(hs.fragment(p, []int32{0, 1, 2, 3}, hs.unionPK(p)))
	// A budget smaller than one reader: every heavy reader runs alone.
	hs.ex.SetHeapBudgetRatio(1e-9)
	defer hs.ex.SetHeapBudgetRatio(0.5)
	for _, mk := range []func(*plan) []*inletpb.Range{hs.unionPK, hs.flussPK} {
		f := hs.fragment(p, []int32{0, 1, 2, 3}, mk(p))
		f.Options.HeapAdmission = true
		on, st := hs.run(f)
		sameRows(t, "admission on vs off", on, off)
		if st.Counters["JvmHeapDeclaredBytes"] <= 0 {
			t.Errorf("JvmHeapDeclaredBytes = %d", st.Counters["JvmHeapDeclaredBytes"])
		}
		if _, ok := st.Counters["JvmHeapWaitTime"]; !ok {
			t.Errorf("JvmHeapWaitTime not registered: %v", st.Counters)
		}
	}
}
