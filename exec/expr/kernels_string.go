package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Typed loops for the common string functions. A value that is all ASCII
// is handled on its bytes; any other value goes through the row-wise
// function's own code (substr, strings.ToUpper, ...), so invalid UTF-8 and
// multi-byte characters give exactly what they always gave.

// withVec attaches a typed kernel to the row function a builder makes.
func withVec(b builder, vec func(env *Env, args []arrow.Array) (arrow.Array, bool, error)) builder {
	return func() (Expr, error) {
		e, err := b()
		if f, ok := e.(*rowFunc); ok && err == nil {
			f.vec = vec
		}
		return e, err
	}
}

// allValid is the strict-function validity of arrs: a row is valid when
// every argument is (nil: all rows valid).
func allValid(arrs []arrow.Array) []bool {
	var valid []bool
	for _, a := range arrs {
		if a.NullN() == 0 {
			continue
		}
		if valid == nil {
			valid = make([]bool, a.Len())
			for i := range valid {
				valid[i] = true
			}
		}
		for i := range valid {
			valid[i] = valid[i] && a.IsValid(i)
		}
	}
	return valid
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asStrings(arrs []arrow.Array) ([]*array.String, bool) {
	out := make([]*array.String, len(arrs))
	for i, a := range arrs {
		s, ok := a.(*array.String)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// batchBytes enforces MaxBatchStringBytes over one evaluation, as rowFunc
// does.
func batchBytes(name string, built *int64, n int) error {
	if *built += int64(n); *built > MaxBatchStringBytes {
		return errorf(ErrTooLarge, "%s: results of one batch exceed %d bytes", name, MaxBatchStringBytes)
	}
	return nil
}

// lengthKernel is length()/octet_length(): bytes per value.
func lengthKernel(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	ss, ok := asStrings(arrs)
	if !ok || len(ss) != 1 {
		return nil, false, nil
	}
	x := ss[0]
	out := make([]int64, x.Len())
	for i := range out {
		out[i] = int64(len(x.Value(i))) // a NULL slot is empty
	}
	b := array.NewInt64Builder(env.Mem)
	defer b.Release()
	b.AppendValues(out, validity(x))
	return b.NewArray(), true, nil
}

// caseKernel is upper()/lower(); ASCII values are mapped byte by byte,
// exactly as strings.ToUpper/ToLower map them.
func caseKernel(name string, upper bool) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	conv := strings.ToLower
	if upper {
		conv = strings.ToUpper
	}
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		ss, ok := asStrings(arrs)
		if !ok || len(ss) != 1 {
			return nil, false, nil
		}
		x := ss[0]
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(x.Len())
		b.ReserveData(len(x.ValueBytes()))
		var buf []byte
		var built int64
		for i := 0; i < x.Len(); i++ {
			if x.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := x.Value(i)
			if !isASCII(v) {
				if utf8.ValidString(v) {
					buf = appendCase(buf[:0], v, upper)
					if err := batchBytes(name, &built, len(buf)); err != nil {
						return nil, false, err
					}
					b.BinaryBuilder.Append(buf)
					continue
				}
				r := conv(v) // invalid UTF-8: as the row-wise function
				if err := batchBytes(name, &built, len(r)); err != nil {
					return nil, false, err
				}
				b.Append(r)
				continue
			}
			buf = append(buf[:0], v...)
			for k, c := range buf {
				switch {
				case upper && 'a' <= c && c <= 'z':
					buf[k] = c - 'a' + 'A'
				case !upper && 'A' <= c && c <= 'Z':
					buf[k] = c - 'A' + 'a'
				}
			}
			if err := batchBytes(name, &built, len(buf)); err != nil {
				return nil, false, err
			}
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), true, nil
	}
}

// substrKernel is substr(s, pos[, len]); an ASCII value is cut on bytes
// with substr's arithmetic (1-based pos, negative pos from the end, a
// negative len gives ”).
func substrKernel(name string) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		if len(arrs) < 2 || len(arrs) > 3 {
			return nil, false, nil
		}
		x, ok := arrs[0].(*array.String)
		if !ok {
			return nil, false, nil
		}
		var nums [][]int64
		for _, a := range arrs[1:] {
			ia, ok := a.(*array.Int64)
			if !ok {
				return nil, false, nil
			}
			nums = append(nums, ia.Int64Values())
		}
		valid := allValid(arrs)
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(x.Len())
		b.ReserveData(len(x.ValueBytes())) // ASCII results are no longer
		var built int64
		for i := 0; i < x.Len(); i++ {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			s, pos, l := x.Value(i), nums[0][i], int64(-1)
			if len(nums) == 2 {
				if l = nums[1][i]; l < 0 {
					b.AppendEmptyValue()
					continue
				}
			}
			var r string
			if isASCII(s) {
				n := int64(len(s))
				if pos != 0 && pos <= n && pos >= -n {
					start := pos - 1
					if pos < 0 {
						start = n + pos
					}
					end := n
					if l >= 0 {
						end = start + min(l, n-start) // not min(start+l, n): start+l can overflow
					}
					r = s[start:end]
				}
			} else if utf8.ValidString(s) {
				r = substrValid(s, pos, l)
			} else {
				r = substr(s, pos, l)
			}
			if err := batchBytes(name, &built, len(r)); err != nil {
				return nil, false, err
			}
			b.Append(r)
		}
		return b.NewArray(), true, nil
	}
}

// concatKernel is concat(s1, ...): NULL if any argument is, and a value
// longer than MaxStringBytes fails the statement before it is built.
func concatKernel(name string) func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
		ss, ok := asStrings(arrs)
		if !ok || len(ss) == 0 {
			return nil, false, nil
		}
		valid := allValid(arrs)
		n := ss[0].Len()
		b := array.NewStringBuilder(env.Mem)
		defer b.Release()
		b.Reserve(n)
		data := 0 // the result is at most all argument bytes
		for _, s := range ss {
			data += len(s.ValueBytes())
		}
		b.ReserveData(min(data, MaxBatchStringBytes))
		var buf []byte
		var built int64
		for i := 0; i < n; i++ {
			if valid != nil && !valid[i] {
				b.AppendNull()
				continue
			}
			total := int64(0)
			for _, s := range ss {
				total += int64(s.ValueLen(i))
			}
			if total > MaxStringBytes {
				return nil, false, tooLarge(name, total)
			}
			buf = buf[:0]
			for _, s := range ss {
				buf = append(buf, s.Value(i)...)
			}
			if err := batchBytes(name, &built, len(buf)); err != nil {
				return nil, false, err
			}
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), true, nil
	}
}
