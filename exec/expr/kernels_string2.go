package expr

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Typed loops for the rest of the string functions. The row-wise
// functions work on []rune, which turns each invalid UTF-8 byte into
// U+FFFD; on valid UTF-8 that round trip is the identity, so a kernel
// works on the bytes of a valid value and hands an invalid one (rare) to
// the row-wise function itself. Functions that never decode (trim,
// replace, repeat, split_part, starts_with, ...) take every value.

// vecFn is the signature of rowFunc.vec.
type vecFn = func(env *Env, args []arrow.Array) (arrow.Array, bool, error)

// rowFn is the signature of rowFunc.fn.
type rowFn = func(env *Env, args []any) any

// withRowVec attaches the kernel mk builds around the row function's own
// fn, which the kernel calls for the rows it declines.
func withRowVec(b builder, mk func(slow rowFn) vecFn) builder {
	return func() (Expr, error) {
		e, err := b()
		if f, ok := e.(*rowFunc); ok && err == nil {
			f.vec = mk(f.fn)
		}
		return e, err
	}
}

// kargs holds one row's arguments, unboxed: s[k] for a STRING argument
// k, n[k] for a BIGINT one; nargs is how many were given.
type kargs struct {
	s     [4]string
	n     [4]int64
	nargs int
}

// kernelInputs checks arrs against kinds ('S' STRING, 'I' BIGINT; fewer
// arguments than kinds is fine) and returns a reader filling kargs.
func kernelInputs(arrs []arrow.Array, kinds string) (func(i int, a *kargs), bool) {
	if len(arrs) > len(kinds) || len(arrs) == 0 {
		return nil, false
	}
	ss := make([]*array.String, len(arrs))
	ns := make([][]int64, len(arrs))
	for k, a := range arrs {
		switch kinds[k] {
		case 'S':
			s, ok := a.(*array.String)
			if !ok {
				return nil, false
			}
			ss[k] = s
		case 'I':
			x, ok := a.(*array.Int64)
			if !ok {
				return nil, false
			}
			ns[k] = x.Int64Values()
		}
	}
	return func(i int, a *kargs) {
		a.nargs = len(arrs)
		for k := range arrs {
			if ss[k] != nil {
				a.s[k] = ss[k].Value(i)
			} else {
				a.n[k] = ns[k][i]
			}
		}
	}, true
}

// boxed is a row's arguments as the row-wise function takes them.
func (a *kargs) boxed(kinds string) []any {
	v := make([]any, a.nargs)
	for k := range v {
		if kinds[k] == 'S' {
			v[k] = a.s[k]
		} else {
			v[k] = a.n[k]
		}
	}
	return v
}

// stringKernel is the loop of a strict function returning STRING: fast
// appends row values to buf (null: the result is NULL; ok=false: let the
// row-wise function do this row).
func stringKernel(name, kinds string, fast func(buf []byte, a *kargs) (out []byte, null, ok bool, err error)) func(slow rowFn) vecFn {
	return func(slow rowFn) vecFn {
		return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
			read, ok := kernelInputs(arrs, kinds)
			if !ok {
				return nil, false, nil
			}
			valid := allValid(arrs)
			n := arrs[0].Len()
			b := array.NewStringBuilder(env.Mem)
			defer b.Release()
			b.Reserve(n)
			if s, ok := arrs[0].(*array.String); ok {
				b.ReserveData(min(len(s.ValueBytes()), MaxBatchStringBytes))
			}
			var a kargs
			var buf []byte
			var built int64
			for i := 0; i < n; i++ {
				if valid != nil && !valid[i] {
					b.AppendNull()
					continue
				}
				read(i, &a)
				out, null, ok, err := fast(buf[:0], &a)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					switch v := slow(env, a.boxed(kinds)).(type) {
					case nil:
						null = true
					case error:
						return nil, false, v
					case string:
						out = append(buf[:0], v...)
					}
				}
				buf = out
				if null {
					b.AppendNull()
					continue
				}
				if err := batchBytes(name, &built, len(out)); err != nil {
					return nil, false, err
				}
				b.BinaryBuilder.Append(out)
			}
			return b.NewArray(), true, nil
		}
	}
}

