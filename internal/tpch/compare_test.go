package tpch

import "testing"

func TestCompare(t *testing.T) {
	s := func(v string) *string { return &v }
	row := func(cells ...*string) [][]*string { return [][]*string{cells} }
	for _, c := range []struct {
		name      string
		got, want [][]*string
		agree     bool
	}{
		{"same text", row(s("ASIA"), s("1.50")), row(s("ASIA"), s("1.50")), true},
		{"decimal vs double at the printed scale", row(s("25.5122")), row(s("25.512233333")), true},
		{"off by more than the last printed digit", row(s("25.5122")), row(s("25.5135")), false},
		{"trailing zeros", row(s("3.00")), row(s("3")), true},
		{"a cent of a sum", row(s("1234.56")), row(s("1234.57")), false},
		{"exponent", row(s("1.5e-05")), row(s("0.000015")), true},
		{"NULL vs value", row(nil), row(s("0")), false},
		{"NULL vs NULL", row(nil), row(nil), true},
		{"text differs", row(s("FRANCE")), row(s("GERMANY")), false},
		{"row count", row(s("1")), nil, false},
	} {
		if d := Compare(c.got, c.want); (d == "") != c.agree {
			t.Errorf("%s: Compare = %q, want agree=%v", c.name, d, c.agree)
		}
	}
}
