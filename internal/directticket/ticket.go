package directticket

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"
)

// magic starts every direct ticket; a BE's own FE tickets (a serialized
// Fragment, a protobuf message) never start with it: protobuf's first byte
// is a field tag, and 'I' (0x49) would be field 9 with wire type 1, which
// Fragment does not have as fixed64.
var magic = []byte("INLETDT1")

const headerLen = 8 + 8 + sha256.Size // magic, expiry, MAC

// Errors a BE reports (as Unauthenticated) for a bad ticket.
var (
	ErrNoSecret = errors.New("this BE has no cluster secret, so it takes no direct tickets")
	ErrInvalid  = errors.New("direct ticket is not valid (damaged, or not signed by this cluster's FE)")
	ErrExpired  = errors.New("direct ticket has expired")
)

// Is reports whether t is a direct ticket (not whether it is valid).
func Is(t []byte) bool { return bytes.HasPrefix(t, magic) }

// Sign returns a ticket for payload (a serialized fragment) valid until
// expiry.
func Sign(secret string, payload []byte, expiry time.Time) []byte {
	out := make([]byte, headerLen, headerLen+len(payload))
	copy(out, magic)
	binary.BigEndian.PutUint64(out[8:16], uint64(expiry.UnixMicro()))
	copy(out[16:headerLen], mac(secret, out[:16], payload))
	return append(out, payload...)
}

// Open checks t against secret and now, and returns its payload and expiry.
func Open(secret string, t []byte, now time.Time) ([]byte, time.Time, error) {
	if secret == "" {
		return nil, time.Time{}, ErrNoSecret
	}
	if len(t) < headerLen || !Is(t) {
		return nil, time.Time{}, ErrInvalid
	}
	payload := t[headerLen:]
	if !hmac.Equal(t[16:headerLen], mac(secret, t[:16], payload)) {
		return nil, time.Time{}, ErrInvalid
	}
	expiry := time.UnixMicro(int64(binary.BigEndian.Uint64(t[8:16])))
	if !now.Before(expiry) {
		return nil, time.Time{}, ErrExpired
	}
	return payload, expiry, nil
}

func mac(secret string, head, payload []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(head)
	h.Write(payload)
	return h.Sum(nil)
}
