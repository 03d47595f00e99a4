package expr

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

func stringFunc(name string, args []Expr) (builder, bool) {
	b, ok := stringFuncRow(name, args)
	if !ok {
		return nil, false
	}
	if k := moreStringKernel(name); k != nil {
		return withRowVec(b, k), true
	}
	if name == "concat_ws" {
		return withVec(b, concatWSKernel), true
	}
	return b, true
}

// stringFuncRow builds the row-wise string functions; stringFunc attaches
// their typed kernels.
func stringFuncRow(name string, args []Expr) (builder, bool) {
	S, I := StringT(), Int64T()
	str := func(lo, hi int, types []arrow.DataType, ret arrow.DataType, fn func(v []any) any) builder {
		return func() (Expr, error) {
			if err := arity(name, args, lo, hi); err != nil {
				return nil, err
			}
			return strictFunc(name, args, types, ret, func(_ *Env, v []any) any { return fn(v) }), nil
		}
	}
	s := func(v []any, i int) string { return v[i].(string) }
	n := func(v []any, i int) int64 { return v[i].(int64) }
	switch name {
	case "concat":
		return withVec(str(1, -1, []arrow.DataType{S}, S, func(v []any) any {
			total := int64(0)
			for i := range v {
				total += int64(len(s(v, i)))
			}
			if total > MaxStringBytes {
				return tooLarge(name, total)
			}
			var sb strings.Builder
			sb.Grow(int(total))
			for i := range v {
				sb.WriteString(s(v, i))
			}
			return sb.String()
		}), concatKernel(name)), true
	case "concat_ws":
		return func() (Expr, error) {
			if err := arity(name, args, 2, -1); err != nil {
				return nil, err
			}
			f := strictFunc(name, args, []arrow.DataType{S}, S, func(_ *Env, v []any) any {
				if v[0] == nil {
					return nil
				}
				parts := make([]string, 0, len(v)-1)
				total := int64(0)
				for _, x := range v[1:] {
					if x != nil {
						parts = append(parts, x.(string))
						total += int64(len(x.(string)))
					}
				}
				if len(parts) > 1 {
					total += int64(len(parts)-1) * int64(len(v[0].(string)))
				}
				if total > MaxStringBytes {
					return tooLarge(name, total)
				}
				return strings.Join(parts, v[0].(string))
			})
			f.strict = false // NULL arguments after the separator are skipped
			return f, nil
		}, true
	case "upper", "ucase":
		return withVec(str(1, 1, []arrow.DataType{S}, S, func(v []any) any { return strings.ToUpper(s(v, 0)) }), caseKernel(name, true)), true
	case "lower", "lcase":
		return withVec(str(1, 1, []arrow.DataType{S}, S, func(v []any) any { return strings.ToLower(s(v, 0)) }), caseKernel(name, false)), true
	case "length", "octet_length":
		return withVec(str(1, 1, []arrow.DataType{S}, I, func(v []any) any { return int64(len(s(v, 0))) }), lengthKernel), true
	case "char_length", "character_length":
		return str(1, 1, []arrow.DataType{S}, I, func(v []any) any { return int64(utf8.RuneCountInString(s(v, 0))) }), true
	case "substr", "substring", "mid":
		return withVec(str(2, 3, []arrow.DataType{S, I, I}, S, func(v []any) any {
			l := int64(-1)
			if len(v) == 3 {
				if l = n(v, 2); l < 0 {
					return ""
				}
			}
			return substr(s(v, 0), n(v, 1), l)
		}), substrKernel(name)), true
	case "left":
		return str(2, 2, []arrow.DataType{S, I}, S, func(v []any) any { return substr(s(v, 0), 1, max(n(v, 1), 0)) }), true
	case "right":
		return str(2, 2, []arrow.DataType{S, I}, S, func(v []any) any {
			k := n(v, 1)
			if k <= 0 {
				return ""
			}
			r := []rune(s(v, 0))
			if int(k) >= len(r) {
				return string(r)
			}
			return string(r[len(r)-int(k):])
		}), true
	case "trim", "ltrim", "rtrim":
		return str(1, 2, []arrow.DataType{S}, S, func(v []any) any {
			cut := " "
			if len(v) == 2 {
				cut = s(v, 1)
			}
			x := s(v, 0)
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
		}), true
	case "replace":
		return str(3, 3, []arrow.DataType{S}, S, func(v []any) any {
			if s(v, 1) == "" {
				return s(v, 0)
			}
			if grow := len(s(v, 2)) - len(s(v, 1)); grow > 0 {
				total := int64(len(s(v, 0))) + int64(strings.Count(s(v, 0), s(v, 1)))*int64(grow)
				if total > MaxStringBytes {
					return tooLarge(name, total)
				}
			}
			return strings.ReplaceAll(s(v, 0), s(v, 1), s(v, 2))
		}), true
	case "lpad", "rpad":
		return str(3, 3, []arrow.DataType{S, I, S}, S, func(v []any) any {
			l := n(v, 1)
			if l < 0 {
				return nil
			}
			if l > MaxStringBytes {
				// Every character takes at least one byte: refuse before
				// counting characters of anything.
				return tooLarge(name, l)
			}
			x, pad := []rune(s(v, 0)), []rune(s(v, 2))
			if int64(len(x)) >= l {
				return string(x[:l])
			}
			if len(pad) == 0 {
				return ""
			}
			need := int(l) - len(x)
			// Bytes of the result: whole copies of pad plus a prefix of it.
			padBytes := int64(len(s(v, 2)))
			total := int64(len(s(v, 0))) + int64(need/len(pad))*padBytes + int64(len(string(pad[:need%len(pad)])))
			if total > MaxStringBytes {
				return tooLarge(name, total)
			}
			fill := make([]rune, 0, need)
			for len(fill) < need {
				fill = append(fill, pad[:min(len(pad), need-len(fill))]...)
			}
			if name == "lpad" {
				return string(fill) + string(x)
			}
			return string(x) + string(fill)
		}), true
	case "instr":
		return str(2, 2, []arrow.DataType{S}, I, func(v []any) any { return locate(s(v, 1), s(v, 0), 1) }), true
	case "locate", "position":
		return str(2, 3, []arrow.DataType{S, S, I}, I, func(v []any) any {
			pos := int64(1)
			if len(v) == 3 {
				pos = n(v, 2)
			}
			return locate(s(v, 0), s(v, 1), pos)
		}), true
	case "split_part":
		return str(3, 3, []arrow.DataType{S, S, I}, S, func(v []any) any {
			d, k := s(v, 1), n(v, 2)
			if d == "" || k == 0 {
				return nil
			}
			parts := strings.Split(s(v, 0), d)
			if k < 0 {
				k = int64(len(parts)) + k + 1
			}
			if k < 1 || k > int64(len(parts)) {
				return nil
			}
			return parts[k-1]
		}), true
	case "starts_with":
		return str(2, 2, []arrow.DataType{S}, BoolT(), func(v []any) any { return strings.HasPrefix(s(v, 0), s(v, 1)) }), true
	case "ends_with":
		return str(2, 2, []arrow.DataType{S}, BoolT(), func(v []any) any { return strings.HasSuffix(s(v, 0), s(v, 1)) }), true
	case "repeat":
		return str(2, 2, []arrow.DataType{S, I}, S, func(v []any) any {
			k, x := n(v, 1), s(v, 0)
			if k <= 0 || x == "" {
				return ""
			}
			if k > MaxStringBytes || int64(len(x))*k > MaxStringBytes {
				return tooLarge(name, satMul(int64(len(x)), k))
			}
			return strings.Repeat(x, int(k))
		}), true
	case "space":
		return str(1, 1, []arrow.DataType{I}, S, func(v []any) any {
			k := n(v, 0)
			if k <= 0 {
				return ""
			}
			if k > MaxStringBytes {
				return tooLarge(name, k)
			}
			return strings.Repeat(" ", int(k))
		}), true
	case "ascii":
		return str(1, 1, []arrow.DataType{S}, I, func(v []any) any {
			if s(v, 0) == "" {
				return int64(0)
			}
			return int64(s(v, 0)[0])
		}), true
	case "strcmp":
		return str(2, 2, []arrow.DataType{S}, I, func(v []any) any { return int64(strings.Compare(s(v, 0), s(v, 1))) }), true
	case "reverse":
		if len(args) == 1 && (args[0].DataType().ID() == arrow.LIST) {
			return nil, false // array form lives with the nested functions
		}
		return str(1, 1, []arrow.DataType{S}, S, func(v []any) any {
			r := []rune(s(v, 0))
			for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
				r[i], r[j] = r[j], r[i]
			}
			return string(r)
		}), true
	}
	return nil, false
}

// satMul is a*b for non-negative a and b, saturated at MaxInt64, so an error
// can report the size a caller asked for without overflowing.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// substr is MySQL SUBSTRING(s, pos, len) on characters: pos is 1-based,
// negative counts from the end, 0 gives ""; l = -1 means to the end.
func substr(s string, pos, l int64) string {
	r := []rune(s)
	n := int64(len(r))
	if pos == 0 || pos > n || pos < -n { // not -pos > n: -MinInt64 overflows
		return ""
	}
	start := pos - 1
	if pos < 0 {
		start = n + pos
	}
	end := n
	if l >= 0 {
		end = start + min(l, n-start) // not min(start+l, n): start+l can overflow
	}
	return string(r[start:end])
}

// locate returns the 1-based character position of sub in s at or after
// character pos, 0 if absent.
func locate(sub, s string, pos int64) int64 {
	if pos < 1 {
		return 0
	}
	r := []rune(s)
	if pos > int64(len(r))+1 {
		return 0
	}
	rest := string(r[pos-1:])
	k := strings.Index(rest, sub)
	if k < 0 {
		return 0
	}
	return pos + int64(utf8.RuneCountInString(rest[:k]))
}
