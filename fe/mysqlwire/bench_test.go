package mysqlwire

import (
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: the machine is shared,
// so rows per CPU-second is the comparable figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamRows measures the wire alone: rows produced by a session
// and scanned by go-sql-driver in the same process.
func BenchmarkStreamRows(b *testing.B) {
	var benchMu sync.Mutex
	srv, err := Listen(Config{Addr: "127.0.0.1:0", NewSession: func(ConnInfo) (Session, error) {
		return &scriptSession{mu: &benchMu, closed: new(int)}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve()
	b.Cleanup(func() { srv.Close() })
	db := openDB(b, srv)
	const n = 1_000_000
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := db.Query(fmt.Sprintf("rows %d", n))
		if err != nil {
			b.Fatal(err)
		}
		var x int64
		var s []byte
		var z *int64
		got := 0
		for rows.Next() {
			if err := rows.Scan(&x, &s, &z); err != nil {
				b.Fatal(err)
			}
			got++
		}
		rows.Close()
		if got != n {
			b.Fatalf("rows %d", got)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}
