package directticket

import (
	"errors"
	"testing"
	"time"
)

func TestSignOpen(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	payload := []byte("\x0a\x03q-1 fragment bytes")
	tk := Sign("s3cret", payload, now.Add(time.Minute))
	if !Is(tk) {
		t.Fatal("a signed ticket is not recognised")
	}
	got, exp, err := Open("s3cret", tk, now)
	if err != nil || string(got) != string(payload) || !exp.Equal(now.Add(time.Minute)) {
		t.Fatalf("Open = %q, %v, %v", got, exp, err)
	}
	flip := func(i int) []byte {
		c := append([]byte(nil), tk...)
		c[i] ^= 1
		return c
	}
	for _, tc := range []struct {
		name   string
		secret string
		ticket []byte
		now    time.Time
		want   error
	}{
		{"other secret", "other", tk, now, ErrInvalid},
		{"no secret", "", tk, now, ErrNoSecret},
		{"expired", "s3cret", tk, now.Add(time.Minute), ErrExpired},
		{"payload altered", "s3cret", flip(len(tk) - 1), now, ErrInvalid},
		{"expiry altered", "s3cret", flip(10), now, ErrInvalid},
		{"mac altered", "s3cret", flip(20), now, ErrInvalid},
		{"truncated", "s3cret", tk[:headerLen-1], now, ErrInvalid},
		{"not a direct ticket", "s3cret", payload, now, ErrInvalid},
	} {
		if _, _, err := Open(tc.secret, tc.ticket, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func FuzzOpen(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	f.Add(Sign("k", []byte("payload"), now.Add(time.Hour)))
	f.Add([]byte("INLETDT1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, _, err := Open("k", b, now)
		if err == nil && string(Sign("k", p, time.UnixMicro(0))[headerLen:]) != string(p) {
			t.Fatal("payload round trip")
		}
	})
}
