package tpch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Numbers printed to different scales agree when they differ by at most one
// unit in the last digit the less precise of the two prints (Inlet computes money and averages in
// DECIMAL with Doris's result scales, DuckDB averages and ratios in DOUBLE),
// plus RelTolerance of their size for DOUBLE rounding.
const RelTolerance = 1e-9

// Compare reports the first difference between two answers (rows of text
// cells, nil for NULL), "" when they agree: the same number of rows in the
// same order, and per cell the same text, or numbers within the tolerance.
func Compare(got, want [][]*string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for r := range want {
		if len(got[r]) != len(want[r]) {
			return fmt.Sprintf("row %d: %d columns, want %d", r+1, len(got[r]), len(want[r]))
		}
		for c := range want[r] {
			g, w := got[r][c], want[r][c]
			if !cellsAgree(g, w) {
				return fmt.Sprintf("row %d column %d: %s, want %s", r+1, c+1, show(g), show(w))
			}
		}
	}
	return ""
}

func cellsAgree(g, w *string) bool {
	if g == nil || w == nil {
		return g == nil && w == nil
	}
	a, b := strings.TrimSpace(*g), strings.TrimSpace(*w)
	if a == b {
		return true
	}
	x, errX := strconv.ParseFloat(a, 64)
	y, errY := strconv.ParseFloat(b, 64)
	if errX != nil || errY != nil {
		return false
	}
	// Printed to the same scale, the numbers must be equal: a cent of a sum
	// is a wrong answer.
	unit := 0.0
	if da, db := decimals(a), decimals(b); da != db {
		unit = math.Pow(10, -float64(min(da, db)))
	}
	return math.Abs(x-y) <= unit+RelTolerance*math.Max(math.Abs(x), math.Abs(y))
}

// decimals is the number of digits after the point of a printed number (in
// a mantissa with an exponent, the digits it stands for).
func decimals(s string) int {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	n := 0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		n = len(frac)
	}
	if hasExp {
		e, err := strconv.Atoi(exp)
		if err == nil {
			n -= e
		}
	}
	return max(n, 0)
}

func show(s *string) string {
	if s == nil {
		return "NULL"
	}
	return strconv.Quote(*s)
}
