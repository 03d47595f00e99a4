package dispatch_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
)

func flightBackends(t testing.TB, secret string, bes ...*be) []dispatch.Backend {
	var out []dispatch.Backend
	for _, b := range bes {
		fb := dispatch.NewFlightBackend(b.addr, secret)
		t.Cleanup(func() { fb.Close() })
		out = append(out, fb)
	}
	return out
}

func TestFlightTwoBEs(t *testing.T) {
	// 24 buckets: with 6, rendezvous hashing put every one on the same BE
	// about one run in 32, and "both BEs worked" below failed by chance.
	lt := newLogTable(t, 6000, 100, 24)
	a, b := startBE(t, testSecret), startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, a, b)})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := lt.fragment(t)
	r, err := d.Run(context.Background(), f, mem)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, lt.want())
	st := r.Stats()
	r.Release()
	if n := st.GetCounters()["FlussLogRowsReturned"]; n != int64(lt.rows) {
		t.Errorf("FlussLogRowsReturned summed over BEs = %d, want %d", n, lt.rows)
	}
	if len(st.GetDoneRanges()) != len(f.Ranges) {
		t.Errorf("done ranges %v, want all %d", st.GetDoneRanges(), len(f.Ranges))
	}
	// Every range has a timing naming its BE, and their rows add up (the
	// profile page's per-range bars).
	var timedRows int64
	timedBEs := map[string]int{}
	for _, tm := range st.GetTimings() {
		timedRows += tm.GetRows()
		timedBEs[tm.GetBackend()]++
		if tm.GetKind() != "LOG" || tm.GetEndUs() < tm.GetStartUs() || tm.GetStartUs() == 0 {
			t.Errorf("range timing %v", tm)
		}
	}
	if len(st.GetTimings()) != len(f.Ranges) || timedRows != int64(lt.rows) || len(timedBEs) != 2 {
		t.Errorf("%d timings over BEs %v with %d rows, want %d over 2 BEs with %d rows",
			len(st.GetTimings()), timedBEs, timedRows, len(f.Ranges), lt.rows)
	}
	// Both BEs worked, and the ranges split between them add up.
	ra, _ := strconv.Atoi(a.metric(t, `inlet_be_ranges_total{kind="LOG"}`))
	rb, _ := strconv.Atoi(b.metric(t, `inlet_be_ranges_total{kind="LOG"}`))
	if ra == 0 || rb == 0 || ra+rb != len(f.Ranges) {
		t.Errorf("ranges per BE %d + %d, want both > 0 and sum %d", ra, rb, len(f.Ranges))
	}
	na, _ := strconv.Atoi(a.metric(t, `inlet_be_rows_total{kind="LOG"}`))
	nb, _ := strconv.Atoi(b.metric(t, `inlet_be_rows_total{kind="LOG"}`))
	if na+nb != lt.rows {
		t.Errorf("rows per BE %d + %d, want %d", na, nb, lt.rows)
	}
	for _, x := range []*be{a, b} {
		x.mem.AssertSize(t, 0)
	}
}

