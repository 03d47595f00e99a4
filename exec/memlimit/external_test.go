package memlimit

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// External charges count against the statement through either view, and
// the lenient one never refuses.
func TestChargeExternal(t *testing.T) {
	type charger interface {
		ChargeExternal(int64)
		RefundExternal(int64)
	}
	a := New(memory.NewGoAllocator(), 1000, "exec_mem_limit")
	defer a.Close()
	for _, tc := range []struct {
		name string
		view memory.Allocator
		n    int64
	}{{"strict", a, 600}, {"lenient", Lenient(a), 5000}} {
		c, ok := tc.view.(charger)
		if !ok {
			t.Fatalf("%s view has no ChargeExternal", tc.name)
		}
		c.ChargeExternal(tc.n)
		if got := a.Used(); got != tc.n {
			t.Fatalf("%s: used %d after charging %d", tc.name, got, tc.n)
		}
		c.RefundExternal(tc.n)
		if got := a.Used(); got != 0 {
			t.Fatalf("%s: used %d after the refund", tc.name, got)
		}
	}
	err := Guard(func() error {
		a.ChargeExternal(5000)
		return nil
	})
	if err == nil || a.Used() != 0 {
		t.Fatalf("strict charge past the limit: err %v, used %d", err, a.Used())
	}
}
