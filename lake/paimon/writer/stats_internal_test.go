package writer

import "testing"

func TestTruncateBounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		min  string
		max  any
		desc string
	}{
		{"short", "short", "short", "16 characters or fewer stay whole"},
		{"0123456789abcdef", "0123456789abcdef", "0123456789abcdef", "exactly 16"},
		{"Two roads diverged in a yellow wood", "Two roads diverg", "Two roads diverh", "Java's observed example"},
		{"ééééééééééééééééé", "éééééééééééééééé", "éééééééééééééééê", "characters, not bytes"},
		{"abcdefghijklmno\U0010FFFFzz", "abcdefghijklmno\U0010FFFF", "abcdefghijklmnp", "the largest character cannot grow: bump the one before"},
		{"abcdefghijklmn\uD7FFzz", "abcdefghijklmn\uD7FFz", "abcdefghijklmn\uD7FF{", "bump the last"},
		{"abcdefghijklmno\uD7FFz", "abcdefghijklmno\uD7FF", "abcdefghijklmno\uE000", "surrogates are skipped"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffz", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffz", "not UTF-8: the whole value"},
	} {
		if got := truncateMin(tc.in); got != tc.min {
			t.Errorf("%s: min %q, want %q", tc.desc, got, tc.min)
		}
		got := truncateMax(tc.in)
		if got != tc.max {
			t.Errorf("%s: max %q, want %q", tc.desc, got, tc.max)
		}
		if s, ok := got.(string); ok && s < tc.in {
			t.Errorf("%s: max %q below the value", tc.desc, s)
		}
	}
	if got := truncateMax(string([]rune{0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF,
		0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 'a'})); got != nil {
		t.Errorf("no character can grow: max %q, want no bound", got)
	}
}
