package expr

import (
	"errors"
	"strings"
	"testing"
)

// The families Inlet has no types for are refused by name (issue 24:
// GIS, BITMAP, HLL, QUANTILE_STATE), not as an anonymous unknown function.
func TestUnsupportedFamiliesNamed(t *testing.T) {
	cases := []struct{ fn, family string }{
		{"st_point", "GIS"}, {"st_astext", "GIS"}, {"st_distance_sphere", "GIS"},
		{"to_bitmap", "BITMAP"}, {"bitmap_union", "BITMAP"}, {"bitmap_count", "BITMAP"}, {"orthogonal_bitmap_intersect", "BITMAP"},
		{"hll_hash", "HLL"}, {"hll_union_agg", "HLL"},
		{"to_quantile_state", "QUANTILE_STATE"}, {"quantile_percent", "QUANTILE_STATE"},
	}
	for _, c := range cases {
		_, err := Func(c.fn, Int(1))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.family) {
			t.Errorf("%s: err = %v, want ErrUnsupported naming %s", c.fn, err, c.family)
		}
	}
	if _, err := Func("no_such_function", Int(1)); err == nil || strings.Contains(err.Error(), "Doris's") {
		t.Errorf("an unknown function: err = %v", err)
	}
}