// The same affinity always lands on the same BE, whatever else is in the
// fragment; placement does not depend on range order.
func TestPlacementStable(t *testing.T) {
	lt := newLogTable(t, 600, 100, 6)
	a, b := startBE(t, testSecret), startBE(t, testSecret)
	bes := flightBackends(t, testSecret, a, b)
	d := dispatch.New(dispatch.Config{Backends: bes})
	perBE := func(f *inletpb.Fragment) (string, string) {
		r, err := d.Run(context.Background(), f, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := readAll(t, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
		return a.metric(t, `inlet_be_ranges_total{kind="LOG"}`), b.metric(t, `inlet_be_ranges_total{kind="LOG"}`)
	}
	f := lt.fragment(t)
	a1, b1 := perBE(f)
	// Reverse the ranges: every affinity must go where it went before, so
	// each BE's count doubles.
	g := lt.fragment(t)
	for i, j := 0, len(g.Ranges)-1; i < j; i, j = i+1, j-1 {
		g.Ranges[i], g.Ranges[j] = g.Ranges[j], g.Ranges[i]
	}
	a2, b2 := perBE(g)
	ia1, _ := strconv.Atoi(a1)
	ib1, _ := strconv.Atoi(b1)
	ia2, _ := strconv.Atoi(a2)
	ib2, _ := strconv.Atoi(b2)
	if ia2 != 2*ia1 || ib2 != 2*ib1 {
		t.Errorf("ranges per BE after two runs %d/%d, want double the first run's %d/%d", ia2, ib2, ia1, ib1)
	}
}

func TestFlightAuthFailure(t *testing.T) {
	lt := newLogTable(t, 100, 100, 2)
	a := startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, "not-the-secret", a)})
	r, err := d.Run(context.Background(), lt.fragment(t), memory.NewGoAllocator())
	if err == nil {
		_, err = readAll(t, r)
		r.Release()
	}
	if !errors.Is(err, dispatch.ErrAuth) {
		t.Fatalf("err = %v, want ErrAuth", err)
	}
	for _, s := range []string{"not-the-secret", testSecret} {
		if containsStr(err.Error(), s) {
			t.Errorf("error %q shows a secret", err)
		}
	}
	if a.metric(t, "inlet_be_auth_failures_total") == "0" {
		t.Error("BE did not count the refused call")
	}
	if a.metric(t, "inlet_be_fragments_total") != "0" {
		t.Error("BE ran a fragment for a caller with the wrong secret")
	}
}

func containsStr(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && indexOf(s, sub) >= 0
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// A BE that is down when the query starts (nothing listens on its port)
// is skipped: its ranges run on the live one.
func TestBackendDownAtPlanTime(t *testing.T) {
	// 16 buckets: rendezvous hashing gives the dead BE some of them
	// (with 4, all four went to the live one about one run in sixteen,
	// the dead one was never tried, and the check below had nothing to see).
	lt := newLogTable(t, 2000, 100, 16)
	a := startBE(t, testSecret)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := lis.Addr().String()
	lis.Close()
	fb := dispatch.NewFlightBackend(dead, testSecret)
	defer fb.Close()
	// DownFor far beyond the test's length: a loaded machine must not let
	// the dead BE's exclusion lapse between the runs and the check.
	d := dispatch.New(dispatch.Config{Backends: append(flightBackends(t, testSecret, a), fb), DownFor: time.Hour})
	for range 2 { // the second run skips the dead BE up front
		r, err := d.Run(context.Background(), lt.fragment(t), memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, got, lt.want())
	}
	if n := len(d.Backends()); n != 1 {
		t.Errorf("%d BEs considered live, want 1 (the dead one is skipped for a while)", n)
	}
}

// Killing a BE while its streams are mid-flight: the unfinished ranges are
// re-run on the other BE, skipping the rows already passed on, and the
// result is exactly the table.
func TestKillBEMidQuery(t *testing.T) {
	lt := newLogTable(t, 20000, 50, 4)
	a, b := startBE(t, testSecret), startBE(t, testSecret)
	var logs logSink
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, a, b), Buffer: 1, Logger: logs.logger()})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := lt.fragment(t)
	f.Options.MaxConcurrency = 1
	r, err := d.Run(context.Background(), f, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var got []string
	killed := false
	for i := 0; r.Next(); i++ {
		got = append(got, render(r.RecordBatch())...)
		if i == 5 {
			// Kill a BE that is serving (placement decides which BEs
			// got ranges).
			victim := a
			if a.metric(t, "inlet_be_streams") == "0" {
				victim = b
			}
			victim.kill()
			killed = true
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !killed {
		t.Fatal("stream ended before the kill")
	}
	slices.Sort(got)
	checkRows(t, got, lt.want())
	if !logs.contains("re-running") {
		t.Error("no failover was logged: the kill did not hit an unfinished range")
	}
	if n := len(r.Stats().GetDoneRanges()); n < len(f.Ranges)-2 {
		// Ranges the killed BE finished are reported done by nobody's
		// final stats; the re-run's are.
		t.Logf("done ranges %v", r.Stats().GetDoneRanges())
	}
}

func TestCancelStopsBE(t *testing.T) {
	lt := newLogTable(t, 20000, 50, 2)
	a := startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, a), Buffer: 1})
	ctx, cancel := context.WithCancel(context.Background())
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := d.Run(ctx, lt.fragment(t), mem)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatalf("no first batch: %v", r.Err())
	}
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("Err after cancel = %v, want context.Canceled", r.Err())
	}
	r.Release()
	// The BE notices the cancelled stream, stops its readers and frees
	// their memory.
	deadline := time.Now().Add(10 * time.Second)
	for a.metric(t, "inlet_be_streams") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("BE still serving the cancelled stream after 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.mem.AssertSize(t, 0)
	if rows, _ := strconv.Atoi(a.metric(t, `inlet_be_rows_total{kind="LOG"}`)); rows >= lt.rows {
		t.Errorf("BE sent all %d rows despite the cancel", rows)
	}
}

