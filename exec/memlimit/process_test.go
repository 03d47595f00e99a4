package memlimit

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Statements under their own limits draw from the process account: the
// allocation that would pass the process cap fails with an error naming
// mem_limit, the statement holding memory goes on, and every byte is
// counted back out, Sweep included.
func TestProcessCap(t *testing.T) {
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	proc := NewProcess(parent, 100)
	a := New(proc, 80, "exec_mem_limit")
	b := New(proc, 80, "exec_mem_limit")

	ha := a.Allocate(60)
	hb := b.Allocate(30)
	if proc.Used() != 90 {
		t.Fatalf("process holds %d, want 90", proc.Used())
	}
	err := Guard(func() error { b.Allocate(20); return nil })
	var e *Exceeded
	if !errors.As(err, &e) || !e.Process || e.Limit != 100 || e.Used != 90 || e.Want != 20 ||
		!strings.Contains(err.Error(), "mem_limit") || !strings.Contains(err.Error(), "--mem-limit") {
		t.Fatalf("b past the process cap: %v", err)
	}
	if b.Used() != 30 || proc.Used() != 90 {
		t.Fatalf("after the refusal: b holds %d, process %d", b.Used(), proc.Used())
	}
	// a's own limit is still the first to refuse a.
	err = Guard(func() error { a.Reallocate(90, ha); return nil })
	if !errors.As(err, &e) || e.Process || e.Variable != "exec_mem_limit" {
		t.Fatalf("a past its own limit: %v", err)
	}
	// b fails and is swept; a goes on with the room it left.
	if n := b.Sweep(); n != 30 {
		t.Fatalf("swept %d", n)
	}
	_ = hb
	ha = a.Reallocate(70, ha)
	// A Lenient view counts but never refuses, even past the cap.
	l := Lenient(a)
	x := l.Allocate(50)
	if proc.Used() != 120 || a.Used() != 120 {
		t.Fatalf("lenient: process %d, a %d", proc.Used(), a.Used())
	}
	l.Free(x)
	a.Free(ha)
	// Used directly (outside statements) the process never refuses.
	y := proc.Allocate(500)
	proc.Free(y)
	if proc.Used() != 0 || a.Used() != 0 || proc.Peak() < 500 {
		t.Fatalf("at the end: process %d (peak %d), a %d", proc.Used(), proc.Peak(), a.Used())
	}
}

// Many statements allocating concurrently never take the process past its
// cap, whatever the interleaving; each refused one sees the process error.
func TestProcessCapConcurrent(t *testing.T) {
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	const cap = 1 << 20
	proc := NewProcess(parent, cap)
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	// All eight first take an eighth of the cap each, then ask for as much
	// again: the process is full, so at least one must be refused.
	var filled sync.WaitGroup
	filled.Add(8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := New(proc, cap/2, "exec_mem_limit")
			var held [][]byte
			err := Guard(func() error {
				for i := 0; i < 64; i++ {
					if i == 32 {
						filled.Done()
						filled.Wait()
					}
					held = append(held, a.Allocate(4096))
					if u := proc.Used(); u > cap {
						t.Errorf("process holds %d past its cap %d", u, cap)
					}
				}
				return nil
			})
			if len(held) < 32 {
				filled.Done() // refused before the barrier (cannot happen: 8 × 32 × 4 KiB is the cap)
			}
			var e *Exceeded
			if err != nil && (!errors.As(err, &e) || !e.Process) {
				t.Errorf("unexpected error %v", err)
			}
			if err != nil {
				mu.Lock()
				refused++
				mu.Unlock()
			}
			for _, b := range held {
				a.Free(b)
			}
		}()
	}
	wg.Wait()
	if proc.Used() != 0 {
		t.Fatalf("process holds %d at the end", proc.Used())
	}
	if refused == 0 || proc.Peak() != cap {
		t.Fatalf("%d of 8 statements refused, peak %d: the process was never full", refused, proc.Peak())
	}
}

func TestParseSize(t *testing.T) {
	const total = 16 << 30
	cases := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"80%", total * 8 / 10, false},
		{" 50 % ", total / 2, false},
		{"100%", total, false},
		{"1073741824", 1 << 30, false},
		{"8G", 8 << 30, false},
		{"8gb", 8 << 30, false},
		{"512M", 512 << 20, false},
		{"64K", 64 << 10, false},
		{"2T", 2 << 40, false},
		{"0", 0, true},
		{"-1G", 0, true},
		{"0%", 0, true},
		{"101%", 0, true},
		{"lots", 0, true},
		{"", 0, true},
		{"99999999999T", 0, true},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in, total)
		if c.bad != (err != nil) || (!c.bad && got != c.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (bad %v)", c.in, got, err, c.want, c.bad)
		}
	}
	if _, err := ParseSize("80%", 0); err == nil {
		t.Error("a percentage of unknown memory was accepted")
	}
	if PhysicalMemory() <= 0 {
		t.Error("PhysicalMemory found nothing on Linux")
	}
}

// Go memory charged to a statement counts like allocations: refused past
// either limit, given back by Refund, and what an unwound operator never
// refunded is given back to the process by Close.
func TestCharge(t *testing.T) {
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	proc := NewProcess(parent, 1000)
	a := New(proc, 500, "exec_mem_limit")
	Charge(a, 300)
	if a.Used() != 300 || proc.Used() != 300 {
		t.Fatalf("charged: a %d, process %d", a.Used(), proc.Used())
	}
	err := Guard(func() error { Charge(a, 300); return nil })
	var e *Exceeded
	if !errors.As(err, &e) || e.Process || a.Used() != 300 {
		t.Fatalf("past the statement limit: %v, a %d", err, a.Used())
	}
	b := New(proc, 1000, "exec_mem_limit")
	err = Guard(func() error { Charge(b, 800); return nil })
	if !errors.As(err, &e) || !e.Process || proc.Used() != 300 {
		t.Fatalf("past the process limit: %v, process %d", err, proc.Used())
	}
	// The lenient view counts without refusing and flags the statement.
	Charge(Lenient(b), 800)
	if Check(b) == nil || proc.Used() != 1100 {
		t.Fatalf("lenient charge: check %v, process %d", Check(b), proc.Used())
	}
	Refund(b, 800)
	Refund(a, 100)
	Refund(a, 1000) // more than charged: only the 200 left
	if a.Used() != 0 || proc.Used() != 0 {
		t.Fatalf("refunded: a %d, process %d", a.Used(), proc.Used())
	}
	Charge(a, 50)
	a.Close()
	Refund(a, 50) // after Close: nothing left to give back
	if a.Used() != 0 || proc.Used() != 0 {
		t.Fatalf("closed: a %d, process %d", a.Used(), proc.Used())
	}
	// Other allocators are not accounts: nothing happens.
	Charge(parent, 10)
	Refund(parent, 10)
}
