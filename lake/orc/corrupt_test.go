package orc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRefusals: damaged or unknown files fail with the package's error kinds
// and messages that name the file and the place.
func TestRefusals(t *testing.T) {
	cols := testColumns()[:4]
	good := writeORC(t, cols, 300, wopts{stripeRows: 100})
	tests := []struct {
		name    string
		data    []byte
		kind    error
		mention []string
	}{
		{"version 2", writeORC(t, cols, 10, wopts{version: []byte{2, 0}}), ErrVersion, []string{"version 2.0"}},
		{"empty postscript length", append(append([]byte(nil), good[:len(good)-1]...), 0), ErrCorrupt, []string{"postscript length 0"}},
		{"head cut", good[100:], ErrCorrupt, []string{"lies outside the data area"}},
		{"stripe data zeroed", func() []byte {
			b := append([]byte(nil), good...)
			for i := 3; i < 60; i++ {
				b[i] = 0xff
			}
			return b
		}(), ErrCorrupt, []string{"stripe 0 column"}},
		{"too small", []byte("OR"), ErrCorrupt, []string{"too small"}},
		{"no magic", append([]byte("XYZ"), good[3:]...), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(bytes.NewReader(tc.data), int64(len(tc.data)), WithName("bad.orc"))
			if err == nil {
				_, err = countRows(f, ReadOptions{})
			}
			if tc.kind == nil {
				if err != nil {
					t.Fatalf("the postscript magic suffices, got %v", err)
				}
				return
			}
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err %v, want %v", err, tc.kind)
			}
			for _, m := range append(tc.mention, "bad.orc") {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
	f, err := Open(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewRecordReader(context.Background(), ReadOptions{Stripes: []int{3}}); err == nil || !strings.Contains(err.Error(), "stripe 3 out of range") {
		t.Errorf("stripe 3: %v", err)
	}
}