// intKernel is stringKernel for functions returning BIGINT.
func intKernel(kinds string, fast func(a *kargs) (v int64, ok bool)) func(slow rowFn) vecFn {
	return func(slow rowFn) vecFn {
		return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
			read, ok := kernelInputs(arrs, kinds)
			if !ok {
				return nil, false, nil
			}
			valid := allValid(arrs)
			n := arrs[0].Len()
			out := make([]int64, n)
			var a kargs
			for i := range out {
				if valid != nil && !valid[i] {
					continue
				}
				read(i, &a)
				v, ok := fast(&a)
				if !ok {
					switch x := slow(env, a.boxed(kinds)).(type) {
					case int64:
						v = x
					case nil:
						valid = setNull(valid, i, n)
						continue
					}
				}
				out[i] = v
			}
			b := array.NewInt64Builder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true, nil
		}
	}
}

// boolKernel is stringKernel for functions returning BOOLEAN that never
// decline a row.
func boolKernel(kinds string, fast func(a *kargs) bool) func(slow rowFn) vecFn {
	return func(rowFn) vecFn {
		return func(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
			read, ok := kernelInputs(arrs, kinds)
			if !ok {
				return nil, false, nil
			}
			valid := allValid(arrs)
			n := arrs[0].Len()
			out := make([]bool, n)
			var a kargs
			for i := range out {
				if valid != nil && !valid[i] {
					continue
				}
				read(i, &a)
				out[i] = fast(&a)
			}
			b := array.NewBooleanBuilder(env.Mem)
			defer b.Release()
			b.AppendValues(out, valid)
			return b.NewArray(), true, nil
		}
	}
}

