package dispatch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/dispatch"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/scan/flightsrv"
)

func TestSecretHeadersAgree(t *testing.T) {
	if dispatch.SecretHeader != flightsrv.SecretHeader {
		t.Fatalf("dispatch sends %q, flightsrv checks %q", dispatch.SecretHeader, flightsrv.SecretHeader)
	}
}

func TestRunInProcess(t *testing.T) {
	lt := newLogTable(t, 3000, 100, 3)
	ex := scan.NewExecutor(scan.Config{Name: "local"})
	defer ex.Close()
	d := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", ex.Execute)}, Classify: scan.ErrorCode})
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
	if n := st.GetCounters()["FlussLogRowsReturned"]; n != int64(lt.rows) {
		t.Errorf("FlussLogRowsReturned = %d, want %d", n, lt.rows)
	}
	if len(st.GetDoneRanges()) != len(f.Ranges) {
		t.Errorf("done ranges %v, want %d", st.GetDoneRanges(), len(f.Ranges))
	}
	r.Release()
}

// An in-process BE's error gets its code from Classify: a fragment whose
// table JSON is garbage is INVALID (or whatever scan decides), never a
// lost BE, and carries the scan error in its chain.
func TestInProcessErrorClassified(t *testing.T) {
	lt := newLogTable(t, 10, 10, 1)
	ex := scan.NewExecutor(scan.Config{Name: "local"})
	defer ex.Close()
	d := dispatch.New(dispatch.Config{Backends: []dispatch.Backend{dispatch.BackendFunc("local", ex.Execute)}, Classify: scan.ErrorCode})
	f := lt.fragment(t)
	f.Fluss.TableJson = []byte("{not json")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := d.Run(context.Background(), f, mem)
	if err == nil {
		_, err = readAll(t, r)
		r.Release()
	}
	if err == nil {
		t.Fatal("no error for a broken table JSON")
	}
	var be *dispatch.BackendError
	if !errors.As(err, &be) {
		t.Fatalf("error %v is not a BackendError", err)
	}
	if want := scan.ErrorCode(err); be.Code != want || dispatch.Code(err) != want {
		t.Errorf("code %v, want scan's %v", be.Code, want)
	}
	if errors.Is(err, dispatch.ErrBackendLost) {
		t.Errorf("a BE's own error taken for a lost BE: %v", err)
	}
	_ = inletpb.ScanError_INVALID
}

func TestNoBackends(t *testing.T) {
	d := dispatch.New(dispatch.Config{})
	_, err := d.Run(context.Background(), &inletpb.Fragment{QueryId: "q"}, memory.NewGoAllocator())
	if !errors.Is(err, dispatch.ErrNoBackends) {
		t.Fatalf("err = %v, want ErrNoBackends", err)
	}
}
