package slt

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Render turns one value the driver returned (nil for NULL) into the text
// the reference harness compares, for the column type t ('I', 'R', 'T').
func Render(t byte, v string, null bool) string {
	if null {
		return "NULL"
	}
	switch t {
	case 'I':
		return strconv.FormatInt(toInt(v), 10)
	case 'R':
		return fmt.Sprintf("%.3f", toFloat(v))
	default:
		if len(v) == 0 {
			return "(empty)"
		}
		b := []byte(string(v))
		for i, c := range b {
			if c < ' ' || c > '~' {
				b[i] = '@'
			}
		}
		return string(b)
	}
}

// numericPrefix returns the longest prefix of s (after leading spaces)
// that reads as a decimal number, as C's strtod would consume it.
func numericPrefix(s string) string {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		frac := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			frac++
		}
		if digits+frac > 0 {
			i, digits = j, digits+frac
		}
	}
	if digits == 0 {
		return ""
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return s[:i]
}

// toInt converts like the harness's integer fetch: integers exactly, other
// numbers truncated toward zero (saturating), text by its numeric prefix,
// anything else 0.
func toInt(s string) int64 {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return n
	}
	p := numericPrefix(s)
	if p == "" {
		return 0
	}
	if n, err := strconv.ParseInt(p, 10, 64); err == nil {
		return n
	}
	f, _ := strconv.ParseFloat(p, 64)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func toFloat(s string) float64 {
	p := numericPrefix(s)
	if p == "" {
		return 0
	}
	f, _ := strconv.ParseFloat(p, 64)
	return f
}

// Arrange applies a record's sort mode to the rendered values (ncol per
// row), as the harness's qsort with rowCompare does.
func Arrange(vals []string, ncol int, mode string) {
	switch mode {
	case "rowsort":
		if ncol <= 0 || len(vals)%ncol != 0 {
			return
		}
		rows := make([][]string, len(vals)/ncol)
		for i := range rows {
			rows[i] = vals[i*ncol : (i+1)*ncol : (i+1)*ncol]
		}
		sorted := make([][]string, len(rows))
		copy(sorted, rows)
		sort.SliceStable(sorted, func(a, b int) bool {
			for k := 0; k < ncol; k++ {
				if c := strings.Compare(sorted[a][k], sorted[b][k]); c != 0 {
					return c < 0
				}
			}
			return false
		})
		out := make([]string, 0, len(vals))
		for _, r := range sorted {
			out = append(out, r...)
		}
		copy(vals, out)
	case "valuesort":
		sort.Strings(vals)
	}
}

// Hash is the harness's digest of a result: MD5 over every value followed
// by "\n", as lowercase hex.
func Hash(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashLine is the line a hashed result is compared as.
func HashLine(vals []string) string {
	return fmt.Sprintf("%d values hashing to %s", len(vals), Hash(vals))
}