// runeStart is the byte offset of rune k (0-based) of valid UTF-8 s, or
// len(s) when s has no more runes.
func runeStart(s string, k int64) int {
	i := 0
	for ; k > 0 && i < len(s); k-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// substrValid is substr on valid UTF-8, slicing s instead of converting
// it to runes and back (the same result on valid text).
func substrValid(s string, pos, l int64) string {
	n := int64(utf8.RuneCountInString(s))
	if pos == 0 || pos > n || pos < -n {
		return ""
	}
	start := pos - 1
	if pos < 0 {
		start = n + pos
	}
	end := n
	if l >= 0 {
		end = start + min(l, n-start)
	}
	a := runeStart(s, start)
	return s[a : a+runeStart(s[a:], end-start)]
}

// trimCut is trim/ltrim/rtrim: remove whole copies of cut from the
// chosen ends.
func trimCut(name, x, cut string) string {
	if cut == "" {
		return x
	}
	if name != "rtrim" {
		for strings.HasPrefix(x, cut) {
			x = x[len(cut):]
		}
	}
	if name != "ltrim" {
		for strings.HasSuffix(x, cut) {
			x = x[:len(x)-len(cut)]
		}
	}
	return x
}

// moreStringKernel returns the kernel of the string functions not
// covered by kernels_string.go, nil for others.
func moreStringKernel(name string) func(slow rowFn) vecFn {
	switch name {
	case "char_length", "character_length":
		return intKernel("S", func(a *kargs) (int64, bool) { return int64(utf8.RuneCountInString(a.s[0])), true })
	case "left":
		return stringKernel(name, "SI", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			if !utf8.ValidString(a.s[0]) {
				return buf, false, false, nil
			}
			return append(buf, substrValid(a.s[0], 1, max(a.n[1], 0))...), false, true, nil
		})
	case "right":
		return stringKernel(name, "SI", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			s, k := a.s[0], a.n[1]
			if k <= 0 {
				return buf, false, true, nil
			}
			if !utf8.ValidString(s) {
				return buf, false, false, nil
			}
			n := int64(utf8.RuneCountInString(s))
			if k >= n {
				return append(buf, s...), false, true, nil
			}
			return append(buf, s[runeStart(s, n-k):]...), false, true, nil
		})
	case "trim", "ltrim", "rtrim":
		return stringKernel(name, "SS", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			cut := " "
			if a.nargs == 2 {
				cut = a.s[1]
			}
			return append(buf, trimCut(name, a.s[0], cut)...), false, true, nil
		})
	case "replace":
		return stringKernel(name, "SSS", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			s, old, nw := a.s[0], a.s[1], a.s[2]
			if old == "" {
				return append(buf, s...), false, true, nil
			}
			if grow := len(nw) - len(old); grow > 0 {
				total := int64(len(s)) + int64(strings.Count(s, old))*int64(grow)
				if total > MaxStringBytes {
					return buf, false, true, tooLarge(name, total)
				}
			}
			for {
				k := strings.Index(s, old)
				if k < 0 {
					break
				}
				buf = append(append(buf, s[:k]...), nw...)
				s = s[k+len(old):]
			}
			return append(buf, s...), false, true, nil
		})
	case "lpad", "rpad":
		return stringKernel(name, "SIS", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			x, l, pad := a.s[0], a.n[1], a.s[2]
			if l < 0 {
				return buf, true, true, nil
			}
			if l > MaxStringBytes {
				return buf, false, true, tooLarge(name, l)
			}
			if !utf8.ValidString(x) || !utf8.ValidString(pad) {
				return buf, false, false, nil
			}
			nx, np := int64(utf8.RuneCountInString(x)), int64(utf8.RuneCountInString(pad))
			if nx >= l {
				return append(buf, x[:runeStart(x, l)]...), false, true, nil
			}
			if np == 0 {
				return buf, false, true, nil
			}
			need := l - nx
			rest := pad[:runeStart(pad, need%np)]
			total := int64(len(x)) + need/np*int64(len(pad)) + int64(len(rest))
			if total > MaxStringBytes {
				return buf, false, true, tooLarge(name, total)
			}
			if name == "rpad" {
				buf = append(buf, x...)
			}
			for k := int64(0); k < need/np; k++ {
				buf = append(buf, pad...)
			}
			buf = append(buf, rest...)
			if name == "lpad" {
				buf = append(buf, x...)
			}
			return buf, false, true, nil
		})
	case "instr":
		return intKernel("SS", func(a *kargs) (int64, bool) { return locateValid(a.s[1], a.s[0], 1) })
	case "locate", "position":
		return intKernel("SSI", func(a *kargs) (int64, bool) {
			pos := int64(1)
			if a.nargs == 3 {
				pos = a.n[2]
			}
			return locateValid(a.s[0], a.s[1], pos)
		})
	case "reverse":
		return stringKernel(name, "S", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			s := a.s[0]
			if !utf8.ValidString(s) {
				return buf, false, false, nil
			}
			for i := len(s); i > 0; {
				if s[i-1] < utf8.RuneSelf {
					buf = append(buf, s[i-1])
					i--
					continue
				}
				_, w := utf8.DecodeLastRuneInString(s[:i])
				buf = append(buf, s[i-w:i]...)
				i -= w
			}
			return buf, false, true, nil
		})
	case "repeat":
		return stringKernel(name, "SI", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			x, k := a.s[0], a.n[1]
			if k <= 0 || x == "" {
				return buf, false, true, nil
			}
			if k > MaxStringBytes || int64(len(x))*k > MaxStringBytes {
				return buf, false, true, tooLarge(name, satMul(int64(len(x)), k))
			}
			for ; k > 0; k-- {
				buf = append(buf, x...)
			}
			return buf, false, true, nil
		})
	case "split_part":
		return stringKernel(name, "SSI", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			s, d, k := a.s[0], a.s[1], a.n[2]
			if d == "" || k == 0 {
				return buf, true, true, nil
			}
			parts := int64(strings.Count(s, d)) + 1
			if k < 0 {
				k = parts + k + 1
			}
			if k < 1 || k > parts {
				return buf, true, true, nil
			}
			for ; k > 1; k-- {
				s = s[strings.Index(s, d)+len(d):]
			}
			if e := strings.Index(s, d); e >= 0 {
				s = s[:e]
			}
			return append(buf, s...), false, true, nil
		})
	case "space":
		return stringKernel(name, "I", func(buf []byte, a *kargs) ([]byte, bool, bool, error) {
			k := a.n[0]
			if k <= 0 {
				return buf, false, true, nil
			}
			if k > MaxStringBytes {
				return buf, false, true, tooLarge(name, k)
			}
			for ; k > 0; k-- {
				buf = append(buf, ' ')
			}
			return buf, false, true, nil
		})
	case "starts_with":
		return boolKernel("SS", func(a *kargs) bool { return strings.HasPrefix(a.s[0], a.s[1]) })
	case "ends_with":
		return boolKernel("SS", func(a *kargs) bool { return strings.HasSuffix(a.s[0], a.s[1]) })
	case "strcmp":
		return intKernel("SS", func(a *kargs) (int64, bool) { return int64(strings.Compare(a.s[0], a.s[1])), true })
	case "ascii":
		return intKernel("S", func(a *kargs) (int64, bool) {
			if a.s[0] == "" {
				return 0, true
			}
			return int64(a.s[0][0]), true
		})
	}
	return nil
}

