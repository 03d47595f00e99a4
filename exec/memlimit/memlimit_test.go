package memlimit

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestLimit(t *testing.T) {
	cases := []struct {
		name    string
		limit   int64
		run     func(a *Allocator)
		refused bool
		used    int64 // after run, before Sweep
	}{
		{"within", 100, func(a *Allocator) { a.Free(a.Allocate(60)) }, false, 0},
		{"exactly the limit", 100, func(a *Allocator) { a.Allocate(100) }, false, 100},
		{"one past", 100, func(a *Allocator) { a.Allocate(60); a.Allocate(41) }, true, 60},
		{"grow past", 100, func(a *Allocator) { a.Reallocate(101, a.Allocate(50)) }, true, 50},
		{"grow within", 100, func(a *Allocator) { a.Reallocate(90, a.Allocate(50)) }, false, 90},
		{"shrink", 100, func(a *Allocator) { a.Reallocate(10, a.Allocate(90)) }, false, 10},
		{"builder past", 1 << 10, func(a *Allocator) {
			b := array.NewInt64Builder(a)
			defer b.Release()
			for i := 0; i < 1<<10; i++ {
				b.Append(int64(i))
			}
		}, true, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer parent.AssertSize(t, 0)
			a := New(parent, tc.limit, "exec_mem_limit")
			err := Guard(func() error { tc.run(a); return nil })
			if tc.refused != (err != nil) {
				t.Fatalf("err = %v, refused want %v", err, tc.refused)
			}
			if err != nil {
				var e *Exceeded
				if !errors.Is(err, ErrExceeded) || !errors.As(err, &e) || e.Limit != tc.limit ||
					!strings.Contains(err.Error(), "exec_mem_limit") || !strings.Contains(err.Error(), "Memory limit exceeded") {
					t.Fatalf("err = %v", err)
				}
			}
			if tc.used >= 0 && a.Used() != tc.used {
				t.Errorf("used %d, want %d", a.Used(), tc.used)
			}
			if a.Used() > tc.limit || a.Peak() > tc.limit {
				t.Errorf("used %d, peak %d past the limit %d", a.Used(), a.Peak(), tc.limit)
			}
			if a.Used() != int64(parent.CurrentAlloc()) {
				t.Errorf("used %d, parent holds %d", a.Used(), parent.CurrentAlloc())
			}
			a.Sweep()
			if a.Used() != 0 {
				t.Errorf("after Sweep used %d", a.Used())
			}
		})
	}
}

func TestLenientCountsButNeverRefuses(t *testing.T) {
	parent := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer parent.AssertSize(t, 0)
	a := New(parent, 10, "exec_mem_limit")
	l := Lenient(a)
	b := l.Allocate(100)
	if a.Used() != 100 {
		t.Fatalf("used %d", a.Used())
	}
	// The statement's own next allocation is refused.
	if err := Guard(func() error { a.Allocate(1); return nil }); !errors.Is(err, ErrExceeded) {
		t.Fatalf("strict allocation after lenient: %v", err)
	}
	b = l.Reallocate(200, b)
	l.Free(b)
	if a.Used() != 0 {
		t.Fatalf("used %d", a.Used())
	}
	if got := Lenient(parent); got != memory.Allocator(parent) {
		t.Fatal("Lenient changed an unlimited allocator")
	}
}

func TestOtherPanicsPassThrough(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	_ = Guard(func() error { panic("boom") })
	t.Fatal("Guard swallowed a foreign panic")
}

func TestHandle(t *testing.T) {
	a := New(memory.NewGoAllocator(), 1, "exec_mem_limit")
	var got error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer Handle(func(err error) { got = err })
		a.Allocate(2)
	}()
	<-done
	if !errors.Is(got, ErrExceeded) {
		t.Fatalf("Handle got %v", got)
	}
}

// BenchmarkAllocateFree measures what the accounting adds to one buffer's
// life (compare the "go" sub-benchmark).
func BenchmarkAllocateFree(b *testing.B) {
	for _, bc := range []struct {
		name string
		mem  memory.Allocator
	}{
		{"go", memory.NewGoAllocator()},
		{"limited", New(memory.NewGoAllocator(), 1<<40, "exec_mem_limit")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.mem.Free(bc.mem.Allocate(4096))
			}
		})
	}
}

// Usage gives the statement's limit, or less when the process has less
// left than the statement may still take.
func TestUsage(t *testing.T) {
	proc := NewProcess(memory.NewGoAllocator(), 1000)
	a := New(proc, 800, "exec_mem_limit")
	defer a.Close()
	b := New(proc, 800, "exec_mem_limit")
	defer b.Close()
	if _, _, ok := Usage(memory.NewGoAllocator()); ok {
		t.Fatal("Usage of a plain allocator")
	}
	check := func(what string, mem memory.Allocator, wantUsed, wantLimit int64) {
		t.Helper()
		used, limit, ok := Usage(mem)
		if !ok || used != wantUsed || limit != wantLimit {
			t.Fatalf("%s: Usage = %d, %d, %v; want %d, %d", what, used, limit, ok, wantUsed, wantLimit)
		}
	}
	check("idle", a, 0, 800)
	Charge(a, 100)
	check("own bytes", Lenient(a), 100, 800)
	Charge(b, 500)
	// The process has 400 left: a may reach 100+400.
	check("process pressure", a, 100, 500)
	Refund(b, 500)
	Refund(a, 100)
}