// LIMIT caps the union of the BEs' rows, not each BE's.
func TestLimitAcrossBEs(t *testing.T) {
	lt := newLogTable(t, 4000, 100, 4)
	a, b := startBE(t, testSecret), startBE(t, testSecret)
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, a, b)})
	for _, limit := range []int64{0, 1, 1234, 3999, 4000, 10000} {
		f := lt.fragment(t)
		f.Limit = limit
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := d.Run(context.Background(), f, mem)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, r)
		r.Release()
		mem.AssertSize(t, 0)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		want := min(limit, int64(lt.rows))
		if int64(len(got)) != want {
			t.Errorf("limit %d: %d rows, want %d", limit, len(got), want)
		}
		all := lt.want()
		for i, g := range got {
			if _, ok := slices.BinarySearch(all, g); !ok || (i > 0 && got[i-1] == g) {
				t.Fatalf("limit %d: row %q is not a table row or repeats", limit, g)
			}
		}
	}
}

// A BE's own failure crosses as a ScanError code: the FE gets the same
// code scan.ErrorCode gives in process, the sentinel matches, and the
// failure is not taken for a lost BE (nothing is re-run).
func TestFlightErrorCode(t *testing.T) {
	lt := newLogTable(t, 100, 100, 2)
	a, b := startBE(t, testSecret), startBE(t, testSecret)
	f := lt.fragment(t)
	f.Fluss.TableJson = []byte("{not json")

	ex := scan.NewExecutor(scan.Config{})
	defer ex.Close()
	_, inproc := ex.Execute(context.Background(), f, memory.NewGoAllocator())
	if inproc == nil {
		t.Fatal("scan accepted a broken table JSON")
	}
	want := scan.ErrorCode(inproc)

	var logs logSink
	d := dispatch.New(dispatch.Config{Backends: flightBackends(t, testSecret, a, b), Logger: logs.logger()})
	r, err := d.Run(context.Background(), f, memory.NewGoAllocator())
	if err == nil {
		_, err = readAll(t, r)
		r.Release()
	}
	var be *dispatch.BackendError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a BackendError", err)
	}
	if be.Code != want || !errors.Is(err, dispatch.Sentinel(want)) {
		t.Errorf("code %v, want %v (as in process)", be.Code, want)
	}
	if be.Message != inproc.Error() {
		t.Errorf("message %q, want the BE's text %q unchanged", be.Message, inproc.Error())
	}
	if errors.Is(err, dispatch.ErrBackendLost) || logs.contains("re-running") {
		t.Error("a BE error was treated as a lost BE")
	}
	code := want.String()
	if a.metric(t, `inlet_be_errors_total{code="`+code+`"}`) == "0" && b.metric(t, `inlet_be_errors_total{code="`+code+`"}`) == "0" {
		t.Errorf("no BE counted the %s error", code)
	}
}
