package unionread

import (
	"encoding/binary"
	"testing"
)

// BenchmarkKeySetMemory reports the bytes a tail key set holds per key for
// BIGINT keys (1 null byte + 8 value bytes each).
//
//	go test ./unionread -run '^$' -bench KeySet
func BenchmarkKeySetMemory(b *testing.B) {
	const n = 1 << 20
	for it := 0; it < b.N; it++ {
		s := NewKeySet()
		var k [9]byte
		k[0] = 1
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint64(k[1:], uint64(i))
			s.Insert(k[:])
		}
		b.ReportMetric(float64(s.MemoryBytes())/float64(n), "bytes/key")
	}
}
