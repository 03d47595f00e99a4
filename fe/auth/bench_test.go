package auth

import (
	"fmt"
	"testing"
)

// BenchmarkCheck is the per-table cost a query pays: a user with 100
// grants, checked on a table it holds SELECT_PRIV on.
func BenchmarkCheck(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	id := Identity{"u", "%"}
	if err := s.CreateUser(id, "pw", false); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if err := s.Grant(id, SelectPriv, Object{"internal", "db", fmt.Sprintf("t%d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.Check("u", SelectPriv, "internal", "db", "t99"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticate is the cleartext check of HTTP Basic auth.
func BenchmarkAuthenticate(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := s.CreateUser(Identity{"u", "%"}, "pw", false); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Authenticate("u", "10.0.0.1", "pw"); err != nil {
			b.Fatal(err)
		}
	}
}
