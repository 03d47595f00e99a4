package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStringSizeLimit: every function that builds a string whose size comes
// from its arguments fails with ErrTooLarge past MaxStringBytes, before it
// allocates the result; just under the limit still works, and the error
// names the function and the size asked for.
func TestStringSizeLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := testBatch(mem)
	defer b.Release()
	c := cols(b)
	env := &Env{Mem: mem}
	fn := func(name string, args ...Expr) Expr { return must(Func(name, args...)) }
	half := Str(strings.Repeat("x", MaxStringBytes/2+1))
	tooBig := []struct {
		e    Expr
		name string
		size string
	}{
		{fn("lpad", Str("a"), Int(100000000000), Str("b")), "lpad", "100000000000"},
		{fn("rpad", c["s"], Int(2000000000), Str("b")), "rpad", "2000000000"},
		{fn("lpad", Str("a"), Int(MaxStringBytes/2+1), Str("€")), "lpad", "25165825"}, // chars under, bytes over: 1 + 3*8Mi
		{fn("repeat", Str("ab"), Int(MaxStringBytes/2+1)), "repeat", "16777218"},
		{fn("repeat", Str("ab"), Int(1<<62)), "repeat", "9223372036854775807"},
		{fn("space", Int(MaxStringBytes+1)), "space", "16777217"},
		{fn("concat", half, c["s"], half), "concat", "16777221"}, // 2*(8 MiB+1) + 3
		{fn("concat_ws", Str(","), half, half), "concat_ws", "16777219"},
		{fn("replace", Str(strings.Repeat("a", 1<<20)), Str("a"), Str(strings.Repeat("b", 17))), "replace", "17825792"},
	}
	for _, tc := range tooBig {
		t.Run(tc.e.String()[:min(40, len(tc.e.String()))], func(t *testing.T) {
			a, err := tc.e.Eval(env, b)
			if err == nil {
				a.Release()
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrOverflow) {
				t.Fatalf("error %v is not ErrTooLarge/ErrOverflow", err)
			}
			if !strings.HasPrefix(err.Error(), "value out of range: string too large: "+tc.name+": result of ") || !strings.Contains(err.Error(), tc.size) {
				t.Fatalf("error %q does not name %s and size %s", err, tc.name, tc.size)
			}
		})
	}
	fits := []struct {
		e    Expr
		want string
	}{
		{fn("space", c["k"]), " ,  ,   "},
		{fn("space", Int(-1)), ",,"},
		{fn("lpad", c["s"], Int(5), Str("xy")), "xyabc,Hello,NULL"},
		{fn("rpad", c["s"], Int(7), Str("€")), "abc€€€€,Hello€€,NULL"},
		{fn("repeat", Str(""), Int(1<<62)), ",,"},
		{fn("rpad", c["s"], Int(-1), Str("x")), "NULL,NULL,NULL"},
	}
	for _, tc := range fits {
		if got := evalStr(t, tc.e); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.e, got, tc.want)
		}
	}
	// The largest value allowed is built.
	edge := fn("repeat", Str("a"), Int(MaxStringBytes))
	a, err := edge.Eval(env, b)
	if err != nil {
		t.Fatalf("%s: %v", edge, err)
	}
	if n := a.(interface{ ValueLen(int) int }).ValueLen(0); n != MaxStringBytes {
		t.Errorf("%s: %d bytes", edge, n)
	}
	a.Release()
}