// locateValid is locate for valid UTF-8 s (ok=false otherwise): the
// search runs on s itself rather than on a re-encoded copy.
func locateValid(sub, s string, pos int64) (int64, bool) {
	if pos < 1 {
		return 0, true
	}
	if !utf8.ValidString(s) {
		return 0, false
	}
	if pos > int64(utf8.RuneCountInString(s))+1 {
		return 0, true
	}
	rest := s[runeStart(s, pos-1):]
	k := strings.Index(rest, sub)
	if k < 0 {
		return 0, true
	}
	return pos + int64(utf8.RuneCountInString(rest[:k])), true
}

// appendCase appends upper- or lower-cased valid UTF-8 v, rune by rune
// as strings.ToUpper/ToLower map it.
func appendCase(buf []byte, v string, upper bool) []byte {
	for _, r := range v {
		if upper {
			r = unicode.ToUpper(r)
		} else {
			r = unicode.ToLower(r)
		}
		buf = utf8.AppendRune(buf, r)
	}
	return buf
}

// concatWSKernel is concat_ws(sep, s1, ...): NULL when sep is, NULL
// arguments skipped, the size checked before anything is built.
func concatWSKernel(env *Env, arrs []arrow.Array) (arrow.Array, bool, error) {
	ss, ok := asStrings(arrs)
	if !ok || len(ss) < 2 {
		return nil, false, nil
	}
	n := ss[0].Len()
	b := array.NewStringBuilder(env.Mem)
	defer b.Release()
	b.Reserve(n)
	var buf []byte
	var built int64
	for i := 0; i < n; i++ {
		if ss[0].IsNull(i) {
			b.AppendNull()
			continue
		}
		sep := ss[0].Value(i)
		parts, total := int64(0), int64(0)
		for _, s := range ss[1:] {
			if s.IsValid(i) {
				parts++
				total += int64(s.ValueLen(i))
			}
		}
		if parts > 1 {
			total += (parts - 1) * int64(len(sep))
		}
		if total > MaxStringBytes {
			return nil, false, tooLarge("concat_ws", total)
		}
		buf = buf[:0]
		first := true
		for _, s := range ss[1:] {
			if s.IsNull(i) {
				continue
			}
			if !first {
				buf = append(buf, sep...)
			}
			first = false
			buf = append(buf, s.Value(i)...)
		}
		if err := batchBytes("concat_ws", &built, len(buf)); err != nil {
			return nil, false, err
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray(), true, nil
}
