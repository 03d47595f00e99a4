package scan

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestAdmissionFIFOAndAlone(t *testing.T) {
	ctx := context.Background()
	a := newAdmission(100, 0.5, time.Minute) // budget 50
	_, r1, _ := a.acquire(ctx, 30)
	var mu sync.Mutex
	var order []int64
	var wg sync.WaitGroup
	start := func(n int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, rel, err := a.acquire(ctx, n)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, n)
			mu.Unlock()
			time.Sleep(5 * time.Millisecond)
			rel()
		}()
		time.Sleep(20 * time.Millisecond) // arrival order
	}
	start(500) // bigger than the budget: waits for the 30 to leave, then runs alone
	start(10)  // fits next to the 30, but arrived later: waits its turn
	mu.Lock()
	if len(order) != 0 {
		t.Fatalf("admitted %v while the head of the queue waits", order)
	}
	mu.Unlock()
	r1()
	wg.Wait()
	if len(order) != 2 || order[0] != 500 || order[1] != 10 {
		t.Fatalf("order %v, want [500 10]", order)
	}
	if a.held != 0 {
		t.Fatalf("held %d after all released", a.held)
	}
}

func TestAdmissionMaxWaitAndCancel(t *testing.T) {
	a := newAdmission(100, 0.5, time.Minute)
	_, r1, _ := a.acquire(context.Background(), 40)
	a.setMaxWait(30 * time.Millisecond)
	waited, r2, err := a.acquire(context.Background(), 40)
	if err != nil || waited < 30*time.Millisecond {
		t.Fatalf("waited %v err %v", waited, err)
	}
	a.setMaxWait(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := a.acquire(ctx, 40); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled wait: %v", err)
	}
	r1()
	r2()
	if a.held != 0 || len(a.queue) != 0 {
		t.Fatalf("held %d queue %d", a.held, len(a.queue))
	}
	// Raising the ratio at runtime lets waiting readers in.
	_, r3, _ := a.acquire(context.Background(), 50)
	done := make(chan struct{})
	go func() {
		_, r, _ := a.acquire(context.Background(), 50)
		r()
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	a.setRatio(1)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ratio change did not admit the waiter")
	}
	r3()
}
